// @ts-check
// The learner's own order of options: web/src/base/order.js against labs/course/questions.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FALLBACK_SEED, newSeed, optionOrder, rank, SEED_PATTERN } from "./modules.mjs";
import { pythonFacts } from "./python.mjs";

const python = pythonFacts();

test("the page orders options exactly as Python does", () => {
  assert.ok(python.orders.length > 100, `only ${python.orders.length} orders`);
  for (const { seed, key, ids, order } of python.orders) {
    assert.deepEqual(optionOrder(seed, key, ids), order, `${seed} ${key}`);
  }
  assert.ok(python.ranks.length >= 4);
  for (const { text, rank: ranked } of python.ranks) {
    assert.equal(rank(text), ranked, JSON.stringify(text));
  }
});

test("the page's seeds are seeds to Python too", () => {
  const isPythonSeed = new RegExp(`^(?:${python.seeds.pattern})$`); // Python's fullmatch
  const seeds = [newSeed(), newSeed()];
  for (const seed of seeds) assert.ok(isPythonSeed.test(seed), seed);
  assert.notEqual(seeds[0], seeds[1]);
  assert.equal(FALLBACK_SEED, python.seeds.fallback);
  assert.ok(python.seeds.samples.length > 5);
  for (const { text, isSeed } of python.seeds.samples) {
    assert.equal(SEED_PATTERN.test(text), isSeed, JSON.stringify(text));
  }
});
