// @ts-check
// The page modules the unit tests use, named in this one file: where web/src's modules live is written here only.
import { register } from "node:module";
import * as answers from "../src/work/answers.js";
import * as pieces from "../src/work/pieces.js";
import * as store from "../src/work/store.js";

export { lessonOf, splitId } from "../src/base/ids.js";
export { FALLBACK_SEED, newSeed, optionOrder, rank, SEED_PATTERN } from "../src/base/order.js";
export { checkRecord, everRight, RECORDS, readsAs } from "../src/work/records.js";

/** The learner's saved state as the page keeps it: the store, its pieces and its answers, as one object. */
export const storage = { ...store, ...pieces, ...answers };

const STORAGE = ["store", "pieces", "answers"].map((name) => new URL(`../src/work/${name}.js`, import.meta.url).href);

// A tab's modules are one instance each, as a tab of the page has them: a module imported as .../x.js?tab=one
// imports the modules beside it as ?tab=one too.
register(
  `data:text/javascript,${encodeURIComponent(`export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  const tab = context.parentURL && new URL(context.parentURL).searchParams.get("tab");
  if (!tab || !specifier.startsWith(".")) return found;
  const url = new URL(found.url);
  url.searchParams.set("tab", tab);
  return { ...found, url: url.href };
}`)}`,
);

/**
 * The saved state's modules as a second tab of the page has them, instances of their own: named by `tab`.
 *
 * @param {string} tab
 * @returns {Promise<typeof storage>}
 */
export async function storageOfTab(tab) {
  const modules = await Promise.all(STORAGE.map((url) => import(`${url}?tab=${encodeURIComponent(tab)}`)));
  return Object.assign({}, ...modules);
}
