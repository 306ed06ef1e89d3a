// @ts-check
// The stored memory snapshot of Python with the course imported: one entry in IndexedDB, keyed by
// Pyodide's version, the course's version and the snapshot's format. IndexedDB (not the Cache API)
// because it also works on plain-http hosts, which are not secure contexts.

// worker.js (this module's bundle) is in assets/gen/: the database is named by the site's root,
// so that two courses on one host keep apart.
const DB = `ember-python:${new URL("../../", import.meta.url).pathname}`;
const STORE = "snapshots";
const ENTRY = "current";
const KEY = "current-key"; // a small entry beside the large one: which snapshot is there, read at once

/**
 * An error that says what went wrong: WebKit refuses some writes with no error at all (`null`).
 *
 * @param {DOMException | null} error
 * @returns {Error}
 */
function refusal(error) {
  if (error) return new Error(`the browser's storage refused it (${error.name}: ${error.message})`);
  return new Error("the browser's storage refused it without giving a reason");
}

/**
 * What an error says, whatever was thrown.
 *
 * @param {unknown} error
 * @returns {string}
 */
function said(error) {
  return error instanceof Error || error instanceof DOMException ? error.message : String(error);
}

/** @returns {Promise<IDBDatabase>} */
function database() {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(DB, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () => reject(opening.error);
  });
}

/**
 * Do ``work`` on the store in one transaction; answers its request's result once the transaction is complete.
 *
 * @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore) => IDBRequest} work
 * @returns {Promise<any>}
 */
async function transaction(mode, work) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = work(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(refusal(tx.error));
      tx.onabort = () => reject(refusal(tx.error));
    });
  } finally {
    db.close();
  }
}

/**
 * The key of the stored snapshot, or null: quick, the bytes are not read.
 *
 * @returns {Promise<string | null>}
 */
export async function storedKey() {
  const entry = await transaction("readonly", (store) => store.get(KEY));
  return entry ? entry.key : null;
}

/**
 * The stored snapshot's bytes; fails if it is missing, of another key, or not the size it was stored with.
 *
 * @param {string} key
 * @returns {Promise<Uint8Array>}
 */
export async function readSnapshot(key) {
  const entry = await transaction("readonly", (store) => store.get(ENTRY));
  if (!entry || entry.key !== key) throw new Error("the stored snapshot is missing");
  const { bytes } = entry; // a Blob, or an ArrayBuffer where the browser refused the Blob (writeSnapshot)
  const size = bytes instanceof Blob ? bytes.size : bytes instanceof ArrayBuffer ? bytes.byteLength : -1;
  if (size !== entry.size) throw new Error("the stored snapshot is not the size it was stored with");
  return new Uint8Array(bytes instanceof Blob ? await bytes.arrayBuffer() : bytes);
}

/**
 * Store a snapshot under this key, replacing any other.
 *
 * @param {string} key
 * @param {Uint8Array<ArrayBuffer>} bytes
 */
export async function writeSnapshot(key, bytes) {
  /** @param {Blob | ArrayBuffer} stored */
  const write = (stored) =>
    transaction("readwrite", (store) => {
      store.put({ key, size: bytes.byteLength, bytes: stored, saved: Date.now() }, ENTRY);
      return store.put({ key }, KEY);
    });
  try {
    // As a Blob: reading one back (its bytes straight from disk) takes a third of the time an ArrayBuffer
    // takes to come out of IndexedDB (about 20 against 60 ms for 31 MB).
    await write(new Blob([bytes]));
  } catch (refused) {
    // WebKit's ephemeral storage (Safari's private windows, its WebDriver sessions) refuses every Blob, and
    // takes the same bytes as an ArrayBuffer.
    try {
      await write(bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer : bytes.slice().buffer);
    } catch (error) {
      throw new Error(`Python's memory snapshot was not stored: as a Blob, ${said(refused)}; as bytes, ${said(error)}`);
    }
  }
}

/** Forget the stored snapshot (it failed to start). */
export async function dropSnapshot() {
  await transaction("readwrite", (store) => {
    store.delete(ENTRY);
    return store.delete(KEY);
  });
}
