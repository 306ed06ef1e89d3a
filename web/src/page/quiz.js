// @ts-check
// Multiple-choice questions with feedback for every option. They need no Python, so they work
// from the moment the page is shown; the learner's answers are remembered.
//
// Each learner sees the options in an order of their own (order.js, from the seed kept with their
// saved work). A wrong pick shows that option's feedback only and marks it tried; the learner picks
// again until they find the right one, which opens the explanation, or asks for the answer.

import { el } from "../base/dom.js";
import { splitId } from "../base/ids.js";
import { optionOrder } from "../base/order.js";
import * as savedAnswers from "../work/answers.js";

/**
 * @typedef {import("../base/course-data").Course} Course
 * @typedef {import("../base/course-data").Question} Question
 * @typedef {import("../base/course-data").Option} Option
 */

/**
 * The words before an option's feedback once it is picked, as the notebook says them too (labs/course/questions.py;
 * tests/test_page_seams.py holds the two together).
 */
export const VERDICT = Object.freeze({ RIGHT: "Right.", WRONG: "Not quite." });

/** @type {WeakMap<HTMLElement, () => void>} */
const followers = new WeakMap(); // each question's way to show its saved answer anew (another tab saved one)

/**
 * Show in each question of a page the answer saved now, where another tab saved another one.
 *
 * @param {ParentNode} root
 */
export function followAnswers(root) {
  for (const holder of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-question"))) {
    followers.get(holder)?.();
  }
}

/**
 * Turn every .ember-question placeholder of a page into a question.
 *
 * @param {ParentNode} root
 * @param {Course} course
 */
export function mountQuestions(root, course) {
  const holders = /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-question"));
  if (!holders.length) return;
  const seed = savedAnswers.learnerSeed();
  for (const holder of holders) mountQuestion(holder, course, seed);
}

/**
 * One question in its placeholder (data-question: its id, "L10.bfs"), in the order learner ``seed`` sees it.
 *
 * @param {HTMLElement} holder
 * @param {Course} course
 * @param {string} seed
 */
function mountQuestion(holder, course, seed) {
  const key = /** @type {string} */ (holder.dataset.question); // "L10.bfs"
  const [lessonId, questionId] = splitId(key);
  const question = /** @type {Question} */ (course.lessons[lessonId].questions.find((q) => q.id === questionId));
  /** @type {Map<string, Option>} */
  const byId = new Map(question.options.map((option) => [option.id, option]));
  const name = `q-${lessonId}-${questionId}`;
  const feedback = el("div", { class: "ember-feedback", "aria-live": "polite", tabindex: "-1" });
  const explain = el("p", { class: "ember-explain", hidden: true, text: question.explain });
  const reveal = el(
    "button",
    { class: "md-button ember-show-answer", type: "button", hidden: true },
    "Show the answer",
  );
  const fieldset = el("fieldset", { class: "ember-options" }, el("legend", { text: question.prompt }));
  /** @type {Map<string, { label: HTMLLabelElement, tag: HTMLSpanElement }>} */
  const labels = new Map();
  // The options go into the page in the learner's order, so the keyboard meets them as the eye does.
  for (const optionId of optionOrder(seed, key, [...byId.keys()])) {
    const input = el("input", { type: "radio", name, value: optionId, id: `${name}-${optionId}` });
    input.addEventListener("change", () => choose(optionId, true));
    const tag = el("span", { class: "ember-tag" });
    const label = el(
      "label",
      { for: input.id, class: "ember-option", "data-option": optionId },
      input,
      el("span", { class: "ember-option-text", text: byId.get(optionId)?.text }),
      tag,
    );
    labels.set(optionId, { label, tag });
    fieldset.append(label);
  }
  holder.replaceChildren(fieldset, feedback, el("div", { class: "ember-toolbar" }, reveal), explain);
  let drawn = ""; // the saved answer shown, as JSON

  /**
   * Mark the options tried, and the right one once it is known; open the explanation when earned.
   *
   * @param {savedAnswers.Answer | undefined} entry
   */
  function draw(entry) {
    drawn = JSON.stringify(entry ?? null);
    const status = savedAnswers.questionStatus(entry);
    const tried = savedAnswers.triedOptions(entry);
    const known = status === "right" || status === "revealed";
    for (const [optionId, { label, tag }] of labels) {
      const mark = known && optionId === question.answer ? "answer" : tried.includes(optionId) ? "tried" : "";
      label.dataset.mark = mark;
      tag.textContent = { answer: "the answer", tried: "tried", "": "" }[mark];
    }
    holder.dataset.state = status;
    explain.hidden = !known;
    reveal.hidden = status !== "tried";
  }

  /**
   * Show a verdict's words in bold, then the feedback.
   *
   * @param {boolean} correct
   * @param {string} lead
   * @param {string} words
   */
  function say(correct, lead, words) {
    feedback.replaceChildren(
      el("p", { class: correct ? "ember-right" : "ember-wrong" }, el("strong", { text: lead }), words),
    );
  }

  /**
   * The learner picked an option (or it was picked before, and ``save`` is false).
   *
   * @param {string} optionId
   * @param {boolean} save
   */
  function choose(optionId, save) {
    const option = byId.get(optionId);
    if (!option) return;
    const correct = optionId === question.answer;
    say(correct, `${correct ? VERDICT.RIGHT : VERDICT.WRONG} `, option.feedback);
    holder.dataset.answered = correct ? "right" : "wrong";
    if (save) savedAnswers.saveAnswer(key, optionId, correct);
    draw(savedAnswers.answers()[key]);
  }

  /**
   * Show the right answer, with its feedback (asked for now, or before, and ``save`` is false).
   *
   * @param {boolean} save
   */
  function showAnswer(save) {
    const right = /** @type {Option} */ (byId.get(question.answer));
    say(true, `The answer: ${right.text}. `, right.feedback);
    if (save) savedAnswers.saveRevealed(key);
    draw(savedAnswers.answers()[key]);
  }

  reveal.addEventListener("click", () => {
    showAnswer(true);
    feedback.focus(); // the button is gone: the learner carries on from what it showed
  });

  /**
   * Show a saved answer (none: the question as new): the option picked, its feedback, the marks.
   *
   * @param {savedAnswers.Answer | undefined} saved
   */
  function showSaved(saved) {
    draw(saved);
    for (const input of fieldset.querySelectorAll("input")) input.checked = input.value === saved?.option;
    if (!saved) {
      feedback.replaceChildren();
      delete holder.dataset.answered;
    } else if (saved.revealed && !saved.correct) showAnswer(false);
    else choose(saved.option, false);
  }

  showSaved(savedAnswers.answers()[key]);
  followers.set(holder, () => {
    const saved = savedAnswers.answers()[key];
    if (JSON.stringify(saved ?? null) !== drawn) showSaved(saved);
  });
}
