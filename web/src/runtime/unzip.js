// @ts-check
// The course's Python files written straight into Pyodide's file system from the bundle's zip archive:
// a few milliseconds, where Pyodide's unpackArchive (Python's zipfile, file by file) takes about 0.1 s
// of every start. The build stores the files uncompressed (the host compresses the whole archive), so
// writing them is slicing: only stored entries are read (no deflate, no ZIP64, no encryption).

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;

/**
 * The archive's files, as [name, bytes]; folders are left out.
 *
 * @param {Uint8Array} bytes
 * @returns {[string, Uint8Array][]}
 */
function zipEntries(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== END_OF_DIRECTORY) end--;
  if (end < 0) throw new Error("the course's bundle is not a zip archive");
  const names = new TextDecoder();
  /** @type {[string, Uint8Array][]} */
  const entries = [];
  let at = view.getUint32(end + 16, true);
  for (let left = view.getUint16(end + 10, true); left > 0; left--) {
    if (view.getUint32(at, true) !== DIRECTORY_ENTRY) throw new Error("the course's bundle has a damaged directory");
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true);
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name.endsWith("/")) continue;
    if (name.startsWith("/") || name.split("/").includes("..")) throw new Error(`the course's bundle names ${name}`);
    if (view.getUint32(local, true) !== LOCAL_HEADER)
      throw new Error(`the course's bundle has a damaged entry: ${name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (method !== STORED)
      throw new Error(`the course's bundle compresses ${name} (method ${method}); it should store it`);
    entries.push([name, bytes.subarray(start, start + size)]);
  }
  return entries;
}

/**
 * Write every file of the zip archive `bytes` under `folder` in Pyodide's file system.
 *
 * @param {import("pyodide").PyodideInterface["FS"]} FS
 * @param {Uint8Array} bytes
 * @param {string} folder
 */
export function unpackZip(FS, bytes, folder) {
  for (const [name, data] of zipEntries(bytes)) {
    const path = `${folder}/${name}`;
    FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    FS.writeFile(path, data);
  }
}
