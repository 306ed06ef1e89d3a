// Write the page's standard library: Pyodide's own python_stdlib.zip, with the modules a start imports
// as bytecode made by that very Pyodide instead of source. Pyodide's archive holds only sources, so every
// start compiled the same 150 or so modules again: most of Python's start in the page.
//
//   node web/precompile-stdlib.mjs <python_stdlib.zip> <course.zip> <course folder> <out.zip> [wheel ...]
//
// Which modules: those imported once the worker's start Python has run, the snapshot's preparation
// included (web/src/runtime/worker_start.py; Pyodide's own start imports most of them). Each is replaced by an
// "unchecked hash" .pyc (py_compile's, as web/precompile.mjs makes the course's), stored
// uncompressed (the host's compression of the whole file does better than deflate); the rest stay as
// they were. A module missing from the list is only compiled at run time, as before.
import { readFileSync, writeFileSync } from "node:fs";

import { loadPyodide } from "pyodide";

import { startSteps } from "./src/runtime/python-start.js";

const [stdlibPath, coursePath, folder, outPath, ...wheelPaths] = process.argv.slice(2);
if (!stdlibPath || !coursePath || !folder || !outPath) {
  console.error(
    "usage: node web/precompile-stdlib.mjs <python_stdlib.zip> <course.zip> <folder> <out.zip> [wheel ...]",
  );
  process.exit(2);
}

const pyodide = await loadPyodide();
for (const wheel of wheelPaths) pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
pyodide.unpackArchive(new Uint8Array(readFileSync(coursePath)), "zip", { extractDir: folder });
pyodide.FS.writeFile("/tmp/stdlib.zip", new Uint8Array(readFileSync(stdlibPath)));
const steps = startSteps(pyodide, readFileSync(new URL("src/runtime/worker_start.py", import.meta.url), "utf8"));
steps.importCourse(folder);
steps.openSession();
steps.prepareSnapshot();
steps.destroy();
const summary = pyodide.runPython(`
import sys

stdlib = next(path for path in sys.path if path.endswith(".zip"))  # /lib/python3XY.zip
used = {module.__file__.removeprefix(stdlib + "/") for module in list(sys.modules.values())
        if (getattr(module, "__file__", None) or "").startswith(stdlib + "/")}

import pathlib, py_compile, zipfile  # after the list: what only this script imports is not in it

source, cached = pathlib.Path("/tmp/module.py"), pathlib.Path("/tmp/module.pyc")

compiled = sources = 0
with zipfile.ZipFile("/tmp/stdlib.zip") as original, zipfile.ZipFile("/tmp/out.zip", "w", compresslevel=9) as out:
    for entry in original.infolist():
        data = original.read(entry)
        sources += entry.filename.endswith(".py")
        if entry.filename in used:
            source.write_bytes(data)
            py_compile.compile(str(source), str(cached), dfile=f"{stdlib}/{entry.filename}", doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            entry, data = zipfile.ZipInfo(entry.filename + "c", entry.date_time), cached.read_bytes()
            compiled += 1
        out.writestr(entry, data)
f"{compiled} of {sources} modules"
`);
writeFileSync(outPath, pyodide.FS.readFile("/tmp/out.zip"));
console.log(`precompiled ${summary} of the standard library for Pyodide ${pyodide.version}`);
