// The messages between the page and the Python worker. Every request carries an id; the worker
// answers each request once, and may send progress messages for it before that.

/** The kinds of request the worker answers. */
export const REQUEST = Object.freeze({
  BOOT: "boot", // start Pyodide; payload { interruptBuffer: Uint8Array | null, snapshot } (see worker.js's boot)
  RUN: "run", // run a cell; payload { page, lab, pieces, code } -> { outputs, error }
  CHECK: "check", // run a lesson's checks; payload { lab, pieces } -> a report with one result per claim
  MODULE: "module", // the learner's files as a lab starts; payload { lab, pieces } -> { "scalar.py", "nn.py" }
});

/**
 * @typedef {{ id: number, type: string, payload: object }} Request
 * @typedef {{ id: number, ok: true, result: any }} Answer
 * @typedef {{ id: number, ok: false, error: string, fatal: boolean }} Failure   fatal: Pyodide died; restart it
 * @typedef {{ id: number, progress: { kind: string, key: string } }} Progress  a display item drawn while a cell runs
 *   (while Python boots: { kind: "boot", phase: "downloading" | "starting" | "restoring", loaded?, total? })
 */
