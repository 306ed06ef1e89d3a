"""The Python side of the in-browser runtime: the learner's files, example cells and checks.

The page's worker calls one :class:`Session`. Every answer is a JSON string, so
the page never holds a Python object.
"""

from __future__ import annotations

import importlib
import io
import json
import sys
import traceback
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from .course import Course, load_course
from .display import Display
from .learner import module_sources
from .pipeline import LearnerFile, check_lesson, describe_error

CELL_FILE = "<cell>"
Output = dict[str, Any]


class _Outputs(io.TextIOBase):
    """Collects what a cell prints and shows, in order, merging neighbouring text."""

    def __init__(self) -> None:
        self.items: list[Output] = []

    def writable(self) -> bool:
        return True

    def write(self, text: str, stream: str = "stdout") -> int:  # type: ignore[override]
        if text:
            last = self.items[-1] if self.items else None
            if last and last["kind"] == stream:
                last["text"] += text
            else:
                self.items.append({"kind": stream, "text": text})
        return len(text)

    def add(self, item: Output) -> None:
        """Append an item; an item with a key replaces the earlier one with that key."""
        key = item.get("key")
        for index, old in enumerate(self.items):
            if key and old.get("key") == key:
                self.items[index] = item
                return
        self.items.append(item)


class _Stderr(io.TextIOBase):
    def __init__(self, outputs: _Outputs) -> None:
        self.outputs = outputs

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:  # type: ignore[override]
        return self.outputs.write(text, "stderr")


class Session:
    """One learner's Python: their modules on disk, and one namespace per page for its cells."""

    def __init__(self, learner_dir: str | Path, course: Course | None = None) -> None:
        self.course = course or load_course()
        self.learner_dir = Path(learner_dir)
        self.package_dir = self.learner_dir / "ember"
        self.package_dir.mkdir(parents=True, exist_ok=True)
        (self.package_dir / "__init__.py").write_text('"""My ember."""\n', encoding="utf-8")
        if str(self.learner_dir) not in sys.path:
            sys.path.insert(0, str(self.learner_dir))
        self.namespaces: dict[str, dict[str, Any]] = {}
        self.sources: dict[str, str] = {}
        self._outputs: _Outputs | None = None
        self._live: Callable[[str], object] | None = None

    # --- the learner's modules ----------------------------------------------------------------

    def write_modules(self, lab: str, pieces: dict[str, str]) -> dict[str, str]:
        """Write ember/scalar.py and ember/nn.py as ``lab`` starts with these pieces; forget old imports."""
        sources = module_sources(self.course, lab, pieces)
        if sources != self.sources:
            for name, source in sources.items():
                (self.package_dir / name).write_text(source, encoding="utf-8")
            for module in [name for name in sys.modules if name == "ember" or name.startswith("ember.")]:
                del sys.modules[module]
            importlib.invalidate_caches()
            self.sources = sources
        return sources

    def learner_files(self) -> list[LearnerFile]:
        """The learner's modules as the pipeline describes them (for error places)."""
        return [
            LearnerFile(name.removesuffix(".py"), str(self.package_dir / name), source)
            for name, source in self.sources.items()
        ]

    # --- cells ------------------------------------------------------------------------------

    def _namespace(self, page: str) -> dict[str, Any]:
        if page not in self.namespaces:
            self.namespaces[page] = {"__name__": "__main__", **Display(self._emit).functions()}
        return self.namespaces[page]

    def _emit(self, item: Output) -> None:
        if self._outputs is None:
            raise RuntimeError("show() and plot() work inside a cell")
        self._outputs.add(item)
        if item.get("key") and self._live is not None:
            self._live(json.dumps(item))

    def run_cell(self, page: str, lab: str, pieces: dict[str, str], code: str) -> str:
        """Run one example cell of a page against the learner's modules; answer its outputs as JSON."""
        self.write_modules(lab, pieces)
        outputs = _Outputs()
        error = None
        self._outputs = outputs
        try:
            compiled = compile(code, CELL_FILE, "exec")
        except SyntaxError as exc:
            error = {"message": f"SyntaxError at line {exc.lineno} of this cell: {exc.msg}", "line": exc.lineno}
        else:
            try:
                with redirect_stdout(outputs), redirect_stderr(_Stderr(outputs)):
                    exec(compiled, self._namespace(page))
            except KeyboardInterrupt:
                error = {"message": "Stopped.", "line": None, "stopped": True}
            except BaseException as exc:
                error = self._cell_error(exc)
        finally:
            self._outputs = None
        return json.dumps({"outputs": outputs.items, "error": error})

    def _cell_error(self, exc: BaseException) -> Output:
        _, message, place = describe_error(exc, self.learner_files())
        cell_lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == CELL_FILE]
        line = cell_lines[-1] if cell_lines else None
        if line and "(at " in message:
            message += f" Reached from line {line} of this cell."
        elif line:
            message += f" (line {line} of this cell)"
        return {"message": message, "line": line, "needs_piece": message.startswith("Not written yet"),
                "gap": place["gap"] if place else None}

    # --- checks -----------------------------------------------------------------------------

    def check(self, lab: str, pieces: dict[str, str]) -> str:
        """Run a lesson's checks on the learner's pieces; answer the report as JSON."""
        sources = module_sources(self.course, lab, pieces)
        paths = {name: str(self.package_dir / name) for name in sources}
        return json.dumps(check_lesson(lab, sources, paths, course=self.course).to_dict())

    def module(self, lab: str, pieces: dict[str, str]) -> str:
        """The learner's modules as ``lab`` starts, as JSON {file name: source}."""
        return json.dumps(module_sources(self.course, lab, pieces))

    def handle(self, kind: str, payload_json: str, live: Callable[[str], object] | None = None) -> str:
        """Answer one request of the page ('run', 'check' or 'module'): JSON in, JSON out.

        ``live`` receives keyed display items (as JSON) while a cell runs.
        """
        payload = json.loads(payload_json)
        lab, pieces = payload["lab"], dict(payload.get("pieces") or {})
        if kind == "run":
            self._live = live
            try:
                return self.run_cell(payload["page"], lab, pieces, payload["code"])
            finally:
                self._live = None
        if kind == "check":
            return self.check(lab, pieces)
        if kind == "module":
            return self.module(lab, pieces)
        raise ValueError(f"unknown request {kind!r}")
