// Write the notebook kernel's memory snapshot: Pyodide with every wheel the kernel loads, IPython and the
// kernel imported (what JupyterLite's kernel worker does at each start, 10-30 s of one core on this machine),
// and the modules a learner's first cells and completions use. The kernel's worker starts from it
// (web/notebook/kernel-start.js), so the first cell runs about a second after the worker starts.
//
//   node web/notebook/kernel-snapshot.mjs <pyodide folder> <stdlib.zip> <pyodide-lock.json> <out>
//
// A snapshot keeps Python's memory, not its files, nor what JavaScript holds: the worker loads the wheels'
// files again (the course's at once, the others after the first cell), and the few JavaScript functions
// Python holds are written down by name here and found again there (serializeHeld / kernel-start.js).
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

import { loadPyodide } from "pyodide";

const [indexURL, stdLibURL, lockFileURL, outPath] = process.argv.slice(2);
if (!indexURL || !stdLibURL || !lockFileURL || !outPath) {
  console.error("usage: node web/notebook/kernel-snapshot.mjs <pyodide folder> <stdlib.zip> <lock> <out>");
  process.exit(2);
}

// What the kernel's worker runs as it starts (initPackageManager, initKernel), then what a learner's first
// cells and the editor's completion would import, and the course read (so that they need no files of the wheels yet).
const IMPORTS = `
import piplite.piplite
import pyodide_kernel
import jedi, parso, pygments.lexers.python, pygments.formatters.terminal256, pygments.formatters.html
import IPython.core.completer, IPython.core.ultratb, IPython.core.oinspect
import labs.frontends.notebook, labs.checking.on_disk, labs.showing.render
from labs.course.model import load_course
load_course(), load_course(checks=False)  # read, validated and kept: the first cell's start() needs it at once
import graphviz
jedi.Interpreter("1", [{}]).complete()  # jedi's and parso's grammar, read from their files, kept in memory
`;

const packages = Object.keys(JSON.parse(readFileSync(lockFileURL, "utf8")).packages);
const pyodide = await loadPyodide({ indexURL, stdLibURL, lockFileURL, packages, _makeSnapshot: true });
await pyodide.runPythonAsync(IMPORTS);
// Pyodide expects its record of loaded packages empty in a snapshot: the worker loads them again (their files).
for (const name of Object.keys(pyodide.loadedPackages)) delete pyodide.loadedPackages[name];

// Pyodide's internal API and its Emscripten module are not in its published types: all three are read as plain objects.
/** @typedef {Record<string, unknown>} Owner */
const pyodideParts = /** @type {Owner & { _api: Owner, _module: Owner }} */ (/** @type {unknown} */ (pyodide));
/** The name under which Pyodide's public API, its internal one or its module holds a JavaScript object. */
const owners = { public: pyodideParts, api: pyodideParts._api, module: pyodideParts._module };
function serializeHeld(/** @type {unknown} */ held) {
  for (const [where, owner] of Object.entries(owners)) {
    if (held === owner) return { where, name: null };
    for (const name of Object.getOwnPropertyNames(owner)) {
      let value;
      try {
        value = owner[name];
      } catch {
        continue;
      }
      if (value === held) return { where, name };
    }
  }
  throw new Error(`the kernel's Python holds a JavaScript object the snapshot cannot name: ${String(held)}`);
}

const bytes = pyodide.makeMemorySnapshot({ serializer: serializeHeld });
// Gzipped here (not by web/compress.mjs, whose copies a host may ignore): 54 MB of memory goes as about 16 MB from
// any host, and the kernel's worker unzips it as it arrives (web/notebook/kernel-start.js).
const zipped = gzipSync(bytes, { level: 9 });
writeFileSync(outPath, zipped);
console.log(
  `  kernel snapshot: ${(bytes.byteLength / 1e6).toFixed(1)} MB, ${(zipped.byteLength / 1e6).toFixed(1)} MB gzipped`,
);
