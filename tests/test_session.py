"""The Python side of the browser: cells, display items, checks, and the learner's files."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from pathlib import Path

import pytest

from labs.checking.learner import finished_pieces, forget_listings
from labs.course.model import load_course
from labs.frontends.session import Session

COURSE = load_course()




def run(session: Session, code: str, pieces: dict[str, str] | None = None, live: list | None = None) -> dict:
    payload = {"page": "/p/", "lab": "L10", "pieces": pieces if pieces is not None else finished_pieces(COURSE, 10),
               "code": code}
    return json.loads(session.handle("run", json.dumps(payload), live.append if live is not None else None))


def test_cells_of_a_page_share_a_namespace_and_print_in_order(session: Session) -> None:
    assert run(session, "x = 21")["error"] is None
    result = run(session, "print('a')\nprint(x * 2)\nimport sys\nprint('warn', file=sys.stderr)")
    assert result["outputs"] == [
        {"kind": "stdout", "text": "a\n42\n", "html": '<pre class="ember-stdout">a\n42\n</pre>'},
        {"kind": "stderr", "text": "warn\n", "html": '<pre class="ember-stderr">warn\n</pre>'},
    ]


def test_cells_import_the_learners_own_module(session: Session, tmp_path: Path) -> None:
    mine = COURSE.gaps["L10.backward"].finished.replace('"""Send', '"""Mine: send')
    result = run(session, "from ember.scalar import Value\nprint(Value.backward.__doc__)",
                 finished_pieces(COURSE, 9) | {"L10.backward": mine})
    assert result["outputs"][0]["text"].startswith("Mine: send")
    assert (tmp_path / "ember" / "scalar.py").read_text().count("Mine: send") == 1


def test_a_missing_piece_is_named_and_offers_the_finished_pieces(session: Session) -> None:
    result = run(session, "from ember.scalar import Value\nValue(1.0) + 2", pieces={})
    assert result["error"]["kind"] == "not_written"
    assert result["error"]["gap"] == "L07.init"
    assert result["error"]["message"].startswith("Not written yet (at line 2 of gap L07.init)")
    assert ". Reached from line 2 of this cell." in result["error"]["message"]  # a sentence of its own
    assert result["error"]["cell_line"] == 2
    assert result["error"]["place"]["gap_line"] == 2


def test_errors_are_short_and_point_at_the_cell_line(session: Session) -> None:
    result = run(session, "x = 1\ny = x / 0")
    assert result["error"] == {"kind": "error", "message": "ZeroDivisionError: division by zero (line 2 of this cell)",
                               "cell_line": 2, "gap": None, "place": None}
    syntax = run(session, "x = (1,\n")
    assert syntax["error"]["message"].startswith("SyntaxError at line 1 of this cell")


def test_show_draws_a_graph_with_an_escaped_table_and_dot(session: Session) -> None:
    code = ("from ember.scalar import Value\na = Value(2.0, label='<a>')\nb = a * a\nb.backward()\n"
            "show(b, title='square')")
    (item,) = run(session, code)["outputs"]
    assert item["kind"] == "graph" and item["title"] == "square"
    assert "&lt;a&gt;" in item["table"] and "<a>" not in item["table"]
    assert item["dot"].startswith("digraph") and item["edges"] == 2


def test_keyed_plots_replace_each_other_and_go_live(session: Session) -> None:
    live: list[str] = []
    code = ("for step in range(3):\n"
            "    plot({'loss': [(i, 1 / (i + 1)) for i in range(step + 1)]}, key='loss', log_y=True)")
    outputs = run(session, code, live=live)["outputs"]
    assert len(outputs) == 1 and len(outputs[0]["series"][0]["points"]) == 3
    assert [len(json.loads(text)["series"][0]["points"]) for text in live] == [1, 2, 3]
    assert all('data-key="loss"' in json.loads(text)["html"] for text in live)
    assert "loss" in outputs[0]["alt"]


def test_log_axes_drop_points_that_cannot_be_drawn(session: Session) -> None:
    (item,) = run(session, "plot({'e': [(1e-8, 0.0), (1e-6, 1e-9), (-1, 2)]}, log_x=True, log_y=True)")["outputs"]
    assert item["series"][0]["points"] == [[1e-6, 1e-9]]


def test_the_boundary_colours_the_plane_by_the_sign_of_the_model(session: Session) -> None:
    code = "show_boundary(lambda x, y: x - y, [(0, 1), (1, 0)], [-1, 1], resolution=4)"
    (item,) = run(session, code)["outputs"]
    assert len(item["values"]) == 16
    assert item["values"][0] < 0 < item["values"][3]  # top-left has x < y, top-right x > y
    assert "2 of 2 points" in item["alt"]


def test_checks_answer_one_result_per_claim(session: Session) -> None:
    report = json.loads(session.handle("check", json.dumps({"lab": "L10", "pieces": finished_pieces(COURSE, 10)})))
    assert report["passed"] is True
    assert len(report["results"]) == len(COURSE.lesson("L10").claims)


def test_the_module_request_builds_the_learners_files(session: Session) -> None:
    answer = json.loads(session.handle("module", json.dumps({"lab": "L12", "pieces": {}})))
    first_lesson: dict[str, int] = {}  # every file that marks a gap, by the first lesson with a gap in it
    for gap in COURSE.gaps.values():
        first_lesson[gap.file] = min(first_lesson.get(gap.file, gap.number), gap.number)
    assert list(answer["files"]) == sorted(first_lesson, key=lambda name: (first_lesson[name], name))
    assert {"scalar.py", "nn.py", "tensor.py"} < set(answer["files"])
    nn = answer["files"]["nn.py"]
    lines = nn["source"].split("\n")
    (gap,) = [g for g in nn["gaps"] if g["id"] == "L12.zero_grad"]
    assert lines[gap["open_line"] - 1].strip() == "# --- gap L12.zero_grad ---"
    assert lines[gap["close_line"] - 1].strip() == "# --- end gap ---"
    assert answer["problem"] is None


def test_a_stopped_cell_says_so(session: Session) -> None:
    result = run(session, "raise KeyboardInterrupt")
    assert result["error"]["message"] == "Stopped."
    assert result["error"]["kind"] == "stopped"


def test_a_cell_stopped_before_its_code_ran_says_stopped_too(session: Session, monkeypatch) -> None:
    """Stop pressed while the learner's files are written (a slow device): the same answer, not a traceback."""
    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    import labs.frontends.session as module

    for owner, name in ((session, "write_modules"), (module, "marker_problem")):  # as files are written; before
        monkeypatch.setattr(owner, name, interrupted)
        result = run(session, "print('never')")
        assert result == {"outputs": [], "error": {**result["error"], "kind": "stopped", "message": "Stopped."}}
        monkeypatch.undo()
    assert run(session, "print('after')")["outputs"][0]["text"] == "after\n"  # the session goes on


def test_tables_and_reference_numbers_reach_a_cell(session: Session) -> None:
    code = ("torch = reference_numbers('pytorch_sigmoid')['fused']\n"
            "show_table(['node', 'grad'], [(name, torch[name]['grad']) for name in ('w', 'x')], title='<ledger>')")
    (item,) = run(session, code)["outputs"]
    assert "<h4>&lt;ledger&gt;</h4>" in item.pop("html")
    assert item == {"kind": "table", "title": "<ledger>", "headers": ["node", "grad"],
                    "rows": [["w", "-0.5"], ["x", "-0.125"]]}
    assert run(session, "reference_numbers('../secrets')")["error"]["message"].startswith("ValueError")


def test_a_check_before_any_cell_imports_between_the_learners_files(session: Session) -> None:
    """backward() calls the learner's own toposort: the check needs no cell to have run first."""
    from tests.test_labs import BACKWARD_WITH_TOPOSORT

    pieces = finished_pieces(COURSE, 9) | {"L10.backward": BACKWARD_WITH_TOPOSORT.lstrip("\n")}
    report = json.loads(session.handle("check", json.dumps({"lab": "L10", "pieces": pieces})))
    assert report["passed"], [r["message"] for r in report["results"] if not r["passed"]]
    cell = run(session, "from ember.scalar import Value\nimport ember.graph\nprint(ember.graph.__file__)", pieces)
    assert cell["error"] is None and cell["outputs"][0]["text"].strip().endswith("ember/graph.py")
    again = json.loads(session.handle("check", json.dumps({"lab": "L10", "pieces": pieces})))
    assert again["passed"]
    after = run(session, "import ember.graph as g\nprint(g.__file__ == ember.graph.__file__, Value.__module__)", pieces)
    assert after["outputs"][0]["text"] == "True ember.scalar\n"


def test_a_cell_that_made_the_collector_run_is_followed_by_a_full_collection(
        session: Session, monkeypatch) -> None:
    """Graphs of Values are cycles: a cell that made many objects ends with gc.collect(); print(1) does not."""
    import gc

    calls: list[int] = []
    collect = gc.collect
    collect()  # the counts start from 0, as in a fresh worker: the tests before may have left them near a run

    def collecting(*args: int) -> int:
        calls.append(1)
        return collect(*args)

    monkeypatch.setattr(gc, "collect", collecting)
    assert run(session, "print(1)")["error"] is None
    assert calls == []
    code = ("from ember.scalar import Value\nx = Value(1.0)\n"
            "for _ in range(300):\n    y = x * x + x\n    y.backward()\n")
    assert run(session, code)["error"] is None
    assert calls == [1]


def _page_request_kinds() -> dict[str, str]:
    """web/src/runtime/protocol.js's REQUEST object: {NAME: kind}, read from the page's own source."""
    source = (Path(__file__).resolve().parent.parent / "web" / "src" / "runtime" / "protocol.js").read_text()
    body = re.search(r"export const REQUEST = Object\.freeze\(\{(.*?)\n\}\);", source, re.DOTALL)
    assert body, "protocol.js no longer defines REQUEST as Object.freeze({...})"
    return dict(re.findall(r'^\s*([A-Z_]+): "([a-z_]+)"', body.group(1), re.MULTILINE))


def test_the_page_and_the_session_list_the_same_kinds_of_request(session: Session) -> None:
    kinds = _page_request_kinds()
    assert kinds.pop("BOOT") == "boot"  # the worker answers boot itself; Python answers every other kind
    assert len(set(kinds.values())) == len(kinds)
    assert sorted(kinds.values()) == sorted(Session.REQUESTS)
    with pytest.raises(ValueError, match="unknown request 'boot'"):
        session.handle("boot", "{}")


def test_the_package_text_is_the_same_in_the_session_and_in_its_hand_over(session: Session) -> None:
    from labs.checking.learner import INIT_SOURCE

    assert (session.package_dir / "__init__.py").read_text() == INIT_SOURCE
    assert json.loads(session.handle("module", json.dumps({"lab": "L01"})))["init"] == INIT_SOURCE


def test_a_module_written_into_a_folder_already_listed_is_found_after_forget_listings(tmp_path: Path) -> None:
    """The folder's time stamp is put back after the write, as a coarse clock leaves it: only the listing's
    invalidation makes the new file visible to imports."""
    folder = tmp_path / "listed"
    folder.mkdir()
    (folder / "ember_listing_one.py").write_text("A = 1\n")
    sys.path.insert(0, str(folder))
    try:
        assert importlib.import_module("ember_listing_one").A == 1  # the folder is listed now
        stamp = folder.stat().st_mtime_ns
        (folder / "ember_listing_two.py").write_text("B = 2\n")
        os.utime(folder, ns=(stamp, stamp))
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("ember_listing_two")
        forget_listings()
        assert importlib.import_module("ember_listing_two").B == 2
    finally:
        sys.path.remove(str(folder))
        for name in ("ember_listing_one", "ember_listing_two"):
            sys.modules.pop(name, None)


def test_an_unchanged_lab_reuses_its_built_files_and_a_change_rebuilds_them(session: Session) -> None:
    from labs.checking.learner import Work

    first = session.write_modules("L10", Work())
    assert session.write_modules("L10", Work()) is first  # a second cell run of the same work: nothing rebuilt
    changed = session.write_modules("L10", Work({"L10.backward": "pass"}))
    assert changed is not first and "pass" in changed["scalar.py"].source
    (session.package_dir / "scalar.py").unlink()
    again = session.write_modules("L10", Work({"L10.backward": "pass"}))
    assert (session.package_dir / "scalar.py").read_text(encoding="utf-8") == again["scalar.py"].source


LAZY_CHECKS = """
import json, sys
from labs.course.model import load_course
from labs.checking.learner import finished_pieces
from labs.frontends.session import Session
session = Session(sys.argv[1])
before = sorted(name for name in sys.modules if name.startswith("labs.lessons."))
pieces = finished_pieces(load_course(checks=False), 10)
report = json.loads(session.handle("check", json.dumps({"lab": "L10", "pieces": pieces})))
after = sorted(name for name in sys.modules if name.startswith("labs.lessons."))
print(json.dumps({"before": before, "after": after, "passed": report["passed"]}))
"""


def test_a_new_session_imports_a_lessons_check_functions_with_its_first_check_only(tmp_path: Path) -> None:
    """A start reads the course without any lesson's checks.py; a check imports its lesson's."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", LAZY_CHECKS, str(tmp_path)], cwd=root, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"before": [], "after": ["labs.lessons.l10"], "passed": True}, seen


def test_a_name_an_earlier_cell_imported_follows_the_learners_file_once_the_gap_is_written(session: Session) -> None:
    """Above the lab a cell imports Value while L10.backward holds its starter; below it, after the learner wrote
    the gap, a cell that uses the same name runs the learner's backward(), not the starter's."""
    before = finished_pieces(COURSE, 9)
    above = run(session, "from ember.scalar import Value\nimport ember.scalar as scalar\nmade = Value(1.0)\n"
                "try:\n    (made * made).backward()\nexcept NotImplementedError:\n    print('starter')", before)
    assert above["error"] is None and above["outputs"][0]["text"] == "starter\n"
    below = run(session, "y = Value(3.0)\n(y * y).backward()\nprint(y.grad, scalar.Value is Value, made.data)",
                finished_pieces(COURSE, 10))
    assert below["error"] is None, below["error"]
    assert below["outputs"][0]["text"] == "6.0 True 1.0\n"


def test_a_learners_file_that_no_longer_imports_fails_the_cell_that_uses_a_name_from_it(session: Session) -> None:
    assert run(session, "from ember.scalar import Value")["error"] is None
    broken = finished_pieces(COURSE, 10) | {"L10.backward": "def backward(self) -> None:\n    return (\n"}
    result = run(session, "print(Value(2.0))", broken)
    assert result["error"] is not None and "SyntaxError: '(' was never closed" in result["error"]["message"]
    assert result["error"] == run(session, "from ember.scalar import Value", broken)["error"]  # as its own import
