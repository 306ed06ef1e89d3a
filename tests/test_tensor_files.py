"""The tensor engine's two learner files: ember/tensor.py opens with Tensor and lesson 14's gaps, ember/shapes.py
holds the shape helpers, and work saved while lesson 15's two gaps were in tensor.py lands where they are now."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import ember.shapes
import ember.tensor
from labs.checking.learner import finished_pieces
from labs.course.gaps import fill_gaps, find_gaps, indented, lesson_of
from labs.course.model import load_course
from labs.frontends.cli import main
from labs.frontends.session import Session

COURSE = load_course()
TENSOR = COURSE.reference["tensor.py"]
MOVED = ("L15.broadcast_shape", "L15.unbroadcast")  # in tensor.py until shapes.py was made


def test_the_first_gap_of_tensor_py_is_lesson_14s() -> None:
    first = find_gaps(TENSOR)[0]
    assert lesson_of(first.id) == "L14", first.id


def test_tensor_py_defines_the_class_first_and_leaves_the_memory_machinery_to_its_end() -> None:
    definitions = [node for node in ast.parse(TENSOR).body if isinstance(node, (ast.ClassDef, ast.FunctionDef))]
    assert definitions[0].name == "Tensor"
    lines = TENSOR.splitlines()
    (notice,) = [number for number, line in enumerate(lines, 1) if "not part of the lessons" in line]
    assert notice > find_gaps(TENSOR)[-1].close_line
    assert all(number > notice for number, line in enumerate(lines, 1) if "_LET_GO" in line)


def test_lesson_15s_shape_gaps_are_in_shapes_py_and_no_other_gap_is() -> None:
    assert {gap.id for gap in find_gaps(COURSE.reference["shapes.py"])} == set(MOVED)
    assert all(COURSE.gaps[gap_id].file == "shapes.py" for gap_id in MOVED)


def test_every_shape_helper_is_also_reached_through_tensor_py() -> None:
    """Cells that import a helper from ember.tensor, and gaps of tensor.py that call one, keep working."""
    helpers = [name for name, value in vars(ember.shapes).items()
               if callable(value) and getattr(value, "__module__", None) == "ember.shapes"]
    assert {"size", "flatten", "nest", "broadcast_index", "expand", "broadcast_shape", "unbroadcast"} <= set(helpers)
    for name in helpers:
        assert getattr(ember.tensor, name) is getattr(ember.shapes, name), name


# --- work saved while lesson 15's shape gaps were in tensor.py ----------------------------------------

# What the page stored then (localStorage's "ember:v1"): an older dedented piece, and exact texts typed in
# the editor, each at its marker's indentation in that tensor.py ("" for the two functions, 4 for binary).
MINE_SHAPE = COURSE.gaps["L15.broadcast_shape"].finished.replace("b))\n", "b))  # mine\n", 1)
MINE_UNBROADCAST = COURSE.gaps["L15.unbroadcast"].finished.rstrip("\n").replace(
    "    return total", "    return total  # mine, trailing spaces kept  ")
MINE_BINARY = indented(COURSE.gaps["L15.binary"].finished, "    ") + "  # mine"
SAVED: dict[str, Any] = {
    "pieces": {
        "L15.broadcast_shape": {"code": MINE_SHAPE, "saved": 1, "version": "earlier"},
        "L15.unbroadcast": {"code": MINE_UNBROADCAST, "saved": 2, "version": "earlier", "exact": True},
        "L15.binary": {"code": MINE_BINARY, "saved": 3, "version": "earlier", "exact": True},
    },
    "answers": {}, "progress": {}, "last": "L15", "seed": None,
}


def saved_work() -> dict[str, dict[str, str]]:
    """The work the page sends with a request, from the saved state (web/src/work/pieces.js's work())."""
    work: dict[str, dict[str, str]] = {"exact": {}, "pieces": {}}
    for gap_id, entry in SAVED["pieces"].items():
        work["exact" if entry.get("exact") else "pieces"][gap_id] = entry["code"]
    return work


def gap_texts(source: str) -> dict[str, str]:
    return {gap.id: gap.text for gap in find_gaps(source)}


@pytest.mark.parametrize("lab", dict.fromkeys(["L15", "L16", list(COURSE.lessons)[-1]]))  # and the course's last lab
def test_saved_work_of_lesson_15_lands_in_shapes_py_unchanged(session: Session, lab: str) -> None:
    answer = json.loads(session.handle("module", json.dumps({"lab": lab, **saved_work()})))
    shapes = gap_texts(answer["files"]["shapes.py"]["source"])
    tensor = gap_texts(answer["files"]["tensor.py"]["source"])
    assert shapes["L15.unbroadcast"] == MINE_UNBROADCAST  # byte for byte, trailing spaces too
    assert answer["exact"]["L15.broadcast_shape"] == MINE_SHAPE.rstrip("\n")  # at the marker's indentation, ""
    assert shapes["L15.broadcast_shape"] == answer["exact"]["L15.broadcast_shape"]
    assert tensor["L15.binary"] == MINE_BINARY
    assert not set(MOVED) & set(tensor)


def test_saved_work_of_lesson_15_passes_lesson_15s_checks_from_shapes_py(session: Session) -> None:
    work = saved_work()
    work["pieces"] |= finished_pieces(COURSE, 14)
    report = json.loads(session.handle("check", json.dumps({"lab": "L15", **work})))
    failed = [(result["claim"], result["message"]) for result in report["results"] if not result["passed"]]
    assert report["passed"] and not failed, (report["problem"], failed)


def tensor_py_before_shapes_py(shapes: str, tensor: str) -> str:
    """A learner's tensor.py as the course wrote it before shapes.py: the shape helpers, lesson 15's two gaps
    among them, above the class, and no import of ember.shapes."""
    head, rest = tensor.split("class Tensor:", 1)
    head = "".join(line for line in head.splitlines(keepends=True) if not line.startswith("from ember.shapes"))
    helpers = shapes[shapes.index("Shape = "):]
    return f"{head}{helpers}\n\nclass Tensor:{rest}"


def test_start_moves_lesson_15s_pieces_from_an_older_tensor_py_into_shapes_py(tmp_path: Path, capsys) -> None:
    assert main(["start", "L16", "--dir", str(tmp_path), "--ref-deps"]) == 0
    folder = tmp_path / "ember"
    shapes_py = folder / "shapes.py"
    pieces = {"L15.broadcast_shape": MINE_SHAPE, "L15.unbroadcast": COURSE.gaps["L15.unbroadcast"].finished}
    shapes = fill_gaps(shapes_py.read_text(), {gap_id: (gap_id, body) for gap_id, body in pieces.items()})
    (folder / "tensor.py").write_text(tensor_py_before_shapes_py(shapes, (folder / "tensor.py").read_text()))
    shapes_py.unlink()
    capsys.readouterr()

    assert main(["start", "L17", "--dir", str(tmp_path)]) == 0
    assert "belong to later lessons" not in capsys.readouterr().out
    assert not list(folder.glob("*.bak"))  # nothing was lost, so nothing was set aside
    bodies = {gap.id: gap.body for gap in find_gaps(shapes_py.read_text())}
    assert bodies == pieces
    assert not set(MOVED) & {gap.id for gap in find_gaps((folder / "tensor.py").read_text())}
