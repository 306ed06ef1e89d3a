"""The Python the page's worker runs as it starts (web/src/runtime/worker_start.py), run here as the worker runs it:
its text in a namespace of its own, then its steps called by the names web/src/runtime/python-start.js calls."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = ROOT / "web" / "src" / "runtime" / "worker_start.py"
CALLER = ROOT / "web" / "src" / "runtime" / "python-start.js"


def test_the_page_calls_only_functions_the_start_file_defines() -> None:
    called = set(re.findall(r'call\("(\w+)"', CALLER.read_text(encoding="utf-8")))
    defined = {node.name for node in ast.parse(START.read_text(encoding="utf-8")).body
               if isinstance(node, ast.FunctionDef)}
    assert called == defined == {"import_course", "prepare_snapshot", "open_session"}


def test_the_start_steps_import_the_course_and_open_a_session_in_a_fresh_python(tmp_path: Path) -> None:
    home = tmp_path / "learner"
    script = f"""
import json, sys
namespace = {{"__name__": "worker_start"}}
exec(compile(open({str(START)!r}).read(), "worker_start.py", "exec"), namespace)
before = set(sys.modules)
namespace["import_course"]({str(ROOT)!r})
namespace["prepare_snapshot"]()
session = namespace["open_session"]({str(home)!r})
print(json.dumps({{"session": type(session).__module__ + "." + type(session).__name__,
                   "imported": sorted(set(sys.modules) - before), "first_on_path": sys.path[0]}}))
"""
    result = subprocess.run([sys.executable, "-c", script], text=True, capture_output=True, cwd=tmp_path, check=True)
    found = json.loads(result.stdout)
    assert found["session"] == "labs.frontends.session.Session"
    assert found["first_on_path"] == str(home)  # the session puts the learner's files first, after the course
    started = {"labs.frontends.session", "labs.checking.pipeline", "hx.dot", "hx.table", "hx.trace", "graphviz"}
    assert started <= set(found["imported"])
    assert sum(name.startswith("labs.lessons.") for name in found["imported"]) > 10  # every lesson's checks
    assert (home / "ember" / "__init__.py").is_file()
