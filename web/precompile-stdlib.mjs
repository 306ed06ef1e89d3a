// Write the page's standard library: Pyodide's own python_stdlib.zip, with the modules a start imports
// as bytecode made by that very Pyodide instead of source. Pyodide's archive holds only sources, so every
// start compiled the same 150 or so modules again: most of Python's start in the page.
//
//   node web/precompile-stdlib.mjs <python_stdlib.zip> <course.zip> <course folder> <out.zip> [wheel ...]
//
// Which modules: those imported once the course's session is open and every lesson's checks are imported
// (Pyodide's own start imports most of them). Each is replaced by an "unchecked hash" .pyc, stored
// uncompressed (the host's compression of the whole file does better than deflate); the rest stay as
// they were. A module missing from the list is only compiled at run time, as before.
import { readFileSync, writeFileSync } from "node:fs";

import { loadPyodide } from "pyodide";

const [stdlibPath, coursePath, folder, outPath, ...wheelPaths] = process.argv.slice(2);
if (!stdlibPath || !coursePath || !folder || !outPath) {
  console.error("usage: node web/precompile-stdlib.mjs <python_stdlib.zip> <course.zip> <folder> <out.zip> [wheel ...]");
  process.exit(2);
}

const pyodide = await loadPyodide();
for (const wheel of wheelPaths) pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
pyodide.unpackArchive(new Uint8Array(readFileSync(coursePath)), "zip", { extractDir: folder });
pyodide.FS.writeFile("/tmp/stdlib.zip", new Uint8Array(readFileSync(stdlibPath)));
pyodide.globals.set("folder", folder);
const summary = pyodide.runPython(`
import importlib.util, marshal, sys, zipfile

sys.path.insert(0, folder)
from labs.session import Session
Session("/tmp/learner")
from labs.course import load_course
load_course(checks=False).import_check_modules()
import graphviz, hx.dot, hx.table, hx.trace, labs.pipeline  # what a drawing and a traced run import

stdlib = next(path for path in sys.path if path.endswith(".zip"))  # /lib/python3XY.zip
used = {module.__file__.removeprefix(stdlib + "/") for module in list(sys.modules.values())
        if (getattr(module, "__file__", None) or "").startswith(stdlib + "/")}


def bytecode(name, source):
    """An unchecked-hash .pyc of the source, as importlib would write it."""
    code = compile(source, f"{stdlib}/{name}", "exec", dont_inherit=True)
    flags = (0b01).to_bytes(4, "little")  # hash-based, not checked against a source
    return importlib.util.MAGIC_NUMBER + flags + importlib.util.source_hash(source) + marshal.dumps(code)


compiled = 0
with zipfile.ZipFile("/tmp/stdlib.zip") as original, zipfile.ZipFile("/tmp/out.zip", "w", compresslevel=9) as out:
    for entry in original.infolist():
        data = original.read(entry)
        if entry.filename in used:
            entry = zipfile.ZipInfo(entry.filename + "c", entry.date_time)
            data, compiled = bytecode(entry.filename[:-1], data), compiled + 1
        out.writestr(entry, data)
f"{compiled} of {sum(name.endswith('.py') for name in zipfile.ZipFile('/tmp/stdlib.zip').namelist())} modules"
`);
writeFileSync(outPath, pyodide.FS.readFile("/tmp/out.zip"));
console.log(`precompiled ${summary} of the standard library for Pyodide ${pyodide.version}`);
