// Python in a module worker: boots Pyodide from same-origin files and answers the page's requests.
// Requests and replies follow web/src/protocol.js; Python never runs on the page's main thread.

import { bootDownloads, DownloadFailed, quietAboutFailedDownloads, urlOf } from "./downloads.js";
import { bootFromName, INPUT, REQUEST } from "./protocol.js";
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { startSteps } from "./python-start.js";
import { dropSnapshot, readSnapshot, storedKey, writeSnapshot } from "./snapshot.js";
import { unpackZip } from "./unzip.js";
import WORKER_START from "./worker_start.py"; // as text (web/build.mjs)

const base = new URL("./", import.meta.url);
let pyodide = null;
let session = null;
let inputBuffer = null; // shared with the page when it is cross-origin isolated: input() can wait on it
let wheelsIn = Promise.resolve(); // settles once the wheels are unpacked, after the boot has answered

const SNAPSHOT_FORMAT = 5; // change it when what runs before a snapshot changes, or how it is stored
const PROGRESS_MS = 100;

/**
 * Boot Pyodide with the course's Python and open a Session.
 *
 * payload.snapshot: "use" starts from the stored memory snapshot when there is one for this Pyodide
 * and course; "none" is "use" when the page knows of no stored snapshot (no look in storage); "off" never
 * reads or stores one (the learner keeps nothing in this browser); "make" stores one and stops there (a
 * background worker does this): the build's, or one made here by a normal start and the course's import
 * when the build made none; "drop" forgets the stored one first and starts normally (an earlier start
 * from a snapshot never finished); "fresh" starts normally, touching no snapshot. Without a stored snapshot,
 * "use", "none" and "off" start from the build's (manifest.snapshot: Python's memory with the course
 * imported, made at build time by web/make-snapshot.mjs). A start from a snapshot that fails falls back to
 * a normal start.
 * While it boots it reports { phase: "downloading", loaded, total } and { phase: "starting" }.
 * buffers: a promise of the boot request's { interruptBuffer, inputBuffer }, awaited once Pyodide is in.
 */
async function boot(snapshot, id, buffers) {
  const started = performance.now();
  const phases = {};
  const mark = (name) => {
    phases[name] = Math.round(performance.now() - started);
    performance.mark(`boot: ${name}`); // for bench/site.py's timelines
  };
  let restoring = false; // starting from the stored memory snapshot: a saved copy, whatever the files' way
  const tell = (progress) =>
    self.postMessage({ id, progress: { kind: "boot", ...progress, saved: Boolean(progress.saved || restoring) } });
  // The manifest, the wheels and the course's Python download while Pyodide starts. Each is awaited
  // where it is needed; a boot that fails before that must not leave them as uncaught errors.
  const downloads = bootDownloads(self.fetch);
  const meter = meterDownloads(tell, downloads.fetch);
  const unwatch = downloads.watch();
  const download = (path) => downloads.read(new URL(path, base).href, (url) => self.fetch(url)); // counted
  const manifest = download("manifest.json").then((bytes) => JSON.parse(new TextDecoder().decode(bytes)));
  manifest.then((info) => meter.know(info)).catch(() => null);
  const wheels = manifest.then(({ wheels: names }) => Promise.all(names.map((name) => download(`wheels/${name}`))));
  const archive = manifest.then(({ bundle }) => download(bundle));
  for (const promise of [manifest, wheels, archive]) promise.catch(() => null);
  const keyed = snapshot === "use" ? storedKey().catch(() => null) : null; // while the manifest comes
  const keyOf = (info) => `${info.pyodide}/${info.version}/${SNAPSHOT_FORMAT}`;

  /**
   * Start Python (from `stored`, a promise of snapshot bytes, or normally), unpack the course's files, open the
   * session.
   */
  async function open(stored) {
    // The standard library with its modules a start imports already compiled (scripts/build_site.py).
    const options = { indexURL: new URL("pyodide/", base).href, stdLibURL: new URL("py/stdlib.zip", base).href };
    if (stored) options._loadSnapshot = stored;
    if (snapshot === "make") options._makeSnapshot = true;
    // A download that failed for good ends the start at once (Pyodide would wait for a wasm file for ever).
    pyodide = await Promise.race([loadPyodide(options), downloads.failure]);
    mark("pyodide");
    meter.stop(); // Python is in: a download's last report, read late through its clone, must not follow this
    tell({ phase: "starting", saved: meter.saved() });
    const { interruptBuffer, inputBuffer: shared } = await buffers;
    inputBuffer = shared || null;
    if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
    // sys.stdin is not the page: reading it fails at once, without prompt(). (Not in the worker that
    // makes a snapshot: it keeps nothing of JavaScript's, and every start sets this again.)
    if (snapshot !== "make") pyodide.setStdin({ error: true });
    const unpackWheels = async (python) => {
      for (const wheel of await wheels) python.unpackArchive(wheel, "wheel"); // into site-packages
    };
    // Nothing imports the wheels' modules on the way to ready (graphviz waits for the first drawing; from
    // a snapshot they are imported already): their files go in right after the boot's answer, and every
    // request waits for that.
    if (snapshot === "make") await unpackWheels(pyodide);
    else {
      await wheels; // downloaded (they came alongside Pyodide's files): the meter is done
      const python = pyodide;
      wheelsIn = new Promise((resolve) => setTimeout(resolve)).then(() => unpackWheels(python)).catch(() => null);
    }
    const { folder } = await manifest;
    unpackZip(pyodide.FS, new Uint8Array(await archive), folder);
    mark("files");
    const steps = startSteps(pyodide, WORKER_START);
    try {
      if (!stored) steps.importCourse(folder);
      mark("imports");
      if (snapshot === "make") {
        steps.prepareSnapshot();
        mark("prepared");
        return null;
      }
      session = steps.openSession();
      // Why input() cannot wait, where it cannot: the host sent no isolation headers, or the page is isolated
      // and this browser still shares no memory with its worker (labs/frontends/session.py says which).
      if (!inputBuffer) session.input_missing = self.crossOriginIsolated ? "browser" : "headers";
    } finally {
      steps.destroy(); // before a snapshot is made: it holds nothing of the start's
    }
    if (interruptBuffer) watchThroughInterrupts(pyodide, interruptBuffer);
    mark("session");
    return session;
  }

  let start = "fresh";
  let fallback = null;
  let snapshotBytes = null;
  /**
   * Start from a snapshot (a promise of its bytes); answer whether Python started. A failure is noted as the
   * fallback's reason and leaves Python to a normal start, but the network's fault ends the boot.
   */
  const openFrom = async (bytes) => {
    try {
      await open(bytes);
      return true;
    } catch (error) {
      if (error instanceof DownloadFailed) throw error; // the network's fault: the snapshot is kept
      fallback = String(error?.message ? error.message : error).split("\n")[0];
      pyodide = session = null;
      return false;
    }
  };
  try {
    if (snapshot === "drop") {
      // The page gave up on a start from the stored snapshot (it did not finish): forget it.
      await dropSnapshot().catch(() => null);
      fallback = "the start from the stored snapshot did not finish";
    }
    const key = keyed ? keyOf(await manifest) : null; // without one to look for, Pyodide starts at once
    if (keyed && (await keyed) === key) {
      // another version's snapshot is no use
      restoring = true;
      tell({ phase: "restoring" }); // the page watches that this start finishes (damaged memory may hang)
      // Pyodide reads the bytes while it fetches and compiles its wasm: hand it the promise.
      const bytes = readSnapshot(key).then((read) => {
        mark("snapshot read");
        return read;
      });
      if (await openFrom(bytes)) start = "snapshot";
      else await dropSnapshot().catch(() => null);
    }
    // Python's memory with the course imported, made by the build ("drop" and "fresh" start normally at once).
    const built = ["use", "none", "off", "make"].includes(snapshot) ? (await manifest).snapshot : null;
    if (!pyodide && built && snapshot !== "make") {
      // A first start here: from the build's snapshot.
      restoring = false; // downloaded, not a saved copy (unless the files' way says so)
      meter.expect(built.path, built.size);
      const bytes = download(built.path).then((zipped) => {
        mark("snapshot downloaded");
        tell({ phase: "restoring" }); // the page watches that this start finishes, from now on
        return unzipped(zipped);
      });
      bytes.catch(() => null); // Pyodide gets the failure; nothing else waits for it
      if (await openFrom(bytes)) start = "built";
    }
    // To store: the build's bytes, without starting Python here; a damaged download, one made here instead.
    let made =
      snapshot === "make" && built
        ? await download(built.path)
            .then(unzipped)
            .catch(() => null)
        : null;
    if (made) start = "built";
    else if (!pyodide) {
      restoring = false;
      await open(null);
    }
    if (snapshot === "make") {
      if (!made) {
        made = pyodide.makeMemorySnapshot();
        mark("snapshot made");
      }
      await writeSnapshot(keyOf(await manifest), made);
      mark("snapshot stored");
      snapshotBytes = made.byteLength;
    }
  } finally {
    meter.stop();
    unwatch();
  }
  const { version } = await manifest;
  return {
    seconds: (performance.now() - started) / 1000,
    phases,
    version,
    python: pyodide ? pyodide.version : null, // none in a worker that only stored the build's snapshot
    start: fallback ? "fallback" : start,
    fallback,
    snapshotBytes,
  };
}

/**
 * The bytes of a gzipped snapshot (web/make-snapshot.mjs). A host that sent it with its own gzip encoding has
 * had the browser unzip it already: bytes that do not start as gzip does are taken as they are.
 *
 * @param {ArrayBuffer} zipped
 * @returns {Promise<Uint8Array>}
 */
async function unzipped(zipped) {
  const head = new Uint8Array(zipped, 0, Math.min(2, zipped.byteLength));
  if (head[0] !== 0x1f || head[1] !== 0x8b) return new Uint8Array(zipped);
  const stream = new Blob([zipped]).stream().pipeThrough(new DecompressionStream("gzip"));
  try {
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (error) {
    throw new Error("the course's snapshot is damaged: it could not be unzipped", { cause: error });
  }
}

const SAVED_COPY = "X-Ember-Saved-Copy"; // set by web/src/sw.js on what it answers from its offline copy

/**
 * Count the bytes of the boot's downloads that come over the network (their sizes are in the manifest, which may
 * come after Pyodide's first fetches) and report them. Each response is read through a clone, so Pyodide gets
 * the original (the browser's cache of compiled wasm keys on its URL); but Pyodide's wasm (and its module, which
 * is imported, not fetched) is counted whole once its download is over (its resource timing entry). Read through a
 * clone, the wasm's bytes went to the compiler through this thread instead of straight from the network, and a
 * first start took about 6 % longer (two sets of cold starts, taking turns, 13 rounds in all). `fetcher` makes
 * the requests (the boot's fetch, which asks once more for one the network dropped).
 *
 * A file that came from a saved copy is no download. The service worker marks what it answers from its offline
 * copy (SAVED_COPY); a resource timing entry tells the rest: a body read from a cache transferred fewer bytes
 * than it holds (none from the service worker's, in Chromium; only the headers from the browser's cache, asked
 * whether it changed). Firefox and WebKit give sizes of 0 for what the service worker answered: such a file is
 * saved when the manifest came from the service worker's copy, else a download. Nothing is told as downloading
 * until a file has been seen to come over the network; a saved file leaves the count, and once every file is
 * in (or saved), the report is { phase: "starting", saved } (saved: some came from a saved copy). The answer's
 * `know(manifest)` gives it the files and their sizes, `stop()` ends it, `saved()` tells whether any was saved.
 */
function meterDownloads(tell, fetcher) {
  const plain = self.fetch;
  const counted = new Map(); // url -> bytes so far
  const saved = new Set(); // urls that came from a saved copy, not the network
  const marked = new Set(); // urls the service worker answered from its offline copy
  const manifestUrl = new URL("manifest.json", base).href;
  let network = false; // a file was seen to come over the network
  let sizes = null;
  let told = 0;
  let stopped = false;
  const report = (force) => {
    if (stopped || !sizes || (!force && performance.now() - told < PROGRESS_MS)) return;
    told = performance.now();
    const fetched = sizes.filter(([url]) => !saved.has(url));
    const total = fetched.reduce((sum, [, size]) => sum + size, 0);
    const loaded = fetched.reduce((sum, [url, size]) => sum + Math.min(counted.get(url) || 0, size), 0);
    if (loaded >= total)
      tell({ phase: "starting", saved: saved.size > 0 }); // every file is in: the rest is Python's start
    else if (network) tell({ phase: "downloading", loaded, total });
    else if (saved.size) tell({ phase: "starting", saved: true }); // so far every file came from a saved copy
  };
  let unsized = []; // files whose timing gave no sizes, come before the manifest's answer said where it came from
  const judge = (url, fromCopy) => {
    if (fromCopy) saved.add(url);
    else network = true;
  };
  const arrived = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!entry.name.startsWith(base.href)) continue; // not one of the boot's files
      const { name, transferSize, encodedBodySize } = entry;
      counted.set(name, Number.MAX_SAFE_INTEGER); // all of it: each file counts up to its size
      if (encodedBodySize > 0)
        judge(name, transferSize < encodedBodySize); // this browser gave the sizes
      else if (marked.has(name) || unsized === null) judge(name, marked.has(name) || marked.has(manifestUrl));
      else unsized.push(name);
      report(true);
    }
  });
  arrived.observe({ type: "resource", buffered: true });
  const isWasm = (url) => new URL(url).pathname.endsWith(".wasm");
  self.fetch = async (input, init) => {
    const response = await fetcher(input, init);
    const url = urlOf(input, base);
    if (response.headers.has(SAVED_COPY)) {
      marked.add(url);
      saved.add(url);
    }
    if (url === manifestUrl && unsized !== null) {
      for (const name of unsized) judge(name, marked.has(manifestUrl));
      unsized = null; // from now on, judged as they come
      report(true);
    }
    if (response.ok && response.body && !isWasm(url)) {
      const reader = response.clone().body.getReader();
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          counted.set(url, (counted.get(url) || 0) + value.byteLength);
          report(false);
        }
        report(true);
      })().catch(() => null);
    }
    return response;
  };
  return {
    /** The manifest came: the boot's files and their sizes. */
    know(info) {
      sizes = Object.entries(info.sizes || {}).map(([path, size]) => [new URL(path, base).href, size]);
      report(true); // what came before the manifest
    },
    /** One more file this boot downloads (the build's snapshot, for a first start), and its size. */
    expect(path, size) {
      sizes = [...(sizes || []), [new URL(path, base).href, size]];
      report(true);
    },
    /** Stop: nothing is reported after the boot's answer. */
    stop() {
      stopped = true;
      arrived.disconnect();
      self.fetch = plain;
    },
    /** Whether any file came from a saved copy. */
    saved: () => saved.size > 0,
  };
}

/** input() for the request ``id``: ask the page and block until it answers; undefined when cancelled. */
function asker(id) {
  if (!inputBuffer) return undefined; // None in Python: input() says why it cannot wait
  const state = new Int32Array(inputBuffer, 0, 2);
  const bytes = new Uint8Array(inputBuffer, INPUT.TEXT_AT);
  return (prompt) => {
    Atomics.store(state, INPUT.STATE, INPUT.WAITING);
    self.postMessage({ id, ask: String(prompt) });
    Atomics.wait(state, INPUT.STATE, INPUT.WAITING);
    if (Atomics.load(state, INPUT.STATE) !== INPUT.ANSWERED) return undefined; // None in Python (null would be JsNull)
    return new TextDecoder().decode(bytes.slice(0, Atomics.load(state, INPUT.LENGTH)));
  };
}

// A timer in a worker of its own: while Python runs, this worker's event loop is blocked, so the
// deadline of a check is kept there and ends the check through the interrupt buffer (with SIGALRM,
// which the check's time limit turns into TimeLimitExceeded; Stop sends SIGINT).
const TIMER_SOURCE = `let buffer = null, signal = 0, pending = 0;
onmessage = ({ data }) => {
  if (data && data.buffer) { ({ buffer, signal } = data); return; }
  clearTimeout(pending);
  if (typeof data === "number") pending = setTimeout(() => Atomics.store(buffer, 0, signal), data * 1000);
};`;

/**
 * Have the checks' time limit use the interrupt buffer instead of watching every loop turn of the
 * learner's code (labs/checking/timelimit.py, use_interrupt_timer): a check then runs at full speed.
 */
function watchThroughInterrupts(python, buffer) {
  const url = URL.createObjectURL(new Blob([TIMER_SOURCE], { type: "text/javascript" }));
  const timer = new Worker(url); // the URL is kept: revoked at once, the worker's own fetch of it can fail
  const signal = python.runPython("import signal\nint(signal.SIGALRM)");
  timer.postMessage({ buffer, signal });
  const timelimit = python.pyimport("labs.checking.timelimit");
  timelimit.use_interrupt_timer((seconds) => timer.postMessage(seconds ?? null));
  timelimit.destroy();
}

// What the learner's code could reach from here and the page relies on: the site's stored data (IndexedDB: Python's
// snapshot, the linked folder's handle; the Cache API: the offline copy of every page and script, which the service
// worker answers with) and fresh workers, whose globals would have both again. The worker needs them only while it
// boots; before the first request that runs Python they go from this worker's globals and every prototype's.
const OFF_LIMITS = ["indexedDB", "caches", "Worker", "SharedWorker", "BroadcastChannel"];
let closedOff = false;

/** Take OFF_LIMITS out of reach of the code that runs next (once: only the boot, already done, uses them). */
function closeOff() {
  if (closedOff) return;
  closedOff = true;
  for (const name of OFF_LIMITS) {
    try {
      for (let scope = self; scope; scope = Object.getPrototypeOf(scope))
        if (Object.hasOwn(scope, name)) delete scope[name];
      Object.defineProperty(self, name, { value: undefined, configurable: false });
    } catch {
      // a browser that will not let it go: the page still takes nothing from here as trusted
    }
  }
}

/** Hand a request to the Python session: JSON in, JSON out; live items go to the page at once. */
const ask = (type) => async (payload, id) => {
  await wheelsIn;
  closeOff();
  const live = (text) => self.postMessage({ id, progress: JSON.parse(text) });
  return JSON.parse(session.handle(type, JSON.stringify(payload), live, type === REQUEST.RUN ? asker(id) : undefined));
};

/** False once Pyodide has suffered a fatal error (e.g. the JavaScript stack overflowed): it answers nothing then. */
function alive() {
  try {
    pyodide.runPython("None");
    return true;
  } catch {
    return false;
  }
}

quietAboutFailedDownloads();

// A boot named in the worker's name starts now; its request brings the buffers and gets its answer.
const named = bootFromName(self.name);
let handBuffers = null;
const namedBoot =
  named &&
  boot(
    named.snapshot,
    named.id,
    new Promise((resolve) => {
      handBuffers = resolve;
    }),
  );
namedBoot?.catch(() => null); // its request reports a failure

/** The boot request: the one the worker's name started, or a boot of its own (the snapshot's worker has no name). */
function bootRequest({ interruptBuffer = null, inputBuffer: shared = null, snapshot = "use" }, id) {
  const buffers = { interruptBuffer, inputBuffer: shared };
  if (namedBoot && id === named.id) {
    handBuffers(buffers);
    return namedBoot;
  }
  return boot(snapshot, id, Promise.resolve(buffers));
}

// Boot is the worker's own; every other kind of request goes to the Python session (labs/frontends/session.py's
// REQUESTS answers the same kinds: tests/test_session.py holds the two lists together).
const handlers = Object.fromEntries(
  Object.values(REQUEST).map((type) => [type, type === REQUEST.BOOT ? bootRequest : ask(type)]),
);

self.onmessage = async ({ data }) => {
  const { id, type, payload } = data;
  try {
    const result = await handlers[type](payload || {}, id);
    self.postMessage({ id, ok: true, result });
  } catch (error) {
    const text = String(error?.message ? error.message : error);
    const kind = error instanceof DownloadFailed ? "download" : undefined; // the page does not blame its snapshot
    self.postMessage({
      id,
      ok: false,
      error: text.split("\n").slice(-3).join("\n"),
      kind,
      fatal: type !== REQUEST.BOOT && !alive(),
    });
  }
};
