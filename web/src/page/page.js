// @ts-check
// The page's interactive parts: questions, the home page's progress, cells and the lab. Loaded by
// main.js once per visit; with instant navigation it mounts each new page on the same runtime.

import { el, saveFile } from "../base/dom.js";
import * as savedAnswers from "../work/answers.js";
import { mountTakenBack, takeBack } from "../work/handover.js";
import * as savedCode from "../work/pieces.js";
import * as store from "../work/store.js";
import { downloadAllWork, mountWorkBox } from "../work/your-work.js";
import { cellToCell, mountSkipLinks, nameTheThemesParts, watchScrollBoxes } from "./access.js";
import { askToKeepStorage, mountBrowserNote, mountStorageNote } from "./notes.js";
import { followAnswers, mountQuestions } from "./quiz.js";

/**
 * @typedef {import("../base/course-data").Course} Course
 * @typedef {import("../runtime/runtime.js").Runtime} Runtime
 * @typedef {import("./lab.js").Lab} Lab
 */

const here = new URL(".", import.meta.url); // .../assets/gen/
const siteRoot = new URL("../../", here).href;
/** @type {Runtime} */
let runtime; // set by start()
/** @type {Course | null} */
let course = null;
/** @type {HTMLElement | null} */
let currentRoot = null; // the page now shown (instant navigation swaps it)
/** @type {Lab | null} */
let currentLab = null; // that page's lab, if it has one
const NOTEBOOK_WAIT_MS = 10_000;

const COURSE_RETRY_MS = 1000;

/**
 * The course's data (course.json), once per visit. A fetch that fails (cut short by a reload, a network that
 * dropped it) is tried once more a moment later; if that fails too, the caller is told.
 *
 * @returns {Promise<Course>}
 */
async function loadCourse() {
  for (let attempt = 0; !course; attempt++) {
    try {
      const response = await fetch(new URL("course.json", here));
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      course = /** @type {Course} */ (await response.json());
    } catch (error) {
      if (attempt > 0) throw error;
      await new Promise((resolve) => setTimeout(resolve, COURSE_RETRY_MS));
    }
  }
  return /** @type {Course} */ (course);
}

/**
 * Say at the top of the page that its questions and lab could not start, and why.
 *
 * @param {HTMLElement} root
 * @param {Error} error
 */
function mountCourseProblem(root, error) {
  root.querySelector(".ember-course-problem")?.remove();
  root.prepend(
    el("div", {
      class: "ember-course-problem admonition warning",
      role: "alert",
      text:
        `This page's questions and lab could not load the course's data (${error.message || error}). ` +
        "Reload the page to try again; your saved work is not touched.",
    }),
  );
}

/**
 * A small indicator of Python's state, in the page header.
 *
 * @returns {HTMLElement}
 */
function statusBadge() {
  let badge = document.getElementById("ember-python");
  if (!badge) {
    badge = el("span", { id: "ember-python", class: "ember-python", role: "status", "data-state": "off" });
    (document.querySelector(".md-header__inner") || document.body).append(badge);
  }
  return badge;
}

/** @type {Record<string, string>} */
const STATE_TEXT = {
  off: "",
  starting: "Python: starting…",
  ready: "Python: ready",
  running: "Python: running…",
  failed: "Python: failed to start",
};

/**
 * The badge's words: while Python boots, how much of it has downloaded, then that it is starting.
 *
 * @param {string} state
 * @param {Record<string, any>} detail
 * @returns {string}
 */
function stateText(state, detail) {
  if (state === "starting" && detail.phase === "downloading" && detail.total) {
    /** @param {number} bytes */
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    return `Python: downloading ${mb(detail.loaded)} of ${mb(detail.total)} MB…`;
  }
  // Its files from the browser's saved copy (or its memory from the stored snapshot): nothing is downloaded.
  if (state === "starting" && detail.saved) return "Python: starting from the saved copy…";
  return STATE_TEXT[state] ?? "";
}

/**
 * Show Python's state on the badge and the document (data-python, and data-python-start once it started).
 *
 * @param {string} state
 * @param {Record<string, any>} [detail]
 */
function showState(state, detail = {}) {
  const badge = statusBadge();
  badge.dataset.state = state;
  badge.dataset.phase = state === "starting" ? detail.phase || "starting" : "";
  badge.textContent = stateText(state, detail);
  document.documentElement.dataset.python = state;
  // "snapshot" (the stored one), "built" (the build's), "fresh" or "fallback"
  if (detail.start) document.documentElement.dataset.pythonStart = detail.start;
}

/**
 * While Python could not start, say why at the top of the page, with a button that tries again.
 *
 * @param {HTMLElement | null} root
 */
function showStartProblem(root) {
  for (const old of root?.querySelectorAll(".ember-python-problem") ?? []) old.remove();
  if (!root || runtime.state !== "failed") return;
  const again = el(
    "button",
    { class: "md-button", type: "button", onclick: () => runtime.start().catch(() => null) },
    "Try again",
  );
  root.prepend(
    el(
      "div",
      { class: "ember-python-problem admonition warning", role: "alert" },
      el("p", {
        text:
          `${runtime.stateDetail.error || "Python could not start"}. Your saved work is not touched; ` +
          "the next Run tries again, or press Try again.",
      }),
      again,
    ),
  );
}

/** Follow Python's state on the badge, and tell the learner when Python was restarted. */
function watchRuntime() {
  showState(runtime.state, runtime.stateDetail); // progress told before this page code came is shown too
  runtime.addEventListener("state", (event) => {
    const { detail } = /** @type {CustomEvent} */ (event);
    showState(detail.state, detail);
    showStartProblem(currentRoot);
  });
  runtime.addEventListener("restarted", (event) => {
    const { detail } = /** @type {CustomEvent} */ (event);
    const note = el("div", {
      class: "ember-toast",
      role: "alert",
      text: `${detail.reason}. Your code is safe and loads again automatically.`,
    });
    document.body.append(note);
    setTimeout(() => note.remove(), 6000);
  });
}

/** @type {Record<string, string>} */
const STORAGE_WORDS = {
  unreadable:
    "Some of the work saved in this browser could not be read. Nothing was thrown away: what could not be read " +
    "is kept aside in this browser, and everything readable is in use.",
  unavailable:
    "This browser is not letting the course save anything (a private window, or storage turned off). " +
    "Your work is kept while this tab stays open: download your files from the lab to keep them.",
  full:
    "This browser's storage for the course is full, so your latest work is kept only while this tab stays open. " +
    "Download your files from the lab to keep them, or free some space for this site.",
};

/**
 * Tell the learner, at the top of the page, when their saved work could not be read or kept.
 *
 * @param {HTMLElement} root
 */
function mountStorageNotice(root) {
  const problems = store.problems(); // reading may find a problem and announce it: draw after that
  for (const old of root.querySelectorAll(".ember-storage")) old.remove();
  if (!problems.length) return;
  const box = el("div", {
    class: "ember-storage",
    role: "alert",
    "data-problems": problems.map((p) => p.kind).join(" "),
  });
  for (const problem of problems) box.append(el("p", { text: STORAGE_WORDS[problem.kind] }));
  const aside = store.asideText();
  if (aside)
    box.append(
      el(
        "button",
        {
          class: "md-button",
          type: "button",
          onclick: () => saveFile(new Blob([aside], { type: "application/json" }), "ember-unreadable.json"),
        },
        "Download what was kept aside",
      ),
    );
  if (problems.some((p) => p.kind === "unreadable")) {
    box.append(
      el(
        "button",
        {
          class: "md-button",
          type: "button",
          onclick: () => {
            store.acknowledgeAside();
            box.remove();
          },
        },
        "Hide this note",
      ),
    );
  }
  if (problems.some((p) => p.kind !== "unreadable")) {
    // The same work file as "Download all my work", which both imports (the page's and `labs import`) take back.
    const rescue = el(
      "button",
      {
        class: "md-button",
        type: "button",
        onclick: () => {
          if (!downloadAllWork())
            rescue.replaceWith(el("p", { text: "Open the home page or any lesson to download your work there." }));
        },
      },
      "Download my work as it is now",
    );
    box.append(rescue);
  }
  root.prepend(box);
}

/**
 * Where the learner is with a lesson: "done", "started" or "new", and in words.
 *
 * @param {Record<string, import("../work/answers.js").Progress>} progress
 * @param {string} id
 * @returns {{ state: string, word: string }}
 */
function progressOf(progress, id) {
  const state = progress[id]?.done ? "done" : progress[id] ? "started" : "new";
  const word = {
    done: "all checks pass",
    started: progress[id]?.total ? `${progress[id].passed} of ${progress[id].total} checks pass` : "started",
    new: "not started",
  }[state];
  return { state, word };
}

/**
 * One part's lessons as a numbered list, each with the learner's progress.
 *
 * @param {Course} data
 * @param {string[]} ids
 * @param {Record<string, import("../work/answers.js").Progress>} progress
 */
function lessonList(data, ids, progress) {
  const first = ids.length ? data.lessons[ids[0]].number : 1;
  const list = el("ol", { class: "ember-lessons", start: String(first) });
  for (const id of ids) {
    const lesson = data.lessons[id];
    const { state, word } = progressOf(progress, id);
    const title = lesson.url
      ? el("a", { href: siteRoot + lesson.url }, lesson.title)
      : el("span", { text: `${lesson.title} (in preparation)` });
    list.append(
      el(
        "li",
        { "data-lesson": id, "data-state": state },
        title,
        el("span", { class: "ember-progress", text: ` — ${word}` }),
        el("div", { class: "ember-lesson-question", text: lesson.question }),
      ),
    );
  }
  return list;
}

/**
 * The home page: each part's placeholder (data-part) gets that part's lessons; a placeholder without one gets all.
 *
 * @param {HTMLElement} root
 * @param {Course} data
 */
function mountHome(root, data) {
  const holders = [.../** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-home"))];
  if (!holders.length) return;
  const progress = savedAnswers.progress();
  /** @param {HTMLElement} holder */
  const partOf = (holder) => data.parts.find((part) => String(part.number) === holder.dataset.part);
  const last = savedAnswers.lastLesson();
  const resume =
    last && data.lessons[last]?.url
      ? el(
          "p",
          { class: "ember-resume", "data-lesson": last },
          el(
            "a",
            { class: "md-button md-button--primary", href: siteRoot + data.lessons[last].url },
            `Continue where you left off: ${data.lessons[last].title}`,
          ),
        )
      : null;
  holders.forEach((holder, index) => {
    const part = partOf(holder);
    const ids = part ? part.lessons : data.order;
    const list = ids.length ? lessonList(data, ids, progress) : el("p", { text: "Coming later." });
    holder.replaceChildren(...(index === 0 && resume ? [resume, list] : [list]));
  });
}

/**
 * The "Your work" box (your-work.js): on a lesson page after its lab, on the home page after the lessons, with the
 * reset of all progress. What it brings in shows at once: in the lab's editors and the questions, or in the
 * progress the home page lists.
 *
 * @param {HTMLElement} root
 * @param {Course} data
 */
function mountYourWork(root, data) {
  for (const old of root.querySelectorAll(".ember-your-work")) old.remove();
  if (location.protocol === "file:") return;
  const lab = root.querySelector(".ember-lab");
  const home = [...root.querySelectorAll(".ember-home")].pop();
  if (lab) {
    const onChange = () => {
      if (currentRoot !== root) return;
      mountQuestions(root, data);
      currentLab?.showEditors();
    };
    mountWorkBox(lab, { runtime, course: data, onChange });
  } else if (home) {
    const reset = el(
      "button",
      {
        class: "md-button",
        type: "button",
        onclick: () => {
          if (confirm("Forget all your code, answers and progress in this browser?")) {
            store.resetAll();
            location.reload();
          }
        },
      },
      "Reset all my progress",
    );
    mountWorkBox(home, { runtime, course: data, onChange: () => mountHome(root, data), extra: [reset] });
  }
}

/**
 * Show on the home page the progress saved now (another tab saved more): each lesson's, in place, and where to
 * continue.
 *
 * @param {HTMLElement} root
 * @param {Course} data
 */
function followProgress(root, data) {
  const progress = savedAnswers.progress();
  for (const item of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-home li[data-lesson]"))) {
    const { state, word } = progressOf(progress, /** @type {string} */ (item.dataset.lesson));
    item.dataset.state = state;
    const words = item.querySelector(".ember-progress");
    if (words) words.textContent = ` — ${word}`;
  }
  const last = savedAnswers.lastLesson();
  const resume = /** @type {HTMLElement | null} */ (root.querySelector(".ember-resume"));
  if (root.querySelector(".ember-home") && last && data.lessons[last]?.url && resume?.dataset.lesson !== last) {
    mountHome(root, data);
  }
}

/** Show in the page now shown what another tab of the learner's saved: answers, progress, the lab's gaps. */
function followOtherTabs() {
  if (!currentRoot || !course) return;
  followAnswers(currentRoot);
  followProgress(currentRoot, course);
  currentLab?.follow();
}

/** Mount what the page now shown has: its notices, questions, home-page lists, and a lesson's lab and cells. */
async function mountPage() {
  const root = document.querySelector("article") || document.body;
  const page = /** @type {HTMLElement | null} */ (root.querySelector(".ember-page"));
  if (page && location.protocol !== "file:") runtime.start(); // boot Python first: everything else can wait
  nameTheThemesParts();
  mountSkipLinks(root);
  watchScrollBoxes(root);
  cellToCell(root);
  let data;
  try {
    data = await loadCourse();
  } catch (error) {
    mountCourseProblem(root, error);
    return;
  }
  currentRoot = root;
  savedCode.useCourse(data);
  showStartProblem(root);
  mountStorageNotice(root);
  mountQuestions(root, data);
  mountHome(root, data);
  mountYourWork(root, data);
  if (root.querySelector(".ember-your-work")) mountStorageNote(root, downloadAllWork);
  if (!page) return;
  if (location.protocol !== "file:") mountBrowserNote(root);
  if (location.protocol === "file:") return; // assets/file-warning.js explains how to serve the site
  const lesson = /** @type {string} */ (page.dataset.lesson);
  savedAnswers.visit(lesson);
  // The editors wait for Python: they would only compete with its start for the two cores a laptop
  // may have, and nothing can run before it is up. Until then the cells show their code as text. Their
  // code is fetched and compiled meanwhile (off the main thread), so that they come at once when it is.
  const modules = Promise.all([import("./cells.js"), import("./lab.js")]);
  await runtime.start().catch(() => null);
  // Where the theme's script waited for Python (boot.js), it runs now: the lab comes after it, in the order of
  // a page whose theme ran first.
  if (window.emberTheme) await window.emberTheme;
  currentLab = null;
  await fromNotebook(root, data);
  const [{ mountCells }, { mountLab }] = await modules;
  /** @type {Lab | null} */
  let lab = null;
  for (const holder of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-lab"))) {
    lab = mountLab(holder, { course: data, runtime, siteRoot });
  }
  currentLab = lab;
  watchNotebook(root, data);
  // every lesson page has its lab; there is nothing to load before the first lesson's gaps
  const theLab = lab;
  const loadFinished = theLab && data.lessons[lesson]?.earlier_gaps ? () => theLab.loadFinished(false) : null;
  mountCells(root, { runtime, lesson, page: location.pathname, loadFinished });
}

/**
 * Take back what the notebook changed in the learner's gaps, and say so at the top of the page.
 *
 * @param {HTMLElement} root
 * @param {Course} data
 * @returns {Promise<void>}
 */
async function fromNotebook(root, data) {
  let result;
  try {
    /** @type {Promise<never>} */
    const late = new Promise((_, reject) =>
      setTimeout(() => reject(new Error("the notebook's storage did not answer")), NOTEBOOK_WAIT_MS),
    );
    result = await Promise.race([takeBack(runtime, data.version), late]); // the lab never waits on it for long
  } catch (error) {
    if (runtime.wasRestarted(error)) return fromNotebook(root, data);
    console.warn("could not read the notebook's files:", error);
    lookedAtNotebook();
    return;
  }
  const rebuild = () => currentLab?.showEditors();
  for (const old of root.querySelectorAll(".ember-from-notebook")) old.remove();
  mountTakenBack(root, result, { version: data.version, onChange: rebuild });
  if (result.taken.length) rebuild();
  lookedAtNotebook();
}

/** Count, on the root element, the looks for the notebook's edits that are done (a state tests can wait for). */
function lookedAtNotebook() {
  const html = document.documentElement;
  html.dataset.notebookLooks = String(Number(html.dataset.notebookLooks || 0) + 1);
}

/** @type {(() => void) | null} */
let notebookWatch = null;

/**
 * Back from the notebook's tab: take its edits back into this page's lab.
 *
 * @param {HTMLElement} root
 * @param {Course} data
 */
function watchNotebook(root, data) {
  if (notebookWatch) document.removeEventListener("visibilitychange", notebookWatch);
  notebookWatch = () => {
    if (document.visibilityState === "visible" && currentRoot === root) fromNotebook(root, data);
  };
  document.addEventListener("visibilitychange", notebookWatch);
}

/**
 * Mount every page of the visit (the theme's document$ replays the current one) on this runtime.
 *
 * @param {Runtime} sharedRuntime
 */
export function start(sharedRuntime) {
  runtime = sharedRuntime;
  watchRuntime();
  window.addEventListener(
    store.STORAGE_EVENT,
    (event) => /** @type {CustomEvent} */ (event).detail?.problem && currentRoot && mountStorageNotice(currentRoot),
  );
  window.addEventListener(
    store.STORAGE_EVENT,
    (event) => /** @type {CustomEvent} */ (event).detail?.otherTab && followOtherTabs(),
  );
  // A page the browser kept while the learner was away heard nothing meanwhile: it looks at what is stored now.
  window.addEventListener("pageshow", (event) => event.persisted && followOtherTabs());
  // after the learner's first saved work: the answer decides whether the page shown tells them to download it
  askToKeepStorage(
    () => currentRoot?.querySelector(".ember-your-work") && mountStorageNote(currentRoot, downloadAllWork),
  );
  followPages();
}

/**
 * Mount this page, and each page the theme's instant navigation brings. Where the theme's script waits
 * (window.emberTheme, boot.js), this page is mounted now, and the theme's document$, which replays this
 * page when subscribed to, is followed once it is there.
 */
async function followPages() {
  const mounted = Boolean(window.emberTheme);
  if (mounted) {
    mountPage();
    await window.emberTheme;
  }
  if (!window.document$) {
    if (!mounted) mountPage();
    return;
  }
  let replaying = mounted;
  window.document$.subscribe(() => {
    if (!replaying) mountPage();
  });
  replaying = false;
}
