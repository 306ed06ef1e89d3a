// @ts-check
// The messages between the page and the Python worker. Every request carries an id; the worker
// answers each request once, and may send progress messages for it before that.

/** The kinds of request the worker answers: boot itself, every other one by labs/frontends/session.py's REQUESTS. */
export const REQUEST = Object.freeze({
  // Start Pyodide; payload { interruptBuffer, inputBuffer: SharedArrayBuffer | null, snapshot } (see worker.js's boot).
  BOOT: "boot",
  // Run a cell; payload { page, lab, exact, pieces, code } -> { outputs, error }.
  RUN: "run",
  // Run a lesson's checks; payload { lab, exact, pieces } -> a report with one result per claim.
  CHECK: "check",
  // The learner's files; payload { lab, exact, pieces } -> { files: {name: {source, gaps}}, exact, problem }.
  MODULE: "module",
  // Finished pieces for earlier gaps; payload { lab, exact, pieces, replace_own, gaps? } -> { changes, own }
  // (with gaps: only those earlier gaps, the learner's own code or not).
  EARLIER: "earlier",
  // What the notebook changed; payload { before, now: {file: source} }
  // -> { changed: {gap: {before, now}}, broken: {file: why} }.
  EDITS: "edits",
  // The learner's whole work as one file; payload { state, version, today } -> { name, data (base64), notes } | { error }.
  SAVE_WORK: "save_work",
  // A chosen work file, read (labs/work/work_file.py); payload { state, files: [{name, data (base64)}], keep_mine }
  // -> { preview, changes } | { error }.
  READ_WORK: "read_work",
});

/**
 * A plain object (not null, not an array): the shape every message and most answers have.
 *
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
const isRecord = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether a message from the worker has one of the shapes below (Answer, Failure, Progress, Ask): the learner's code
 * runs in the worker and can post the page anything, so the page drops whatever has another shape. An answer's
 * result must have its request's shape too (answerFits).
 *
 * @param {unknown} data
 * @returns {data is Answer | Failure | Progress | Ask}
 */
export function isWorkerMessage(data) {
  if (!isRecord(data) || !Number.isSafeInteger(data.id)) return false;
  if ("progress" in data) return isRecord(data.progress);
  if ("ask" in data) return typeof data.ask === "string";
  if (data.ok === true) return "result" in data;
  if (data.ok === false) {
    const kind = data.kind === undefined || typeof data.kind === "string";
    return typeof data.error === "string" && kind && (data.fatal === undefined || typeof data.fatal === "boolean");
  }
  return false;
}

/**
 * Whether an answer's result has the shape its kind of request answers (the typedefs below): the page reads these
 * fields as data and never as HTML, but a made-up answer must not break the page either.
 *
 * @param {string} type  one of REQUEST's
 * @param {unknown} result
 * @returns {boolean}
 */
export function answerFits(type, result) {
  if (!isRecord(result)) return false;
  /** @param {unknown} value */
  const text = (value) => typeof value === "string";
  /** @param {unknown} value */
  const problem = (value) =>
    value === null ||
    value === undefined ||
    (isRecord(value) && text(value.message) && text(value.kind) && (value.gap == null || text(value.gap)));
  /** @param {unknown} value */
  const claim = (value) =>
    isRecord(value) && text(value.claim) && typeof value.passed === "boolean" && text(value.message);
  const faultFields = ["lesson", "title", "gap", "file", "claim", "claim_name", "message", "summary"];
  /** @param {unknown} value */
  const fault = (value) =>
    value === null || value === undefined || (isRecord(value) && faultFields.every((key) => text(value[key])));
  if (type === REQUEST.RUN)
    return Array.isArray(result.outputs) && result.outputs.every(isRecord) && problem(result.error);
  if (type === REQUEST.CHECK) {
    const results = Array.isArray(result.results) && result.results.every(claim);
    return results && problem(result.problem) && fault(result.earlier);
  }
  if (type === REQUEST.MODULE) return isRecord(result.files) && problem(result.problem);
  if (type === REQUEST.EARLIER) return isRecord(result.changes) && Array.isArray(result.own);
  if (type === REQUEST.EDITS) return isRecord(result.changed) && isRecord(result.broken);
  if (type === REQUEST.SAVE_WORK) {
    return text(result.error) || (text(result.name) && text(result.data) && Array.isArray(result.notes));
  }
  if (type === REQUEST.READ_WORK) return text(result.error) || (isRecord(result.preview) && isRecord(result.changes));
  return true;
}

/**
 * A worker's name may carry its boot request's id and snapshot mode (see worker.js's boot): it then starts
 * Python as soon as its own code has run. On a first visit the page's thread is busy reading the page, and
 * a message from it reached the worker 0.2 to 0.5 s after the worker's code had run. The boot request still
 * follows, with what a name cannot carry (the shared buffers), and gets the answer.
 *
 * @param {number} id
 * @param {SnapshotUse} snapshot
 * @returns {string}
 */
export const bootName = (id, snapshot) => `ember-python ${JSON.stringify({ id, snapshot })}`;

/**
 * The { id, snapshot } a worker's name carries, or null.
 *
 * @param {unknown} name
 * @returns {{ id: number, snapshot: string } | null}
 */
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
 * The kinds of problem a record in an answer has: labs/checking/problems.py's KINDS, which says what each means (the
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
 * How a boot uses the stored memory snapshot and the build's (see worker.js's boot): "use", "none", "off", "drop",
 * "make" or "fresh".
 * @typedef {"use" | "none" | "off" | "drop" | "make" | "fresh"} SnapshotUse
 *
 * A line of one of the learner's files, and the gap that holds it (labs/checking/problems.py's Place).
 * @typedef {{ file: string, line: number, gap: string | null, gap_line: number | null }} Place
 *
 * One thing that went wrong (labs/checking/problems.py's Problem): the page acts on `kind`, and shows `message`.
 * @typedef {{ kind: string, message: string, gap: string | null, place: Place | null }} Problem
 *
 * What a boot answers (worker.js's boot): how long it took and its phases, the course's and Python's versions,
 * how Python started ("snapshot": the stored one, "built": the build's, "fresh" or "fallback", and why it fell
 * back), and a stored snapshot's size (python is null in a worker that only stored the build's snapshot).
 * @typedef {{
 *   seconds: number, phases: Record<string, number>, version: string, python: string | null, start: string,
 *   fallback: string | null, snapshotBytes: number | null,
 * }} BootInfo
 *
 * The learner's work as requests carry it: exact texts, and older dedented bodies, by gap id.
 * @typedef {{ exact: Record<string, string>, pieces: Record<string, string> }} Work
 *
 * The answers, by kind of request (labs/frontends/session.py makes them):
 * run: the cell's output items, and its problem if it failed.
 * An item of a cell's output (labs/showing/outputs.py, labs/showing/display.py): its kind, its HTML
 * (labs/showing/render.py), the key of a live picture it replaces, and the whole of a long text that Python cut short.
 * Each kind has fields of its own (labs/showing/display.py's items), which the page does not read.
 * @typedef {{ kind: string, html?: string, key?: string | null, full?: string, [field: string]: unknown }} OutputItem
 * A cell's problem names the line of the cell it was reached from (null: none).
 * @typedef {Problem & { cell_line: number | null }} CellProblem
 * @typedef {{ outputs: OutputItem[], error: CellProblem | null }} RunAnswer
 *
 * check: the lesson, one result per claim (its id, name and message, the message's key when the claim itself failed, or
 * the problem that kept it from holding), whether all held, a problem that stopped them, and the first earlier lesson whose own
 * claims fail on a piece this lab runs on (labs/checking/earlier.py's EarlierFault: the lesson, its title, the gap,
 * its file, the claim, its name, its message, and one sentence that says so).
 * @typedef {{
 *   claim: string, name: string, passed: boolean, message: string, key: string | null, problem: Problem | null,
 * }} ClaimResult
 * @typedef {{
 *   lesson: string, title: string, gap: string, file: string, claim: string, claim_name: string, message: string,
 *   summary: string,
 * }} EarlierFault
 * @typedef {{
 *   lesson: string, results: ClaimResult[], passed: boolean, problem: Problem | null, earlier: EarlierFault | null,
 * }} CheckReport
 *
 * module: the learner's files as the lab starts (each file's name, source and where its gaps lie), the exact texts
 * Python made of older pieces, a problem, and the package's __init__.py.
 * Where a gap lies in a file, as Python says: its id and the lines of its opening and closing markers.
 * @typedef {{ id: string, open_line: number, close_line: number }} GapPlace
 * @typedef {{ name: string, source: string, gaps: GapPlace[] }} LearnerFile
 * @typedef {{
 *   files: Record<string, LearnerFile>, exact: Record<string, string>, problem: Problem | null, init: string,
 * }} ModuleAnswer
 *
 * earlier: the finished pieces to load by gap id (null: none), and the earlier gaps the learner wrote.
 *   (own: the earlier gaps whose code the learner wrote and which differs from the finished piece, in lesson order;
 *   matching: how many earlier gaps the learner wrote as the finished piece is)
 * @typedef {{ changes: Record<string, string | null>, own: string[], matching: number }} EarlierAnswer
 *
 * edits: what the notebook changed, gap by gap, and the files it could not read, with why.
 * @typedef {{ changed: Record<string, { before: string, now: string }>, broken: Record<string, string> }} EditsAnswer
 *
 * save_work: the learner's whole saved state as one work file (labs/work/work_file.py): its name, its bytes
 * (base64) and notes on what it could not keep; or why it could not be made.
 * @typedef {import("../base/records").State} State
 * @typedef {import("../base/records").Progress} SavedProgress
 * @typedef {{ name: string, data: string, notes: string[] } | { error: string }} SaveWorkAnswer
 *
 * read_work: a chosen file as the request carries it (its name, its bytes in base64), and what Python answers: what
 * reading the files would change (labs/work/work_merge.py's preview), lesson by lesson, and the changes
 * themselves (its merge: those the store writes, and in ``aside`` the texts here now of the gaps they change);
 * or why they cannot be read.
 * @typedef {{ name: string, data: string }} GivenFile
 * @typedef {{ gap: string, status: "new" | "changed" | "same", origin: string }} GapPreview
 * @typedef {{ question: string, status: "new" | "merged" | "kept" }} AnswerPreview
 * @typedef {{ status: "new" | "better" | "kept", mine: SavedProgress | null, file: SavedProgress, merged: SavedProgress }}
 *   ProgressPreview
 * @typedef {{
 *   lesson: string, title: string, gaps: GapPreview[], answers: AnswerPreview[], progress: ProgressPreview | null,
 * }} LessonPreview
 * @typedef {{
 *   course_version: string | null, files: string[], notes: string[],
 *   counts: { new: number, changed: number, same: number }, lessons: LessonPreview[],
 * }} Preview
 * @typedef {import("../base/records").ImportChanges & { aside: Record<string, string> }} Changes
 * @typedef {{ preview: Preview, changes: Changes } | { error: string }} ReadWorkAnswer
 */

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
