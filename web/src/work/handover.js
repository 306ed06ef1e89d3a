// @ts-check
// "Open as notebook": hand the learner's files to the notebook app, and take its edits back.
//
// The notebook app (JupyterLite, in notebook/) keeps its files in IndexedDB: the database named by
// its contentsStorageName, the store "files", keyed by path ("ember/scalar.py"), each value a
// Jupyter contents model. A stored file takes precedence over the app's built one, so writing the
// learner's files there, from the same origin, is how they reach the notebook.
//
// What was handed over is remembered (localStorage, RECORD). When the learner is back on a lesson
// page, every gap the notebook changed since then is taken into the saved work; where the lab has
// changed the same gap meanwhile, both versions are kept and the learner chooses. A notebook file
// that would be overwritten with edits not taken back is first copied aside in the drive. The hand-over
// also writes the learner's seed (ember/.learner.json), so the notebook's questions list their options
// in the order this page shows them.

import { el, saveFile } from "../base/dom.js";
import * as savedAnswers from "./answers.js";
import { DRIVE as DRIVE_NAMES, readFolder } from "./drive.js";
import * as savedCode from "./pieces.js";

// The app's contentsStorageName is DRIVE.
const { database: DRIVE, store: STORE, folder: FOLDER, seed_file: SEED_FILE } = DRIVE_NAMES;
const RECORD = "ember:notebook";
const SET_ASIDE_KEPT = 20;
const LEARNER_FILE = `${FOLDER}/${SEED_FILE}`;

/**
 * @typedef {import("../runtime/runtime.js").Runtime} Runtime
 *
 * A gap changed both in the lab and in the notebook: both texts, until the learner chooses.
 * @typedef {{ lab: string, notebook: string }} Conflict
 *
 * What was handed over (file name -> source), the conflicts waiting for a choice, and the texts set aside by
 * the choices made.
 * @typedef {{
 *   files: Record<string, string>, conflicts: Record<string, Conflict>,
 *   setAside: { gap: string, from: string, text: string, at: number }[],
 * }} HandOverRecord
 *
 * What came back from the notebook: the gaps taken, the conflicts, and the files it could not read (with why).
 * @typedef {{ taken: string[], conflicts: Record<string, Conflict>, broken: Record<string, string> }} TakenBack
 */ // the learner's seed, so the notebook lists options in the page's order

// --- the notebook's drive ---------------------------------------------------------------------

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
 * The drive's database, made if the notebook was never opened; it closes itself if the app upgrades it.
 *
 * @returns {Promise<IDBDatabase>}
 */
async function openDrive() {
  const opening = indexedDB.open(DRIVE);
  opening.onupgradeneeded = () => {
    if (!opening.result.objectStoreNames.contains(STORE)) opening.result.createObjectStore(STORE);
  };
  const db = await request(opening);
  db.onversionchange = () => db.close(); // never block the app's own upgrade of its database
  if (db.objectStoreNames.contains(STORE)) return db;
  const version = db.version + 1; // the database exists without the store: add it
  db.close();
  const upgrading = indexedDB.open(DRIVE, version);
  upgrading.onupgradeneeded = () => upgrading.result.createObjectStore(STORE);
  const upgraded = await request(upgrading);
  upgraded.onversionchange = () => upgraded.close();
  return upgraded;
}

/**
 * The drive's ember/ files: {name: source} for the names asked (a name the drive lacks is left out).
 *
 * @param {string[]} names
 * @returns {Promise<Record<string, string>>}
 */
export async function readDrive(names) {
  const files = await readFolder();
  if (files === null) throw new Error("the notebook's storage could not be read");
  /** @type {Record<string, string>} */
  const found = {};
  for (const name of names) {
    if (`${FOLDER}/${name}` in files) found[name] = files[`${FOLDER}/${name}`];
  }
  return found;
}

/**
 * A file of the drive as the app stores it: a Jupyter contents model.
 *
 * @param {string} path
 * @param {string} content
 * @param {string | undefined} created  when it was first stored (now, for a new file)
 */
function model(path, content, created) {
  const now = new Date().toISOString();
  const mimetype = path.endsWith(".json") ? "application/json" : "text/x-python";
  return {
    name: path.split("/").pop(),
    path,
    type: "file",
    format: "text",
    mimetype,
    content,
    size: new TextEncoder().encode(content).length,
    created: created || now,
    last_modified: now,
    writable: true,
  };
}

/**
 * Write files ({path: source}) into the drive, keeping each file's creation time.
 *
 * @param {Record<string, string>} files
 */
async function writeDrive(files) {
  const db = await openDrive();
  try {
    const transaction = db.transaction(STORE, "readwrite");
    const store = transaction.objectStore(STORE);
    for (const [path, content] of Object.entries(files)) {
      const old = await request(store.get(path));
      store.put(model(path, content, old?.created), path);
    }
    await new Promise((resolve, reject) => {
      transaction.oncomplete = resolve;
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error || new Error("the notebook's storage refused the files"));
    });
  } finally {
    db.close();
  }
}

// --- what was handed over ----------------------------------------------------------------------

/** @type {(value: any) => boolean} */
const isTexts = (value) =>
  value &&
  typeof value === "object" &&
  !Array.isArray(value) &&
  Object.values(value).every((text) => typeof text === "string");

/**
 * {files: {name: source as handed over}, conflicts: {gap: {lab, notebook}}, setAside: [...]}, or an empty one.
 *
 * @returns {HandOverRecord}
 */
function readRecord() {
  try {
    const record = JSON.parse(localStorage.getItem(RECORD) || "null");
    if (record && isTexts(record.files)) {
      const conflicts = record.conflicts && typeof record.conflicts === "object" ? record.conflicts : {};
      return { files: record.files, conflicts, setAside: Array.isArray(record.setAside) ? record.setAside : [] };
    }
  } catch {
    /* unreadable: treated as nothing handed over; the drive's files are copied aside before any overwrite */
  }
  return { files: {}, conflicts: {}, setAside: [] };
}

/** @param {HandOverRecord} record */
function writeRecord(record) {
  try {
    localStorage.setItem(RECORD, JSON.stringify(record));
  } catch {
    /* storage blocked or full: the storage notice already says so */
  }
}

// --- handing over ------------------------------------------------------------------------------

/**
 * The address of a lesson's notebook in the app.
 *
 * @param {string} siteRoot  the site's root address, ending in "/"
 * @param {string} lessonId
 * @returns {string}
 */
export function notebookUrl(siteRoot, lessonId) {
  return `${siteRoot}notebook/notebooks/index.html?path=${encodeURIComponent(`${lessonId}.ipynb`)}`;
}

/**
 * Open the notebook's tab now, within the learner's click (a browser's pop-up blocker lets a tab opened later,
 * after an await, through only sometimes: WebKit refuses it), showing that the notebook is on its way; the
 * caller points it at the notebook once the files are handed over. Null when the browser refused the tab.
 *
 * @returns {Window | null}
 */
export function openWaitingTab() {
  const tab = window.open("about:blank", "_blank");
  if (!tab) return null;
  try {
    tab.document.title = "Opening the notebook…";
    const body = tab.document.body || tab.document.documentElement.appendChild(tab.document.createElement("body"));
    body.style.font = "1.1rem system-ui, sans-serif";
    body.style.margin = "2rem";
    body.textContent = "Opening the notebook… Your files are being copied into it.";
  } catch {
    // a tab the page cannot write into still opens the notebook
  }
  return tab;
}

/**
 * A free name beside ``name`` in the drive for a copy: scalar.py.1.bak, scalar.py.2.bak, ...
 *
 * @param {string} name
 * @returns {Promise<string>}
 */
async function backupName(name) {
  const db = await openDrive();
  try {
    const store = db.transaction(STORE).objectStore(STORE);
    for (let number = 1; ; number += 1) {
      const path = `${FOLDER}/${name}.${number}.bak`;
      if (!(await request(store.get(path)))) return path;
    }
  } finally {
    db.close();
  }
}

/**
 * Write the learner's files (as ``lab`` starts, from their saved work) into the notebook's drive.
 * Answers the paths of any copies made of notebook files holding edits that were not taken back.
 *
 * @param {Runtime} runtime
 * @param {string} lab  the lesson's id
 * @returns {Promise<string[]>}
 */
export async function handOver(runtime, lab) {
  const { files, init } = await runtime.module({ lab, ...savedCode.work() });
  const sources = Object.fromEntries(Object.entries(files).map(([name, file]) => [name, file.source]));
  const record = readRecord();
  const inDrive = await readDrive([...Object.keys(sources), "__init__.py"]);
  /** @type {Record<string, string>} */
  const writes = {};
  const copies = [];
  for (const [name, source] of Object.entries(sources)) {
    const there = inDrive[name];
    if (there !== undefined && there !== source && there !== record.files[name]) {
      const path = await backupName(name);
      writes[path] = there;
      copies.push(path);
    }
    writes[`${FOLDER}/${name}`] = source;
  }
  // The package's __init__.py: its text is Python's (labs/checking/learner.py).
  if (inDrive["__init__.py"] === undefined) writes[`${FOLDER}/__init__.py`] = init;
  writes[LEARNER_FILE] = `${JSON.stringify({ seed: savedAnswers.learnerSeed() })}\n`;
  await writeDrive(writes);
  writeRecord({ ...record, files: sources });
  return copies;
}

// --- taking edits back -------------------------------------------------------------------------

/**
 * Take into the saved work every gap the notebook changed since the hand-over. Answers
 * {taken: [gap], conflicts: {gap: {lab, notebook}}, broken: {file: why}}; a conflict changes nothing.
 *
 * @param {Runtime} runtime
 * @param {string} version  the course's version
 * @returns {Promise<TakenBack>}
 */
export async function takeBack(runtime, version) {
  const record = readRecord();
  const names = Object.keys(record.files);
  const empty = { taken: [], conflicts: record.conflicts, broken: {} };
  if (!names.length) return empty;
  const now = await readDrive(names);
  if (names.every((name) => now[name] === undefined || now[name] === record.files[name])) return empty;
  const { changed, broken } = await runtime.edits({ before: record.files, now });
  const saved = savedCode.exactTexts();
  /** @type {Record<string, string>} */
  const taken = {};
  for (const [gap, { before, now: text }] of Object.entries(changed)) {
    const lab = gap in saved ? saved[gap] : before;
    if (lab === before) taken[gap] = text;
    else if (lab !== text) record.conflicts[gap] = { lab, notebook: text };
  }
  if (Object.keys(taken).length) savedCode.saveExact(taken, version);
  for (const name of names) if (now[name] !== undefined && !(name in broken)) record.files[name] = now[name];
  writeRecord(record);
  return { taken: Object.keys(taken), conflicts: record.conflicts, broken };
}

/**
 * Settle a conflict: keep the notebook's text ("notebook") or the lab's ("lab"); the other is kept aside.
 *
 * @param {string} gap
 * @param {"notebook" | "lab"} keep
 * @param {string} version  the course's version
 */
export function settle(gap, keep, version) {
  const record = readRecord();
  const conflict = record.conflicts[gap];
  if (!conflict) return;
  if (keep === "notebook") savedCode.saveExact({ [gap]: conflict.notebook }, version);
  const other = keep === "notebook" ? "lab" : "notebook";
  record.setAside = [...record.setAside, { gap, from: other, text: conflict[other], at: Date.now() }].slice(
    -SET_ASIDE_KEPT,
  );
  delete record.conflicts[gap];
  writeRecord(record);
}

/**
 * Forget a damaged notebook file's state: what it holds now becomes the baseline (nothing is taken).
 *
 * @param {string} name
 */
export async function acceptAsIs(name) {
  const record = readRecord();
  const now = await readDrive([name]);
  if (now[name] !== undefined) record.files[name] = now[name];
  writeRecord(record);
}

// --- what the learner sees ---------------------------------------------------------------------

/** @param {string} text  @returns {Blob} a Python file's text, to save */
const pythonText = (text) => new Blob([text], { type: "text/x-python" });

/**
 * Mount at the top of ``root`` what came back from the notebook (nothing, when nothing did).
 *
 * @param {HTMLElement} root
 * @param {TakenBack} result
 * @param {{ version: string, onChange: () => void }} options
 */
export function mountTakenBack(root, result, options) {
  const box = resultBox(result, options);
  if (box) root.prepend(box);
}

/**
 * A box at the top of a lesson page saying what came back from the notebook, with a choice for each
 * conflict and a way out for each damaged file; ``onChange`` runs after the saved work changed.
 *
 * @param {TakenBack} result
 * @param {{ version: string, onChange: () => void }} options
 * @returns {HTMLElement | null}
 */
function resultBox({ taken, conflicts, broken }, { version, onChange }) {
  const gaps = Object.keys(conflicts);
  const files = Object.keys(broken);
  if (!taken.length && !gaps.length && !files.length) return null;
  const box = el("div", { class: "ember-from-notebook", role: gaps.length || files.length ? "alert" : "status" });
  if (taken.length) {
    box.append(el("p", { text: `Taken from the notebook into your saved work: ${taken.join(", ")}.` }));
  }
  for (const gap of gaps) {
    const { lab, notebook } = conflicts[gap];
    const choice = el(
      "div",
      { class: "ember-conflict", "data-gap": gap },
      el("p", { text: `${gap} was changed both here and in the notebook. Both versions are kept until you choose.` }),
      el(
        "div",
        { class: "ember-conflict-versions" },
        el("div", {}, el("p", { text: "In the lab:" }), el("pre", { text: lab })),
        el("div", {}, el("p", { text: "In the notebook:" }), el("pre", { text: notebook })),
      ),
    );
    /** @param {"notebook" | "lab"} keep */
    const choose = (keep) => () => {
      settle(gap, keep, version);
      choice.remove();
      if (!box.querySelector(".ember-conflict, .ember-broken")) box.remove();
      onChange();
    };
    choice.append(
      el(
        "div",
        { class: "ember-toolbar" },
        el("button", { class: "md-button", type: "button", onclick: choose("notebook") }, "Use the notebook's"),
        el("button", { class: "md-button", type: "button", onclick: choose("lab") }, "Keep the lab's"),
        el(
          "button",
          { class: "md-button", type: "button", onclick: () => saveFile(pythonText(notebook), `${gap}.notebook.py`) },
          "Download the notebook's",
        ),
      ),
    );
    box.append(choice);
  }
  for (const name of files) {
    const note = el(
      "div",
      { class: "ember-broken", "data-file": name },
      el("p", {
        text:
          `Nothing was taken from the notebook's ember/${name}: ${broken[name]}. ` +
          "Put the markers back in the notebook, or download the file to keep your code.",
      }),
    );
    note.append(
      el(
        "div",
        { class: "ember-toolbar" },
        el(
          "button",
          {
            class: "md-button",
            type: "button",
            onclick: async () => saveFile(pythonText((await readDrive([name]))[name] || ""), name),
          },
          `Download the notebook's ${name}`,
        ),
        el(
          "button",
          {
            class: "md-button",
            type: "button",
            onclick: async () => {
              await acceptAsIs(name);
              note.remove();
              if (!box.children.length) box.remove();
            },
          },
          "Leave it as it is",
        ),
      ),
    );
    box.append(note);
  }
  return box;
}
