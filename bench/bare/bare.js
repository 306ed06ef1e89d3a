// Module worker for the bare baseline page: loadPyodide() from the site's vendored files, nothing more.
// Served so that /assets/gen/pyodide/ is the built site's folder (same origin as the lesson pages).
// With ?stdlib=course it starts from the course's standard library (its modules a start imports compiled
// at build time, as the lesson pages' worker does) instead of Pyodide's own.
import { loadPyodide } from "/assets/gen/pyodide/pyodide.mjs";

const started = performance.now();
const options = { indexURL: new URL("/assets/gen/pyodide/", self.location.href).href };
if (new URL(self.location.href).searchParams.get("stdlib") === "course") {
  options.stdLibURL = new URL("/assets/gen/py/stdlib.zip", self.location.href).href;
}
try {
  const pyodide = await loadPyodide(options);
  self.postMessage({ ok: true, version: pyodide.version, ms: performance.now() - started });
} catch (error) {
  self.postMessage({ ok: false, error: String((error && error.message) || error) });
}
