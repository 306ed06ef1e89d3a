// The page's handle on Python: one module worker per visit, requests with ids, Stop, and restarts.
//
// The messages are described in protocol.js.
import { bootName, INPUT, REQUEST } from "./protocol.js";

const STOP_GRACE_MS = 1000; // how long an interrupt may take before the worker is replaced
const BOOT_TIMEOUT_MS = 120000;
const SNAPSHOT_BOOT_MS = 20000; // a start from the stored snapshot takes a second or two; damaged, it may hang

/** Raised to callers while Python could not start (the next request tries again). */
export class StartFailed extends Error {
  constructor(cause) {
    super(`Python could not start: ${cause.message || cause}`);
    this.name = "StartFailed";
  }
}

/** Raised to callers whose request was cut short by a restart. */
export class RuntimeRestarted extends Error {
  constructor(reason) {
    super(reason);
    this.name = "RuntimeRestarted";
  }
}

export class Runtime extends EventTarget {
  constructor(workerUrl) {
    super();
    this.workerUrl = workerUrl;
    this.nextId = 1;
    this.pending = new Map();
    this.state = "off";
    this.stateDetail = {};
    const isolated = typeof SharedArrayBuffer !== "undefined" && self.crossOriginIsolated;
    this.interrupts = isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    this.input = isolated ? new SharedArrayBuffer(INPUT.TEXT_AT + INPUT.BYTES) : null;
    this.asking = null; // the request whose input() waits for the learner
    this.ready = null;
    this.bootSeconds = null;
    this.bootInfo = null; // what the last boot answered: { seconds, phases, start, fallback, ... }
    this.snapshot = "use"; // how the next boot uses the stored memory snapshot: use, none, off, drop (worker.js)
  }

  /** True when Stop can interrupt Python in place (the page is cross-origin isolated). */
  get canInterrupt() {
    return this.interrupts !== null;
  }

  setState(state, detail = {}) {
    this.state = state;
    this.stateDetail = detail; // for page code that starts watching later (a download's progress so far)
    this.dispatchEvent(new CustomEvent("state", { detail: { state, ...detail } }));
  }

  /** Start the worker and boot Python; resolves when Python is ready. After a failed start, starts again. */
  start() {
    if (this.ready && this.state !== "failed") return this.ready;
    this.worker?.terminate();
    this.setState("starting");
    // The worker starts booting from its name; the boot request below (this id) brings the shared buffers.
    this.worker = new Worker(this.workerUrl, { type: "module", name: bootName(this.nextId, this.snapshot) });
    this.worker.onmessage = ({ data }) => this.settle(data);
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.restart("Python stopped unexpectedly");
    };
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

  send(type, payload, onProgress = null, onAsk = null) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, type, onProgress, onAsk });
      this.worker.postMessage({ id, type, payload });
    });
  }

  settle({ id, ok, result, error, kind, fatal, progress, ask }) {
    const waiting = this.pending.get(id);
    if (!waiting) return;
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

  hasWork() {
    return [...this.pending.values()].some((item) => item.type !== REQUEST.BOOT);
  }

  /** Give a waiting input() its answer (a string), or cancel it (null). */
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

  /** Send a request once Python is ready; the page shows "running" until it settles. */
  async request(type, payload, { onProgress = null, onAsk = null } = {}) {
    await this.start();
    if (this.interrupts) this.interrupts[0] = 0;
    this.setState("running");
    return this.send(type, payload, onProgress, onAsk);
  }

  /**
   * Run an example cell: payload { page, lab, exact, pieces, code }. onProgress gets items drawn while
   * it runs; onAsk(prompt) answers its input() with a promise of a string (or null to cancel).
   */
  run(payload, onProgress = null, onAsk = null) {
    return this.request(REQUEST.RUN, payload, { onProgress, onAsk });
  }

  /** Run a lesson's checks: payload { lab, pieces }. */
  check(payload) {
    return this.request(REQUEST.CHECK, payload);
  }

  /** The learner's files as a lab starts: payload { lab, exact, pieces }. */
  module(payload) {
    return this.request(REQUEST.MODULE, payload);
  }

  /** The finished pieces to load for a lab's earlier gaps: payload { lab, exact, pieces, replace_own }. */
  earlier(payload) {
    return this.request(REQUEST.EARLIER, payload);
  }

  /** What the notebook changed in the learner's files, gap by gap: payload { before, now: {file: source} }. */
  edits(payload) {
    return this.request(REQUEST.EDITS, payload);
  }

  /** True when a request failed because Python was restarted under it (the learner's code is safe). */
  wasRestarted(error) {
    return error instanceof RuntimeRestarted;
  }

  /** Stop whatever runs: interrupt it if possible, otherwise (or if that fails) restart Python. */
  async stop() {
    if (!this.hasWork()) return "idle";
    const settled = new Promise((resolve) => {
      const check = () => (this.hasWork() ? setTimeout(check, 20) : resolve(true));
      check();
    });
    if (this.interrupts) {
      // An input() waiting for the learner gives up and raises KeyboardInterrupt itself; anything
      // else gets SIGINT, and Python raises KeyboardInterrupt at its next instruction.
      if (this.asking !== null) this.answer(this.asking, null);
      else this.interrupts[0] = 2;
      const stopped = await Promise.race([settled, sleep(STOP_GRACE_MS).then(() => false)]);
      if (stopped) return "interrupted";
    }
    this.restart("Stopped: Python was restarted");
    return "restarted";
  }

  /** Replace the worker with a fresh one; every waiting request is rejected with RuntimeRestarted. */
  restart(reason) {
    clearTimeout(this.snapshotWatch);
    if (this.worker) this.worker.terminate();
    this.asking = null;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const item of waiting) item.reject(new RuntimeRestarted(reason));
    this.ready = null;
    this.dispatchEvent(new CustomEvent("restarted", { detail: { reason } }));
    this.start();
  }
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout(promise, ms, message) {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(message)))]);
}
