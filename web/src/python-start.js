// The Python the page's worker runs as it starts (worker.js). The build runs the same before it
// compiles the standard library (web/precompile-stdlib.mjs), so that every module these import is
// compiled ahead.

// Run on every normal start: the course's Python (unpacked into the manifest's folder, where its
// bytecode was compiled at build time) on the path, the session's module imported.
export const importCourse = (folder) => `
import sys
sys.path.insert(0, ${JSON.stringify(folder)})
import labs.frontends.session
`;

// Run before a snapshot is taken, so that a start from it has all of this done: the rest of the
// course's Python imported, the course read as the session reads it, and every lesson's check
// functions imported (a fresh start imports a lesson's only with its first check). No JavaScript
// object is held, no file written.
export const PREPARE_SNAPSHOT = `
import graphviz, hx.dot, hx.table, hx.trace, labs.checking.pipeline
from labs.course.model import load_course
load_course(checks=False).import_check_modules()
`;

// Run after every start: the file system is not in a snapshot, so the learner's files are written again,
// and folders listed before the files were unpacked are listed afresh (forget_listings: without the
// import of importlib.metadata that importlib.invalidate_caches() makes, half a second of a cold start).
export const OPEN_SESSION = `
from labs.checking.learner import forget_listings
forget_listings()
from labs.frontends.session import Session
_ember_session = Session("/home/pyodide/learner")
`;
