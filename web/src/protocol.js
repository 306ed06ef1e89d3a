// The messages between the page and the Python worker. Every request carries an id; the worker
// answers each request once, and may send progress messages for it before that.

/** The kinds of request the worker answers: boot itself, every other one by labs/session.py's REQUESTS. */
export const REQUEST = Object.freeze({
  // Start Pyodide; payload { interruptBuffer, inputBuffer: SharedArrayBuffer | null, snapshot } (see worker.js's boot).
  BOOT: "boot",
  // Run a cell; payload { page, lab, exact, pieces, code } -> { outputs, error }.
  RUN: "run",
  // Run a lesson's checks; payload { lab, exact, pieces } -> a report with one result per claim.
  CHECK: "check",
  // The learner's files; payload { lab, exact, pieces } -> { files: {name: {source, gaps}}, exact, problem }.
  MODULE: "module",
  // Finished pieces for earlier gaps; payload { lab, exact, pieces, replace_own } -> { changes, own }.
  EARLIER: "earlier",
  // What the notebook changed; payload { before, now: {file: source} }
  // -> { changed: {gap: {before, now}}, broken: {file: why} }.
  EDITS: "edits",
});

/**
 * A worker's name may carry its boot request's id and snapshot mode (see worker.js's boot): it then starts
 * Python as soon as its own code has run. On a first visit the page's thread is busy reading the page, and
 * a message from it reached the worker 0.2 to 0.5 s after the worker's code had run. The boot request still
 * follows, with what a name cannot carry (the shared buffers), and gets the answer.
 */
export const bootName = (id, snapshot) => `ember-python ${JSON.stringify({ id, snapshot })}`;

/** The { id, snapshot } a worker's name carries, or null. */
export function bootFromName(name) {
  const prefix = "ember-python ";
  if (typeof name !== "string" || !name.startsWith(prefix)) return null;
  try {
    const { id, snapshot } = JSON.parse(name.slice(prefix.length));
    return Number.isInteger(id) && typeof snapshot === "string" ? { id, snapshot } : null;
  } catch {
    return null;
  }
}

/**
 * input() in a cell, when the page is cross-origin isolated: the worker posts { id, ask: prompt } and
 * waits on INPUT_STATE of the shared input buffer; the page writes the answer's UTF-8 bytes from
 * INPUT_TEXT_AT, their count at INPUT_LENGTH, then sets INPUT_STATE to ANSWERED (or CANCELLED).
 */
export const INPUT = Object.freeze({
  BYTES: 65536,
  STATE: 0,
  LENGTH: 1,
  TEXT_AT: 8,
  WAITING: 0,
  ANSWERED: 1,
  CANCELLED: 2,
});

/**
 * The kinds of problem a record in an answer has: labs/problems.py's KINDS, which says what each means (the
 * page acts on a few of them). tests/test_page_seams.py holds the two lists together.
 */
export const PROBLEM = Object.freeze({
  STARTER: "starter",
  MARKER: "marker",
  MARKERS: "markers",
  SYNTAX: "syntax",
  IMPORT: "import",
  NOT_WRITTEN: "not_written",
  TIMEOUT: "timeout",
  RECURSION: "recursion",
  STOPPED: "stopped",
  SKIPPED: "skipped",
  MISSING_FILE: "missing_file",
  ERROR: "error",
});

/**
 * @typedef {{ id: number, type: string, payload: object }} Request
 * @typedef {{ id: number, ok: true, result: any }} Answer
 * @typedef {{ id: number, ok: false, error: string, fatal: boolean }} Failure   fatal: Pyodide died; restart it
 * @typedef {{ id: number, progress: { kind: string, key: string } }} Progress  a display item or a batch of text,
 *   while a cell runs
 *   (while Python boots: { kind: "boot", phase: "downloading" | "starting" | "restoring", loaded?, total? })
 * @typedef {{ id: number, ask: string }} Ask  input() in a cell asks the learner, with this prompt
 *
 * Every problem in an answer (a report's `problem`, a claim's `problem`, a cell's `error`) is a record
 * { kind, message, gap, place: { file, line, gap, gap_line } | null }; the page acts on `kind`, and
 * shows `message`. Its kind is one of PROBLEM's.
 */
