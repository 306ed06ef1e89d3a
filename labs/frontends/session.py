"""The Python side of the in-browser runtime: the learner's files, example cells and checks.

The page's worker calls one :class:`Session`. Every answer is a JSON string, so
the page never holds a Python object. Requests carry the learner's work as
``pieces`` (bodies saved by older versions of the course, dedented) and
``exact`` (texts as typed in the editor, kept byte for byte).
"""

from __future__ import annotations

import gc
import importlib
import json
import sys
import traceback
from collections.abc import Callable, Mapping
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import FunctionType, MappingProxyType, ModuleType
from typing import Any, ClassVar

from labs.checking.learner import (
    INIT_SOURCE,
    PACKAGE,
    Module,
    Work,
    build_modules,
    earlier_finished,
    edited_gaps,
    exact_texts,
    forget_ember,
    forget_listings,
    marker_problem,
)
from labs.checking.problems import LearnerFile, Problem, describe_error
from labs.course.model import Course, load_course
from labs.showing.display import Display
from labs.showing.outputs import Outputs, Stderr
from labs.showing.render import Look

CELL_FILE = "<cell>"
Output = dict[str, Any]
Ask = Callable[[str], "str | None"]
Live = Callable[[str], object] | None
NO_INPUT = ("input() cannot wait for your answer on this page: the server does not send the two "
            "cross-origin isolation headers that let Python pause while you type (see the page on "
            "hosting the course). Put the value in the cell instead, for example: name = 'Ada'")
NO_INPUT_BROWSER = ("input() cannot wait for your answer in this browser: it does not share memory with the "
                    "worker Python runs in (SharedArrayBuffer), which Python needs to pause while you type. "
                    "Put the value in the cell instead, for example: name = 'Ada'")
NO_INPUT_WHY = {"headers": NO_INPUT, "browser": NO_INPUT_BROWSER}  # the page's worker sets Session.input_missing


def _collections() -> int:
    """How many times the garbage collector has run so far, all generations together."""
    return sum(stats["collections"] for stats in gc.get_stats())


STOPPED = {**Problem("stopped", "Stopped.").to_dict(), "cell_line": None}  # a cell's run ended by Stop


class _CollectAfter:
    """A full collection after code that made the collector run: WebAssembly memory never shrinks.

    A Value's backward step refers back to its Value, so the graphs of a training loop are cycles
    that only a full collection frees; left to the collector's own schedule, they pile up in the
    oldest generation and the heap grows with every run. Code that made few objects (print(1))
    never starts the collector, and costs nothing here.
    """

    def __enter__(self) -> None:
        self.before = _collections()

    def __exit__(self, *exc: object) -> None:
        if _collections() != self.before:
            gc.collect()


class InputUnavailable(RuntimeError):
    """input() was called where the page cannot answer it."""



def _is_learners(module_name: object) -> bool:
    return isinstance(module_name, str) and (module_name == PACKAGE or module_name.startswith(PACKAGE + "."))


def _fresh(value: Any) -> Any:
    """A learner's module, or a class or function defined at the top of one, as its file now defines it; any
    other value as it is."""
    if isinstance(value, ModuleType):
        return importlib.import_module(value.__name__) if _is_learners(value.__name__) else value
    if isinstance(value, (type, FunctionType)) and _is_learners(getattr(value, "__module__", None)):
        return getattr(importlib.import_module(value.__module__), value.__qualname__, value)
    return value

class Session:
    """One learner's Python: their modules on disk, and one namespace per page for its cells."""

    def __init__(self, learner_dir: str | Path, course: Course | None = None) -> None:
        self.course = course or load_course(checks=False)  # a lesson's check functions come with its first check
        self.learner_dir = Path(learner_dir)
        self.package_dir = self.learner_dir / "ember"
        self.package_dir.mkdir(parents=True, exist_ok=True)
        (self.package_dir / "__init__.py").write_text(INIT_SOURCE, encoding="utf-8")
        if str(self.learner_dir) not in sys.path:
            sys.path.insert(0, str(self.learner_dir))
        self.namespaces: dict[str, dict[str, Any]] = {}
        self.modules: dict[str, Module] = {}
        self._built: tuple | None = None  # the (lab, work) that self.modules were built from
        self._writes = 0  # how many times the learner's files changed; a namespace remembers the count it saw
        self._seen: dict[str, int] = {}
        self._outputs: Outputs | None = None
        self._ask: Ask | None = None
        self.input_missing = "headers"  # why input() cannot wait where it cannot: a key of NO_INPUT_WHY

    # --- the learner's modules ----------------------------------------------------------------

    def write_modules(self, lab: str, work: Work) -> dict[str, Module]:
        """Write the learner's files as ``lab`` starts with this work; forget old imports when they change.

        The same lab with the same work (every cell run of an unchanged lab) reuses the files built last.
        """
        key = (lab, tuple(sorted(work.pieces.items())), tuple(sorted(work.exact.items())))
        if key == self._built and all((self.package_dir / name).exists() for name in self.modules):
            return self.modules
        modules = build_modules(self.course, lab, work)
        if modules != self.modules or not all((self.package_dir / name).exists() for name in modules):
            for name, module in modules.items():
                (self.package_dir / name).write_text(module.source, encoding="utf-8")
            forget_ember()
            forget_listings()
            self.modules = modules
            self._writes += 1
        self._built = key
        return modules

    def learner_files(self, modules: dict[str, Module] | None = None) -> list[LearnerFile]:
        """The learner's modules as the pipeline describes them (for error places)."""
        return [
            LearnerFile(name.removesuffix(".py"), str(self.package_dir / name), module.source, module.gaps)
            for name, module in (modules or self.modules).items()
        ]

    # --- cells ------------------------------------------------------------------------------

    def _namespace(self, page: str) -> dict[str, Any]:
        if page not in self.namespaces:
            self.namespaces[page] = {"__name__": "__main__", **Display(self._emit).functions(), "input": self._input}
        return self.namespaces[page]

    def _rebind(self, page: str) -> None:
        """Point the names a page's earlier cells bound to the learner's modules at the files as they are now.

        A cell above the lab imports ``Tensor`` while its gap holds a starter; the learner writes the gap, and a
        cell below uses that name again. Without this it would run the starter, from a module since forgotten.
        A module that does not import now fails the cell, with the place of the fault in the learner's file.
        """
        namespace = self._namespace(page)
        if self._seen.get(page) == self._writes:
            return
        for name, value in list(namespace.items()):
            fresh = _fresh(value)
            if fresh is not value:
                namespace[name] = fresh
        self._seen[page] = self._writes

    def _emit(self, item: Output) -> None:
        if self._outputs is None:
            raise RuntimeError("show() and plot() work inside a cell")
        self._outputs.add(item)
        if item.get("key") and self._outputs.live is not None:
            self._outputs.live(json.dumps(self._outputs.drawn(item)))

    def _input(self, prompt: object = "") -> str:
        """input() for cells: ask in the page and wait for the answer, or say why that cannot be done."""
        text = str(prompt)
        if not callable(self._ask):
            raise InputUnavailable(NO_INPUT_WHY.get(self.input_missing, NO_INPUT))
        if self._outputs is not None:
            self._outputs.write(text)
            self._outputs.send_batch()
        answer = self._ask(text)
        if not isinstance(answer, str):  # the learner pressed Stop while input() waited
            raise KeyboardInterrupt
        if self._outputs is not None:
            self._outputs.write(answer + "\n")
        return answer

    def run_cell(self, page: str, lab: str, work: Work, code: str,
                 live: Callable[[str], object] | None = None, ask: Ask | None = None, room: int | None = None) -> str:
        """Run one example cell of a page against the learner's modules; answer its outputs as JSON.

        Every output carries its HTML, pictures laid out for an output ``room`` CSS pixels wide.
        """
        problem = marker_problem(self.course, lab, work)
        if problem is not None:
            return json.dumps({"outputs": [], "error": {**problem.to_dict(), "cell_line": None}})
        outputs = Outputs(live, Look(room=room))
        self._outputs, self._ask = outputs, ask
        try:
            error = self._run_code(page, lab, work, code, outputs)
        except KeyboardInterrupt:  # Stop came as the learner's files were written, before the cell's code ran
            error = STOPPED
        finally:
            self._outputs, self._ask = None, None
        return json.dumps({"outputs": outputs.finish(), "error": error})

    def _run_code(self, page: str, lab: str, work: Work, code: str, outputs: Outputs) -> dict | None:
        """Write the learner's files, then run ``code`` in the page's namespace; answer its error, if any."""
        self.write_modules(lab, work)
        try:
            compiled = compile(code, CELL_FILE, "exec")
        except SyntaxError as exc:
            return {**Problem("syntax", f"SyntaxError at line {exc.lineno} of this cell: {exc.msg}").to_dict(),
                    "cell_line": exc.lineno}
        try:
            with _CollectAfter(), redirect_stdout(outputs), redirect_stderr(Stderr(outputs)):
                self._rebind(page)
                exec(compiled, self._namespace(page))
        except KeyboardInterrupt:
            return STOPPED
        except BaseException as exc:
            return self._cell_error(exc)
        return None

    def _cell_error(self, exc: BaseException) -> Output:
        problem = describe_error(exc, self.learner_files())
        cell_lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == CELL_FILE]
        line = cell_lines[-1] if cell_lines else None
        message = problem.message
        if line and problem.place is not None:
            message += ("" if message.endswith((".", "?", "!")) else ".") + f" Reached from line {line} of this cell."
        elif line:
            message += f" (line {line} of this cell)"
        return {**problem.to_dict(), "message": message, "cell_line": line}

    # --- checks and files ---------------------------------------------------------------------

    def check(self, lab: str, work: Work) -> str:
        """Run a lesson's checks on the learner's work; answer the report as JSON."""
        from labs.checking.pipeline import (  # the checks' machinery comes with the first check
            check_files,
            stopped_early,
        )

        problem = marker_problem(self.course, lab, work)
        if problem is not None:
            return json.dumps(stopped_early(self.course.lesson(lab), problem).to_dict())
        files = self.learner_files(build_modules(self.course, lab, work))
        with _CollectAfter():
            report = check_files(lab, files, course=self.course)
        return json.dumps(report.to_dict())

    def module(self, lab: str, work: Work) -> str:
        """The learner's files as ``lab`` starts, where their gaps lie, and the work as exact texts."""
        modules = build_modules(self.course, lab, work)
        problem = marker_problem(self.course, lab, work)
        return json.dumps({
            "files": {name: module.to_dict() for name, module in modules.items()},
            "exact": exact_texts(self.course, {k: v for k, v in work.pieces.items() if k in self.course.gaps}),
            "problem": problem.to_dict() if problem else None,
            "init": INIT_SOURCE,  # ember/__init__.py, for a notebook drive that has none yet
        })

    def earlier(self, lab: str, work: Work, replace_own: bool, only: list[str] | None = None) -> str:
        """The finished pieces to load for a lab's earlier gaps, as exact texts, and the learner's own ids.

        With ``only``, just those earlier gaps, the learner's own code or not (an earlier piece at fault).
        """
        found = earlier_finished(self.course, lab, work)
        changes = found.changes(self.course, replace_own)
        if only is not None:
            number = self.course.lesson(lab).number
            changes = {gap_id: self.course.gaps[gap_id].finished for gap_id in only
                       if gap_id in self.course.gaps and self.course.gaps[gap_id].number < number}
        return json.dumps({"changes": exact_texts(self.course, changes), "own": list(found.own),
                           "matching": found.matching})

    def save_work(self, state: dict[str, Any], version: str, today: str | None = None) -> str:
        """The learner's saved state as a work file: its name and bytes (base64), or the reason it cannot be made."""
        import base64
        from datetime import date

        from labs.work.work_file import WorkFileError, state_work, work_file_name, write_work

        try:
            day = date.fromisoformat(today) if today else date.today()
            work = state_work(self.course, state)
            data = write_work(self.course, work, version, day)
        except (WorkFileError, ValueError) as error:
            return json.dumps({"error": str(error)})
        return json.dumps({"name": work_file_name(day), "data": base64.b64encode(data).decode("ascii"),
                           "notes": list(work.notes)})

    def read_work(self, state: dict[str, Any], files: list[tuple[str, bytes]], keep_mine: list[str]) -> str:
        """What the learner's files (a work file, or .py files) would change in the saved state, and the changes
        to make (see labs/work/work_file.py), or the reason they cannot be read."""
        from labs.work.work_file import WorkFileError, read_work_files
        from labs.work.work_merge import merge, preview

        try:
            work = read_work_files(files, self.course)
        except WorkFileError as error:
            return json.dumps({"error": str(error)})
        return json.dumps({"preview": preview(self.course, state, work),
                           "changes": merge(self.course, state, work, keep_mine)})

    def edits(self, before: dict[str, str], now: dict[str, str]) -> str:
        """What the notebook changed in the learner's files since they were handed over, gap by gap."""
        found = edited_gaps(before, now)
        changed = {gap_id: {"before": old, "now": new} for gap_id, (old, new) in found.changed.items()}
        return json.dumps({"changed": changed, "broken": found.broken})

    # --- requests ---------------------------------------------------------------------------

    def _on_run(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        room = payload.get("room")  # the output's width on the page, in pixels: plots are laid out at it
        return self.run_cell(payload["page"], payload["lab"], _work(payload), payload["code"], live, ask,
                             room if isinstance(room, int) and room > 0 else None)

    def _on_check(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        return self.check(payload["lab"], _work(payload))

    def _on_module(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        return self.module(payload["lab"], _work(payload))

    def _on_earlier(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        only = payload.get("gaps")
        return self.earlier(payload["lab"], _work(payload), bool(payload.get("replace_own")),
                            [str(gap) for gap in only] if isinstance(only, list) else None)

    def _on_edits(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        return self.edits(_texts(payload.get("before")), _texts(payload.get("now")))

    def _on_save_work(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        return self.save_work(_table(payload.get("state")), str(payload.get("version") or ""), payload.get("today"))

    def _on_read_work(self, payload: dict[str, Any], live: Live, ask: Ask | None) -> str:
        try:
            files = _given_files(payload.get("files"))
        except ValueError as error:
            return json.dumps({"error": str(error)})
        keep = payload.get("keep_mine")
        return self.read_work(_table(payload.get("state")), files,
                              [str(gap) for gap in keep] if isinstance(keep, list) else [])

    # The kinds of request the page's worker hands to Python (web/src/runtime/protocol.js's REQUEST, but for
    # boot, which the worker answers itself), each with the method that answers it.
    REQUESTS: ClassVar[Mapping[str, Callable[[Session, dict[str, Any], Live, Ask | None], str]]] = MappingProxyType({
        "run": _on_run,
        "check": _on_check,
        "module": _on_module,
        "earlier": _on_earlier,
        "edits": _on_edits,
        "save_work": _on_save_work,
        "read_work": _on_read_work,
    })

    def handle(self, kind: str, payload_json: str, live: Live = None, ask: Ask | None = None) -> str:
        """Answer one request of the page (a kind of :attr:`REQUESTS`): JSON in, JSON out.

        ``live`` receives display items and batches of text (as JSON) while a cell runs;
        ``ask`` answers input() (None when the page cannot wait for an answer).
        """
        answer = self.REQUESTS.get(kind)
        if answer is None:
            raise ValueError(f"unknown request {kind!r}")
        try:
            return answer(self, json.loads(payload_json), live, ask)
        except KeyboardInterrupt:
            if kind != "run":
                raise
            return json.dumps({"outputs": [], "error": STOPPED})  # Stop came before the cell's code ran


def _work(payload: dict[str, Any]) -> Work:
    """The learner's work a request carries: pieces saved by older versions, and exact texts."""
    return Work(_texts(payload.get("pieces")), _texts(payload.get("exact")))


def _table(value: object) -> dict[str, Any]:
    """A JSON table from request data ({} for anything else)."""
    return value if isinstance(value, dict) else {}


def _given_files(value: object) -> list[tuple[str, bytes]]:
    """The files a learner chose, from request data: [{name, data (base64)}] -> [(name, bytes)].

    Files far past the work file's limit (twice it, by their base64's length) are refused before they are decoded;
    the reader refuses the rest with their sizes (labs/work/work_file.py)."""
    import base64
    import binascii

    from labs.checking.files import shown, size_text
    from labs.work.work_file import MAX_FILES, MAX_INPUT_BYTES, WorkFileError

    if not isinstance(value, list):
        return []
    if len(value) > MAX_FILES:
        raise WorkFileError(f"{len(value)} files were given; give one work file, or at most {MAX_FILES} learner files")
    files = []
    encoded = 0
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("data"), str):
            raise ValueError("a chosen file came without its content")
        name = str(item.get("name") or "file")
        encoded += len(item["data"])
        if encoded // 4 * 3 > 2 * MAX_INPUT_BYTES:
            whose = f"{shown(name)} is" if len(value) == 1 else "the files given are"
            raise ValueError(f"{whose} more than {size_text(MAX_INPUT_BYTES)}; a work file, or learner files "
                             f"together, hold at most {size_text(MAX_INPUT_BYTES)}")
        try:
            files.append((name, base64.b64decode(item["data"], validate=True)))
        except (binascii.Error, ValueError):
            raise ValueError(f"{shown(name)} could not be read from the page") from None
    return files


def _texts(value: object) -> dict[str, str]:
    """A {gap id: text} map from request data, keeping only string entries."""
    if not isinstance(value, dict):
        return {}
    return {str(key): text for key, text in value.items() if isinstance(text, str)}
