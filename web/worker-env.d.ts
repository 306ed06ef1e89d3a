// What the workers' bundles are given by the build, for the type check of web/jsconfig.worker.json.

/** The Python the page's worker runs as it starts (web/src/worker_start.py), as text (web/build.mjs's loader). */
declare module "*.py" {
  const text: string;
  export default text;
}

/** Pyodide, copied beside the built worker (web/build.mjs keeps it out of the bundle): the npm package's types. */
declare module "*/pyodide/pyodide.mjs" {
  export { loadPyodide } from "pyodide";
}

/** The course's version, written into the service worker by web/build-sw.mjs. */
declare const OFFLINE_VERSION: string;
