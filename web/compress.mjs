// Write precompressed copies (.br and .gz) beside the large text and wasm files of a built site.
// Usage: node web/compress.mjs SITE_DIR CACHE_DIR
// Brotli at its best quality takes most of a minute for Pyodide's wasm, so every result is kept in
// CACHE_DIR under the hash of its input: a rebuild compresses only the files that changed.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const [site, cache] = process.argv.slice(2);
const TYPES = new Set([".html", ".js", ".mjs", ".css", ".json", ".wasm", ".svg", ".xml", ".txt", ".ttf"]);
const COURSE_BUNDLE = /^course-[0-9a-f]+\.zip$/; // the course's Python, a zip of stored files
const MIN_BYTES = 1024;
const WORTH_IT = 0.9; // keep a copy only when it is at most this fraction of the original

const ENCODINGS = {
  br: (data) => brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  }),
  gz: (data) => gzipSync(data, { level: 9 }),
};

function* files(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if ((TYPES.has(extname(entry.name)) || COURSE_BUNDLE.test(entry.name)) && statSync(path).size >= MIN_BYTES) yield path;
  }
}

mkdirSync(cache, { recursive: true });
let written = 0;
for (const path of files(site)) {
  const data = readFileSync(path);
  const hash = createHash("sha256").update(data).digest("hex");
  for (const [suffix, compress] of Object.entries(ENCODINGS)) {
    const kept = join(cache, `${hash}.${suffix}`);
    const copy = existsSync(kept) ? readFileSync(kept) : compress(data);
    if (!existsSync(kept)) writeFileSync(kept, copy);
    if (copy.length <= data.length * WORTH_IT) {
      writeFileSync(`${path}.${suffix}`, copy);
      written += 1;
    }
  }
}
console.log(`  ${written} precompressed copies written`);
