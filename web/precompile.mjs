// Add compiled bytecode to the course's Python archive, made by the very Pyodide the page runs, so the
// page's worker imports the course without compiling it on every cold start.
//
//   node web/precompile.mjs <course.zip> <folder the worker unpacks it into>
//
// The .pyc files are "unchecked hash" ones: Python uses them without comparing them with the sources'
// dates (the unpacked files get new ones). They are compiled at the folder the worker uses, so
// tracebacks name the same files as before.
import { readFileSync, writeFileSync } from "node:fs";

import { loadPyodide } from "pyodide";

const [archivePath, folder] = process.argv.slice(2);
if (!archivePath || !folder) {
  console.error("usage: node web/precompile.mjs <course.zip> <folder>");
  process.exit(2);
}

const archive = new Uint8Array(readFileSync(archivePath));
const pyodide = await loadPyodide();
pyodide.unpackArchive(archive, "zip", { extractDir: folder });
pyodide.FS.writeFile("/tmp/course.zip", archive);
pyodide.globals.set("folder", folder);
const compiled = pyodide.runPython(`
import compileall, py_compile, zipfile
from pathlib import Path

if not compileall.compile_dir(folder, quiet=1, workers=1,
                              invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH):
    raise SystemExit("some of the course's Python does not compile")
found = sorted(Path(folder).rglob("*.pyc"))
with zipfile.ZipFile("/tmp/course.zip", "a", zipfile.ZIP_STORED) as archive:
    for path in found:
        entry = zipfile.ZipInfo(path.relative_to(folder).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
        entry.compress_type = zipfile.ZIP_STORED
        archive.writestr(entry, path.read_bytes())
len(found)
`);
writeFileSync(archivePath, pyodide.FS.readFile("/tmp/course.zip"));
console.log(`precompiled ${compiled} modules of the course for Pyodide ${pyodide.version}`);
