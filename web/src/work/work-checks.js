// @ts-check
// What the page checks of files given to "Bring my work here" before Python reads any of them: their sizes, for
// each file and for the whole import, from what the browser knows without reading them; and the nesting of a
// work file's ember-work.json, scanned here byte by byte (no recursion), since a deeply nested one could take
// Python in the page down with it. Python's reader (labs/work/work_file.py) checks everything again.
// Names and messages shown are cut to a bounded length: a file's name can be as long as its maker likes.

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const JSON_NAME = "ember-work.json";

export const MAX_FILES = 50; // files brought in at once (the course has fewer than ten learner files)
export const MAX_JSON_DEPTH = 16; // as labs/work/work_file.py's MAX_DEPTH: ember-work.json nests 4 deep
const NAME_CHARS = 60; // a file's name as shown, at most
const MESSAGE_CHARS = 400; // one of Python's messages as shown, at most

/**
 * A text cut to at most ``most`` characters, its middle left out ("a-very-lo…name.zip"): the end of a name keeps
 * its extension, the end of a message its reason.
 *
 * @param {string} text
 * @param {number} [most]
 * @returns {string}
 */
export function clip(text, most = NAME_CHARS) {
  const chars = [...text];
  if (chars.length <= most) return text;
  const head = Math.ceil((most - 1) / 2);
  return `${chars.slice(0, head).join("")}…${chars.slice(chars.length - (most - 1 - head)).join("")}`;
}

/**
 * One of Python's messages, cut to a bounded length (it may quote a name from inside the file).
 *
 * @param {string} text
 * @returns {string}
 */
export function clipMessage(text) {
  return clip(text, MESSAGE_CHARS);
}

/**
 * A number of bytes for a message: "4 MiB", "2.5 KiB", "12 bytes" (as labs/work/work_file.py's size_text).
 *
 * @param {number} count
 * @returns {string}
 */
export function sizeText(count) {
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
 * Why files given at once are refused before anything of them is read (null: they may be read): too many, one
 * too large, or too large together. ``limit`` holds for the whole import.
 *
 * @param {{ name: string, size: number }[]} files
 * @param {number} limit
 * @returns {string | null}
 */
export function refusedBySize(files, limit) {
  if (files.length > MAX_FILES)
    return `That is ${files.length} files; bring in at most ${MAX_FILES} at once (one work file, or your .py files).`;
  const large = files.find((file) => file.size > limit);
  if (large) return `${clip(large.name)} is larger than ${sizeText(limit)}, the most a file you bring in can be.`;
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > limit)
    return `These ${files.length} files come to more than ${sizeText(limit)} together; what you bring in at once is at most ${sizeText(limit)}.`;
  return null;
}

/**
 * A scanner of JSON text, chunk by chunk: answers true as soon as its arrays and objects nest deeper than
 * ``limit`` (brackets inside strings do not count).
 *
 * @param {number} limit
 * @returns {(chunk: Uint8Array) => boolean}
 */
export function depthScanner(limit) {
  let depth = 0;
  let inString = false;
  let escaped = false;
  return (chunk) => {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === 0x5c) escaped = true;
        else if (byte === 0x22) inString = false;
      } else if (byte === 0x22) inString = true;
      else if (byte === 0x5b || byte === 0x7b) {
        depth += 1;
        if (depth > limit) return true;
      } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
    }
    return false;
  };
}

/**
 * The entries of a zip named ember-work.json (at its top or in a folder), as their method and packed bytes; an
 * empty list where the zip's directory cannot be read here (Python says what is wrong with it).
 *
 * @param {Uint8Array} bytes
 * @returns {{ method: number, data: Uint8Array }[]}
 */
function workJsonEntries(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  const stop = Math.max(0, bytes.length - 22 - 0xffff);
  while (end >= stop && view.getUint32(end, true) !== END_OF_DIRECTORY) end--;
  if (end < stop) return [];
  const names = new TextDecoder();
  const found = [];
  // Bytes before the zip itself (as Python's zipfile allows) shift every offset its directory gives.
  const shift = end - view.getUint32(end + 12, true) - view.getUint32(end + 16, true);
  if (shift < 0) return [];
  let at = view.getUint32(end + 16, true) + shift;
  for (let left = view.getUint16(end + 10, true); left > 0; left--) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== DIRECTORY_ENTRY) break;
    const method = view.getUint16(at + 10, true);
    const packed = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const local = view.getUint32(at + 42, true) + shift;
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (name !== JSON_NAME && !name.endsWith(`/${JSON_NAME}`)) continue;
    if (local + 30 > bytes.length || view.getUint32(local, true) !== LOCAL_HEADER) continue;
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    found.push({ method, data: bytes.subarray(start, Math.min(bytes.length, start + packed)) });
  }
  return found;
}

/**
 * Whether a packed entry's text nests deeper than ``limit``, reading at most ``most`` bytes of it unpacked.
 *
 * @param {{ method: number, data: Uint8Array }} entry
 * @param {number} limit
 * @param {number} most
 * @returns {Promise<boolean>}
 */
async function nestsTooDeep({ method, data }, limit, most) {
  const tooDeep = depthScanner(limit);
  if (method === STORED) return tooDeep(data.subarray(0, most));
  if (method !== DEFLATED) return false;
  const reader = new Blob([data.slice()]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  let read = 0;
  try {
    while (read < most) {
      const { done, value } = await reader.read();
      if (done) return false;
      const chunk = value.subarray(0, most - read);
      read += chunk.length;
      if (tooDeep(chunk)) return true;
    }
    return false;
  } catch {
    return false; // a damaged entry: Python's reader says so
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * Why a work file (a zip's bytes) is refused before Python reads it (null: Python may read it): an ember-work.json
 * in it nests its lists and tables deeper than :data:`MAX_JSON_DEPTH`. At most ``most`` bytes of it are unpacked.
 *
 * @param {Uint8Array} bytes
 * @param {number} most
 * @returns {Promise<string | null>}
 */
export async function refusedByNesting(bytes, most) {
  for (const entry of workJsonEntries(bytes)) {
    if (await nestsTooDeep(entry, MAX_JSON_DEPTH, most))
      return (
        `Its ${JSON_NAME} nests lists and tables more than ${MAX_JSON_DEPTH} deep; the course never writes one ` +
        "like that, so it is not read."
      );
  }
  return null;
}
