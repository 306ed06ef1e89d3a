// Make the memory snapshot of Python that a page's first start begins from: Pyodide with the course's Python
// imported and the snapshot's preparation done, exactly the steps of the worker's "make" boot (web/src/runtime/worker.js),
// taken here at build time, on the same Pyodide (node_modules/pyodide is what the site vendors), so that a first
// visit restores Python's memory instead of starting Python and importing the course.
//
//   node web/make-snapshot.mjs <stdlib.zip> <course.zip> <course folder> <out.gz> [wheel ...]
//
// What a snapshot holds is Python's memory: no file (the worker unpacks the files on every start), no JavaScript
// object (worker_start.py's prepare_snapshot holds none), and nothing of this machine's: Pyodide's environment is
// what a page's worker has, and the program's name is Emscripten's default, not this script's path. It is written
// gzipped (31 MB of memory, mostly empty, in under 5 MB) and the worker unzips it, so that a host that compresses
// nothing still sends it small.
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

import { loadPyodide } from "pyodide";

import { startSteps } from "./src/runtime/python-start.js";

const [stdlibPath, coursePath, folder, outPath, ...wheelPaths] = process.argv.slice(2);
if (!stdlibPath || !coursePath || !folder || !outPath) {
  console.error("usage: node web/make-snapshot.mjs <stdlib.zip> <course.zip> <folder> <out.gz> [wheel ...]");
  process.exit(2);
}

process.argv.splice(1); // Emscripten names the program (sys.executable, $_) after the script: leave it unnamed
const pyodide = await loadPyodide({
  stdLibURL: stdlibPath,
  env: { HOME: "/home/pyodide", LANG: "C.UTF-8" }, // a page's worker has HOME; LANG follows no one's browser
  _makeSnapshot: true,
});
for (const wheel of wheelPaths) pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
pyodide.unpackArchive(new Uint8Array(readFileSync(coursePath)), "zip", { extractDir: folder });
const steps = startSteps(pyodide, readFileSync(new URL("src/runtime/worker_start.py", import.meta.url), "utf8"));
try {
  steps.importCourse(folder);
  steps.prepareSnapshot();
} finally {
  steps.destroy();
}
const bytes = pyodide.makeMemorySnapshot();
const zipped = gzipSync(bytes, { level: 9 });
writeFileSync(outPath, zipped);
console.log(`the first start's snapshot: ${bytes.byteLength} bytes, ${zipped.byteLength} gzipped`);
