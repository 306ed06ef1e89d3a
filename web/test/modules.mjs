// @ts-check
// The page modules the unit tests use, named in this one file: where web/src's modules live is written here only.

export { lessonOf, splitId } from "../src/ids.js";
export { FALLBACK_SEED, newSeed, optionOrder, rank, SEED_PATTERN } from "../src/order.js";
export * as storage from "../src/storage.js";

const STORAGE = new URL("../src/storage.js", import.meta.url).href;

/**
 * An instance of the storage module of its own, as a second tab of the page has: named by `tab`.
 *
 * @param {string} tab
 * @returns {Promise<typeof import("../src/storage.js")>}
 */
export function storageOfTab(tab) {
  return import(`${STORAGE}?tab=${encodeURIComponent(tab)}`);
}
