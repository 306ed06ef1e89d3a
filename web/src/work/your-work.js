// @ts-check
// "Your work": the learner's whole course as one file (ember-work-DATE.zip, made by Python: labs/work/work_file.py),
// and a work file or learner .py files brought back, chosen or dropped on the page. What a file would change is
// shown first (labs/work/work_merge.py's preview); nothing changes before Apply, and until the learner keeps
// the new work, Undo takes back what the import wrote and nobody changed since (import-undo.js records it), after
// saying what it takes back and what it keeps.
//
// Sizes (each file's, and the whole import's) and a work file's nesting are checked here before Python reads
// anything (work-checks.js). Everything that comes from a file (names, notes, code, messages) is shown as text,
// names and messages cut to a bounded length.
import { el, saveFile } from "../base/dom.js";
import { listWords, plural, previewParts, sentence, undoItemWords } from "./import-preview.js";
import * as workImport from "./import-undo.js";
import * as store from "./store.js";
import { clip, clipMessage, refusedByNesting, refusedBySize } from "./work-checks.js";

/**
 * @typedef {import("../base/course-data").Course} Course
 * @typedef {import("../runtime/runtime.js").Runtime} Runtime
 * @typedef {import("../runtime/protocol.js").Preview} Preview
 * @typedef {import("../runtime/protocol.js").Changes} Changes
 * @typedef {import("../runtime/protocol.js").GivenFile} GivenFile
 * @typedef {import("../runtime/protocol.js").ReadWorkAnswer} ReadAnswer
 *
 * What the box needs: Python, the course, what to redraw once the saved work changed, and more buttons for its
 * toolbar.
 * @typedef {{ runtime: Runtime, course: Course, onChange: () => void, extra?: HTMLElement[] }} Options
 */

/** @type {YourWork | null} */
let shown = null; // the box on the page now shown: a file dropped on the page goes to it

/**
 * Today's date where the learner is, as 2026-12-05.
 *
 * @returns {string}
 */
function today() {
  const now = new Date();
  /** @param {number} n */
  const two = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
}

/**
 * The names of files given at once, for a message: each cut to a bounded length, and at most three of them.
 *
 * @param {string[]} names
 * @returns {string}
 */
function namesWords(names) {
  const shown = names.slice(0, names.length > 3 ? 2 : 3).map((name) => clip(name));
  if (names.length > 3) shown.push(`${names.length - 2} more files`);
  return listWords(shown);
}

/**
 * Some items' words for a sentence: at most ``most`` of them, then how many more.
 *
 * @param {string[]} words
 * @param {number} [most]
 * @returns {string}
 */
function someWords(words, most = 6) {
  if (words.length <= most) return listWords(words);
  return listWords([...words.slice(0, most - 1), `${words.length - most + 1} more`]);
}

/**
 * @param {Uint8Array} bytes
 * @returns {string}
 */
function toBase64(bytes) {
  let text = "";
  const chunk = 0x8000;
  for (let at = 0; at < bytes.length; at += chunk) text += String.fromCharCode(...bytes.subarray(at, at + chunk));
  return btoa(text);
}

/**
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>}
 */
function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The "Your work" box of one page: download all the work, bring a file's work here, and undo that. */
class YourWork {
  /** @param {Options} options */
  constructor({ runtime, course, onChange, extra = [] }) {
    this.runtime = runtime;
    this.course = course;
    this.onChange = onChange;
    const heading = el("h3", { id: "ember-your-work-title", text: "Your work" });
    this.downloadButton = el(
      "button",
      { class: "md-button", type: "button", onclick: () => this.download() },
      "Download all my work",
    );
    this.input = el("input", {
      type: "file",
      multiple: true,
      accept: ".zip,.py,application/zip,text/x-python",
      hidden: true,
      class: "ember-work-input",
      onchange: () => {
        const files = [...(this.input.files || [])];
        this.input.value = ""; // the same file may be chosen again
        this.bring(files);
      },
    });
    this.chooseButton = el(
      "button",
      { class: "md-button", type: "button", onclick: () => this.input.click() },
      "Bring my work here…",
    );
    this.status = el("p", { class: "ember-work-status", role: "status" });
    this.error = el("div", { class: "ember-work-error", role: "alert", hidden: true });
    this.preview = el("div", { class: "ember-import", hidden: true });
    this.undoBox = el("div", { class: "ember-import-undo" });
    this.box = el(
      "section",
      { class: "ember-your-work", "aria-labelledby": heading.id },
      heading,
      el(
        "p",
        {},
        "Everything you write stays in this browser. Download it all as one file to take it to another browser or " +
          "to your own editor (",
        el("code", { text: "python -m labs import" }),
        "), and bring it back here: choose the file, or drop it on this page. You see what would change before " +
          "anything does.",
      ),
      el("div", { class: "ember-toolbar" }, this.downloadButton, this.chooseButton, ...extra),
      this.input,
      this.status,
      this.error,
      this.preview,
      this.undoBox,
    );
    this.confirming = false; // the question whether to undo is open
    this.undoShows = ""; // the import the undo box offers to undo ("" for none)
    const onStorage = () => {
      if (shown !== this)
        window.removeEventListener(store.STORAGE_EVENT, onStorage); // another page's box now
      else if (!this.confirming) this.showUndo(); // another tab may have undone, kept or changed what it took back
    };
    window.addEventListener(store.STORAGE_EVENT, onStorage);
    this.showUndo();
  }

  /**
   * Wait for Python, saying so while it starts (on the home page it starts only now).
   *
   * @param {string} then  what the box says once Python is there
   */
  async python(then) {
    if (this.runtime.state !== "ready" && this.runtime.state !== "running")
      this.status.textContent = "Python: starting…";
    await this.runtime.start();
    this.status.textContent = then;
  }

  /**
   * Turn the box's buttons off while Python works for it (and on again).
   *
   * @param {boolean} busy
   */
  busy(busy) {
    for (const button of this.box.querySelectorAll("button")) button.disabled = busy;
    this.box.setAttribute("aria-busy", String(busy));
  }

  /**
   * Say what went wrong, as an alert.
   *
   * @param {...string} lines
   */
  fail(...lines) {
    this.status.textContent = "";
    this.error.replaceChildren(...lines.map((line) => el("p", { text: line })));
    this.error.hidden = false;
  }

  /** @param {unknown} error */
  pythonFailed(error) {
    const reason = clipMessage(error instanceof Error ? error.message : String(error));
    this.fail(
      this.runtime.wasRestarted(error) ? `${reason}. Try again.` : sentence(reason),
      "Nothing was changed in your saved work.",
    );
  }

  /** Ask Python for the whole saved work as one file, and download it under the name Python gives. */
  async download() {
    this.error.hidden = true;
    this.busy(true);
    try {
      await this.python("Making your work file…");
      const answer = await this.runtime.saveWork({
        state: store.savedState(),
        version: this.course.version,
        today: today(),
      });
      if ("error" in answer) {
        this.fail(`Your work file could not be made. ${sentence(answer.error)}`);
        return;
      }
      saveFile(new Blob([fromBase64(answer.data)], { type: "application/zip" }), answer.name);
      const notes = answer.notes.map((note) => ` Note: ${sentence(note)}`).join("");
      this.status.textContent = `Saved ${answer.name}: your code, answers and progress.${notes}`;
    } catch (error) {
      this.pythonFailed(error);
    } finally {
      this.busy(false);
    }
  }

  /**
   * Read the files the learner gave (a work file, or .py files) and show what they would change. Too many files,
   * too large ones (each, or together) and a work file nested too deep are refused here, before Python reads them.
   *
   * @param {File[]} files
   */
  async bring(files) {
    if (!files.length) return;
    this.error.hidden = true;
    this.closePreview();
    this.closeConfirm();
    const names = namesWords(files.map((file) => file.name));
    const refused = refusedBySize(files, this.course.work_file_bytes);
    if (refused) {
      this.fail(`Could not bring in ${names}; nothing was changed.`, refused);
      return;
    }
    this.busy(true);
    try {
      const contents = await Promise.all(files.map(async (file) => new Uint8Array(await file.arrayBuffer())));
      for (const [i, bytes] of contents.entries()) {
        const zip = files[i].name.toLowerCase().endsWith(".zip") || (bytes[0] === 0x50 && bytes[1] === 0x4b);
        const nested = zip ? await refusedByNesting(bytes, this.course.work_file_bytes) : null;
        if (nested) {
          this.fail(`Could not bring in ${names}; nothing was changed.`, nested);
          return;
        }
      }
      /** @type {GivenFile[]} */
      const given = files.map((file, i) => ({ name: clip(file.name), data: toBase64(contents[i]) }));
      await this.python(`Reading ${names}…`);
      /** @type {ReadAnswer} */
      const answer = await this.runtime.readWork({
        state: store.savedState(),
        files: given,
        keep_mine: [],
      });
      if ("error" in answer) {
        this.fail(`Could not bring in ${names}; nothing was changed.`, sentence(clipMessage(answer.error)));
        return;
      }
      this.status.textContent = "";
      this.showPreview(names, given, answer.preview, answer.changes);
    } catch (error) {
      this.pythonFailed(error);
    } finally {
      this.busy(false);
    }
  }

  /**
   * Show what bringing the files in would change, lesson by lesson, with Apply and Cancel.
   *
   * @param {string} names
   * @param {GivenFile[]} given
   * @param {Preview} preview
   * @param {Changes} changes
   */
  showPreview(names, given, preview, changes) {
    const heading = el("h4", { id: "ember-import-title", tabindex: "-1", text: `Bring in ${names}?` });
    const { parts, keeps, changing } = previewParts(names, preview, changes, this.course);
    parts.unshift(heading);
    const apply = changing
      ? el(
          "button",
          { class: "md-button md-button--primary", type: "button", onclick: () => this.apply(names, given, keeps) },
          "Apply",
        )
      : null;
    const cancel = el(
      "button",
      {
        class: "md-button",
        type: "button",
        onclick: () => {
          this.closePreview();
          this.status.textContent = `Nothing was brought in from ${names}.`;
          this.chooseButton.focus();
        },
      },
      changing ? "Cancel" : "Close",
    );
    if (apply) {
      const runs = el("p", {
        id: "ember-import-runs",
        class: "ember-import-runs",
        text:
          "The code you bring in runs in this page's Python when you press Run or Run checks, just like code you " +
          "type: bring in only work you trust.",
      });
      apply.setAttribute("aria-describedby", runs.id);
      parts.push(runs);
    }
    parts.push(el("div", { class: "ember-toolbar" }, apply, cancel));
    this.preview.replaceChildren(...parts);
    this.preview.setAttribute("role", "region");
    this.preview.setAttribute("aria-labelledby", heading.id);
    this.preview.hidden = false;
    heading.focus();
  }

  /** Take the preview away. */
  closePreview() {
    this.preview.hidden = true;
    this.preview.removeAttribute("role");
    this.preview.removeAttribute("aria-labelledby");
    this.preview.replaceChildren();
  }

  /**
   * Bring the files' work in: Python merges them into the saved work as it is now, the gaps ticked "Keep mine"
   * left as they are; the state from before is kept aside for Undo.
   *
   * @param {string} names
   * @param {GivenFile[]} given
   * @param {HTMLInputElement[]} keeps
   */
  async apply(names, given, keeps) {
    const keepMine = keeps.filter((box) => box.checked).map((box) => box.value);
    this.busy(true);
    for (const box of keeps) box.disabled = true;
    try {
      /** @type {ReadAnswer} */
      const answer = await this.runtime.readWork({
        state: store.savedState(),
        files: given,
        keep_mine: keepMine,
      });
      if ("error" in answer) {
        this.closePreview();
        this.fail(`Could not bring in ${names}; nothing was changed.`, sentence(clipMessage(answer.error)));
        return;
      }
      workImport.applyImport(answer.changes, this.course.version, [names]);
      this.closePreview();
      const pieces = Object.keys(answer.changes.pieces).length;
      const kept = keepMine.length ? ` Kept yours in ${listWords(keepMine)}.` : "";
      this.status.textContent = `Brought in from ${names}: ${plural(pieces, "gap")} of code.${kept}`;
      this.showUndo();
      this.onChange();
      this.undoBox.querySelector("button")?.focus();
    } catch (error) {
      this.closePreview();
      this.pythonFailed(error);
    } finally {
      this.busy(false);
    }
  }

  /**
   * While an import can be undone and something of it is left to take back: say so, with Undo (which asks first)
   * and a way to keep the new work. An import whose every change was changed since is simply kept.
   */
  showUndo() {
    const plan = workImport.undoPlan();
    if (plan && !plan.back.length) workImport.keepImport(); // nothing of it left to take back
    const shows = plan?.back.length ? `${plan.at} ${plan.names.join("\n")}` : "";
    if (!this.confirming && shows === this.undoShows) return; // the same offer: keep its buttons (and focus)
    this.confirming = false;
    this.undoShows = shows;
    if (!plan?.back.length) {
      this.undoBox.replaceChildren();
      return;
    }
    const when = new Date(plan.at).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
    const files = someWords(plan.names.map((/** @type {string} */ name) => clip(name)));
    const undo = el(
      "button",
      { class: "md-button", type: "button", onclick: () => this.confirmUndo() },
      "Undo the import…",
    );
    const keep = el(
      "button",
      {
        class: "md-button",
        type: "button",
        onclick: () => {
          workImport.keepImport();
          this.showUndo();
          this.status.textContent = "Kept: the work you brought in is your work now.";
          this.chooseButton.focus();
        },
      },
      "Keep the new work",
    );
    this.undoBox.replaceChildren(
      el("p", {
        text:
          `You brought in ${files} (${when}). Until you keep the new work, Undo can take back what the import ` +
          "changed; anything you changed since stays.",
      }),
      el("div", { class: "ember-toolbar" }, undo, keep),
    );
  }

  /** Say what Undo would take back and what it would keep, with the button that does it and Cancel. */
  confirmUndo() {
    const plan = workImport.undoPlan();
    if (!plan?.back.length) {
      this.showUndo();
      this.status.textContent = "There is nothing left to undo: everything the import brought in has changed since.";
      this.chooseButton.focus();
      return;
    }
    this.confirming = true;
    /** @param {import("./import-undo.js").UndoItem[]} items */
    const list = (items) =>
      el(
        "ul",
        {},
        ...items.map((item) =>
          el("li", { "data-kind": item.kind, "data-key": item.key }, undoItemWords(item, this.course)),
        ),
      );
    const heading = el("h4", { id: "ember-undo-title", tabindex: "-1", text: "Undo the import?" });
    const cancel = () => {
      this.showUndo();
      this.status.textContent = "Nothing was undone.";
      this.undoBox.querySelector("button")?.focus();
    };
    const back = el(
      "div",
      { class: "ember-undo-back" },
      el("p", { text: "These go back to what they were before the import:" }),
      list(plan.back),
    );
    const kept = plan.kept.length
      ? el(
          "div",
          { class: "ember-undo-kept" },
          el("p", { text: "These stay as they are now, because they changed after the import:" }),
          list(plan.kept),
        )
      : null;
    const region = el(
      "div",
      {
        class: "ember-undo-confirm",
        role: "region",
        "aria-labelledby": heading.id,
        onkeydown: (/** @type {KeyboardEvent} */ event) => {
          if (event.key !== "Escape") return;
          event.preventDefault();
          cancel();
        },
      },
      heading,
      back,
      kept,
      el(
        "div",
        { class: "ember-toolbar" },
        el(
          "button",
          { class: "md-button md-button--primary", type: "button", onclick: () => this.undo() },
          "Take them back",
        ),
        el("button", { class: "md-button", type: "button", onclick: cancel }, "Cancel"),
      ),
    );
    this.undoBox.replaceChildren(region);
    heading.focus();
  }

  /** Close the question whether to undo, if it is open. */
  closeConfirm() {
    if (this.confirming) this.showUndo();
  }

  /** Undo the import as it stands now (another tab may have changed more since the question was shown). */
  undo() {
    const done = workImport.undoImport();
    this.showUndo();
    if (done) {
      /** @param {import("./import-undo.js").UndoItem[]} items */
      const words = (items) => someWords(items.map((item) => undoItemWords(item, this.course)));
      const kept = done.kept.length ? ` Kept as you changed them since: ${words(done.kept)}.` : "";
      this.status.textContent = done.back.length
        ? `Undone: ${words(done.back)} went back to what they were before the import.${kept}`
        : `Nothing was left to undo.${kept}`;
    } else this.status.textContent = "Nothing was left to undo.";
    this.onChange();
    this.chooseButton.focus();
  }
}

/**
 * Whether a drag carries files.
 *
 * @param {DragEvent} event
 */
function carriesFiles(event) {
  return Boolean(event.dataTransfer && [...event.dataTransfer.types].includes("Files"));
}

let listening = false;

/** A file dropped anywhere on a page with a "Your work" box is brought in by it (the editors do not take it). */
function listenForDrops() {
  if (listening) return;
  listening = true;
  const root = document.documentElement;
  /** @param {DragEvent} event */
  const over = (event) => {
    if (!shown?.box.isConnected || !carriesFiles(event)) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    root.dataset.emberDrop = "true";
  };
  window.addEventListener("dragenter", over, true);
  window.addEventListener("dragover", over, true);
  window.addEventListener("dragleave", (event) => {
    if (!event.relatedTarget) delete root.dataset.emberDrop; // left the window
  });
  window.addEventListener(
    "drop",
    (event) => {
      delete root.dataset.emberDrop;
      const box = shown;
      if (!box?.box.isConnected || !carriesFiles(event)) return;
      event.preventDefault();
      event.stopPropagation();
      box.box.scrollIntoView({ block: "nearest" });
      box.bring([...(event.dataTransfer?.files || [])]);
    },
    true,
  );
}

/**
 * Mount the page's "Your work" box (the one a dropped file goes to) right after ``place``.
 *
 * @param {Element} place
 * @param {Options} options
 */
export function mountWorkBox(place, options) {
  shown = new YourWork(options);
  listenForDrops();
  place.after(shown.box);
}

/**
 * Press "Download all my work" of the box now shown (a note elsewhere on the page offers the same): a work file
 * that "Bring my work here" and `labs import` take back. False where this page has no such box.
 *
 * @returns {boolean}
 */
export function downloadAllWork() {
  if (!shown?.box.isConnected) return false;
  shown.download();
  return true;
}
