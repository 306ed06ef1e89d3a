"""The Python the page's worker runs as it starts (web/src/runtime/worker.js, through python-start.js).

The build runs the same before it compiles the standard library (web/precompile-stdlib.mjs), so that every
module these import is compiled ahead. The bundle carries this file as text; the worker runs it in a namespace
of its own and calls one function for each step of a start. Nothing is imported at the top: the course's Python
is on the import path only once import_course has run.
"""

LEARNER_HOME = "/home/pyodide/learner"  # the learner's files, in Pyodide's file system


def import_course(folder: str) -> None:
    """On every normal start: the course's Python (unpacked into the manifest's folder, where its bytecode was
    compiled at build time) on the path, the session's module imported."""
    import sys

    sys.path.insert(0, folder)
    import labs.frontends.session  # noqa: F401


def prepare_snapshot() -> None:
    """Before a snapshot is taken, so that a start from it has all of this done: the rest of the course's Python
    imported, the course read as the session reads it, and every lesson's check functions imported (a fresh
    start imports a lesson's only with its first check). No JavaScript object is held, no file written."""
    import graphviz  # noqa: F401

    import hx.dot
    import hx.table
    import hx.trace  # noqa: F401
    import labs.checking.pipeline  # noqa: F401
    from labs.course.model import load_course

    load_course(checks=False).import_check_modules()


def open_session(home: str = LEARNER_HOME) -> object:
    """After every start, the learner's session (labs.frontends.session.Session) in ``home``. The file system is
    not in a snapshot, so the learner's files are written again, and folders listed before the files were unpacked are
    listed afresh (forget_listings: without the import of importlib.metadata that importlib.invalidate_caches()
    makes, half a second of a cold start)."""
    from labs.checking.learner import forget_listings

    forget_listings()
    from labs.frontends.session import Session

    return Session(home)
