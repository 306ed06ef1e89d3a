// @ts-check
// The page's handle on Python: one module worker per visit, requests with ids, Stop, and restarts.
//
// The messages are described in protocol.js.
import { answerFits, bootName, INPUT, isWorkerMessage, REQUEST } from "./protocol.js";

// How long a stopped run may take to end (its own clean-up: except KeyboardInterrupt, finally) before the page
// offers to restart Python. It is never restarted for taking long: a slow device's clean-up may take seconds.
export const STOP_PATIENCE_MS = 10000;
const BOOT_TIMEOUT_MS = 120000;
const SNAPSHOT_BOOT_MS = 20000; // a start from the stored snapshot takes a second or two; damaged, it may hang

/**
 * @typedef {import("./protocol.js").SnapshotUse} SnapshotUse
 * @typedef {import("./protocol.js").Problem} Problem
 * @typedef {import("./protocol.js").OutputItem} OutputItem
 * @typedef {import("./protocol.js").Work} Work
 * @typedef {import("./protocol.js").BootInfo} BootInfo
 *
 * A request waiting for its answer, with what to do with its progress and its input() prompts.
 * @typedef {{
 *   resolve: (result: any) => void, reject: (error: Error) => void, type: string,
 *   onProgress: ((progress: any) => void) | null, onAsk: ((prompt: string) => any) | null,
 * }} Pending
 *
 * The answer to input() in a cell: the text, or null to cancel.
 * @typedef {(prompt: string) => Promise<string | null> | string | null} Asker
 */

/** Raised to callers while Python could not start (the next request tries again). */
export class StartFailed extends Error {
  /** @param {Error} cause */
  constructor(cause) {
    super(`Python could not start: ${cause.message || cause}`);
    this.name = "StartFailed";
  }
}

/** Raised to callers whose request was cut short by a restart. */
export class RuntimeRestarted extends Error {
  /** @param {string} reason */
  constructor(reason) {
    super(reason);
    this.name = "RuntimeRestarted";
  }
}

/**
 * Python for the page: a worker that boots Pyodide and answers requests. It dispatches "state" events (detail:
 * { state, ...detail }: "off", "starting", "ready", "running" or "failed") and "restarted" ones (detail: { reason }).
 */
export class Runtime extends EventTarget {
  /** @param {string} workerUrl */
  constructor(workerUrl) {
    super();
    this.workerUrl = workerUrl;
    /** @type {Worker | null} */
    this.worker = null;
    this.nextId = 1;
    /** @type {Map<number, Pending>} */
    this.pending = new Map();
    this.state = "off";
    /** @type {Record<string, any>} */
    this.stateDetail = {};
    const isolated = typeof SharedArrayBuffer !== "undefined" && self.crossOriginIsolated;
    this.interrupts = isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    this.input = isolated ? new SharedArrayBuffer(INPUT.TEXT_AT + INPUT.BYTES) : null;
    /** @type {number | null} */
    this.asking = null; // the request whose input() waits for the learner
    /** @type {Promise<BootInfo> | null} */
    this.ready = null;
    /** @type {number | null} */
    this.bootSeconds = null;
    /** @type {BootInfo | null} */
    this.bootInfo = null; // what the last boot answered: { seconds, phases, start, fallback, ... }
    /** @type {SnapshotUse} */
    this.snapshot = "use"; // how the next boot uses the stored memory snapshot: use, none, off, drop (worker.js)
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.snapshotWatch = undefined;
    this.restarts = 0; // how many times Python was replaced: what ran before the last one is gone
  }

  /** True when Stop can interrupt Python in place (the page is cross-origin isolated). */
  get canInterrupt() {
    return this.interrupts !== null;
  }

  /**
   * @param {string} state
   * @param {Record<string, any>} [detail]
   */
  setState(state, detail = {}) {
    this.state = state;
    this.stateDetail = detail; // for page code that starts watching later (a download's progress so far)
    this.dispatchEvent(new CustomEvent("state", { detail: { state, ...detail } }));
  }

  /**
   * Start the worker and boot Python; resolves when Python is ready. After a failed start, starts again.
   *
   * @returns {Promise<BootInfo>}
   */
  start() {
    if (this.ready && this.state !== "failed") return this.ready;
    this.worker?.terminate();
    this.setState("starting");
    // The worker starts booting from its name; the boot request below (this id) brings the shared buffers.
    this.worker = new Worker(this.workerUrl, { type: "module", name: bootName(this.nextId, this.snapshot) });
    // The learner's code runs in the worker and may post anything: what has no shape of protocol.js's is dropped.
    this.worker.onmessage = ({ data }) => {
      if (isWorkerMessage(data)) this.settle(data);
    };
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.restart("Python stopped unexpectedly");
    };
    /** @param {Record<string, any>} progress */
    const onProgress = (progress) => {
      if (progress.phase === "restoring") this.watchSnapshotStart();
      if (this.state === "starting") this.setState("starting", progress);
    };
    const boot = this.send(
      REQUEST.BOOT,
      { interruptBuffer: this.interrupts, inputBuffer: this.input, snapshot: this.snapshot },
      onProgress,
    );
    this.ready = withTimeout(boot, BOOT_TIMEOUT_MS, "its start took more than two minutes").then(
      (info) => {
        clearTimeout(this.snapshotWatch);
        this.bootSeconds = info.seconds;
        this.bootInfo = info;
        if (this.snapshot === "drop") this.snapshot = "use"; // a new snapshot may be made now
        this.setState("ready", info);
        return info;
      },
      (error) => {
        clearTimeout(this.snapshotWatch);
        if (error instanceof RuntimeRestarted) throw error;
        if (this.snapshot !== "use" || error.kind === "download") throw new StartFailed(error);
        // Whatever went wrong, one more try without the snapshot (the worker already falls back to a
        // normal start by itself; this covers a worker that could not even do that).
        this.snapshot = "drop";
        this.restart("Python failed to start from its snapshot");
        return this.ready;
      },
    );
    this.ready.catch((error) => {
      if (!(error instanceof RuntimeRestarted)) this.setState("failed", { error: String(error.message || error) });
    });
    return this.ready;
  }

  /** A start from the stored snapshot that does not finish in time is replaced by a normal one. */
  watchSnapshotStart() {
    clearTimeout(this.snapshotWatch);
    this.snapshotWatch = setTimeout(() => {
      if (this.state !== "starting") return;
      this.snapshot = "drop";
      this.restart("Python's start from its snapshot did not finish; it starts normally instead");
    }, SNAPSHOT_BOOT_MS);
  }

  /**
   * Boot a second, short-lived worker that imports the course and stores a memory snapshot of it, so
   * later starts skip most of Python's start. Run it when Python is idle; resolves with its report.
   */
  async makeSnapshot() {
    const worker = new Worker(this.workerUrl, { type: "module" });
    try {
      return await withTimeout(
        new Promise((resolve, reject) => {
          worker.onmessage = ({ data }) => {
            if (data.progress) return;
            if (data.ok) resolve(data.result);
            else reject(new Error(data.error));
          };
          worker.onerror = (event) => {
            event.preventDefault?.();
            reject(new Error(event.message || "the snapshot worker failed"));
          };
          worker.postMessage({ id: 1, type: REQUEST.BOOT, payload: { interruptBuffer: null, snapshot: "make" } });
        }),
        BOOT_TIMEOUT_MS,
        "making the snapshot took too long",
      );
    } finally {
      worker.terminate();
    }
  }

  /**
   * Post a request to the worker; resolves with its answer.
   *
   * @param {string} type  one of REQUEST's
   * @param {object} payload
   * @param {((progress: any) => void) | null} [onProgress]
   * @param {Asker | null} [onAsk]
   * @returns {Promise<any>}
   */
  send(type, payload, onProgress = null, onAsk = null) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, type, onProgress, onAsk });
      /** @type {Worker} */ (this.worker).postMessage({ id, type, payload });
    });
  }

  /**
   * Take a message from the worker: an answer, a failure, progress or an input() prompt (protocol.js).
   *
   * @param {{
   *   id: number, ok?: boolean, result?: any, error?: string, kind?: string, fatal?: boolean, progress?: any,
   *   ask?: string,
   * }} message
   */
  settle({ id, ok, result, error, kind, fatal, progress, ask }) {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    if (ok && !answerFits(waiting.type, result)) return; // made up: the real answer still comes
    if (progress) {
      if (waiting.onProgress) waiting.onProgress(progress);
      return;
    }
    if (ask !== undefined) {
      this.asking = id;
      Promise.resolve(waiting.onAsk ? waiting.onAsk(ask) : null).then((answer) => this.answer(id, answer));
      return;
    }
    this.pending.delete(id);
    if (ok) waiting.resolve(result);
    else if (fatal) {
      const reason = `Python crashed (${error}); this can happen with very deep recursion. Python was restarted`;
      waiting.reject(new RuntimeRestarted(reason));
      this.restart(reason);
    } else waiting.reject(Object.assign(new Error(error), { kind }));
    if (!fatal && this.state === "running" && !this.hasWork()) this.setState("ready");
  }

  /** True while a request other than the boot waits for its answer. */
  hasWork() {
    return [...this.pending.values()].some((item) => item.type !== REQUEST.BOOT);
  }

  /**
   * Give a waiting input() its answer (a string), or cancel it (null).
   *
   * @param {number} id  the request whose input() waits
   * @param {string | null} text
   */
  answer(id, text) {
    if (this.asking !== id || !this.input) return;
    this.asking = null;
    const state = new Int32Array(this.input, 0, 2);
    if (typeof text === "string") {
      const bytes = new TextEncoder().encode(text).slice(0, INPUT.BYTES);
      new Uint8Array(this.input, INPUT.TEXT_AT).set(bytes);
      Atomics.store(state, INPUT.LENGTH, bytes.length);
      Atomics.store(state, INPUT.STATE, INPUT.ANSWERED);
    } else Atomics.store(state, INPUT.STATE, INPUT.CANCELLED);
    Atomics.notify(state, INPUT.STATE);
  }

  /**
   * Send a request once Python is ready; the page shows "running" until it settles.
   *
   * @param {string} type  one of REQUEST's
   * @param {object} payload
   * @param {{ onProgress?: ((progress: any) => void) | null, onAsk?: Asker | null }} [handlers]
   * @returns {Promise<any>}
   */
  async request(type, payload, { onProgress = null, onAsk = null } = {}) {
    await this.start();
    if (this.interrupts) this.interrupts[0] = 0;
    this.setState("running");
    return this.send(type, payload, onProgress, onAsk);
  }

  /**
   * Run an example cell: payload { page, lab, exact, pieces, code }. onProgress gets items drawn while
   * it runs; onAsk(prompt) answers its input() with a promise of a string (or null to cancel).
   *
   * @param {Work & { page: string, lab: string, code: string, room: number }} payload
   * @param {((item: OutputItem) => void) | null} [onProgress]
   * @param {Asker | null} [onAsk]
   * @returns {Promise<import("./protocol.js").RunAnswer>}
   */
  run(payload, onProgress = null, onAsk = null) {
    return this.request(REQUEST.RUN, payload, { onProgress, onAsk });
  }

  /**
   * Run a lesson's checks: payload { lab, exact, pieces }.
   *
   * @param {Work & { lab: string }} payload
   * @returns {Promise<import("./protocol.js").CheckReport>}
   */
  check(payload) {
    return this.request(REQUEST.CHECK, payload);
  }

  /**
   * The learner's files as a lab starts: payload { lab, exact, pieces }.
   *
   * @param {Work & { lab: string }} payload
   * @returns {Promise<import("./protocol.js").ModuleAnswer>}
   */
  module(payload) {
    return this.request(REQUEST.MODULE, payload);
  }

  /**
   * The finished pieces to load for a lab's earlier gaps: payload { lab, exact, pieces, replace_own, gaps? }.
   *
   * @param {Work & { lab: string, replace_own: boolean, gaps?: string[] }} payload
   * @returns {Promise<import("./protocol.js").EarlierAnswer>}
   */
  earlier(payload) {
    return this.request(REQUEST.EARLIER, payload);
  }

  /**
   * What the notebook changed in the learner's files, gap by gap: payload { before, now: {file: source} }.
   *
   * @param {{ before: Record<string, string>, now: Record<string, string> }} payload
   * @returns {Promise<import("./protocol.js").EditsAnswer>}
   */
  edits(payload) {
    return this.request(REQUEST.EDITS, payload);
  }

  /**
   * The learner's whole saved state as one work file: payload { state, version, today }.
   *
   * @param {{ state: import("./protocol.js").State, version: string, today: string }} payload
   * @returns {Promise<import("./protocol.js").SaveWorkAnswer>}
   */
  saveWork(payload) {
    return this.request(REQUEST.SAVE_WORK, payload);
  }

  /**
   * What files the learner chose would change in the saved state, and the changes: payload { state, files,
   * keep_mine } (keep_mine: the gaps whose code here stays).
   *
   * @param {{ state: import("./protocol.js").State, files: import("./protocol.js").GivenFile[], keep_mine: string[] }} payload
   * @returns {Promise<import("./protocol.js").ReadWorkAnswer>}
   */
  readWork(payload) {
    return this.request(REQUEST.READ_WORK, payload);
  }

  /**
   * True when a request failed because Python was restarted under it (the learner's code is safe).
   *
   * @param {unknown} error
   * @returns {error is RuntimeRestarted}
   */
  wasRestarted(error) {
    return error instanceof RuntimeRestarted;
  }

  /**
   * Ask the running code to stop in place: Python raises KeyboardInterrupt at its next instruction (an input()
   * waiting for the learner gives up and raises it itself). False where the page cannot interrupt in place.
   *
   * @returns {boolean}
   */
  interrupt() {
    if (!this.interrupts || !this.hasWork()) return false;
    if (this.asking !== null) this.answer(this.asking, null);
    else this.interrupts[0] = 2;
    return true;
  }

  /**
   * Stop whatever runs. Where Python can be interrupted in place, it is, and this waits for the code's own
   * clean-up (except KeyboardInterrupt, finally) to end, however long it takes; ``onSlow`` is called once if
   * the run has not ended after STOP_PATIENCE_MS, so that the page can offer a restart (``restart``). Where
   * it cannot, Python is restarted at once.
   *
   * @param {(() => void) | null} [onSlow]
   * @returns {Promise<"idle" | "interrupted" | "restarted">}
   */
  async stop(onSlow = null) {
    if (!this.hasWork()) return "idle";
    if (!this.interrupt()) {
      this.restart("Stopped: Python was restarted");
      return "restarted";
    }
    const generation = this.restarts;
    const slow = setTimeout(() => onSlow?.(), STOP_PATIENCE_MS);
    await new Promise((resolve) => {
      const check = () => (this.hasWork() ? setTimeout(check, 20) : resolve(true));
      check();
    });
    clearTimeout(slow);
    return this.restarts === generation ? "interrupted" : "restarted";
  }

  /**
   * Replace the worker with a fresh one; every waiting request is rejected with RuntimeRestarted.
   *
   * @param {string} reason
   */
  restart(reason) {
    clearTimeout(this.snapshotWatch);
    if (this.worker) this.worker.terminate();
    this.asking = null;
    this.restarts += 1;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const item of waiting) item.reject(new RuntimeRestarted(reason));
    this.ready = null;
    this.dispatchEvent(new CustomEvent("restarted", { detail: { reason } }));
    this.start();
  }
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The promise, or a failure with ``message`` if it takes more than ``ms``.
 *
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} message
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms, message) {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(message)))]);
}
