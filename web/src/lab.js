// @ts-check
// The lab: the learner's module as this lab starts, this lesson's gaps editable, hints, named
// checks, reset and undo, loading earlier finished pieces, download, and the closing box.

import { el } from "./dom.js";
import { focusGap, labEditor, replaceText, scrollToGap } from "./editor.js";
import { FolderLink } from "./folder.js";
import { handOver, notebookUrl } from "./handover.js";
import * as storage from "./storage.js";

/**
 * @typedef {import("./course-data").Course} Course
 * @typedef {import("./runtime.js").Runtime} Runtime
 * @typedef {import("./editor.js").LabView} LabView
 * @typedef {import("./protocol.js").Problem} Problem
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
export class Lab {
  // The lab's parts, made by build().
  /** @type {HTMLParagraphElement} */ status;
  /** @type {HTMLDivElement} */ editorBox;
  /** @type {HTMLUListElement} */ claimList;
  /** @type {HTMLParagraphElement} */ summary;
  /** @type {HTMLDivElement} */ problem;
  /** @type {HTMLButtonElement} */ runButton;
  /** @type {HTMLButtonElement} */ stopButton;
  /** @type {HTMLButtonElement} */ undoButton;
  /** @type {HTMLParagraphElement} */ notice;
  /** @type {HTMLButtonElement} */ notebookButton;
  /** @type {HTMLDivElement} */ replaceMine;
  /** @type {HTMLDivElement} */ closing;

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
    this.runButton = el(
      "button",
      { class: "md-button md-button--primary", type: "button", onclick: () => this.check() },
      "Run checks",
    );
    this.stopButton = el(
      "button",
      { class: "md-button", type: "button", hidden: true, onclick: () => this.runtime.stop() },
      "Stop",
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
    this.folder = FolderLink.offer(this); // where the browser can open a folder of the learner's
    this.closing = this.closingBox();
    this.holder.replaceChildren(
      el("h3", { text: `Lab: ${lesson.title}` }),
      this.gapList(),
      this.status,
      this.editorBox,
      el(
        "div",
        { class: "ember-toolbar" },
        this.runButton,
        this.stopButton,
        this.undoButton,
        loadButton,
        ...downloads,
        this.notebookButton,
      ),
      ...(this.folder ? [this.folder.panel] : []),
      this.notice,
      this.replaceMine,
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
      list.append(
        el(
          "div",
          { class: "ember-gap", "data-gap": id },
          el("p", {}, el("code", { text: id }), ` ${gap.title}`),
          el("div", { class: "ember-toolbar" }, go, more, reset),
          hints,
        ),
      );
    }
    return list;
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
      const asked = JSON.stringify(storage.work());
      const answer = await this.buildModule();
      if (tries >= 5 || JSON.stringify(storage.work()) === asked) return answer;
    }
  }

  /** Ask Python for the learner's files as this lab starts: {files: {name: {source, gaps}}, exact, problem}. */
  async buildModule() {
    const answer = await this.runtime.module({ lab: this.lesson.id, ...storage.work() });
    storage.adoptExact(answer.exact); // pieces saved by older versions become exact texts
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
      this.showProblem(problem);
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
   * Save this lesson's gaps as the learner typed them, byte for byte.
   *
   * @param {Record<string, string>} texts
   */
  save(texts) {
    const stored = storage.exactTexts();
    /** @type {Record<string, string>} */
    const changed = {};
    for (const [id, text] of Object.entries(texts)) {
      if (this.gapIds.includes(id) && stored[id] !== text) changed[id] = text;
    }
    if (Object.keys(changed).length) storage.saveExact(changed, this.course.version);
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

  /** Run the lesson's checks and show their report. */
  async check() {
    this.runButton.disabled = true;
    this.stopButton.hidden = false;
    this.problem.hidden = true;
    for (const item of this.claimItems()) item.dataset.state = "running";
    try {
      await this.folder?.beforeRun(); // what the learner saved in their folder is what the checks run on
      const report = await this.runtime.check({ lab: this.lesson.id, ...storage.work() });
      this.showReport(report);
    } catch (error) {
      for (const item of this.claimItems()) item.dataset.state = "idle";
      this.problem.hidden = false;
      this.problem.textContent = this.runtime.wasRestarted(error)
        ? `${error.message}. Your code is safe: fix the loop and run the checks again.`
        : String(error.message || error);
    } finally {
      this.runButton.disabled = false;
      this.stopButton.hidden = true;
    }
  }

  /** @returns {HTMLLIElement[]} the claims' items */
  claimItems() {
    return /** @type {HTMLLIElement[]} */ ([...this.claimList.children]);
  }

  /**
   * Mark each claim held or not, say how many held, show a problem that stopped them, and note the progress.
   *
   * @param {import("./protocol.js").CheckReport} report
   */
  showReport(report) {
    const passed = report.results.filter((r) => r.passed).length;
    const failing = report.results.find((r) => !r.passed);
    const name =
      failing && this.claimList.querySelector(`[data-claim="${CSS.escape(failing.claim)}"] .ember-claim-name`);
    this.summary.textContent =
      `${passed} of ${report.results.length} checks hold` +
      (failing ? `; first failing: ${name?.textContent || failing.claim}.` : ". Every check holds.");
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
    storage.saveProgress(this.lesson.id, passed, report.results.length);
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
    const before = storage.exactTexts();
    this.undo = Object.fromEntries(Object.keys(changes).map((id) => [id, id in before ? before[id] : null]));
    storage.saveExact(changes, this.course.version);
    this.undoButton.hidden = false;
    await this.showEditors();
    this.notice.textContent = message; // once the editors show it
  }

  /** Undo the last change. */
  async restore() {
    if (!this.undo) return;
    storage.saveExact(this.undo, this.course.version);
    this.undo = null;
    this.undoButton.hidden = true;
    this.replaceMine.hidden = true;
    await this.showEditors();
    this.notice.textContent = "Undone.";
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
    const { changes, own } = await this.runtime.earlier({ lab: this.lesson.id, ...storage.work(), replace_own: mine });
    const count = Object.keys(changes).length;
    if (!count && !mine) this.notice.textContent = "Every earlier gap already holds your code.";
    else
      await this.change(
        changes,
        `Loaded ${count} finished piece${count === 1 ? "" : "s"}. Undo takes ${count === 1 ? "it" : "them"} back out.`,
      );
    this.replaceMine.hidden = mine || !own.length;
    if (!mine && own.length) {
      this.replaceMine.replaceChildren(
        el("p", {
          text:
            `You wrote ${own.length} earlier piece${own.length === 1 ? "" : "s"} yourself (${own.join(", ")}). ` +
            "They were kept.",
        }),
        el(
          "button",
          { class: "md-button", type: "button", onclick: () => this.loadFinished(true) },
          "Replace mine with the finished pieces too",
        ),
      );
    }
  }

  /** Write the learner's files into the notebook app's drive and open this lesson's notebook in a new tab. */
  async openNotebook() {
    this.notebookButton.disabled = true;
    try {
      const copies = await handOver(this.runtime, this.lesson.id);
      const url = notebookUrl(this.siteRoot, this.lesson.id);
      const kept = copies.length
        ? ` Edits the notebook held that were not taken back are kept there as ${copies.join(", ")}.`
        : "";
      this.notice.textContent =
        `Your files are in the notebook's ember/ folder.${kept} ` +
        "When you come back here, what you change in a gap there comes back into this lab.";
      if (!window.open(url, "_blank")) location.assign(url); // a blocked pop-up: open it here instead
    } catch (error) {
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
    const link = el("a", {
      href: URL.createObjectURL(new Blob([files[file].source], { type: "text/x-python" })),
      download: file,
    });
    document.body.append(link);
    link.click();
    link.remove();
  }
}
