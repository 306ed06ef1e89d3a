// @ts-check
// The learner's saved state in the browser's localStorage, and its checks: the one place that reads and writes it.
// pieces.js (the gaps' code, and the learner's several tabs), answers.js (answers and progress) and import-undo.js
// (a work file brought in, and its undo) each change only what they are about, through `update`.
//
// Whatever storage holds, reading it never fails: every record is checked (work/records.js), whatever is readable is
// used, and anything unreadable is copied aside (never dropped) and reported through `problems()`.
// Where storage is missing or full, the work of this visit is kept in memory, and reported too.
//
// One learner may have the course open in several tabs. Every write reads the stored state afresh and changes only
// what it is about (one gap, one answer), so edits in two tabs never write a whole stale state over each other;
// each tab hears of the others' writes (the window's `storage` event, passed on as STORAGE_EVENT with
// detail.otherTab) and shows them.
import { SEED_PATTERN } from "../base/order.js";
import { RECORDS, readsAs } from "./records.js";

const KEY = "ember:v1";
const ASIDE = "ember:unreadable";
const EVENT = "ember:storage";

/**
 * The saved state's records (base/records.d.ts).
 * @typedef {import("../base/records").Answer} Answer
 * @typedef {import("../base/records").Progress} Progress
 * @typedef {import("../base/records").State} State
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

/** The tables of the saved state, each entry a record of the shape labs/data/work_records.json states. */
const TABLES = /** @type {("pieces" | "answers" | "progress" | "conflicts")[]} */ (Object.keys(RECORDS.tables));

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
  for (const field of TABLES) {
    if (saved[field] === undefined) continue;
    if (!isObject(saved[field])) {
      unreadable.push(`"${field}" is not a table`);
      continue;
    }
    /** @type {Record<string, any>} */
    const table = state[field] || {};
    for (const [key, entry] of Object.entries(saved[field])) {
      if (readsAs(field, entry)) table[key] = entry;
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

// Another tab's write comes as STORAGE_EVENT with detail.otherTab: this tab's parts show it (see page.js).
globalThis.window?.addEventListener("storage", (event) => {
  if ((event.key !== KEY && event.key !== null) || memory || event.storageArea !== backend()) return;
  window.dispatchEvent(new CustomEvent(EVENT, { detail: { otherTab: true } }));
});

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

/**
 * What Python merges a work file into (labs/work/work_merge.py): the saved state, as plain data.
 *
 * @returns {State}
 */
export function savedState() {
  return read();
}

/** @returns {string | null} the stored text of the saved state now (null: none, or kept in memory) */
function storedText() {
  if (memory) return null;
  try {
    return backend()?.getItem(KEY) ?? null;
  } catch {
    return null;
  }
}

/** @returns {boolean} whether the saved state is kept in memory for this visit (storage is missing or full) */
export function inMemory() {
  return memory !== null;
}

/**
 * Put back a stored text of the saved state as it was (null: none), as Undo does while nothing changed since.
 *
 * @param {string | null} raw
 */
export function putBack(raw) {
  const store = backend();
  try {
    if (raw === null) store?.removeItem(KEY);
    else store?.setItem(KEY, raw);
    cache = { raw: undefined, state: null };
  } catch {
    toMemory(validate(raw).state, "full");
  }
}

/** Tell this tab's parts that the saved work changed (STORAGE_EVENT). */
export function announce() {
  window.dispatchEvent(new CustomEvent(EVENT));
}

export { isObject, read, storedText, update, write };
