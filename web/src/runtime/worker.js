// Python in a module worker: boots Pyodide from same-origin files and answers the page's requests.
// Requests and replies follow web/src/runtime/protocol.js; Python never runs on the page's main thread.
// Type-checked by web/jsconfig.worker.json (the webworker library).

import { bootDownloads, DownloadFailed, quietAboutFailedDownloads, urlOf } from "./downloads.js";
import { bootFromName, INPUT, REQUEST } from "./protocol.js";
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { startSteps } from "./python-start.js";
import { dropSnapshot, readSnapshot, storedKey, writeSnapshot } from "./snapshot.js";
import { unpackZip } from "./unzip.js";
import WORKER_START from "./worker_start.py"; // as text (web/build.mjs)

/**
 * @typedef {import("pyodide").PyodideInterface} Pyodide
 * @typedef {import("pyodide").PyodideConfig} PyodideConfig
 * @typedef {import("pyodide/ffi").PyProxy} PyProxy
 * @typedef {import("./protocol.js").SnapshotUse} SnapshotUse
 * @typedef {import("./protocol.js").BootInfo} BootInfo
 *
 * What the boot request brings that a worker's name cannot: the buffers shared with the page (null where it is not
 * cross-origin isolated).
 * @typedef {{ interruptBuffer: Uint8Array | null, inputBuffer: SharedArrayBuffer | null }} Buffers
 *
 * What the worker reads first (scripts/build_site.py's boot_manifest): the course's version and Pyodide's, the
 * course's archive and the folder it goes into, the wheels, the build's snapshot (its place and size) and the size of
 * every file a boot downloads.
 * @typedef {{ path: string, size: number }} BuiltSnapshot
 * @typedef {{
 *   version: string, release: number, pyodide: string, bundle: string, folder: string, wheels: string[],
 *   snapshot: BuiltSnapshot | null, sizes: Record<string, number>,
 * }} Manifest
 *
 * What a boot reports while it runs: { phase: "downloading", loaded, total }, { phase: "starting" } or
 * { phase: "restoring" }; saved: some files came from a saved copy.
 * @typedef {{ phase: string, loaded?: number, total?: number, saved?: boolean }} BootProgress
 */

const base = new URL("./", import.meta.url);
/** @type {Pyodide | null} */
let pyodide = null;
/** @type {PyProxy | null} labs.frontends.session.Session */
let session = null;
/** @type {SharedArrayBuffer | null} */
let inputBuffer = null; // shared with the page when it is cross-origin isolated: input() can wait on it
/** @type {Promise<unknown>} */
let wheelsIn = Promise.resolve(); // settles once the wheels are unpacked, after the boot has answered

const SNAPSHOT_FORMAT = 5; // change it when what runs before a snapshot changes, or how it is stored
const PROGRESS_MS = 100;

/**
 * One boot, as its phases share it (made by beginBoot).
 *
 * @typedef {object} Boot
 * @property {SnapshotUse} snapshot  how it uses the stored snapshot and the build's (see boot)
 * @property {(name: string) => void} mark  note a phase's end (the answer's phases, and a performance mark)
 * @property {(progress: BootProgress) => void} tell  report progress to the page
 * @property {boolean} restoring  starting from the stored snapshot: a saved copy, whatever the files' way
 * @property {ReturnType<typeof bootDownloads>} downloads
 * @property {Meter} meter
 * @property {() => void} unwatch  stop watching what only Pyodide downloads
 * @property {(path: string) => Promise<ArrayBuffer>} download  a file of the site, counted by the meter
 * @property {Promise<Manifest>} manifest
 * @property {Promise<ArrayBuffer[]>} wheels
 * @property {Promise<ArrayBuffer>} archive  the course's Python
 * @property {Promise<string | null> | null} keyed  the stored snapshot's key, when it is to be looked for
 * @property {Promise<Buffers>} buffers
 * @property {(version: string) => BootInfo} answer  what the boot answers, once it is over (the course's version)
 * @property {string} start  how Python started: "fresh", "snapshot" or "built"
 * @property {string | null} fallback  why a start from a snapshot failed
 * @property {number | null} snapshotBytes  the size of the snapshot a "make" boot stored
 */

/**
 * Boot Pyodide with the course's Python and open a Session.
 *
 * snapshot: "use" starts from the stored memory snapshot when there is one for this Pyodide
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
 *
 * @param {SnapshotUse} snapshot
 * @param {number} id  the boot request's
 * @param {Promise<Buffers>} buffers
 * @returns {Promise<BootInfo>}
 */
async function boot(snapshot, id, buffers) {
  const run = beginBoot(snapshot, id, buffers);
  try {
    if (snapshot === "drop") await forgetStoredSnapshot(run);
    await startFromStoredSnapshot(run);
    const built = await builtSnapshot(run);
    if (snapshot !== "make") await startFromBuiltSnapshot(run, built);
    const made = snapshot === "make" && built ? await builtSnapshotBytes(run, built) : null;
    if (made) run.start = "built";
    else if (!pyodide) await startNormally(run);
    if (snapshot === "make") await storeSnapshot(run, made);
  } finally {
    run.meter.stop();
    run.unwatch();
  }
  return run.answer((await run.manifest).version);
}

/**
 * A boot's first phase: its clock and its reports, and the downloads, which begin at once. The manifest, the wheels
 * and the course's Python download while Pyodide starts; each is awaited where it is needed, and a boot that fails
 * before that must not leave them as uncaught errors.
 *
 * @param {SnapshotUse} snapshot
 * @param {number} id
 * @param {Promise<Buffers>} buffers
 * @returns {Boot}
 */
function beginBoot(snapshot, id, buffers) {
  const started = performance.now();
  /** @type {Record<string, number>} */
  const phases = {};
  // Its fields in the order they were always made: the meter watches every fetch from the manifest's on.
  const run = /** @type {Boot} */ ({ snapshot, buffers, restoring: false, start: "fresh", fallback: null });
  run.snapshotBytes = null;
  run.mark = (name) => {
    phases[name] = Math.round(performance.now() - started);
    performance.mark(`boot: ${name}`); // for bench/site.py's timelines
  };
  run.tell = (progress) =>
    self.postMessage({ id, progress: { kind: "boot", ...progress, saved: Boolean(progress.saved || run.restoring) } });
  run.downloads = bootDownloads(self.fetch);
  run.meter = meterDownloads(run.tell, run.downloads.fetch);
  run.unwatch = run.downloads.watch();
  run.download = (path) => run.downloads.read(new URL(path, base).href, (url) => self.fetch(url)); // counted
  run.manifest = run.download("manifest.json").then((bytes) => JSON.parse(new TextDecoder().decode(bytes)));
  run.manifest.then((info) => run.meter.know(info)).catch(() => null);
  run.wheels = run.manifest.then(({ wheels }) => Promise.all(wheels.map((name) => run.download(`wheels/${name}`))));
  run.archive = run.manifest.then(({ bundle }) => run.download(bundle));
  for (const promise of [run.manifest, run.wheels, run.archive]) promise.catch(() => null);
  run.keyed = snapshot === "use" ? storedKey().catch(() => null) : null; // while the manifest comes
  run.answer = (version) => ({
    seconds: (performance.now() - started) / 1000,
    phases,
    version,
    python: pyodide ? pyodide.version : null, // none in a worker that only stored the build's snapshot
    start: run.fallback ? "fallback" : run.start,
    fallback: run.fallback,
    snapshotBytes: run.snapshotBytes,
  });
  return run;
}

/**
 * The key a snapshot is stored under: Pyodide's version, the course's and the snapshot's format.
 *
 * @param {Manifest} info
 */
const keyOf = (info) => `${info.pyodide}/${info.version}/${SNAPSHOT_FORMAT}`;

/**
 * "drop": the page gave up on a start from the stored snapshot (it did not finish): forget it.
 *
 * @param {Boot} run
 */
async function forgetStoredSnapshot(run) {
  await dropSnapshot().catch(() => null);
  run.fallback = "the start from the stored snapshot did not finish";
}

/**
 * "use": start from the stored snapshot when it is this Pyodide's and this course's (another version's is no use);
 * a damaged one is dropped. Without one to look for, Pyodide starts at once.
 *
 * @param {Boot} run
 */
async function startFromStoredSnapshot(run) {
  if (!run.keyed) return;
  const key = keyOf(await run.manifest);
  if ((await run.keyed) !== key) return;
  run.restoring = true;
  // Pyodide reads the bytes while it fetches and compiles its wasm: hand it the promise.
  const bytes = readSnapshot(key).then((read) => {
    run.mark("snapshot read");
    return read;
  });
  tellRestoring(run, bytes);
  if (await startFrom(run, bytes)) run.start = "snapshot";
  else await dropSnapshot().catch(() => null);
}

/**
 * Python's memory with the course imported, made by the build, for the modes that may use it ("drop" and "fresh"
 * start normally at once).
 *
 * @param {Boot} run
 * @returns {Promise<BuiltSnapshot | null>}
 */
async function builtSnapshot(run) {
  return ["use", "none", "off", "make"].includes(run.snapshot) ? (await run.manifest).snapshot : null;
}

/**
 * A first start here: from the build's snapshot, downloaded (not a saved copy, unless the files' way says so).
 *
 * @param {Boot} run
 * @param {BuiltSnapshot | null} built
 */
async function startFromBuiltSnapshot(run, built) {
  if (pyodide || !built) return;
  run.restoring = false;
  run.meter.expect(built.path, built.size);
  const bytes = run.download(built.path).then((zipped) => {
    run.mark("snapshot downloaded");
    return unzipped(zipped);
  });
  bytes.catch(() => null); // Pyodide gets the failure; nothing else waits for it
  tellRestoring(run, bytes);
  if (await startFrom(run, bytes)) run.start = "built";
}

/**
 * Tell the page { phase: "restoring" } once Python's memory is being restored: the snapshot's bytes and Pyodide's
 * wasm are both in. The page watches from then on that the start finishes (damaged memory may hang); a wasm or a
 * snapshot still coming over a slow network, or compiled on a busy machine, is no hang.
 *
 * @param {Boot} run
 * @param {Promise<Uint8Array>} bytes
 */
function tellRestoring(run, bytes) {
  Promise.all([bytes, run.meter.wasmIn]).then(
    () => run.tell({ phase: "restoring" }),
    () => null, // no bytes: Python starts normally, with nothing to watch
  );
}

/**
 * "make": the build's snapshot to store, without starting Python here; null when it did not come whole (one is
 * then made here).
 *
 * @param {Boot} run
 * @param {BuiltSnapshot} built
 * @returns {Promise<Uint8Array<ArrayBuffer> | null>}
 */
async function builtSnapshotBytes(run, built) {
  return run
    .download(built.path)
    .then(unzipped)
    .catch(() => null);
}

/**
 * A normal start: Python's own, the course imported.
 *
 * @param {Boot} run
 */
async function startNormally(run) {
  run.restoring = false;
  await open(run, null);
}

/**
 * "make": store the snapshot (the build's bytes, or Python's memory after a normal start here).
 *
 * @param {Boot} run
 * @param {Uint8Array<ArrayBuffer> | null} made
 */
async function storeSnapshot(run, made) {
  if (!made) {
    made = /** @type {Uint8Array<ArrayBuffer>} */ (/** @type {Pyodide} */ (pyodide).makeMemorySnapshot());
    run.mark("snapshot made");
  }
  await writeSnapshot(keyOf(await run.manifest), made);
  run.mark("snapshot stored");
  run.snapshotBytes = made.byteLength;
}

/**
 * Start from a snapshot (a promise of its bytes); answer whether Python started. A failure is noted as the
 * fallback's reason and leaves Python to a normal start, but the network's fault ends the boot.
 *
 * @param {Boot} run
 * @param {Promise<Uint8Array>} bytes
 * @returns {Promise<boolean>}
 */
async function startFrom(run, bytes) {
  try {
    await open(run, bytes);
    return true;
  } catch (error) {
    if (error instanceof DownloadFailed) throw error; // the network's fault: the snapshot is kept
    run.fallback = String(error?.message ? error.message : error).split("\n")[0];
    pyodide = session = null;
    return false;
  }
}

/**
 * Start Python (from `stored`, a promise of snapshot bytes, or normally), unpack the course's files, open the
 * session.
 *
 * @param {Boot} run
 * @param {Promise<Uint8Array> | null} stored
 */
async function open(run, stored) {
  const python = await loadPython(run, stored);
  const interruptBuffer = await takeBuffers(run, python);
  const folder = await unpackCourse(run, python);
  const steps = startSteps(python, WORKER_START);
  try {
    if (!stored) steps.importCourse(folder);
    run.mark("imports");
    if (run.snapshot === "make") {
      steps.prepareSnapshot();
      run.mark("prepared");
      return;
    }
    session = steps.openSession();
    // Why input() cannot wait, where it cannot: the host sent no isolation headers, or the page is isolated
    // and this browser still shares no memory with its worker (labs/frontends/session.py says which).
    if (!inputBuffer) session.input_missing = self.crossOriginIsolated ? "browser" : "headers";
  } finally {
    steps.destroy(); // before a snapshot is made: it holds nothing of the start's
  }
  if (interruptBuffer) watchThroughInterrupts(python, interruptBuffer);
  run.mark("session");
}

/**
 * Pyodide in, from `stored` snapshot bytes or its own start, on the standard library with its modules a start
 * imports already compiled (scripts/build_site.py).
 *
 * @param {Boot} run
 * @param {Promise<Uint8Array> | null} stored
 * @returns {Promise<Pyodide>}
 */
async function loadPython(run, stored) {
  /** @type {PyodideConfig} */
  const options = { indexURL: new URL("pyodide/", base).href, stdLibURL: new URL("py/stdlib.zip", base).href };
  if (stored) options._loadSnapshot = stored;
  if (run.snapshot === "make") options._makeSnapshot = true;
  // A download that failed for good ends the start at once (Pyodide would wait for a wasm file for ever).
  const python = await Promise.race([loadPyodide(options), run.downloads.failure]);
  pyodide = python;
  run.mark("pyodide");
  run.meter.stop(); // Python is in: a download's last report, read late through its clone, must not follow this
  run.tell({ phase: "starting", saved: run.meter.saved() });
  return python;
}

/**
 * The boot request's buffers: Stop's interrupt buffer (answered, to watch the checks' time limit through it), and
 * input()'s. sys.stdin is not the page: reading it fails at once, without prompt(). (Not in the worker that makes a
 * snapshot: it keeps nothing of JavaScript's, and every start sets this again.)
 *
 * @param {Boot} run
 * @param {Pyodide} python
 * @returns {Promise<Uint8Array | null>}
 */
async function takeBuffers(run, python) {
  const { interruptBuffer, inputBuffer: shared } = await run.buffers;
  inputBuffer = shared || null;
  if (interruptBuffer) python.setInterruptBuffer(interruptBuffer);
  if (run.snapshot !== "make") python.setStdin({ error: true });
  return interruptBuffer;
}

/**
 * The wheels and the course's files into Python's file system. Nothing imports the wheels' modules on the way to
 * ready (graphviz waits for the first drawing; from a snapshot they are imported already): their files go in right
 * after the boot's answer, and every request waits for that (wheelsIn). A "make" boot unpacks them now.
 *
 * @param {Boot} run
 * @param {Pyodide} python
 * @returns {Promise<string>} the folder the course's Python is in
 */
async function unpackCourse(run, python) {
  /** @param {Pyodide} into */
  const unpackWheels = async (into) => {
    for (const wheel of await run.wheels) into.unpackArchive(wheel, "wheel"); // into site-packages
  };
  if (run.snapshot === "make") await unpackWheels(python);
  else {
    await run.wheels; // downloaded (they came alongside Pyodide's files): the meter is done
    wheelsIn = new Promise((resolve) => setTimeout(resolve)).then(() => unpackWheels(python)).catch(() => null);
  }
  const { folder } = await run.manifest;
  unpackZip(python.FS, new Uint8Array(await run.archive), folder);
  run.mark("files");
  return folder;
}

/**
 * The bytes of a gzipped snapshot (web/make-snapshot.mjs). A host that sent it with its own gzip encoding has
 * had the browser unzip it already: bytes that do not start as gzip does are taken as they are.
 *
 * @param {ArrayBuffer} zipped
 * @returns {Promise<Uint8Array<ArrayBuffer>>}
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

const SAVED_COPY = "X-Ember-Saved-Copy"; // set by web/src/runtime/sw.js on what it answers from its offline copy

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
 *
 * @typedef {ReturnType<typeof meterDownloads>} Meter
 * @param {(progress: BootProgress) => void} tell
 * @param {typeof fetch} fetcher
 */
function meterDownloads(tell, fetcher) {
  const plain = self.fetch;
  /** @type {Map<string, number>} */
  const counted = new Map(); // url -> bytes so far
  /** @type {Set<string>} */
  const saved = new Set(); // urls that came from a saved copy, not the network
  /** @type {Set<string>} */
  const marked = new Set(); // urls the service worker answered from its offline copy
  const manifestUrl = new URL("manifest.json", base).href;
  let network = false; // a file was seen to come over the network
  /** @type {[string, number][] | null} */
  let sizes = null;
  let told = 0;
  let stopped = false;
  /** @type {() => void} */
  let wasmArrived = () => {};
  /** @type {Promise<void>} */
  const wasmIn = new Promise((resolve) => {
    wasmArrived = resolve;
  });
  /** @param {string} url */
  const isWasm = (url) => new URL(url).pathname.endsWith(".wasm");
  /** @param {boolean} force  report even if the last report was less than PROGRESS_MS ago */
  const report = (force) => {
    if (stopped || !sizes || (!force && performance.now() - told < PROGRESS_MS)) return;
    const fetched = sizes.filter(([url]) => !saved.has(url));
    const total = fetched.reduce((sum, [, size]) => sum + size, 0);
    const loaded = fetched.reduce((sum, [url, size]) => sum + Math.min(counted.get(url) || 0, size), 0);
    /** @type {BootProgress | null} */
    let news = null;
    if (loaded >= total)
      news = { phase: "starting", saved: saved.size > 0 }; // every file is in: Python's start
    else if (network) news = { phase: "downloading", loaded, total };
    else if (saved.size) news = { phase: "starting", saved: true }; // so far every file came from a saved copy
    if (!news) return; // nothing to tell yet: the next report is not held back by this one
    told = performance.now();
    tell(news);
  };
  /** @type {string[] | null} */
  let unsized = []; // files whose timing gave no sizes, come before the manifest's answer said where it came from
  /** @type {(url: string, fromCopy: boolean) => void} */
  const judge = (url, fromCopy) => {
    if (fromCopy) saved.add(url);
    else network = true;
  };
  const arrived = new PerformanceObserver((list) => {
    for (const entry of /** @type {PerformanceResourceTiming[]} */ (list.getEntries())) {
      if (!entry.name.startsWith(base.href)) continue; // not one of the boot's files
      const { name, transferSize, encodedBodySize } = entry;
      counted.set(name, Number.MAX_SAFE_INTEGER); // all of it: each file counts up to its size
      if (isWasm(name)) wasmArrived();
      if (encodedBodySize > 0)
        judge(name, transferSize < encodedBodySize); // this browser gave the sizes
      else if (marked.has(name) || unsized === null) judge(name, marked.has(name) || marked.has(manifestUrl));
      else unsized.push(name);
      report(true);
    }
  });
  arrived.observe({ type: "resource", buffered: true });
  /** @type {typeof fetch} */
  const metered = async (input, init) => {
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
      const reader = /** @type {ReadableStream<Uint8Array>} */ (response.clone().body).getReader();
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
  self.fetch = metered;
  return {
    /**
     * The manifest came: the boot's files and their sizes.
     *
     * @param {{ sizes?: Record<string, number> }} info
     */
    know(info) {
      sizes = Object.entries(info.sizes || {}).map(([path, size]) => [new URL(path, base).href, size]);
      report(true); // what came before the manifest
    },
    /**
     * One more file this boot downloads (the build's snapshot, for a first start), and its size.
     *
     * @param {string} path
     * @param {number} size
     */
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
    /** Resolves once Pyodide's wasm is in, from the network or a cache (its resource timing entry). */
    wasmIn,
  };
}

/**
 * input() for the request ``id``: ask the page and block until it answers; undefined when cancelled.
 *
 * @param {number} id
 * @returns {((prompt: unknown) => string | undefined) | undefined}
 */
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
 *
 * @param {Pyodide} python
 * @param {Uint8Array} buffer  the interrupt buffer, shared with the page
 */
function watchThroughInterrupts(python, buffer) {
  const url = URL.createObjectURL(new Blob([TIMER_SOURCE], { type: "text/javascript" }));
  const timer = new Worker(url); // the URL is kept: revoked at once, the worker's own fetch of it can fail
  const signal = python.runPython("import signal\nint(signal.SIGALRM)");
  timer.postMessage({ buffer, signal });
  const timelimit = python.pyimport("labs.checking.timelimit");
  timelimit.use_interrupt_timer((/** @type {number | undefined} */ seconds) => timer.postMessage(seconds ?? null));
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
      for (
        let scope = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (self));
        scope;
        scope = Object.getPrototypeOf(scope)
      )
        if (Object.hasOwn(scope, name)) delete scope[name];
      Object.defineProperty(self, name, { value: undefined, configurable: false });
    } catch {
      // a browser that will not let it go: the page still takes nothing from here as trusted
    }
  }
}

/**
 * Hand a request to the Python session: JSON in, JSON out; live items go to the page at once.
 *
 * @param {string} type  one of REQUEST's but boot
 * @returns {Handler}
 */
const ask = (type) => async (payload, id) => {
  await wheelsIn;
  closeOff();
  /** @param {string} text */
  const live = (text) => self.postMessage({ id, progress: JSON.parse(text) });
  return JSON.parse(
    /** @type {PyProxy} */ (session).handle(
      type,
      JSON.stringify(payload),
      live,
      type === REQUEST.RUN ? asker(id) : undefined,
    ),
  );
};

/** False once Pyodide has suffered a fatal error (e.g. the JavaScript stack overflowed): it answers nothing then. */
function alive() {
  try {
    /** @type {Pyodide} */ (pyodide).runPython("None"); // none: the boot failed, and the answer is false
    return true;
  } catch {
    return false;
  }
}

quietAboutFailedDownloads();

// A boot named in the worker's name starts now; its request brings the buffers and gets its answer.
const named = bootFromName(self.name);
/** @type {(buffers: Buffers) => void} */
let handBuffers = () => {};
const namedBoot =
  named &&
  boot(
    /** @type {SnapshotUse} */ (named.snapshot),
    named.id,
    new Promise((resolve) => {
      handBuffers = resolve;
    }),
  );
namedBoot?.catch(() => null); // its request reports a failure

/**
 * A request's handler: its payload and id in, its answer out.
 * @typedef {(payload: Record<string, any>, id: number) => Promise<unknown>} Handler
 */

/**
 * The boot request: the one the worker's name started, or a boot of its own (the snapshot's worker has no name).
 *
 * @type {Handler}
 */
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
/** @type {Record<string, Handler>} */
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
