// @ts-check
// The learner's answers and progress in the saved state (store.js): each question's picks, each lesson's last check
// run, the last lesson visited, and the learner's seed (see order.js): made once, the first time a question is
// shown, it gives this learner their own order of every question's options, on the page and in the notebook. A
// state saved before seeds existed reads as it was, and gets one.
import { newSeed } from "../base/order.js";
import { everRight } from "./records.js";
import { read, update, write } from "./store.js";

/**
 * @typedef {import("../base/records").Answer} Answer
 * @typedef {import("../base/records").Progress} Progress
 */

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
  if (everRight(entry)) return "right"; // the rule labs/data/work_records.json states for both sides
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
