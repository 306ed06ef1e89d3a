// @ts-check
// What bringing a work file in would change (labs/work/work_merge.py's preview), in words: the gaps lesson by
// lesson, new, changed (with "Keep mine" and both versions) or the same, the answers and progress that merge, and
// the file's notes. Everything from the file is shown as text.
import { el } from "../base/dom.js";
import { clipMessage } from "./work-checks.js";

/**
 * @typedef {import("../base/course-data").Course} Course
 * @typedef {import("../base/records").Progress} Progress
 * @typedef {import("./import-undo.js").UndoItem} UndoItem
 *
 * What reading a work file would do, lesson by lesson, and its changes (runtime/protocol.js's read_work).
 * @typedef {import("../runtime/protocol.js").GapPreview} GapPreview
 * @typedef {import("../runtime/protocol.js").AnswerPreview} AnswerPreview
 * @typedef {import("../runtime/protocol.js").ProgressPreview} ProgressPreview
 * @typedef {import("../runtime/protocol.js").LessonPreview} LessonPreview
 * @typedef {import("../runtime/protocol.js").Preview} Preview
 * @typedef {import("../runtime/protocol.js").Changes} Changes
 */

/**
 * A sentence from one of Python's messages: a full stop at its end, and a capital first letter where it starts with
 * a plain word ("the file is…"; not a file's name, "ember-work.json: …" or "scalar.py, line 3: …").
 *
 * @param {string} text
 * @returns {string}
 */
export function sentence(text) {
  const trimmed = text.trim();
  const first = /^[a-z]+(?=[\s,;:])/.test(trimmed) ? trimmed.charAt(0).toUpperCase() + trimmed.slice(1) : trimmed;
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/**
 * How far a lesson's checks got, in words.
 *
 * @param {Progress} progress
 * @returns {string}
 */
function progressWords(progress) {
  if (progress.done) return "all checks pass";
  return progress.total ? `${progress.passed} of ${progress.total} checks pass` : "started";
}

/**
 * A list's words: "a", "a and b", "a, b and c".
 *
 * @param {string[]} items
 * @returns {string}
 */
export function listWords(items) {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/**
 * @param {number} count
 * @param {string} one
 * @param {string} [many]
 */
export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * The preview's words for the files ``names``: whether anything would change, what, lesson by lesson, and the
 * "Keep mine" box of each changed gap (its value: the gap's id).
 *
 * @param {string} names
 * @param {Preview} preview
 * @param {Changes} changes
 * @param {Course} course
 * @returns {{ parts: HTMLElement[], keeps: HTMLInputElement[], changing: boolean }}
 */
export function previewParts(names, preview, changes, course) {
  const { counts } = preview;
  const answers = preview.lessons.flatMap((lesson) => lesson.answers.filter((a) => a.status !== "kept"));
  const lessons = preview.lessons.filter((lesson) => lesson.progress && lesson.progress.status !== "kept");
  const merging = [
    answers.length ? `answers to ${plural(answers.length, "question")}` : "",
    lessons.length ? `progress in ${plural(lessons.length, "lesson")}` : "",
  ].filter(Boolean);
  const changing = Boolean(
    Object.keys(changes.pieces).length ||
      Object.keys(changes.answers).length ||
      Object.keys(changes.progress).length ||
      changes.seed ||
      changes.last,
  );
  const summary = changing
    ? `Nothing changes until you press Apply. Gaps: ${counts.new} new, ${counts.changed} changed, ` +
      `${counts.same} the same as here.` +
      (merging.length ? ` The file's ${listWords(merging)} would be merged with yours.` : "")
    : `Nothing would change: your work here already holds everything in ${names}.`;
  /** @type {HTMLElement[]} */
  const parts = [el("p", { text: summary })];
  if (preview.course_version && preview.course_version !== course.version) {
    parts.push(
      el("p", {
        text:
          `The file was saved from another version of the course (${preview.course_version}). ` +
          "Gaps keep their names from version to version, so your code comes along.",
      }),
    );
  }
  if (preview.notes.length) {
    parts.push(
      el(
        "ul",
        { class: "ember-import-notes" },
        ...preview.notes.map((note) => el("li", { text: sentence(clipMessage(note)) })),
      ),
    );
  }
  if (changes.seed) {
    parts.push(
      el("p", {
        text: "The questions' options would take the order they had where the file was saved (you have answered none here yet).",
      }),
    );
  }
  /** @type {HTMLInputElement[]} */
  const keeps = [];
  const list = el("ul", { class: "ember-import-lessons" });
  /** @type {string[]} */
  const unchanged = [];
  for (const lesson of preview.lessons) {
    const item = lessonItem(lesson, changes, keeps, course);
    if (item) list.append(item);
    else unchanged.push(lesson.lesson);
  }
  if (list.children.length) parts.push(list);
  if (unchanged.length) {
    const lessonsWord = unchanged.length === 1 ? "lesson" : "lessons";
    parts.push(el("p", { text: `Already the same here: ${lessonsWord} ${listWords(unchanged)}.` }));
  }
  return { parts, keeps, changing };
}

/**
 * A question's words: "question 2 of L10" (its place on the lesson's page), or its id.
 *
 * @param {string} question  its id, "L10.bfs"
 * @param {Course} course
 * @returns {string}
 */
function questionWords(question, course) {
  const lesson = question.split(".")[0];
  const index = (course.lessons[lesson]?.questions || []).findIndex((q) => `${lesson}.${q.id}` === question);
  return index >= 0 ? `question ${index + 1} of ${lesson}` : question;
}

/**
 * What Undo takes back or keeps, in words: "your code in L10.backward", "your answer to question 2 of L10",
 * "progress in L10", "the order of the questions' options".
 *
 * @param {UndoItem} item
 * @param {Course} course
 * @returns {string}
 */
export function undoItemWords(item, course) {
  if (item.kind === "piece") return `your code in ${item.key}`;
  if (item.kind === "answer") return `your answer to ${questionWords(item.key, course)}`;
  if (item.kind === "progress") return `progress in ${item.key}`;
  return "the order of the questions' options";
}

/**
 * One lesson of the preview: each gap's status (a changed one with "Keep mine" and both versions), its answers
 * and its progress; null when the file changes nothing in it.
 *
 * @param {LessonPreview} lesson
 * @param {Changes} changes
 * @param {HTMLInputElement[]} keeps  the "Keep mine" boxes, to add this lesson's to
 * @param {Course} course
 * @returns {HTMLLIElement | null}
 */
function lessonItem(lesson, changes, keeps, course) {
  const progress = lesson.progress;
  const changing =
    lesson.gaps.some((gap) => gap.status !== "same") ||
    lesson.answers.some((answer) => answer.status !== "kept") ||
    (progress !== null && progress.status !== "kept");
  if (!changing) return null;
  const lines = el("ul");
  for (const gap of lesson.gaps) {
    const line = el("li", { "data-gap": gap.gap, "data-status": gap.status }, el("code", { text: gap.gap }));
    const finished = gap.origin === "finished" ? " (a finished piece)" : "";
    if (gap.status === "new") line.append(` — new${finished}: the file's code goes in.`);
    else if (gap.status === "same") line.append(" — the same as here.");
    else {
      line.append(` — changed${finished}: the file's code replaces yours. `);
      const keep = el("input", { type: "checkbox", value: gap.gap, "aria-label": `Keep mine: ${gap.gap}` });
      keeps.push(keep);
      line.append(
        el("label", { class: "ember-keep-mine" }, keep, " Keep mine"),
        bothVersions(changes.aside[gap.gap], changes.pieces[gap.gap]?.code),
      );
    }
    lines.append(line);
  }
  const questions = course.lessons[lesson.lesson]?.questions || [];
  /** @param {AnswerPreview} answer */
  const number = (answer) => {
    const index = questions.findIndex((q) => `${lesson.lesson}.${q.id}` === answer.question);
    return index >= 0 ? `question ${index + 1}` : answer.question;
  };
  const news = lesson.answers.filter((a) => a.status === "new").map(number);
  const merged = lesson.answers.filter((a) => a.status === "merged").map(number);
  const said = [
    news.length ? `${listWords(news)} new` : "",
    merged.length ? `${listWords(merged)} merged with yours (every option tried on either side)` : "",
  ].filter(Boolean);
  if (said.length) lines.append(el("li", { text: `Answers: ${said.join("; ")}.` }));
  if (progress && progress.status !== "kept") {
    const words =
      progress.status === "new"
        ? `Progress: ${progressWords(progress.merged)}, from the file.`
        : `Progress: ${progressWords(progress.merged)}, from the file (here: ${progressWords(
            /** @type {Progress} */ (progress.mine),
          )}).`;
    lines.append(el("li", { text: words }));
  }
  return el(
    "li",
    { "data-lesson": lesson.lesson },
    el("p", { class: "ember-import-lesson" }, el("strong", { text: `${lesson.lesson} ${lesson.title}` })),
    lines,
  );
}

/**
 * A changed gap's two versions, folded.
 *
 * @param {string | undefined} mine
 * @param {string | undefined} theirs
 * @returns {HTMLDetailsElement}
 */
function bothVersions(mine, theirs) {
  return el(
    "details",
    { class: "ember-import-versions" },
    el("summary", { text: "Show both versions" }),
    el(
      "div",
      { class: "ember-conflict-versions" },
      el("div", {}, el("p", { text: "Here now:" }), el("pre", { text: mine ?? "" })),
      el("div", {}, el("p", { text: "In the file:" }), el("pre", { text: theirs ?? "" })),
    ),
  );
}
