// @ts-check
// "Your work": the learner's whole course as one file (ember-work-DATE.zip, made by Python: labs/checking/work_file.py),
// and a work file or learner .py files brought back, chosen or dropped on the page. What a file would change is
// shown first (labs/checking/work_merge.py's preview); nothing changes before Apply, and until the learner keeps
// the new work, Undo puts back the saved state as it was (storage.js keeps it aside).
//
// Everything that comes from a file (names, notes, code, messages) is shown as text.
import { el } from "./dom.js";
import { listWords, plural, previewParts, sentence } from "./import-preview.js";
import { REQUEST } from "./protocol.js";
import * as storage from "./storage.js";

/**
 * @typedef {import("./course-data").Course} Course
 * @typedef {import("./runtime.js").Runtime} Runtime
 * @typedef {import("./import-preview.js").Preview} Preview
 * @typedef {import("./import-preview.js").Changes} Changes
 *
 * A chosen file as the request carries it.
 * @typedef {{ name: string, data: string }} GivenFile
 *
 * What Python answers a work file: what it would change and the changes, or why it cannot be read.
 * @typedef {{ preview: Preview, changes: Changes } | { error: string }} ReadAnswer
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
 * A number of bytes for a message: "4 MiB", "2.5 KiB", "12 bytes" (as labs/checking/work_file.py's size_text).
 *
 * @param {number} count
 * @returns {string}
 */
function sizeText(count) {
  for (const [unit, scale] of /** @type {[string, number][]} */ ([
    ["GiB", 2 ** 30],
    ["MiB", 2 ** 20],
    ["KiB", 2 ** 10],
  ])) {
    if (count >= scale) return `${(count / scale).toFixed(1).replace(/\.0$/, "")} ${unit}`;
  }
  return `${count} bytes`;
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
    const reason = error instanceof Error ? error.message : String(error);
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
      const answer = await this.runtime.request(REQUEST.SAVE_WORK, {
        state: storage.savedState(),
        version: this.course.version,
        today: today(),
      });
      if (answer.error) {
        this.fail(`Your work file could not be made. ${sentence(answer.error)}`);
        return;
      }
      const link = el("a", {
        href: URL.createObjectURL(new Blob([fromBase64(answer.data)], { type: "application/zip" })),
        download: answer.name,
      });
      document.body.append(link);
      link.click();
      link.remove();
      const notes = /** @type {string[]} */ (answer.notes).map((note) => ` Note: ${sentence(note)}`).join("");
      this.status.textContent = `Saved ${answer.name}: your code, answers and progress.${notes}`;
    } catch (error) {
      this.pythonFailed(error);
    } finally {
      this.busy(false);
    }
  }

  /**
   * Read the files the learner gave (a work file, or .py files) and show what they would change.
   *
   * @param {File[]} files
   */
  async bring(files) {
    if (!files.length) return;
    this.error.hidden = true;
    this.closePreview();
    const names = listWords(files.map((file) => file.name));
    const limit = this.course.work_file_bytes;
    const large = files.find((file) => file.size > limit);
    if (large) {
      this.fail(
        `Could not bring in ${names}; nothing was changed.`,
        `${large.name} is ${sizeText(large.size)}; a work file has at most ${sizeText(limit)}.`,
      );
      return;
    }
    this.busy(true);
    try {
      /** @type {GivenFile[]} */
      const given = await Promise.all(
        files.map(async (file) => ({ name: file.name, data: toBase64(new Uint8Array(await file.arrayBuffer())) })),
      );
      await this.python(`Reading ${names}…`);
      /** @type {ReadAnswer} */
      const answer = await this.runtime.request(REQUEST.READ_WORK, {
        state: storage.savedState(),
        files: given,
        keep_mine: [],
      });
      if ("error" in answer) {
        this.fail(`Could not bring in ${names}; nothing was changed.`, sentence(answer.error));
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
      const answer = await this.runtime.request(REQUEST.READ_WORK, {
        state: storage.savedState(),
        files: given,
        keep_mine: keepMine,
      });
      if ("error" in answer) {
        this.closePreview();
        this.fail(`Could not bring in ${names}; nothing was changed.`, sentence(answer.error));
        return;
      }
      storage.applyImport(answer.changes, this.course.version);
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

  /** While an import can be undone: say so, with Undo and a way to keep the new work. */
  showUndo() {
    if (!storage.importUndoable()) {
      this.undoBox.replaceChildren();
      return;
    }
    const undo = el(
      "button",
      {
        class: "md-button",
        type: "button",
        onclick: () => {
          storage.undoImport();
          this.showUndo();
          this.status.textContent = "Undone: your work is back as it was before you brought the file in.";
          this.onChange();
          this.chooseButton.focus();
        },
      },
      "Undo the import",
    );
    const keep = el(
      "button",
      {
        class: "md-button",
        type: "button",
        onclick: () => {
          storage.keepImport();
          this.showUndo();
          this.status.textContent = "Kept: the work you brought in is your work now.";
          this.chooseButton.focus();
        },
      },
      "Keep the new work",
    );
    this.undoBox.replaceChildren(
      el("p", {
        text: "Your work from before the import is kept aside in this browser until you keep the new work.",
      }),
      el("div", { class: "ember-toolbar" }, undo, keep),
    );
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
 * Make the page's "Your work" box (the one a dropped file goes to), to be put where the page wants it.
 *
 * @param {Options} options
 * @returns {HTMLElement}
 */
export function yourWorkBox(options) {
  shown = new YourWork(options);
  listenForDrops();
  return shown.box;
}
