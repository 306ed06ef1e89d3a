// @ts-check
// The notebook app's drive, as both sides read it: the lesson pages (web/src/work/handover.js) and the
// notebook's Python kernel (labs/frontends/notebook.py imports this file's build, assets/gen/drive.js). Its
// identity (database, store, folder) is labs/data/notebook_drive.json, which Python reads too.
import NAMES from "../../../labs/data/notebook_drive.json";

/** The drive's identity: its database, store and folder, and the name of the learner's seed file in it. */
export const DRIVE = /** @type {{ database: string, store: string, folder: string, seed_file: string }} */ (NAMES);

/**
 * Every file of the drive's ember/ folder, {path: text}: {} when there is no drive, null when it cannot be read.
 *
 * @returns {Promise<Record<string, string> | null>}
 */
export function readFolder() {
  return new Promise((resolve) => {
    const opening = indexedDB.open(NAMES.database);
    opening.onupgradeneeded = () => opening.transaction?.abort(); // never create the drive's database for a read
    opening.onerror = () => resolve({});
    opening.onsuccess = () => {
      const db = opening.result;
      if (!db.objectStoreNames.contains(NAMES.store)) {
        db.close();
        resolve({});
        return;
      }
      /** @type {Record<string, string>} */
      const files = {};
      const cursor = db.transaction(NAMES.store).objectStore(NAMES.store).openCursor();
      cursor.onsuccess = () => {
        const at = cursor.result;
        if (!at) {
          db.close();
          resolve(files);
          return;
        }
        const value = at.value;
        if (
          typeof at.key === "string" &&
          at.key.startsWith(`${NAMES.folder}/`) &&
          value &&
          value.type === "file" &&
          typeof value.content === "string"
        )
          files[at.key] = value.content;
        at.continue();
      };
      cursor.onerror = () => {
        db.close();
        resolve(null);
      };
    };
  });
}

/**
 * The same, as JSON text (for Python: a string crosses into the kernel without proxies).
 *
 * @returns {Promise<string | null>}
 */
export async function readFolderJson() {
  const files = await readFolder();
  return files === null ? null : JSON.stringify(files);
}
