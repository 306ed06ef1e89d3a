// Python in a module worker: boots Pyodide from same-origin files and answers the page's requests.
// Requests and replies follow web/src/protocol.js; Python never runs on the page's main thread.
import { loadPyodide } from "./pyodide/pyodide.mjs";

import { INPUT, REQUEST } from "./protocol.js";

const base = new URL("./", import.meta.url);
let pyodide = null;
let session = null;
let inputBuffer = null; // shared with the page when it is cross-origin isolated: input() can wait on it

/** Boot Pyodide, install the wheels, unpack the course's Python and open a Session. */
async function boot({ interruptBuffer, inputBuffer: shared }) {
  const started = performance.now();
  const phases = {};
  const mark = (name) => (phases[name] = Math.round(performance.now() - started));
  // The manifest, the wheels and the course's Python download while Pyodide starts.
  const manifest = fetch(new URL("manifest.json", base)).then((response) => response.json());
  const download = (path) => fetch(new URL(path, base)).then((response) => response.arrayBuffer());
  const wheels = manifest.then(({ wheels: names }) => Promise.all(names.map((name) => download(`wheels/${name}`))));
  const archive = manifest.then(({ bundle }) => download(bundle));
  pyodide = await loadPyodide({ indexURL: new URL("pyodide/", base).href });
  mark("pyodide");
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  inputBuffer = shared || null;
  pyodide.setStdin({ error: true }); // sys.stdin is not the page: reading it fails at once, without prompt()
  for (const wheel of await wheels) pyodide.unpackArchive(wheel, "wheel"); // into site-packages
  pyodide.unpackArchive(await archive, "zip", { extractDir: "/home/pyodide/course" });
  mark("files");
  pyodide.runPython(`
import sys
sys.path.insert(0, "/home/pyodide/course")
from labs.session import Session
_ember_session = Session("/home/pyodide/learner")
`);
  session = pyodide.globals.get("_ember_session");
  mark("session");
  const { version } = await manifest;
  return { seconds: (performance.now() - started) / 1000, phases, version, python: pyodide.version };
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

/** Hand a request to the Python session: JSON in, JSON out; live items go to the page at once. */
const ask = (type) => (payload, id) => {
  const live = (text) => self.postMessage({ id, progress: JSON.parse(text) });
  return JSON.parse(session.handle(type, JSON.stringify(payload), live, type === REQUEST.RUN ? asker(id) : undefined));
};

/** False once Pyodide has suffered a fatal error (e.g. the JavaScript stack overflowed): it answers nothing after that. */
function alive() {
  try {
    pyodide.runPython("None");
    return true;
  } catch {
    return false;
  }
}

const handlers = {
  [REQUEST.BOOT]: boot,
  [REQUEST.RUN]: ask(REQUEST.RUN),
  [REQUEST.CHECK]: ask(REQUEST.CHECK),
  [REQUEST.MODULE]: ask(REQUEST.MODULE),
  [REQUEST.EARLIER]: ask(REQUEST.EARLIER),
};

self.onmessage = async ({ data }) => {
  const { id, type, payload } = data;
  try {
    const result = await handlers[type](payload || {}, id);
    self.postMessage({ id, ok: true, result });
  } catch (error) {
    const text = String(error && error.message ? error.message : error);
    self.postMessage({ id, ok: false, error: text.split("\n").slice(-3).join("\n"), fatal: type !== "boot" && !alive() });
  }
};
