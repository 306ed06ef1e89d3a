// @ts-check
// The steps of Python's start in the page's worker, as calls into worker_start.py (whose text the worker's bundle
// carries, and web/precompile-stdlib.mjs reads from the file): its text runs in a namespace of its own, and each
// step is a call of one of its functions.

/**
 * @typedef {import("pyodide").PyodideInterface} Pyodide
 * @typedef {import("pyodide/ffi").PyProxy} PyProxy
 * @typedef {object} StartSteps
 * @property {(folder: string) => void} importCourse  the course's Python on the path, the session's module imported
 * @property {() => void} prepareSnapshot  what a start from a snapshot finds done
 * @property {() => PyProxy} openSession  the learner's session (labs.frontends.session.Session)
 * @property {() => void} destroy  let go of the namespace (the session stays)
 */

/**
 * The start's steps in ``pyodide``, from worker_start.py's text ``source``.
 *
 * @param {Pyodide} pyodide
 * @param {string} source
 * @returns {StartSteps}
 */
export function startSteps(pyodide, source) {
  const namespace = pyodide.toPy({ __name__: "worker_start" });
  pyodide.runPython(source, { globals: namespace, filename: "worker_start.py" });
  /** @type {(name: string, ...args: unknown[]) => any} */
  const call = (name, ...args) => {
    const step = namespace.get(name);
    try {
      return step(...args);
    } finally {
      step.destroy();
    }
  };
  return {
    importCourse: (folder) => call("import_course", folder),
    prepareSnapshot: () => call("prepare_snapshot"),
    openSession: () => call("open_session"),
    destroy: () => namespace.destroy(),
  };
}
