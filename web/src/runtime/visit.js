// @ts-check
// What the page knows about this browser before any of its code has loaded: whether the learner's
// browser keeps offline copies and snapshots at all, and whether a snapshot of Python was stored.

export const SNAPSHOT_FLAG = "ember:snapshot"; // in localStorage: a snapshot was stored in this browser

/**
 * True where offline use is turned off ("ember:offline" = "off") or storage is blocked.
 *
 * @returns {boolean}
 */
export function optedOut() {
  try {
    return localStorage.getItem("ember:offline") === "off";
  } catch {
    return true;
  }
}

/**
 * How Python's first start of the visit uses the stored snapshot (see worker.js's boot).
 *
 * @returns {"off" | "use" | "none"}
 */
export function firstSnapshotUse() {
  if (optedOut()) return "off";
  return localStorage.getItem(SNAPSHOT_FLAG) ? "use" : "none"; // none: a first visit, nothing to look for
}
