// @ts-check
// The saved answers, as the page reads them (web/src/work/store.js and answers.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { storage } from "./modules.mjs";

test("a state saved before seeds reads unchanged, and a damaged seed is unreadable", () => {
  const old = {
    pieces: { "L10.backward": { code: "x", saved: 1, version: "abc", exact: true } },
    answers: {
      "L10.bfs": { option: "twentyeight", correct: false, everCorrect: false },
      "L10.safe_order": { option: "cdexw", correct: true, everCorrect: true },
    },
    progress: { L10: { passed: 1, total: 5, done: false, at: 2 } },
    last: "L10",
  };
  assert.deepEqual(storage.validate(JSON.stringify(old)), { state: { ...old, seed: null }, unreadable: [] });
  assert.deepEqual(storage.validate(JSON.stringify({ ...old, seed: "0123456789abcdef" })), {
    state: { ...old, seed: "0123456789abcdef" },
    unreadable: [],
  });
  for (const seed of [12345, "not a seed!"]) {
    assert.deepEqual(storage.validate(JSON.stringify({ ...old, seed })), {
      state: { ...old, seed: null },
      unreadable: ['"seed" is not a learner seed'],
    });
  }
  const extra = { ...old, answers: { "L10.bfs": { option: "four", correct: true, tried: "four" } } };
  assert.deepEqual(storage.validate(JSON.stringify(extra)).unreadable, ['answers entry "L10.bfs"']);
});

test("a saved answer of either format says where the learner is", () => {
  /** @type {[Parameters<typeof storage.questionStatus>[0], string, string[]][]} */
  const cases = [
    [/** @type {any} */ (null), "new", []], // nothing saved: JSON's null
    [{ option: "four", correct: true }, "right", []], // the oldest format
    [{ option: "twentyeight", correct: false, everCorrect: true }, "right", ["twentyeight"]], // right once, then not
    [{ option: "twentyeight", correct: false, everCorrect: false }, "tried", ["twentyeight"]], // this release's pick
    [
      { option: "thirtytwo", correct: false, everCorrect: false, tried: ["twentyeight", "thirtytwo"] },
      "tried",
      ["twentyeight", "thirtytwo"],
    ],
    [
      { option: "four", correct: true, everCorrect: false, tried: ["thirtytwo"], revealed: true },
      "revealed",
      ["thirtytwo"],
    ],
    [
      { option: "four", correct: true, everCorrect: true, tried: ["thirtytwo"], revealed: false },
      "right",
      ["thirtytwo"],
    ],
  ];
  for (const [entry, status, tried] of cases) {
    assert.equal(storage.questionStatus(entry), status, JSON.stringify(entry));
    assert.deepEqual(storage.triedOptions(entry), tried, JSON.stringify(entry));
  }
});
