// @ts-check
// Notes said once: what this browser lacks and what the learner gets instead, and that the browser may delete
// the work saved here. Each note shows on every page until the learner hides it; hidden, it never comes back
// (the ids of hidden notes are kept in localStorage).
import { el } from "../base/dom.js";
import * as savedAnswers from "../work/answers.js";
import * as savedCode from "../work/pieces.js";
import * as store from "../work/store.js";

const HIDDEN = "ember:hidden-notes"; // in localStorage: the ids of the notes the learner hid
const ASKED = "ember:persist-asked"; // in localStorage: persistent storage was asked for once

/**
 * A flag in localStorage, false where storage cannot be read.
 *
 * @param {string} key
 */
function flagged(key) {
  try {
    return Boolean(localStorage.getItem(key));
  } catch {
    return false;
  }
}

/** @returns {string[]} */
function hiddenNotes() {
  try {
    const ids = JSON.parse(localStorage.getItem(HIDDEN) || "[]");
    return Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : [];
  } catch {
    return [];
  }
}

/** @param {string} id */
function hide(id) {
  try {
    localStorage.setItem(HIDDEN, JSON.stringify([...new Set([...hiddenNotes(), id])]));
  } catch {
    // storage refused: the note goes for this page only
  }
}

/**
 * Show a note at the top of ``root`` unless the learner hid it: its words, then its buttons and "Hide this note".
 * The note is a live region filled once it is in the page, so that a screen reader reads it out.
 *
 * @param {HTMLElement} root
 * @param {string} id  names the note in the list of hidden ones
 * @param {string[]} words  one paragraph each
 * @param {HTMLElement[]} [buttons]
 */
function showNote(root, id, words, buttons = []) {
  if (hiddenNotes().includes(id)) return;
  for (const old of root.querySelectorAll(`.ember-note[data-note="${id}"]`)) old.remove();
  const box = el("div", { class: "ember-note", role: "status", "data-note": id });
  root.prepend(box);
  const hideButton = el(
    "button",
    {
      class: "md-button",
      type: "button",
      onclick: () => {
        hide(id);
        box.remove();
      },
    },
    "Hide this note",
  );
  requestAnimationFrame(() =>
    box.replaceChildren(...words.map((text) => el("p", { text })), el("div", {}, ...buttons, hideButton)),
  );
}

/**
 * What this browser lacks that the course would use, each with what the learner gets instead.
 *
 * @returns {{ id: string, words: string }[]}
 */
export function missingFeatures() {
  const found = [];
  if (self.crossOriginIsolated && typeof SharedArrayBuffer === "undefined") {
    found.push({
      id: "shared-memory",
      words:
        "Stop restarts Python instead of stopping the cell where it is: your code is kept, but what the cells " +
        "above had made is gone, so run them again. input() cannot wait for an answer: put the value in the cell.",
    });
  }
  if (typeof (/** @type {any} */ (window).showDirectoryPicker) !== "function") {
    found.push({
      id: "folders",
      words:
        "The lab cannot keep your files in a folder on your computer. Download your files or all your work " +
        "instead, and bring your work back with “Bring my work here”.",
    });
  }
  return found;
}

/**
 * Say once, on a page with Python, what this browser lacks and what the learner gets instead.
 *
 * @param {HTMLElement} root
 */
export function mountBrowserNote(root) {
  const missing = missingFeatures();
  if (!missing.length) return;
  const id = `browser:${missing.map((item) => item.id).join(",")}`;
  showNote(root, id, ["This browser lacks something the course can use, so:", ...missing.map((item) => item.words)]);
}

/**
 * Where persistent storage was asked for and not given, say once that the browser may delete the work saved
 * here, with "Download all my work" as the safeguard.
 *
 * @param {HTMLElement} root
 * @param {() => void} downloadAll
 */
export async function mountStorageNote(root, downloadAll) {
  const keeping = navigator.storage;
  if (!flagged(ASKED) || typeof keeping?.persisted !== "function") return;
  if (await keeping.persisted().catch(() => true)) return;
  const download = el("button", { class: "md-button", type: "button", onclick: downloadAll }, "Download all my work");
  const words =
    "This browser may delete the work you save here if you do not visit the course for a while (Safari does " +
    "after seven days without a visit). Download all your work now and then and keep the file: “Bring my " +
    "work here” brings it back, in this browser or any other.";
  showNote(root, "storage", [words], [download]);
}

/**
 * Ask the browser to keep the site's storage, once, after the learner's first saved work (not as a page opens);
 * then ``asked()`` (which shows the note where the answer was no).
 *
 * @param {() => void} asked
 */
export function askToKeepStorage(asked) {
  const keeping = navigator.storage;
  if (typeof keeping?.persist !== "function" || flagged(ASKED)) return;
  const first = async () => {
    const saved = savedCode.work();
    const any = [saved.pieces, saved.exact, savedAnswers.answers()].some((part) => Object.keys(part).length);
    if (!any) return;
    window.removeEventListener(store.STORAGE_EVENT, first);
    try {
      localStorage.setItem(ASKED, "1");
    } catch {
      return; // storage refused: there is no saved work to keep
    }
    await keeping.persist().catch(() => false);
    asked();
  };
  window.addEventListener(store.STORAGE_EVENT, first);
}
