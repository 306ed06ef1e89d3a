// @ts-check
// The lab: the learner's module as this lab starts, this lesson's gaps editable, hints, named
// checks, reset and undo, loading earlier finished pieces, download, and the closing box.
//
// The learner may have the course open in other tabs: work/following.js keeps this lab's editors in step with
// them, asking the lab only for what its LabSide names (as work/folder.js does for a linked folder).

import { el, saveFile } from "../base/dom.js";
import * as savedAnswers from "../work/answers.js";
import { FolderLink } from "../work/folder.js";
import { Following } from "../work/following.js";
import { handOver, notebookUrl, openWaitingTab } from "../work/handover.js";
import { plural } from "../work/import-preview.js";
import * as savedCode from "../work/pieces.js";
import { reachScrollBoxes } from "./access.js";
import { focusGap, gapTexts, labEditor, lockGapsOf, replaceText, scrollToGap, setGapTexts } from "./editor.js";
import { gapAnchor, newerVersionNote, revealLinkedGap } from "./newer-version.js";

/**
 * @typedef {import("../base/course-data").Course} Course
 * @typedef {import("../runtime/runtime.js").Runtime} Runtime
 * @typedef {import("./editor.js").LabView} LabView
 * @typedef {import("../runtime/protocol.js").Problem} Problem
 */

// A number in exponent form (1e-6, 2.5e+10): on a narrow screen the line may not break at its sign.
const EXPONENT_FORM = /(\d(?:\.\d+)?e[-+]\d+)/;

/**
 * Set an element's text, each number in exponent form kept on one line (as text nodes: nothing is parsed).
 *
 * @template {Element} E
 * @param {E} element
 * @param {string} text
 * @returns {E}
 */
function withNumbersWhole(element, text) {
  element.replaceChildren(
    ...text
      .split(EXPONENT_FORM)
      .map((part, i) => (i % 2 ? el("span", { class: "ember-nowrap", text: part }) : document.createTextNode(part))),
  );
  return element;
}

/**
 * A lab editor's accessible name: its file, the gaps that can be edited in it, and that the rest cannot.
 *
 * @param {string} file
 * @param {string[]} gapIds
 * @returns {string}
 */
function labLabel(file, gapIds) {
  const gaps = gapIds.length === 1 ? `gap ${gapIds[0]}` : `gaps ${gapIds.join(", ")}`;
  return `ember/${file}, ${gaps} editable; the rest of the file is read-only`;
}

/** One lesson's lab, built in its placeholder (data-lab: the lesson's id). */
/**
 * Mount a lab in its holder (the page's `.ember-lab`, its lesson in data-lab), and answer its handle.
 *
 * @param {HTMLElement} holder
 * @param {{ course: Course, runtime: Runtime, siteRoot: string }} context
 * @returns {Lab}
 */
export function mountLab(holder, context) {
  return new Lab(holder, context);
}

export class Lab {
  // The lab's parts, made by build().
  /** @type {HTMLParagraphElement} */ status;
  /** @type {HTMLDivElement} */ editorBox;
  /** @type {HTMLUListElement} */ claimList;
  /** @type {HTMLParagraphElement} */ summary;
  /** @type {HTMLDivElement} */ problem;
  /** @type {HTMLElement} */ earlierBox;
  /** @type {HTMLButtonElement} */ runButton;
  /** @type {HTMLButtonElement} */ stopButton;
  /** @type {HTMLButtonElement} */ restartButton;
  /** @type {HTMLButtonElement} */ undoButton;
  /** @type {HTMLParagraphElement} */ notice;
  /** @type {HTMLButtonElement} */ notebookButton;
  /** @type {HTMLDivElement} */ replaceMine;
  /** @type {HTMLDivElement} */ closing;
  /** @type {HTMLDivElement} */ tabsBox;
  /** @type {Following} */ tabs; // the gaps kept in step with the learner's other tabs

  /** @type {Map<string, HTMLElement>} */ newerNotes = new Map(); // gaps a later lesson reopens -> their note's box

  /**
   * @param {HTMLElement} holder
   * @param {{ course: Course, runtime: Runtime, siteRoot: string }} context  the course, Python, and the
   *   site's root address
   */
  constructor(holder, { course, runtime, siteRoot }) {
    this.holder = holder;
    this.course = course;
    this.runtime = runtime;
    this.siteRoot = siteRoot;
    this.lesson = course.lessons[/** @type {string} */ (holder.dataset.lab)];
    this.gapIds = this.lesson.gaps;
    this.files = [...new Set(this.gapIds.map((id) => course.gaps[id].file))];
    /** @type {Record<string, LabView>} */
    this.editors = {};
    /** @type {Record<string, string | null> | null} */
    this.undo = null;
    this.build();
  }

  /** Make the lab's parts, then show the editors once Python has built the learner's files. */
  build() {
    const lesson = this.lesson;
    this.status = el("p", {
      class: "ember-status",
      "aria-live": "polite",
      text: "Starting Python to build your module…",
    });
    this.editorBox = el("div", { class: "ember-lab-editors" });
    this.claimList = el("ul", { class: "ember-claims" });
    // One short sentence per run of the checks is read out, not the whole list again.
    this.summary = el("p", { class: "ember-check-summary", role: "status" });
    for (const claim of lesson.claims) {
      this.claimList.append(
        el(
          "li",
          { "data-claim": claim.key, "data-state": "idle" },
          el("span", { class: "ember-claim-mark", "aria-hidden": "true", text: "○" }),
          withNumbersWhole(el("span", { class: "ember-claim-name" }), claim.name),
          el("span", { class: "ember-claim-message" }),
        ),
      );
    }
    this.problem = el("div", { class: "ember-problem", role: "alert", hidden: true });
    // An earlier lesson's piece that fails its own checks: said first, with a way to its finished piece.
    this.earlierBox = el("section", {
      class: "ember-earlier",
      hidden: true,
      "aria-labelledby": `ember-earlier-${lesson.id}`,
    });
    this.runButton = el(
      "button",
      { class: "md-button md-button--primary", type: "button", onclick: () => this.check() },
      "Run checks",
    );
    this.stopButton = el(
      "button",
      { class: "md-button", type: "button", hidden: true, onclick: () => this.stopChecks() },
      "Stop",
    );
    // Offered only when checks that were stopped do not end (the learner's code ignores Stop).
    this.restartButton = el(
      "button",
      {
        class: "md-button ember-restart",
        type: "button",
        hidden: true,
        onclick: () => this.runtime.restart("Stopped: Python was restarted"),
      },
      "Restart Python",
    );
    this.undoButton = el(
      "button",
      { class: "md-button", type: "button", hidden: true, onclick: () => this.restore() },
      "Undo",
    );
    this.notice = el("p", { class: "ember-notice", "aria-live": "polite" });
    // Offered only where earlier lessons have gaps to fill (lesson 01 has none).
    const loadButton = lesson.earlier_gaps
      ? el(
          "button",
          { class: "md-button", type: "button", onclick: () => this.loadFinished(false) },
          "Load the finished pieces of earlier lessons",
        )
      : null;
    const downloads = this.files.map((file) =>
      el(
        "button",
        { class: "md-button", type: "button", onclick: () => this.download(file) },
        `Download my ember/${file}`,
      ),
    );
    this.notebookButton = el(
      "button",
      { class: "md-button ember-open-notebook", type: "button", onclick: () => this.openNotebook() },
      "Open as notebook",
    );
    this.replaceMine = el("div", { class: "ember-replace", hidden: true });
    this.folder = FolderLink.offer({
      // where the browser can open a folder of the learner's: what the link asks of the lab, and nothing more
      lesson: lesson.id,
      holder: this.holder,
      edits: (files) => this.runtime.edits(files),
      buildModule: () => this.buildModule(),
      change: (changes, message) => this.change(changes, message),
    });
    this.closing = this.closingBox();
    this.tabsBox = el("div", { class: "ember-tabs" });
    this.tabs = new Following({
      // what the tab-following asks of the lab, and nothing more
      gapIds: this.gapIds,
      version: this.course.version,
      box: this.tabsBox,
      ready: () => this.holder.dataset.ready === "true",
      shows: (gap) => Boolean(this.editorOf(gap)),
      textOf: (gap) => gapTexts(/** @type {LabView} */ (this.editorOf(gap)))[gap],
      setText: (gap, text) => {
        const view = this.editorOf(gap);
        if (view) setGapTexts(view, { [gap]: text });
      },
      lockGaps: (gaps) => {
        for (const view of Object.values(this.editors)) lockGapsOf(view, gaps);
      },
      showStored: (changed, work, keepsItsText) => this.showStored(changed, work, keepsItsText),
      kept: (gap) => {
        this.notice.textContent = `${gap} holds the version you kept.`;
        this.goTo(gap);
      },
      boxesShown: (box) => reachScrollBoxes(box),
      wasRestarted: (error) => this.runtime.wasRestarted(error),
    });
    this.holder.replaceChildren(
      el("h3", { text: `Lab: ${lesson.title}` }),
      this.gapList(),
      this.tabsBox,
      this.status,
      this.editorBox,
      el(
        "div",
        { class: "ember-toolbar" },
        this.runButton,
        this.stopButton,
        this.restartButton,
        this.undoButton,
        loadButton,
        ...downloads,
        this.notebookButton,
      ),
      ...(this.folder ? [this.folder.panel] : []),
      this.notice,
      this.replaceMine,
      this.earlierBox,
      this.problem,
      el("h4", { text: "Checks" }),
      this.summary,
      this.claimList,
      this.closing,
    );
    this.showEditors();
  }

  /** The lesson's gaps, each with its title, a way to it, its hints one by one, and its reset. */
  gapList() {
    const list = el("div", { class: "ember-gaps" });
    for (const id of this.gapIds) {
      const gap = this.course.gaps[id];
      const hints = el("ol", { class: "ember-hints" });
      let shown = 0;
      const more = el(
        "button",
        { class: "md-button ember-hint-button", type: "button" },
        `Show a hint (1 of ${gap.hints.length})`,
      );
      more.addEventListener("click", () => {
        hints.append(el("li", { text: gap.hints[shown] }));
        shown += 1;
        more.textContent = `Show another hint (${shown + 1} of ${gap.hints.length})`;
        more.hidden = shown >= gap.hints.length;
      });
      const reset = el(
        "button",
        { class: "md-button ember-reset", type: "button", onclick: () => this.resetGap(id) },
        "Reset this gap",
      );
      const go = el(
        "button",
        { class: "md-button ember-go", type: "button", onclick: () => this.goTo(id) },
        "Go to the gap",
      );
      const newer = el("div", { class: "ember-gap-later" });
      if (gap.later?.length) this.newerNotes.set(id, newer);
      list.append(
        el(
          "div",
          { class: "ember-gap", "data-gap": id, id: gapAnchor(id) },
          el("p", {}, el("code", { text: id }), ` ${gap.title}`),
          newer,
          el("div", { class: "ember-toolbar" }, go, more, reset),
          hints,
        ),
      );
    }
    this.showNewer();
    return list;
  }

  /** On each gap a later lesson reopens, say whether the learner's newer version of it is there. */
  showNewer() {
    const pieces = savedCode.pieces();
    for (const [id, box] of this.newerNotes) {
      const note = newerVersionNote(this.course, this.siteRoot, id, pieces);
      if ((note?.dataset.newer ?? "") !== (box.firstElementChild?.getAttribute("data-newer") ?? ""))
        box.replaceChildren(...(note ? [note] : []));
    }
  }

  /** The box that closes the lab: what the learner's ember can now do, could already, and where to go next. */
  closingBox() {
    const lesson = this.lesson;
    const order = this.course.order;
    const at = order.indexOf(lesson.id);
    const earlier = order.slice(0, at).map((id) => this.course.lessons[id]);
    /** @type {(id: string | undefined, word: string) => HTMLAnchorElement | null} */
    const link = (id, word) => {
      const target = id === undefined ? undefined : this.course.lessons[id];
      return target?.url ? el("a", { href: this.siteRoot + target.url }, `${word}: ${target.title}`) : null;
    };
    const could = el("ul");
    for (const item of earlier) could.append(el("li", { text: item.can_now }));
    return el(
      "div",
      { class: "ember-closing", "data-lit": "false" },
      el("p", {}, el("strong", { text: "Your ember can now " }), `${lesson.can_now}.`),
      earlier.length ? el("div", {}, el("p", { text: "It already could:" }), could) : null,
      this.lessonLinks(link(order[at - 1], "Previous"), link(order[at + 1], "Next")),
    );
  }

  /**
   * The links to the lessons before and after, as a short list (one link each, kept apart).
   *
   * @param {HTMLAnchorElement | null} previous
   * @param {HTMLAnchorElement | null} next
   */
  lessonLinks(previous, next) {
    const links = el("ul", { class: "ember-links" });
    if (previous) links.append(el("li", { class: "ember-link-previous" }, "← ", previous));
    if (next) links.append(el("li", { class: "ember-link-next" }, next, " →"));
    return links.children.length ? links : null;
  }

  /**
   * Build the module again until what the learner stored did not change while Python built it: text typed
   * while a build was under way (Python busy with a cell, or just after Undo) is in the editors' new text.
   */
  async buildCurrent() {
    for (let tries = 1; ; tries += 1) {
      const asked = JSON.stringify(savedCode.work());
      const answer = await this.buildModule();
      if (tries >= 5 || JSON.stringify(savedCode.work()) === asked) return answer;
    }
  }

  /** Ask Python for the learner's files as this lab starts: {files: {name: {source, gaps}}, exact, problem}. */
  async buildModule() {
    const answer = await this.runtime.module({ lab: this.lesson.id, ...savedCode.work() });
    savedCode.adoptExact(answer.exact); // pieces saved by older versions become exact texts
    return answer;
  }

  /**
   * Build the learner's files and show them in the editors (made the first time); after a failed start, again
   * once Python is ready.
   *
   * @returns {Promise<void>}
   */
  async showEditors() {
    try {
      const { files, problem } = await this.buildCurrent();
      this.status.textContent = "";
      for (const file of this.files) {
        const { source, gaps } = files[file];
        if (this.editors[file]) {
          replaceText(this.editors[file], source, gaps);
          continue;
        }
        const box = el(
          "div",
          { class: "ember-lab-file" },
          el(
            "p",
            { class: "ember-file-name" },
            el("code", { text: `ember/${file}` }),
            " — only the highlighted gaps can be edited",
          ),
        );
        const editorHolder = el("div", { class: "ember-editor" });
        box.append(editorHolder);
        this.editorBox.append(box);
        this.editors[file] = labEditor(editorHolder, source, {
          gaps,
          gapIds: this.gapIds,
          onChange: (texts) => this.save(texts),
          onRun: () => this.check(),
          label: labLabel(
            file,
            this.gapIds.filter((id) => this.course.gaps[id].file === file),
          ),
        });
        const first = this.gapIds.find((id) => this.course.gaps[id].file === file);
        if (first) scrollToGap(this.editors[file], first);
      }
      this.tabs.takeStock();
      this.showNewer();
      this.showProblem(problem);
      if (this.holder.dataset.ready !== "true") revealLinkedGap(this.holder); // a link to one of its gaps
      this.holder.dataset.ready = "true";
    } catch (error) {
      if (this.runtime.wasRestarted(error)) return this.showEditors();
      this.status.textContent = `Could not build your module: ${error.message || error}`;
      if (this.runtime.state === "failed") this.whenReady(() => this.showEditors()); // Python starts on a later try
    }
  }

  /**
   * Call `then` once Python is next ready.
   *
   * @param {() => void} then
   */
  whenReady(then) {
    /** @param {Event} event */
    const listen = (event) => {
      if (/** @type {CustomEvent} */ (event).detail.state !== "ready") return;
      this.runtime.removeEventListener("state", listen);
      then();
    };
    this.runtime.addEventListener("state", listen);
  }

  /**
   * Save each of this lesson's gaps the learner changed, as they typed it (the tab-following keeps the learner's
   * other tabs in step).
   *
   * @param {Record<string, string>} texts
   */
  save(texts) {
    this.tabs.save(texts);
  }

  /** Show in the editors what another tab of the learner's saved (page.js calls it on the store's event). */
  follow() {
    return this.tabs.follow();
  }

  /** @param {string} gap  @returns {LabView | undefined} the editor that holds a gap */
  editorOf(gap) {
    return this.editors[this.course.gaps[gap]?.file];
  }

  /**
   * Put the stored texts of changed gaps into the editors: exact texts of gaps an editor shows directly, anything
   * else (a gap back to its starting code, an earlier stage's piece) as Python builds the module now. A gap
   * ``keepsItsText`` names keeps what its editor shows.
   *
   * @param {string[]} changed
   * @param {savedCode.Work} work
   * @param {(gap: string) => boolean} keepsItsText
   */
  async showStored(changed, work, keepsItsText) {
    /** @type {Map<string, LabView>} */
    const shownIn = new Map();
    for (const view of Object.values(this.editors)) {
      for (const span of view.state.field(view.emberGaps)) shownIn.set(span.id, view);
    }
    if (changed.every((id) => id in work.exact && shownIn.has(id))) {
      for (const id of changed) setGapTexts(/** @type {LabView} */ (shownIn.get(id)), { [id]: work.exact[id] });
      return;
    }
    const { files } = await this.buildModule();
    for (const file of this.files) {
      const view = this.editors[file];
      const { source, gaps } = files[file];
      const lines = source.split("\n");
      /** @type {Record<string, string>} */
      const texts = {};
      for (const gap of gaps) {
        if (!keepsItsText(gap.id)) texts[gap.id] = lines.slice(gap.open_line, gap.close_line - 1).join("\n");
      }
      const ids = view.state.field(view.emberGaps).map((span) => span.id);
      if (ids.join() === gaps.map((gap) => gap.id).join()) setGapTexts(view, texts);
      else {
        const mine = Object.fromEntries(ids.filter((id) => !(id in texts)).map((id) => [id, gapTexts(view)[id]]));
        replaceText(view, source, gaps);
        setGapTexts(view, mine);
      }
    }
  }

  /**
   * Show a problem record from Python (or hide the box for null), with a way to the gap it names.
   *
   * @param {Problem | null} problem
   */
  showProblem(problem) {
    this.problem.hidden = !problem;
    this.problem.dataset.kind = problem ? problem.kind : "";
    this.problem.textContent = problem ? problem.message : "";
    const gap = problem?.gap;
    if (gap && this.course.gaps[gap]?.lesson === this.lesson.id) {
      const line = problem.place?.gap_line || 1;
      this.problem.append(
        " ",
        el("button", { class: "md-button", type: "button", onclick: () => this.goTo(gap, line) }, "Go to the gap"),
      );
    }
  }

  /** Stop the checks in place; if they do not end, offer to restart Python. */
  async stopChecks() {
    await this.runtime.stop(() => {
      this.restartButton.hidden = false;
      this.notice.textContent =
        "The checks have not stopped: your code may be ignoring Stop. Restart Python to end them.";
    });
  }

  /** Run the lesson's checks and show their report. */
  async check() {
    this.runButton.disabled = true;
    this.stopButton.hidden = false;
    this.problem.hidden = true;
    this.showRunning();
    try {
      await this.folder?.beforeRun(); // what the learner saved in their folder is what the checks run on
      const report = await this.runtime.check({ lab: this.lesson.id, ...savedCode.work() });
      this.showReport(report);
    } catch (error) {
      this.showRunning(false);
      this.problem.hidden = false;
      this.problem.textContent = this.runtime.wasRestarted(error)
        ? `${error.message}. Your code is safe: fix the loop and run the checks again.`
        : String(error.message || error);
    } finally {
      this.runButton.disabled = false;
      this.stopButton.hidden = true;
      if (!this.restartButton.hidden) this.notice.textContent = "";
      this.restartButton.hidden = true;
      this.claimList.removeAttribute("aria-busy");
    }
  }

  /**
   * While the checks run, the last run's verdicts no longer stand: each claim waits (…), and the summary says the
   * checks are running. With `running` false (a run that ended without a report), the claims are left unjudged.
   */
  showRunning(running = true) {
    if (running) this.claimList.setAttribute("aria-busy", "true");
    for (const item of this.claimItems()) {
      item.dataset.state = running ? "running" : "idle";
      /** @type {Element} */ (item.querySelector(".ember-claim-mark")).textContent = running ? "…" : "○";
      /** @type {Element} */ (item.querySelector(".ember-claim-message")).replaceChildren();
    }
    this.summary.textContent = running ? "Checking your code…" : "";
  }

  /** @returns {HTMLLIElement[]} the claims' items */
  claimItems() {
    return /** @type {HTMLLIElement[]} */ ([...this.claimList.children]);
  }

  /**
   * Mark each claim held or not, say how many held, show a problem that stopped them, and note the progress.
   *
   * @param {import("../runtime/protocol.js").CheckReport} report
   */
  showReport(report) {
    const passed = report.results.filter((r) => r.passed).length;
    const failing = report.results.find((r) => !r.passed);
    const name =
      failing && this.claimList.querySelector(`[data-claim="${CSS.escape(failing.claim)}"] .ember-claim-name`);
    const earlier = report.earlier ?? null;
    this.summary.textContent =
      (earlier ? `First: your ${earlier.gap} fails a check of its own lesson. ` : "") +
      `${passed} of ${report.results.length} checks hold` +
      (failing ? `; first failing: ${name?.textContent || failing.claim}.` : ". Every check holds.");
    this.showEarlier(earlier);
    for (const result of report.results) {
      const item = /** @type {HTMLLIElement | null} */ (
        this.claimList.querySelector(`[data-claim="${CSS.escape(result.claim)}"]`)
      );
      if (!item) continue;
      item.dataset.state = result.passed ? "pass" : "fail";
      /** @type {Element} */ (item.querySelector(".ember-claim-mark")).textContent = result.passed ? "✓" : "✗";
      const message = /** @type {Element} */ (item.querySelector(".ember-claim-message"));
      withNumbersWhole(message, result.passed ? "" : result.message);
    }
    this.showProblem(report.problem);
    this.closing.dataset.lit = String(report.passed);
    savedAnswers.saveProgress(this.lesson.id, passed, report.results.length);
  }

  /**
   * Show (or hide, for null) the note on an earlier lesson's piece that fails its own checks: what failed, a link
   * to that lesson, and a button that loads its finished piece.
   *
   * @param {import("../runtime/protocol.js").EarlierFault | null} fault
   */
  showEarlier(fault) {
    this.earlierBox.hidden = !fault;
    if (!fault) {
      this.earlierBox.replaceChildren();
      return;
    }
    const lesson = this.course.lessons[fault.lesson];
    const number = String(lesson?.number ?? fault.lesson).padStart(2, "0");
    this.earlierBox.dataset.gap = fault.gap;
    this.earlierBox.replaceChildren(
      el(
        "p",
        { class: "ember-earlier-title", id: `ember-earlier-${this.lesson.id}` },
        el("strong", { text: `Look at lesson ${number} first` }),
      ),
      withNumbersWhole(el("p", {}), fault.summary),
      withNumbersWhole(el("p", { class: "ember-earlier-message" }), fault.message),
      el(
        "div",
        { class: "ember-toolbar" },
        el(
          "button",
          { class: "md-button", type: "button", onclick: () => this.loadPiece(fault.gap) },
          `Load the finished ${fault.gap}`,
        ),
        lesson?.url ? el("a", { href: this.siteRoot + lesson.url }, `Open lesson ${number}: ${fault.title}`) : null,
      ),
    );
  }

  /**
   * Put the finished piece in one earlier gap (the learner's own code there too; Undo brings it back), then run
   * the checks again.
   *
   * @param {string} gap
   */
  async loadPiece(gap) {
    const { changes } = await this.runtime.earlier({
      lab: this.lesson.id,
      ...savedCode.work(),
      replace_own: true,
      gaps: [gap],
    });
    await this.change(changes, `Loaded the finished ${gap}. Undo brings yours back.`);
    await this.check();
    this.runButton.focus(); // the note and its button are gone: the keyboard goes on from the lab's toolbar
  }

  /**
   * Put the cursor in a gap, on one of its lines (its first by default).
   *
   * @param {string} gapId
   * @param {number} [line]  1-based, within the gap
   */
  goTo(gapId, line = 1) {
    const view = this.editors[this.course.gaps[gapId].file];
    if (view) focusGap(view, gapId, line);
  }

  /**
   * Apply exact-text changes ({gap: text or null}), remembering how to undo them, then rebuild the module.
   *
   * @param {Record<string, string | null>} changes
   * @param {string} message  what to say once the editors show them
   */
  async change(changes, message) {
    const before = savedCode.exactTexts();
    this.undo = Object.fromEntries(Object.keys(changes).map((id) => [id, id in before ? before[id] : null]));
    this.saveChanges(changes);
    this.undoButton.hidden = false;
    await this.showEditors();
    this.notice.textContent = message; // once the editors show it
  }

  /** Undo the last change. */
  async restore() {
    if (!this.undo) return;
    this.saveChanges(this.undo);
    this.undo = null;
    this.undoButton.hidden = true;
    this.replaceMine.hidden = true;
    await this.showEditors();
    this.notice.textContent = "Undone.";
  }

  /**
   * Save exact-text changes ({gap: text or null}) the learner asked for: the editors show them once the module is
   * rebuilt, and text typed meanwhile is saved on top of them. Gaps a newer release of the course saved are not
   * changed, and say so.
   *
   * @param {Record<string, string | null>} changes
   */
  saveChanges(changes) {
    this.tabs.saveChanges(changes);
  }

  /**
   * Put a gap's starting code back (Undo brings the learner's back).
   *
   * @param {string} id
   */
  resetGap(id) {
    return this.change({ [id]: null }, `Gap ${id} holds its starting code again. Undo brings your code back.`);
  }

  /**
   * Fill earlier lessons' gaps the learner never wrote; with ``mine``, also replace the learner's own.
   *
   * @param {boolean} mine
   */
  async loadFinished(mine) {
    const answer = await this.runtime.earlier({ lab: this.lesson.id, ...savedCode.work(), replace_own: mine });
    const { changes, own } = answer;
    const count = Object.keys(changes).length;
    const them = count === 1 ? "it" : "them";
    if (!count && !mine) this.notice.textContent = "You have written every earlier gap: nothing was loaded.";
    else if (mine)
      await this.change(
        changes,
        `Put the finished piece in place of your code in ${plural(count, "earlier gap")}. Undo brings yours back.`,
      );
    else
      await this.change(
        changes,
        `Loaded ${plural(count, "finished piece")} into the earlier gaps you had not written. Undo takes ${them} back out.`,
      );
    this.replaceMine.hidden = mine || !own.length;
    if (!mine && own.length) {
      const written = own.length + (answer.matching ?? 0);
      const where = own.length < written ? `In ${own.length} of them` : written === 1 ? "There" : "In all of them";
      this.replaceMine.replaceChildren(
        el("p", {
          text:
            `You wrote ${plural(written, "earlier gap")}. ${where} your code differs from the finished piece ` +
            `(${own.join(", ")}): it was kept, not replaced.`,
        }),
        el(
          "button",
          { class: "md-button", type: "button", onclick: () => this.loadFinished(true) },
          own.length === 1
            ? "Replace that one with its finished piece"
            : `Replace those ${own.length} with the finished pieces`,
        ),
      );
    }
  }

  /**
   * Write the learner's files into the notebook app's drive and open this lesson's notebook in a new tab. The
   * tab opens at once, within the click, and goes to the notebook once the files are there; if the browser
   * refuses a new tab, the lesson stays and the notice offers a link to the notebook.
   */
  async openNotebook() {
    this.notebookButton.disabled = true;
    const tab = openWaitingTab(); // before any await: still inside the learner's click
    const url = notebookUrl(this.siteRoot, this.lesson.id);
    try {
      const copies = await handOver(this.runtime, this.lesson.id);
      const kept = copies.length
        ? ` Edits the notebook held that were not taken back are kept there as ${copies.join(", ")}.`
        : "";
      this.notice.textContent =
        `Your files are in the notebook's ember/ folder.${kept} ` +
        "When you come back here, what you change in a gap there comes back into this lab.";
      if (tab && !tab.closed) tab.location.href = url;
      else if (!tab) {
        this.notice.append(
          " Your browser did not let this page open a new tab. ",
          el("a", { href: url, target: "_blank" }, "Open the notebook"),
          " (or allow pop-ups for this site).",
        );
      }
    } catch (error) {
      tab?.close();
      this.notice.textContent = `Could not hand your files to the notebook: ${error.message || error}`;
    } finally {
      this.notebookButton.disabled = false;
    }
  }

  /**
   * Download one of the learner's files as this lab starts, with what is in the editor now.
   *
   * @param {string} file
   */
  async download(file) {
    const { files } = await this.buildModule();
    saveFile(new Blob([files[file].source], { type: "text/x-python" }), file);
  }
}
