// @ts-check
// Work brought in from a work file, and its undo.
//
// The "Your work" box (your-work.js) reads a work file through Python and writes what it changes here. Each entry
// the import wrote (a gap's piece, an answer, a lesson's progress, the seed, the last lesson) is recorded aside
// (BEFORE_IMPORT) with what it held before and what the import put there. Undo takes back only those: an entry
// is put back as it was only while it still holds what the import wrote; whatever changed since (typed in any
// lesson or tab, answered, checked, taken from the linked folder) is kept. While nothing at all changed since
// the import, Undo puts back the very text stored before it. A second import before the learner keeps the first
// adds to the same record, so Undo takes back both.
import { typed } from "./pieces.js";
import { announce, inMemory, isObject, putBack, read, storedText, update, write } from "./store.js";

/**
 * @typedef {import("../base/records").Piece} Piece
 * @typedef {import("../base/records").Answer} Answer
 * @typedef {import("../base/records").Progress} Progress
 * @typedef {import("../base/records").State} State
 * @typedef {import("../base/records").ImportChanges} ImportChanges
 */

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
  record = record || {
    at: 0,
    names: [],
    raw: inMemory() ? undefined : rawBefore,
    pieces: {},
    answers: {},
    progress: {},
  };
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
  announce();
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
  const untouched = !inMemory() && record.raw !== undefined && now !== null && digest(now) === record.after;
  let done = null;
  if (untouched) {
    done = undoing(record, read()).plan;
    putBack(record.raw ?? null);
  } else {
    update((state) => {
      const { plan, undone } = undoing(record, state);
      done = plan;
      Object.assign(state, undone);
      return plan.back.length > 0;
    });
  }
  keepImport();
  announce();
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
