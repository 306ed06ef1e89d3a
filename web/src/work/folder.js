// @ts-check
// "Work in a folder on this computer": where the browser has the File System Access API (Chromium), the lab
// writes the learner's files into a folder they choose, and takes back what their own editor saved there.
//
// The folder gets ember/__init__.py and ember/<file> for each learner file, as this lab starts them. What the page
// last wrote there is remembered with the folder's handle (IndexedDB, LINK), for every lesson page: when the
// learner comes back to the page or runs the checks, every gap a file changed since then is taken into the saved
// work (Python reads the gaps by their markers, REQUEST.EDITS, as for the notebook's files), the lab shows it, and
// Undo puts back what the lab had. A file whose markers no longer pair up gives nothing and is left as it is, with a
// message naming it and the line. Edits typed in the lab are written to the folder a moment later; a file there
// holding anything the page did not write, and cannot take, is first copied aside (ember/scalar.py.1.bak).

import { el } from "../base/dom.js";
import * as savedCode from "./pieces.js";
import * as store from "./store.js";

/**
 * What a folder link asks of the lab it serves, and nothing more: the lab's lesson; its element, which holds
 * data-ready="true" while it shows the learner's files and leaves the page with it; the edits a folder's files
 * make (through Python); the learner's files as the lab builds them now; and a change of gaps taken into the saved
 * work, which the lab shows and can undo.
 * @typedef {{
 *   lesson: string,
 *   holder: HTMLElement,
 *   edits: (files: { before: Record<string, string>, now: Record<string, string> }) =>
 *     Promise<import("../runtime/protocol.js").EditsAnswer>,
 *   buildModule: () => Promise<import("../runtime/protocol.js").ModuleAnswer>,
 *   change: (changes: Record<string, string | null>, message: string) => Promise<void>,
 * }} LabSide
 *
 * The linked folder and what the page last wrote into its ember/ folder (file name -> source).
 * @typedef {{ handle: FileSystemDirectoryHandle, files: Record<string, string> }} Link
 */

const LINK = { database: "ember-folder", store: "link", key: "folder" };
const PACKAGE = "ember"; // the folder in the learner's folder that holds their files
const INIT = "__init__.py";
const WRITE_AFTER_MS = 800; // edits typed in the lab reach the folder this long after the last key
const WHAT_IT_DOES =
  "Your files go into a folder you choose: edit them in your own editor, and what you save there " +
  "comes back into this lab when you return to this page or run the checks.";

/** @type {FolderLink | null} the lab's link on the page now shown (instant navigation replaces it) */
let current = null;

// --- where the link is kept -----------------------------------------------------------------------

/**
 * An IndexedDB request's result, as a promise.
 *
 * @template T
 * @param {IDBRequest<T>} operation
 * @returns {Promise<T>}
 */
function request(operation) {
  return new Promise((resolve, reject) => {
    operation.onsuccess = () => resolve(operation.result);
    operation.onerror = () => reject(operation.error);
  });
}

/**
 * Do one thing with the link's store, and close the database.
 *
 * @template T
 * @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore) => IDBRequest<T>} action
 * @returns {Promise<T>}
 */
async function withStore(mode, action) {
  const opening = indexedDB.open(LINK.database, 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore(LINK.store);
  const db = await request(opening);
  try {
    return await request(action(db.transaction(LINK.store, mode).objectStore(LINK.store)));
  } finally {
    db.close();
  }
}

/** @returns {Promise<Link | null>} the linked folder, or null */
async function readLink() {
  if (!(await indexedDB.databases()).some((db) => db.name === LINK.database)) return null; // never linked: make none
  const link = await withStore("readonly", (store) => store.get(LINK.key));
  return link?.handle ? { handle: link.handle, files: link.files || {} } : null;
}

/** @param {Link} link */
function writeLink(link) {
  return withStore("readwrite", (store) => store.put(link, LINK.key));
}

function forgetLink() {
  return withStore("readwrite", (store) => store.delete(LINK.key));
}

// --- the folder's files -----------------------------------------------------------------------------

/**
 * The files of ``folder`` among ``names``, {name: text}, line ends as Python reads them (a name it lacks is left out).
 *
 * @param {FileSystemDirectoryHandle} folder
 * @param {string[]} names
 * @returns {Promise<Record<string, string>>}
 */
async function readFiles(folder, names) {
  /** @type {Record<string, string>} */
  const found = {};
  for (const name of names) {
    try {
      const file = await (await folder.getFileHandle(name)).getFile();
      found[name] = (await file.text()).replaceAll("\r\n", "\n");
    } catch (error) {
      if (error.name !== "NotFoundError" && error.name !== "TypeMismatchError") throw error;
    }
  }
  return found;
}

/**
 * Write a file of ``folder``, all of it.
 *
 * @param {FileSystemDirectoryHandle} folder
 * @param {string} name
 * @param {string} text
 */
async function writeFile(folder, name, text) {
  const writable = await (await folder.getFileHandle(name, { create: true })).createWritable();
  await writable.write(text);
  await writable.close();
}

/**
 * A free name beside ``name`` in ``folder`` for a copy: scalar.py.1.bak, scalar.py.2.bak, ...
 *
 * @param {FileSystemDirectoryHandle} folder
 * @param {string} name
 * @returns {Promise<string>}
 */
async function copyName(folder, name) {
  for (let number = 1; ; number += 1) {
    const copy = `${name}.${number}.bak`;
    if (!Object.keys(await readFiles(folder, [copy])).length) return copy;
  }
}

/**
 * "Gap a", "Gaps a, b": a list of gaps for a sentence's start.
 *
 * @param {string[]} gaps
 */
const gapWords = (gaps) => `${gaps.length === 1 ? "Gap" : "Gaps"} ${gaps.join(", ")}`;

/**
 * What a linked folder does, in a sentence.
 *
 * @param {string} name  the folder's name
 */
const linkedSentence = (name) =>
  `Linked to your folder “${name}”: your files are in its ember/ folder, and what you save there comes back ` +
  "into this lab when you return to this page or run the checks.";

// --- the lab's link -----------------------------------------------------------------------------------

/** A lab's way to a folder of the learner's: its controls (``panel``), and the files kept in step. */
export class FolderLink {
  /**
   * The link for a lab, or null where the browser cannot open a folder.
   *
   * @param {LabSide} lab
   * @returns {FolderLink | null}
   */
  static offer(lab) {
    return typeof window.showDirectoryPicker === "function" ? new FolderLink(lab) : null;
  }

  /** @param {LabSide} lab */
  constructor(lab) {
    this.lab = lab;
    /** @type {FileSystemDirectoryHandle | null} */
    this.handle = null;
    this.usable = false; // the browser lets the page read and write the folder now
    this.syncing = false;
    /** @type {string | null} the saved work the folder's files were last written from, by this page */
    this.writtenFrom = null;
    /** @type {Promise<void>} */
    this.queue = Promise.resolve();
    /** @type {Promise<void> | null} a sync waiting for the one under way */
    this.waiting = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.workSeen = JSON.stringify(savedCode.work());
    const what = `ember-folder-what-${lab.lesson}`;
    const state = `ember-folder-state-${lab.lesson}`;
    /** @type {(text: string, action: () => void, describedBy?: string) => HTMLButtonElement} */
    const button = (text, action, describedBy) =>
      el("button", { class: "md-button", type: "button", "aria-describedby": describedBy, onclick: action }, text);
    this.linkButton = button("Work in a folder on this computer", () => this.link(), what);
    this.againButton = button("Use my folder again", () => this.reconnect(), state);
    this.unlinkButton = button("Unlink folder", () => this.unlink());
    this.againButton.hidden = this.unlinkButton.hidden = true;
    this.state = el("p", { class: "ember-folder-state", id: state, "aria-live": "polite" });
    this.what = el("p", { class: "ember-folder-what", id: what, text: WHAT_IT_DOES });
    this.broken = el("div", { class: "ember-folder-broken", role: "alert", hidden: true });
    this.panel = el(
      "div",
      { class: "ember-folder" },
      this.state,
      el("div", { class: "ember-toolbar" }, this.linkButton, this.againButton, this.unlinkButton),
      this.what,
      this.broken,
    );
    current?.stop();
    current = this;
    this.listen();
    this.restore();
  }

  /** Take up and write the folder on the page's comings back and the learner's edits in the lab. */
  listen() {
    // Back on the page: take what was saved in the folder. Leaving it: the folder gets what was typed in the lab.
    this.onVisible = () => this.syncSoon(0);
    this.onFocus = () => this.syncSoon(0);
    this.onStorage = () => {
      const work = JSON.stringify(savedCode.work());
      if (this.syncing || work === this.workSeen) return; // a sync under way looks again when it ends
      this.workSeen = work;
      this.syncSoon(WRITE_AFTER_MS);
    };
    document.addEventListener("visibilitychange", this.onVisible);
    window.addEventListener("focus", this.onFocus);
    window.addEventListener(store.STORAGE_EVENT, this.onStorage);
  }

  /** Stop following the page: another page's lab has its own link now. */
  stop() {
    clearTimeout(this.timer);
    if (this.onVisible) document.removeEventListener("visibilitychange", this.onVisible);
    if (this.onFocus) window.removeEventListener("focus", this.onFocus);
    if (this.onStorage) window.removeEventListener(store.STORAGE_EVENT, this.onStorage);
  }

  /** The folder linked before (on this lesson page or another), in use at once if the browser still allows it. */
  async restore() {
    try {
      const link = await readLink();
      if (!link) return this.show();
      this.handle = link.handle;
      this.usable = (await link.handle.queryPermission({ mode: "readwrite" })) === "granted";
      this.show();
      if (this.usable) await this.sync();
    } catch (error) {
      this.show(`Could not reach your linked folder: ${error.message || error}`);
    }
  }

  /**
   * Show the controls for the link's state, and a sentence about it (by default, what the state is).
   *
   * @param {string} [sentence]
   */
  show(sentence) {
    const name = this.handle ? `“${this.handle.name}”` : "";
    this.linkButton.hidden = Boolean(this.handle);
    this.againButton.hidden = !this.handle || this.usable;
    this.unlinkButton.hidden = !this.handle;
    this.what.hidden = Boolean(this.handle);
    this.panel.dataset.linked = String(Boolean(this.handle && this.usable));
    if (this.handle) this.againButton.textContent = `Use my folder ${name} again`;
    if (sentence !== undefined) this.state.textContent = sentence;
    else if (!this.handle) this.state.textContent = "";
    else if (this.usable) this.state.textContent = linkedSentence(this.handle.name);
    else this.state.textContent = `Your folder ${name} is linked; the browser asks you before this page uses it again.`;
  }

  /** Ask for a folder, link it, and write the learner's files into it. */
  async link() {
    const pick = /** @type {NonNullable<Window["showDirectoryPicker"]>} */ (window.showDirectoryPicker);
    let handle;
    try {
      handle = await pick({ id: "ember", mode: "readwrite" });
    } catch (error) {
      if (error.name !== "AbortError") this.show(`Could not open a folder: ${error.message || error}`);
      return;
    }
    this.handle = handle;
    this.usable = true;
    await writeLink({ handle, files: {} });
    this.show(`Writing your files into “${handle.name}”…`);
    this.unlinkButton.focus(); // the button pressed is gone
    await this.sync();
  }

  /** Ask the browser again for the linked folder (a click allows the question), then bring it up to date. */
  async reconnect() {
    if (!this.handle) return;
    try {
      this.usable = (await this.handle.requestPermission({ mode: "readwrite" })) === "granted";
    } catch (error) {
      this.show(`Could not reach your folder: ${error.message || error}`);
      return;
    }
    this.show(this.usable ? undefined : "The browser did not allow this page to use the folder.");
    if (!this.usable) return;
    this.unlinkButton.focus(); // the button pressed is gone
    await this.sync();
  }

  /** Forget the folder: its files stay where they are, and this page no longer reads or writes them. */
  async unlink() {
    const name = this.handle?.name;
    clearTimeout(this.timer);
    await this.queue;
    await forgetLink();
    this.handle = null;
    this.usable = false;
    this.broken.hidden = true;
    this.broken.replaceChildren();
    this.show(`The folder ${name ? `“${name}” ` : ""}is unlinked. Your files stay in it.`);
    this.linkButton.focus(); // the button pressed is gone
  }

  /** Before the checks run: take what the learner saved in the folder, so that the checks run on it. */
  async beforeRun() {
    if (!this.handle || !this.usable || this.lab.holder.dataset.ready !== "true") return;
    clearTimeout(this.timer);
    await this.sync();
  }

  /**
   * Sync in ``ms`` milliseconds (0: at once), unless the lab's page is gone.
   *
   * @param {number} ms
   */
  syncSoon(ms) {
    clearTimeout(this.timer);
    if (!this.lab.holder.isConnected) return this.stop();
    if (!this.handle || !this.usable) return;
    this.timer = setTimeout(() => this.sync(), ms);
  }

  /**
   * Bring the lab and the folder into step, after any sync under way; syncs asked for meanwhile are one.
   *
   * @returns {Promise<void>}
   */
  sync() {
    if (this.waiting) return this.waiting;
    const next = this.queue.then(async () => {
      this.waiting = null;
      await this.labReady();
      this.syncing = true;
      try {
        if (this.handle && this.usable) await this.syncNow(this.handle);
      } catch (error) {
        this.show(`Could not bring your folder up to date: ${error.message || error}`);
      } finally {
        this.syncing = false;
      }
    });
    this.waiting = next;
    this.queue = next;
    return next;
  }

  /** @returns {Promise<void>} once the lab shows the learner's files (a rebuild must not race its first build) */
  labReady() {
    const holder = this.lab.holder;
    if (holder.dataset.ready === "true") return Promise.resolve();
    return new Promise((resolve) => {
      const watch = new MutationObserver(() => {
        if (holder.dataset.ready !== "true") return;
        watch.disconnect();
        resolve();
      });
      watch.observe(holder, { attributes: true, attributeFilter: ["data-ready"] });
    });
  }

  /**
   * Take every gap the folder's files changed since the page wrote them, then write the files as the lab now
   * starts them (all but those whose markers no longer pair up).
   *
   * @param {FileSystemDirectoryHandle} handle
   */
  async syncNow(handle) {
    const link = (await readLink()) || { handle, files: {} };
    const folder = await handle.getDirectoryHandle(PACKAGE, { create: true });
    const before = link.files;
    const now = await readFiles(folder, Object.keys(before));
    const untouched = Object.keys(before).every((name) => now[name] === before[name]);
    if (untouched && this.writtenFrom === JSON.stringify(savedCode.work())) return; // nothing new on either side
    /** @type {Record<string, string>} */
    let broken = {};
    if (!untouched) {
      const edits = await this.lab.edits({ before, now });
      broken = edits.broken;
      await this.take(edits.changed);
    }
    const work = JSON.stringify(savedCode.work());
    const { files, init } = await this.lab.buildModule();
    const names = Object.keys(files);
    const there = await readFiles(folder, [...names, INIT]);
    /** @type {Record<string, string>} */
    const written = {};
    const copies = [];
    for (const name of names) {
      const source = files[name].source;
      if (name in broken) {
        if (name in before) written[name] = before[name]; // taken once the learner mends it
        continue;
      }
      if (there[name] !== source) {
        if (there[name] !== undefined && there[name] !== before[name]) {
          const copy = await copyName(folder, name);
          await writeFile(folder, copy, there[name]);
          copies.push(`ember/${copy}`);
        }
        await writeFile(folder, name, source);
      }
      written[name] = source;
    }
    if (there[INIT] === undefined) await writeFile(folder, INIT, init); // a learner's own __init__.py stays
    await writeLink({ handle, files: written });
    this.writtenFrom = Object.keys(broken).length ? null : work;
    this.workSeen = JSON.stringify(savedCode.work());
    if (this.workSeen !== work) this.syncSoon(WRITE_AFTER_MS); // typed in the lab meanwhile
    this.showBroken(broken);
    const kept = copies.length
      ? ` What your folder held that the lab could not take is kept as ${copies.join(", ")}.`
      : "";
    this.show(`${linkedSentence(handle.name)}${kept}`);
  }

  /**
   * Take the folder's texts of changed gaps ({gap: {before, now}}) into the saved work, through the lab (which
   * shows them and can undo them). Where the lab changed a gap too, the folder's text is taken, and Undo brings
   * the lab's back.
   *
   * @param {Record<string, { before: string, now: string }>} changed
   */
  async take(changed) {
    const saved = savedCode.exactTexts();
    /** @type {Record<string, string>} */
    const taken = {};
    const both = [];
    for (const [gap, { before, now }] of Object.entries(changed)) {
      const lab = gap in saved ? saved[gap] : before;
      if (lab === now) continue;
      taken[gap] = now;
      if (lab !== before) both.push(gap);
    }
    const gaps = Object.keys(taken);
    if (!gaps.length) return;
    const alsoHere = both.length ? ` (${both.join(", ")} had changed in the lab too)` : "";
    await this.lab.change(
      taken,
      `${gapWords(gaps)} taken from your folder${alsoHere}. Undo puts back what the lab had.`,
    );
  }

  /**
   * Say which of the folder's files gave nothing, and why; or hide the message when none.
   *
   * @param {Record<string, string>} broken  file name -> why
   */
  showBroken(broken) {
    const names = Object.keys(broken);
    const text = names.map(
      (name) =>
        `Nothing was taken from ember/${name} in your folder: ${broken[name]}. The file is left as you saved ` +
        "it: put the gap markers back as they were, save, and the lab takes your code.",
    );
    if (JSON.stringify(text) === JSON.stringify([...this.broken.children].map((p) => p.textContent))) return;
    this.broken.hidden = !names.length;
    this.broken.replaceChildren(...text.map((line, i) => el("p", { "data-file": names[i], text: line })));
  }
}
