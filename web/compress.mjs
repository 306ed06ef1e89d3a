// Write precompressed copies (.br and .gz) beside the large text and wasm files of a built site.
// Usage: node web/compress.mjs SITE_DIR CACHE_DIR
// Brotli at its best quality takes most of a minute for Pyodide's wasm, so every result is kept in
// CACHE_DIR under the hash of its input: a rebuild compresses only the files that changed. A first
// build compresses on every core (zlib's thread pool), largest files first.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { extname, join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const [site, cache] = process.argv.slice(2);
const TYPES = new Set([".html", ".js", ".mjs", ".css", ".json", ".wasm", ".svg", ".xml", ".txt", ".ttf"]);
// The course's Python, and the standard library's bytecode: stored zips, compressed by the host as a whole.
const STORED_ZIPS = /^(course-[0-9a-f]+|stdlib)\.zip$/;
const MIN_BYTES = 1024;
const WORTH_IT = 0.9; // keep a copy only when it is at most this fraction of the original

/** @type {Record<string, (data: Buffer) => Promise<Buffer>>} */
const ENCODINGS = {
  br: (data) =>
    promisify(brotliCompress)(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
  gz: (data) => promisify(gzip)(data, { level: 9 }),
};

/**
 * The files under a folder worth a compressed copy, at every depth.
 *
 * @param {string} folder
 * @returns {Generator<string>}
 */
function* files(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if ((TYPES.has(extname(entry.name)) || STORED_ZIPS.test(entry.name)) && statSync(path).size >= MIN_BYTES)
      yield path;
  }
}

/**
 * Write one file's copy in one encoding, from the cache or compressed now; answer whether it was kept.
 *
 * @param {string} path
 * @param {Buffer} data
 * @param {string} hash
 * @param {string} suffix
 * @returns {Promise<boolean>}
 */
async function copyOf(path, data, hash, suffix) {
  const kept = join(cache, `${hash}.${suffix}`);
  let copy;
  if (existsSync(kept)) copy = readFileSync(kept);
  else {
    copy = await ENCODINGS[suffix](data);
    writeFileSync(`${kept}.${process.pid}`, copy);
    renameSync(`${kept}.${process.pid}`, kept); // whole or not at all: a build stopped midway leaves no torn copy
  }
  if (copy.length > data.length * WORTH_IT) return false;
  writeFileSync(`${path}.${suffix}`, copy);
  return true;
}

mkdirSync(cache, { recursive: true });
const jobs = [...files(site)].map((path) => ({ path, size: statSync(path).size })).sort((a, b) => b.size - a.size);
let written = 0;
let next = 0;
async function worker() {
  while (next < jobs.length) {
    const { path } = jobs[next++];
    const data = readFileSync(path);
    const hash = createHash("sha256").update(data).digest("hex");
    const kept = await Promise.all(Object.keys(ENCODINGS).map((suffix) => copyOf(path, data, hash, suffix)));
    written += kept.filter(Boolean).length;
  }
}
await Promise.all(Array.from({ length: availableParallelism() }, worker));
console.log(`  ${written} precompressed copies written`);
