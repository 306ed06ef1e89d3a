// Module worker for the bare baseline page: loadPyodide() from the site's vendored files, nothing more.
// Served so that /assets/gen/pyodide/ is the built site's folder (same origin as the lesson pages).
import { loadPyodide } from "/assets/gen/pyodide/pyodide.mjs";

const started = performance.now();
try {
  const pyodide = await loadPyodide({ indexURL: new URL("/assets/gen/pyodide/", self.location.href).href });
  self.postMessage({ ok: true, version: pyodide.version, ms: performance.now() - started });
} catch (error) {
  self.postMessage({ ok: false, error: String((error && error.message) || error) });
}
