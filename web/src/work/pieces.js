// @ts-check
// The gaps' code in the saved state (store.js), and one learner in several tabs.
//
// Every piece is stored with the course version it was written under, so a new version of the
// course never drops it: gap ids stay stable, and the code moves along with its id. A piece typed
// in the editor is kept as its exact text (`exact: true`), byte for byte; pieces saved by older
// versions hold dedented bodies, which Python turns into exact texts (see `adoptExact`).
//
// A gap typed in a tab that had not yet heard of another tab's change to it is kept beside the stored piece
// (`conflicts`), both versions, until the learner chooses. Each piece carries the course's release it was written
// under (course.json's, which orders builds): a tab on an older release never writes over a piece of a newer one.
import { read, update } from "./store.js";

/**
 * @typedef {import("../base/records").Piece} Piece
 * @typedef {import("../base/records").Rival} Rival
 * @typedef {import("../runtime/protocol.js").Work} Work  the learner's work as requests carry it
 */

/** @type {{ version: string, release: number } | null} */
let course = null; // the course this tab runs (useCourse)
const TAB = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`; // this tab, among the learner's
let writes = 0;

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
export function typed(code, version, before) {
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
