// @ts-check
// The page's storage with one learner in several tabs (web/src/work/store.js, pieces.js and answers.js): each write changes only its own gap on
// the state as stored, a gap typed in two tabs at once keeps both texts, and a tab on an older release of the course
// never writes over a newer one's piece. Each tab is an instance of the module of its own, over one shared
// localStorage.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { storageOfTab } from "./modules.mjs";

/** @type {Map<string, string>} */
let items = new Map();

/** A new window over an empty localStorage, for the tabs of one test. */
function newWindow() {
  items = new Map();
  const localStorage = {
    /** @param {string} key */
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    /** @param {string} key @param {unknown} value */
    setItem: (key, value) => items.set(key, String(value)),
    /** @param {string} key */
    removeItem: (key) => items.delete(key),
  };
  Object.assign(globalThis, { window: Object.assign(new EventTarget(), { localStorage }) });
}

/** @returns {any} the state as stored */
const stored = () => JSON.parse(items.get("ember:v1") ?? "null");

let opened = 0;
/**
 * A tab of the page on a version and release of the course: a fresh instance of the storage module.
 *
 * @param {string} version
 * @param {number} release
 */
async function tab(version, release) {
  opened += 1;
  const storage = await storageOfTab(`tab-${opened}`);
  storage.useCourse({ version, release });
  return storage;
}

/** Two tabs and a newer one, over an empty localStorage. */
async function tabs() {
  return { one: await tab("v1", 100), two: await tab("v1", 100), newer: await tab("v2", 200) };
}

beforeEach(newWindow);

test("a gap typed in two tabs at once keeps both texts until one is chosen", async () => {
  const { one, two } = await tabs();
  const first = one.saveTyped("L10.backward", "a line from tab one", null, "v1");
  const second = two.saveTyped("L10.backward", "a line from tab two", null, "v1"); // it never saw tab one's
  const again = two.saveTyped("L10.backward", "a line from tab two, and more", null, "v1");
  const onward = one.saveTyped("L10.backward", "a line from tab one, and more", first.rev, "v1");
  const during = stored();
  const kept = one.keepVersion("L10.backward", "a line from tab two, and more", "v1");
  assert.equal(first.outcome, "saved");
  assert.equal(onward.outcome, "saved");
  assert.deepEqual(second, { outcome: "kept beside", rev: first.rev });
  assert.equal(again.outcome, "kept beside");
  assert.equal(during.pieces["L10.backward"].code, "a line from tab one, and more");
  assert.equal(during.pieces["L10.backward"].after, first.rev);
  assert.deepEqual(
    during.conflicts["L10.backward"].map((/** @type {{ code: string }} */ rival) => rival.code),
    ["a line from tab two, and more"],
  );
  assert.equal(one.isThisTab(during.conflicts["L10.backward"][0]), false);
  assert.equal(kept, true);
  const after = stored();
  assert.equal(after.pieces["L10.backward"].code, "a line from tab two, and more");
  assert.equal("conflicts" in after, false);
  assert.equal(two.conflicts()["L10.backward"], undefined);
});

test("edits to different gaps in two tabs both survive", async () => {
  const { one, two } = await tabs();
  one.saveTyped("L09.neg", "neg from tab one", null, "v1");
  two.saveTyped("L10.backward", "backward from tab two", null, "v1");
  two.saveAnswer("L10.bfs", "four", true);
  one.saveProgress("L10", 2, 5);
  const after = stored();
  assert.deepEqual(
    Object.fromEntries(Object.entries(after.pieces).map(([gap, /** @type {any} */ piece]) => [gap, piece.code])),
    { "L09.neg": "neg from tab one", "L10.backward": "backward from tab two" },
  );
  assert.equal(after.answers["L10.bfs"].option, "four");
  assert.equal(after.progress.L10.passed, 2);
  assert.equal(after.pieces["L10.backward"].release, 100);
  assert.equal(after.pieces["L10.backward"].version, "v1");
});

test("a tab on an older release never writes over a newer one's piece", async () => {
  const { one, newer } = await tabs();
  const first = one.saveTyped("L10.backward", "older", null, "v1");
  const onTop = newer.saveTyped("L10.backward", "newer", first.rev, "v2"); // a newer release moves older work on
  const typed = one.saveTyped("L10.backward", "older again", onTop.rev, "v1");
  const reset = one.saveExact({ "L10.backward": null, "L09.neg": "neg" }, "v1");
  const chosen = one.keepVersion("L10.backward", "older", "v1");
  assert.equal(onTop.outcome, "saved");
  assert.deepEqual(typed, { outcome: "newer", rev: onTop.rev });
  assert.deepEqual(reset, ["L10.backward"]);
  assert.equal(chosen, false);
  assert.equal(one.isNewer(stored().pieces["L10.backward"]), true);
  assert.equal(newer.isNewer(stored().pieces["L09.neg"]), false);
  const after = stored();
  assert.equal(after.pieces["L10.backward"].code, "newer");
  assert.equal(after.pieces["L10.backward"].release, 200);
  assert.equal(after.pieces["L09.neg"].code, "neg");
});

test("pieces saved before releases are older than any release", async () => {
  const { one } = await tabs();
  items.set(
    "ember:v1",
    JSON.stringify({ pieces: { "L10.backward": { code: "saved long ago", version: "v0", saved: 1, exact: true } } }),
  );
  const typed = one.saveTyped("L10.backward", "typed now", null, "v1");
  assert.equal(typed.outcome, "saved");
  assert.equal(stored().pieces["L10.backward"].code, "typed now");
});

test("texts kept beside a piece are read back and damaged ones set aside", async () => {
  const { one } = await tabs();
  const good = { code: "x", tab: "t1", saved: 5 };
  const conflicts = { "L10.backward": [good], "L09.neg": [{ code: 3 }], "L09.sub": [] };
  const read = one.validate(JSON.stringify({ pieces: {}, conflicts }));
  assert.deepEqual(read.state.conflicts, { "L10.backward": [{ code: "x", tab: "t1", saved: 5 }] });
  assert.deepEqual(read.unreadable, ['conflicts entry "L09.neg"', 'conflicts entry "L09.sub"']);
});
