// @ts-check
// The learner's work in the browser's localStorage: pieces per gap id, answers, progress.
//
// Every piece is stored with the course version it was written under, so a new version of the
// course never drops it: gap ids stay stable, and the code moves along with its id. A piece typed
// in the editor is kept as its exact text (`exact: true`), byte for byte; pieces saved by older
// versions hold dedented bodies, which Python turns into exact texts (see `adoptExact`).
//
// Whatever storage holds, reading it never fails: every field is checked, whatever is readable is
// used, and anything unreadable is copied aside (never dropped) and reported through `problems()`.
// Where storage is missing or full, the work of this visit is kept in memory, and reported too.
//
// The state also keeps the learner's seed (see order.js): made once, the first time a question is
// shown, it gives this learner their own order of every question's options, on the page and in the
// notebook. A state saved before seeds existed reads as it was, and gets one.
//
// One learner may have the course open in several tabs. Every write reads the stored state afresh and changes only
// what it is about (one gap, one answer), so edits in two tabs never write a whole stale state over each other;
// each tab hears of the others' writes (the window's `storage` event, passed on as this module's EVENT with
// detail.otherTab) and shows them. A gap typed in a tab that had not yet heard of another tab's change to it is
// kept beside the stored piece (`conflicts`), both versions, until the learner chooses. Each piece carries the
// course's release it was written under (course.json's, which orders builds): a tab on an older release never
// writes over a piece of a newer one.
import { newSeed, SEED_PATTERN } from "../base/order.js";

const KEY = "ember:v1";
const ASIDE = "ember:unreadable";
const EVENT = "ember:storage";

/**
 * The saved state's records (base/records.d.ts).
 * @typedef {import("../base/records").Piece} Piece
 * @typedef {import("../base/records").Rival} Rival
 * @typedef {import("../base/records").Answer} Answer
 * @typedef {import("../base/records").Progress} Progress
 * @typedef {import("../base/records").State} State
 * @typedef {import("../base/records").ImportChanges} ImportChanges
 *
 * The learner's work as requests carry it (runtime/protocol.js).
 * @typedef {import("../runtime/protocol.js").Work} Work
 *
 * What is wrong with storage, and what it concerns.
 * @typedef {{ kind: "unreadable" | "unavailable" | "full", detail?: unknown }} StorageProblem
 */

/** @type {State | null} */
let memory = null; // the state, when the browser cannot store it
/** @type {Map<StorageProblem["kind"], StorageProblem>} */
const issues = new Map(); // problem kind -> { kind, detail }
/** @type {{ raw: string | null | undefined, state: State | null }} */
let cache = { raw: undefined, state: null };
/** @type {{ version: string, release: number } | null} */
let course = null; // the course this tab runs (useCourse)
const TAB = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`; // this tab, among the learner's
let writes = 0;

/** @returns {State} */
function empty() {
  return { pieces: {}, answers: {}, progress: {}, last: null, seed: null };
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
/** @type {(value: any) => boolean} */
const isCount = (value) => Number.isInteger(value) && value >= 0;
/** @type {(value: unknown) => boolean} */
const isTime = (value) => value === undefined || (typeof value === "number" && Number.isFinite(value));
/** @type {(value: unknown) => boolean} */
const isIds = (value) => value === undefined || (Array.isArray(value) && value.every((id) => typeof id === "string"));

/** @type {(value: unknown) => boolean} */
const isText = (value) => value === undefined || typeof value === "string";

/** @type {Record<"pieces" | "answers" | "progress" | "conflicts", (entry: unknown) => boolean>} */
const VALID = {
  pieces: (entry) =>
    isObject(entry) &&
    typeof entry.code === "string" &&
    isTime(entry.saved) &&
    isText(entry.version) &&
    (entry.exact === undefined || typeof entry.exact === "boolean") &&
    isTime(entry.release) &&
    isText(entry.rev) &&
    isText(entry.after),
  // option: the last one picked; everCorrect: picked right before the answer was shown; tried: the
  // wrong options picked; revealed: the learner asked for the answer. The last two are newer.
  answers: (entry) =>
    isObject(entry) &&
    typeof entry.option === "string" &&
    typeof entry.correct === "boolean" &&
    (entry.everCorrect === undefined || typeof entry.everCorrect === "boolean") &&
    isIds(entry.tried) &&
    (entry.revealed === undefined || typeof entry.revealed === "boolean"),
  progress: (entry) =>
    isObject(entry) &&
    isCount(entry.passed) &&
    isCount(entry.total) &&
    typeof entry.done === "boolean" &&
    isTime(entry.at),
  conflicts: (entry) =>
    Array.isArray(entry) &&
    entry.length > 0 &&
    entry.every(
      (rival) =>
        isObject(rival) && typeof rival.code === "string" && typeof rival.tab === "string" && isTime(rival.saved),
    ),
};

/**
 * Check saved data field by field: answer the readable state and a list of what could not be read.
 *
 * @param {string | null | undefined} raw
 * @returns {{ state: State, unreadable: string[] }}
 */
export function validate(raw) {
  const state = empty();
  /** @type {string[]} */
  const unreadable = [];
  if (raw === null || raw === undefined) return { state, unreadable };
  let saved;
  try {
    saved = JSON.parse(raw);
  } catch {
    return { state, unreadable: ["the saved data is not valid JSON"] };
  }
  if (!isObject(saved)) return { state, unreadable: ["the saved data is not an object"] };
  const fields = /** @type {[keyof typeof VALID, (entry: unknown) => boolean][]} */ (Object.entries(VALID));
  for (const [field, valid] of fields) {
    if (saved[field] === undefined) continue;
    if (!isObject(saved[field])) {
      unreadable.push(`"${field}" is not a table`);
      continue;
    }
    /** @type {Record<string, any>} */
    const table = state[field] || {};
    for (const [key, entry] of Object.entries(saved[field])) {
      if (valid(entry)) table[key] = entry;
      else unreadable.push(`${field} entry "${key}"`);
    }
    if (Object.keys(table).length) state[field] = table;
  }
  if (typeof saved.last === "string") state.last = saved.last;
  else if (saved.last !== null && saved.last !== undefined) unreadable.push('"last" is not a lesson id');
  if (typeof saved.seed === "string" && SEED_PATTERN.test(saved.seed)) state.seed = saved.seed;
  else if (saved.seed !== null && saved.seed !== undefined) unreadable.push('"seed" is not a learner seed');
  return { state, unreadable };
}

/**
 * @param {StorageProblem["kind"]} kind
 * @param {unknown} [detail]
 */
function note(kind, detail) {
  if (!issues.has(kind)) {
    issues.set(kind, { kind, detail });
    window.dispatchEvent(new CustomEvent(EVENT, { detail: { problem: kind } }));
  }
}

/** @returns {Storage | null} */
function backend() {
  if (memory) return null;
  try {
    return window.localStorage; // throws where storage is blocked (e.g. some private windows)
  } catch {
    return null;
  }
}

/**
 * @param {State} state
 * @param {StorageProblem["kind"]} kind
 * @param {unknown} [detail]
 */
function toMemory(state, kind, detail) {
  memory = state;
  note(kind, detail);
}

/**
 * Keep unreadable saved data aside, once per distinct content; it is never thrown away.
 *
 * @param {Storage} store
 * @param {string | null} raw
 * @param {string[]} unreadable
 */
function keepAside(store, raw, unreadable) {
  let aside = [];
  try {
    const old = JSON.parse(store.getItem(ASIDE) || "[]");
    if (Array.isArray(old)) aside = old;
  } catch {
    aside = [{ at: null, raw: store.getItem(ASIDE), why: ["an earlier copy aside was itself unreadable"] }];
  }
  if (!aside.some((item) => item && item.raw === raw)) aside.push({ at: Date.now(), raw, why: unreadable });
  store.setItem(ASIDE, JSON.stringify(aside));
}

/** @returns {State} */
function read() {
  if (memory) return memory;
  const store = backend();
  if (!store) {
    const state = empty();
    toMemory(state, "unavailable");
    return state;
  }
  let raw;
  try {
    raw = store.getItem(KEY);
  } catch {
    const state = empty();
    toMemory(state, "unavailable");
    return state;
  }
  if (raw === cache.raw && cache.state) return structuredClone(cache.state);
  const { state, unreadable } = validate(raw);
  if (unreadable.length) {
    try {
      keepAside(store, raw, unreadable);
      store.setItem(KEY, JSON.stringify(state)); // what was readable, so the next read is clean
      raw = store.getItem(KEY);
    } catch {
      toMemory(state, "full");
    }
    note("unreadable", unreadable);
  }
  cache = { raw, state: structuredClone(state) };
  return state;
}

/** @param {State} state */
function write(state) {
  if (memory) {
    memory = state;
    return;
  }
  const store = backend();
  try {
    if (!store) throw new Error("storage is blocked");
    const raw = JSON.stringify(state);
    store.setItem(KEY, raw);
    cache = { raw, state: structuredClone(state) };
  } catch {
    toMemory(state, "full");
  }
}

/**
 * Change the stored state as it is now (read afresh: another tab may have written since); a change that answers
 * false writes nothing.
 *
 * @param {(state: State) => void | boolean} change
 */
function update(change) {
  const state = read();
  if (change(state) === false) return;
  if (state.conflicts && !Object.keys(state.conflicts).length) delete state.conflicts;
  write(state);
  window.dispatchEvent(new CustomEvent(EVENT));
}

/**
 * The learner's work as requests carry it: { exact: {gap: text}, pieces: {gap: older dedented body} }.
 *
 * @returns {Work}
 */
export function work() {
  /** @type {Work} */
  const result = { exact: {}, pieces: {} };
  for (const [gap, entry] of Object.entries(read().pieces)) result[entry.exact ? "exact" : "pieces"][gap] = entry.code;
  return result;
}

/**
 * The learner's exact text of each gap they wrote in the editor.
 *
 * @returns {Record<string, string>}
 */
export function exactTexts() {
  return work().exact;
}

/**
 * Save exact texts ({gap: text}); null for a gap forgets its piece. A gap whose piece a newer release of the
 * course wrote (see `isNewer`) is left as it is: answers those gaps.
 *
 * @param {Record<string, string | null>} changes
 * @param {string} version  the course's version
 * @returns {string[]}
 */
export function saveExact(changes, version) {
  /** @type {string[]} */
  const refused = [];
  update((state) => {
    for (const [gap, code] of Object.entries(changes)) {
      const before = state.pieces[gap];
      if (isNewer(before)) refused.push(gap);
      else if (code === null) delete state.pieces[gap];
      else state.pieces[gap] = typed(code, version, before);
    }
  });
  return refused;
}

// --- one learner, several tabs -------------------------------------------------------------------

/**
 * The course this tab runs: its version and release, stored with every piece it writes.
 *
 * @param {{ version: string, release: number }} running
 */
export function useCourse({ version, release }) {
  course = { version, release: Number.isFinite(release) ? release : 0 };
}

/**
 * Whether a tab on a newer release of the course than this tab's wrote a piece: this tab must not write over it.
 *
 * @param {Piece | undefined} piece
 * @returns {boolean}
 */
export function isNewer(piece) {
  if (!piece || !course || piece.version === undefined || piece.version === course.version) return false;
  return (piece.release ?? 0) > course.release;
}

/**
 * A piece typed now, written on top of ``before``.
 *
 * @param {string} code
 * @param {string} version  the course's version
 * @param {Piece | undefined} before
 * @returns {Piece}
 */
function typed(code, version, before) {
  writes += 1;
  /** @type {Piece} */
  const piece = { code, version, saved: Date.now(), exact: true, rev: `${TAB}.${writes}` };
  if (course && version === course.version) piece.release = course.release;
  if (before?.rev) piece.after = before.rev;
  return piece;
}

/**
 * The stored pieces, by gap id.
 *
 * @returns {Record<string, Piece>}
 */
export function pieces() {
  return read().pieces;
}

/**
 * The gaps typed in two tabs at once: by gap id, the texts kept beside the stored piece.
 *
 * @returns {Record<string, Rival[]>}
 */
export function conflicts() {
  return read().conflicts || {};
}

/**
 * Whether a text kept beside a piece was typed in this tab.
 *
 * @param {Rival} rival
 * @returns {boolean}
 */
export function isThisTab(rival) {
  return rival.tab === TAB;
}

/**
 * Whether this tab wrote a piece.
 *
 * @param {Piece | undefined} piece
 * @returns {boolean}
 */
export function wroteHere(piece) {
  return Boolean(piece?.rev?.startsWith(`${TAB}.`));
}

/**
 * Save a gap's text as typed in this tab, on top of the stored piece the tab last had (``seen``: its rev, null
 * for none). Answers "saved" with the new piece's rev; "kept beside" where another tab changed the gap since
 * (the text is kept beside the stored piece, for the learner to choose); "newer" where a tab on a newer release
 * of the course wrote the gap (nothing is written).
 *
 * @param {string} gap
 * @param {string} code
 * @param {string | null} seen
 * @param {string} version  the course's version
 * @returns {{ outcome: "saved" | "kept beside" | "newer", rev: string | null }}
 */
export function saveTyped(gap, code, seen, version) {
  /** @type {{ outcome: "saved" | "kept beside" | "newer", rev: string | null }} */
  let result = { outcome: "saved", rev: seen };
  update((state) => {
    const stored = state.pieces[gap];
    const rivals = state.conflicts?.[gap] || [];
    const mine = rivals.find(isThisTab);
    if (isNewer(stored)) {
      result = { outcome: "newer", rev: stored?.rev ?? null };
      return false;
    }
    if (mine || ((stored?.rev ?? null) !== seen && stored?.code !== code)) {
      const kept = { code, tab: TAB, saved: Date.now() };
      state.conflicts = { ...state.conflicts, [gap]: [...rivals.filter((rival) => rival !== mine), kept] };
      result = { outcome: "kept beside", rev: stored?.rev ?? null };
      return;
    }
    state.pieces[gap] = typed(code, version, stored);
    result = { outcome: "saved", rev: state.pieces[gap].rev ?? null };
  });
  return result;
}

/**
 * Keep this tab's text of a gap beside the stored piece (another tab wrote the gap without having this one's).
 *
 * @param {string} gap
 * @param {string} code
 */
export function keepBeside(gap, code) {
  update((state) => {
    if (state.pieces[gap]?.code === code) return false;
    const others = (state.conflicts?.[gap] || []).filter((rival) => !isThisTab(rival));
    state.conflicts = { ...state.conflicts, [gap]: [...others, { code, tab: TAB, saved: Date.now() }] };
  });
}

/**
 * Settle a gap typed in two tabs: keep ``code`` (null: its starting code) as its piece; the other texts go.
 * Answers false, changing nothing, where a newer release of the course wrote the piece meanwhile.
 *
 * @param {string} gap
 * @param {string | null} code
 * @param {string} version  the course's version
 * @returns {boolean}
 */
export function keepVersion(gap, code, version) {
  let kept = true;
  update((state) => {
    const stored = state.pieces[gap];
    if (isNewer(stored)) {
      kept = false;
      return false;
    }
    if (code === null) delete state.pieces[gap];
    else if (stored?.code !== code) state.pieces[gap] = typed(code, version, stored);
    if (state.conflicts) delete state.conflicts[gap];
  });
  return kept;
}

// Another tab's write comes as STORAGE_EVENT with detail.otherTab: this tab's parts show it (see page.js).
globalThis.window?.addEventListener("storage", (event) => {
  if ((event.key !== KEY && event.key !== null) || memory || event.storageArea !== backend()) return;
  window.dispatchEvent(new CustomEvent(EVENT, { detail: { otherTab: true } }));
});

/**
 * Replace older pieces by the exact texts Python made of them ({gap: text}), keeping their versions.
 *
 * @param {Record<string, string>} texts
 */
export function adoptExact(texts) {
  const older = work().pieces;
  const changes = Object.entries(texts).filter(([gap]) => gap in older);
  if (!changes.length) return;
  update((state) => {
    for (const [gap, code] of changes) state.pieces[gap] = { ...state.pieces[gap], code, exact: true };
  });
}

/**
 * The saved answers, by question id ("L10.bfs").
 *
 * @returns {Record<string, Answer>}
 */
export function answers() {
  return read().answers;
}

/**
 * Where the learner is with a saved answer: "right", "revealed" (shown the answer first), "tried" or "new".
 *
 * @param {Answer | undefined} entry
 * @returns {"right" | "revealed" | "tried" | "new"}
 */
export function questionStatus(entry) {
  if (!entry) return "new";
  if (entry.everCorrect || (entry.correct && !entry.revealed && entry.tried === undefined)) return "right";
  if (entry.revealed) return "revealed";
  return "tried";
}

/**
 * The wrong options a saved answer has tried (an answer saved before tries were kept: its one wrong pick).
 *
 * @param {Answer | undefined} entry
 * @returns {string[]}
 */
export function triedOptions(entry) {
  if (!entry) return [];
  if (entry.tried) return entry.tried;
  return entry.correct ? [] : [entry.option];
}

/**
 * Record a pick: the option, whether it is right; a wrong one joins the tried ones.
 *
 * @param {string} question  its id, "L10.bfs"
 * @param {string} option  the option's id
 * @param {boolean} correct
 */
export function saveAnswer(question, option, correct) {
  update((state) => {
    const before = state.answers[question];
    const tried = triedOptions(before);
    const revealed = Boolean(before?.revealed);
    state.answers[question] = {
      option,
      correct,
      everCorrect: questionStatus(before) === "right" || (correct && !revealed),
      tried: correct || tried.includes(option) ? tried : [...tried, option],
      revealed,
    };
  });
}

/**
 * Record that the learner asked for the answer (after at least one pick).
 *
 * @param {string} question  its id, "L10.bfs"
 */
export function saveRevealed(question) {
  update((state) => {
    const before = state.answers[question];
    if (!before) return;
    state.answers[question] = {
      ...before,
      everCorrect: questionStatus(before) === "right",
      tried: triedOptions(before),
      revealed: true,
    };
  });
}

/**
 * The learner's seed for the order of options: made and kept the first time it is asked for.
 *
 * @returns {string}
 */
export function learnerSeed() {
  const state = read();
  if (!state.seed) {
    state.seed = newSeed();
    write(state);
  }
  return state.seed;
}

/**
 * Each lesson's last check run, by lesson id.
 *
 * @returns {Record<string, Progress>}
 */
export function progress() {
  return read().progress;
}

/**
 * Record a lesson's last check run: how many claims held.
 *
 * @param {string} lesson  its id, "L10"
 * @param {number} passed
 * @param {number} total
 */
export function saveProgress(lesson, passed, total) {
  update((state) => {
    state.progress[lesson] = { passed, total, done: passed === total && total > 0, at: Date.now() };
  });
}

/**
 * The lesson the learner visited last, if any.
 *
 * @returns {string | null}
 */
export function lastLesson() {
  return read().last;
}

/**
 * Note a visit to a lesson: it becomes the last one, and has progress from now on.
 *
 * @param {string} lesson  its id, "L10"
 */
export function visit(lesson) {
  update((state) => {
    state.last = lesson;
    state.progress[lesson] = state.progress[lesson] || { passed: 0, total: 0, done: false, at: Date.now() };
  });
}

/** @returns {any[]} what was kept aside, as stored */
function asideEntries() {
  try {
    const aside = JSON.parse(backend()?.getItem(ASIDE) || "[]");
    return Array.isArray(aside) ? aside : [];
  } catch {
    return [];
  }
}

/**
 * What is wrong with storage: [{ kind: "unreadable" | "unavailable" | "full", detail }]. Data kept
 * aside stays a problem, visit after visit, until the learner has seen the note (`acknowledgeAside`).
 *
 * @returns {StorageProblem[]}
 */
export function problems() {
  read();
  const found = [...issues.values()].filter((item) => item.kind !== "unreadable");
  const unseen = asideEntries().filter((item) => item && !item.seen);
  if (unseen.length) found.unshift({ kind: "unreadable", detail: unseen.flatMap((item) => item.why || []) });
  return found;
}

/** The learner has read the note about data kept aside: stop showing it (the data stays). */
export function acknowledgeAside() {
  const aside = asideEntries().map((item) => (item && typeof item === "object" ? { ...item, seen: true } : item));
  try {
    backend()?.setItem(ASIDE, JSON.stringify(aside));
  } catch {
    // storage refused: the note shows again next time, which is the safe side
  }
}

/**
 * Everything kept aside as unreadable, as text to download (null when there is none).
 *
 * @returns {string | null}
 */
export function asideText() {
  try {
    return backend()?.getItem(ASIDE) ?? null;
  } catch {
    return null;
  }
}

/** Forget everything: pieces, answers and progress (what was kept aside stays). */
export function resetAll() {
  if (memory) memory = empty();
  else {
    try {
      backend()?.removeItem(KEY);
    } catch {
      memory = empty();
    }
  }
  cache = { raw: undefined, state: null };
  window.dispatchEvent(new CustomEvent(EVENT));
}

/** The window's event for every change of the saved work (detail.problem when storage has a new problem). */
export const STORAGE_EVENT = EVENT;

// --- work brought in from a work file ---------------------------------------------------------------
//
// The "Your work" box (your-work.js) reads a work file through Python and writes what it changes here. Each entry
// the import wrote (a gap's piece, an answer, a lesson's progress, the seed, the last lesson) is recorded aside
// (BEFORE_IMPORT) with what it held before and what the import put there. Undo takes back only those: an entry
// is put back as it was only while it still holds what the import wrote; whatever changed since (typed in any
// lesson or tab, answered, checked, taken from the linked folder) is kept. While nothing at all changed since
// the import, Undo puts back the very text stored before it. A second import before the learner keeps the first
// adds to the same record, so Undo takes back both.

const BEFORE_IMPORT = "ember:before-import";
/** @type {ImportRecord | null} */
let recordInMemory = null; // the record, when the browser cannot store it

/**
 * One entry an import wrote: what it held before (null: nothing) and what the import put there.
 * @template T
 * @typedef {{ before: T | null, wrote: T }} Wrote
 */

/**
 * What an import wrote, kept until the learner keeps it or undoes it. raw: the stored text before it (null: none),
 * while nothing changed between imports; after: a digest of the text the import stored.
 * @typedef {{
 *   at: number, names: string[], raw?: string | null, after?: string,
 *   pieces: Record<string, Wrote<Piece>>, answers: Record<string, Wrote<Answer>>,
 *   progress: Record<string, Wrote<Progress>>, seed?: Wrote<string>, last?: Wrote<string>,
 * }} ImportRecord
 *
 * One thing Undo takes back or keeps: a gap's code, an answer, a lesson's progress, or the options' order.
 * @typedef {{ kind: "piece" | "answer" | "progress" | "seed", key: string }} UndoItem
 *
 * What Undo would do now: the import's files and time, what it takes back, and what it keeps as changed since.
 * @typedef {{ names: string[], at: number, back: UndoItem[], kept: UndoItem[] }} UndoPlan
 */

/**
 * What Python merges a work file into (labs/checking/work_merge.py): the saved state, as plain data.
 *
 * @returns {State}
 */
export function savedState() {
  return read();
}

/** @returns {Storage | null} the browser's storage, where the record is kept (even while the work is in memory) */
function asideStore() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/**
 * A short digest of a text (its length and two 32-bit FNV-1a hashes, from two starts): whether the stored state is
 * still the very one an import wrote.
 *
 * @param {string | null} text
 * @returns {string}
 */
function digest(text) {
  if (text === null) return "none";
  let one = 0x811c9dc5;
  let two = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    one = Math.imul(one ^ code, 0x01000193);
    two = Math.imul(two ^ code, 0x01000193) ^ (two >>> 15);
  }
  return `${text.length}:${(one >>> 0).toString(16)}:${(two >>> 0).toString(16)}`;
}

/**
 * A value as JSON text with its tables' keys sorted, to compare two values whatever order their keys came in.
 *
 * @param {unknown} value
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** @type {(a: unknown, b: unknown) => boolean} */
const same = (a, b) => canonical(a) === canonical(b);

/** @returns {string | null} the stored text of the saved state now (null: none, or kept in memory) */
function storedText() {
  if (memory) return null;
  try {
    return backend()?.getItem(KEY) ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether a recorded table of entries is readable.
 *
 * @param {unknown} table
 * @returns {boolean}
 */
function isWroteTable(table) {
  return isObject(table) && Object.values(table).every((entry) => isObject(entry) && "wrote" in entry);
}

/**
 * The record of the import(s) not yet kept, or null. A copy aside from an older version of the page (the whole
 * state, without what the import wrote) cannot tell later work apart, and is not offered.
 *
 * @returns {ImportRecord | null}
 */
function importRecord() {
  if (recordInMemory) return structuredClone(recordInMemory);
  try {
    const kept = JSON.parse(asideStore()?.getItem(BEFORE_IMPORT) || "null");
    if (
      isObject(kept) &&
      isWroteTable(kept.pieces) &&
      isWroteTable(kept.answers) &&
      isWroteTable(kept.progress) &&
      Array.isArray(kept.names)
    )
      return /** @type {ImportRecord} */ (kept);
  } catch {
    // unreadable: nothing to undo
  }
  return null;
}

/** @param {ImportRecord} record */
function keepRecord(record) {
  if (!recordInMemory) {
    try {
      const store = asideStore();
      if (store) {
        store.setItem(BEFORE_IMPORT, JSON.stringify(record));
        return;
      }
    } catch {
      // storage refused: keep it in memory for this visit
    }
  }
  recordInMemory = record;
}

/**
 * Note in the record what an entry held and what is written there now: an entry the last import wrote and nobody
 * changed since keeps its first "before"; one changed since starts again from what it holds now.
 *
 * @template T
 * @param {Record<string, Wrote<T>>} table
 * @param {string} key
 * @param {T | undefined} now  what the entry holds now
 * @param {T} wrote  what the import writes
 * @param {(held: T | undefined, wrote: T) => boolean} holds  whether an entry still holds what was written
 */
function remember(table, key, now, wrote, holds) {
  const earlier = table[key];
  table[key] = { before: earlier && holds(now, earlier.wrote) ? earlier.before : (now ?? null), wrote };
}

/** @type {(held: Piece | undefined, wrote: Piece) => boolean} */
const holdsPiece = (held, wrote) => Boolean(held && held.rev === wrote.rev && held.code === wrote.code);
/** @type {(held: unknown, wrote: unknown) => boolean} */
const holdsValue = (held, wrote) => held !== undefined && same(held, wrote);

/**
 * Write what a work file changes, and record each entry it wrote (with what it held before) for Undo.
 *
 * @param {ImportChanges} changes
 * @param {string} version  the course's version
 * @param {string[]} [names]  the files brought in, as the learner sees them
 */
export function applyImport(changes, version, names = []) {
  const state = read();
  const rawBefore = storedText();
  let record = importRecord();
  if (record && record.after !== digest(rawBefore)) delete record.raw; // changed between the imports
  record = record || { at: 0, names: [], raw: memory ? undefined : rawBefore, pieces: {}, answers: {}, progress: {} };
  record.at = Date.now();
  record.names = [...record.names, ...names];
  const at = Date.now().toString(36);
  for (const [gap, { code, origin }] of Object.entries(changes.pieces)) {
    const before = state.pieces[gap];
    // Written on top of the stored piece, as typed text is, under a rev of no tab's: every tab follows it, and
    // follows Undo's putting back the piece from before (origin: "own", or "finished" for a finished piece).
    const piece = { ...typed(code, version, before), rev: `import.${at}.${gap}`, origin };
    remember(record.pieces, gap, before, piece, holdsPiece);
    state.pieces[gap] = piece;
  }
  for (const [key, answer] of Object.entries(changes.answers)) {
    remember(record.answers, key, state.answers[key], answer, holdsValue);
    state.answers[key] = answer;
  }
  for (const [key, entry] of Object.entries(changes.progress)) {
    remember(record.progress, key, state.progress[key], entry, holdsValue);
    state.progress[key] = entry;
  }
  /** @type {["seed", "last"]} */
  const fields = ["seed", "last"];
  for (const field of fields) {
    const value = changes[field];
    if (value === null) continue;
    const earlier = record[field];
    const now = state[field];
    record[field] = { before: earlier && earlier.wrote === now ? earlier.before : now, wrote: value };
    state[field] = value;
  }
  write(state);
  record.after = digest(storedText());
  keepRecord(record);
  window.dispatchEvent(new CustomEvent(EVENT));
}

/**
 * What Undo would do to ``state``, and the state it would leave (a copy).
 *
 * @param {ImportRecord} record
 * @param {State} state
 * @returns {{ plan: UndoPlan, undone: State }}
 */
function undoing(record, state) {
  const undone = structuredClone(state);
  /** @type {UndoItem[]} */
  const back = [];
  /** @type {UndoItem[]} */
  const kept = [];
  /**
   * @template T
   * @param {UndoItem["kind"]} kind
   * @param {Record<string, Wrote<T>>} table
   * @param {Record<string, T>} entries
   * @param {(held: T | undefined, wrote: T) => boolean} holds
   */
  const takeBack = (kind, table, entries, holds) => {
    for (const [key, { before, wrote }] of Object.entries(table)) {
      if (!holds(entries[key], wrote)) {
        kept.push({ kind, key });
        continue;
      }
      back.push({ kind, key });
      if (before === null) delete entries[key];
      else entries[key] = before;
    }
  };
  takeBack("piece", record.pieces, undone.pieces, holdsPiece);
  takeBack("answer", record.answers, undone.answers, holdsValue);
  takeBack("progress", record.progress, undone.progress, holdsValue);
  if (record.last && undone.last === record.last.wrote) undone.last = record.last.before;
  // The options' order comes back only while no question was answered in it since (the import brought a seed only
  // where none had been answered).
  if (record.seed && undone.seed === record.seed.wrote) {
    if (Object.keys(undone.answers).length) kept.push({ kind: "seed", key: "seed" });
    else {
      back.push({ kind: "seed", key: "seed" });
      undone.seed = record.seed.before;
    }
  }
  return { plan: { names: record.names, at: record.at, back, kept }, undone };
}

/**
 * What Undo would do now (null when there is no import to undo): what it takes back, and what it keeps because it
 * changed since the import.
 *
 * @returns {UndoPlan | null}
 */
export function undoPlan() {
  const record = importRecord();
  return record ? undoing(record, read()).plan : null;
}

/**
 * Take back what the import wrote where it still holds it, keep everything changed since, and forget the record.
 * While nothing at all changed since the import, the very text stored before it comes back. Answers what was done
 * (null when there was no import to undo).
 *
 * @returns {UndoPlan | null}
 */
export function undoImport() {
  const record = importRecord();
  if (!record) return null;
  const now = storedText();
  const untouched = !memory && record.raw !== undefined && now !== null && digest(now) === record.after;
  let done = null;
  if (untouched) {
    done = undoing(record, read()).plan;
    const store = backend();
    try {
      if (record.raw === null || record.raw === undefined) store?.removeItem(KEY);
      else store?.setItem(KEY, record.raw);
      cache = { raw: undefined, state: null };
    } catch {
      toMemory(validate(record.raw ?? null).state, "full");
    }
  } else {
    update((state) => {
      const { plan, undone } = undoing(record, state);
      done = plan;
      Object.assign(state, undone);
      return plan.back.length > 0;
    });
  }
  keepImport();
  window.dispatchEvent(new CustomEvent(EVENT));
  return done;
}

/** The learner keeps what was brought in: forget the record of it. */
export function keepImport() {
  recordInMemory = null;
  try {
    asideStore()?.removeItem(BEFORE_IMPORT);
  } catch {
    // storage refused: the record stays, and Undo with it
  }
}
