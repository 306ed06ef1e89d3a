"""The Python side's wings, as the README's map states them: every import of ``ember/``, ``hx/`` and ``labs/``
runs down the order below (read from the code with ast, lazy imports inside functions included), and a lesson's
files import no other lesson's. The page side's wings are tests/test_wings.py's."""

from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ember", "hx", "labs")

# The wings, lowest first. A module imports its own wing or a wing of a lower level; wings of one level import
# neither the other. ember/ (the learner's engine) and hx/ (drawings of any learner's Value) import nothing of
# labs/; a lesson's files (labs/lessons/NN-name/) import the shared helpers, never showing/, work/ or frontends/.
LEVELS: tuple[tuple[str, ...], ...] = (
    ("ember", "hx"),
    ("labs.course",),
    ("labs.checking",),
    ("labs.showing", "labs.work", "labs.lessons"),
    ("labs.frontends",),
    ("labs",),  # labs/__init__.py and labs/__main__.py: `python -m labs`
)
LEVEL = {wing: level for level, wings in enumerate(LEVELS) for wing in wings}
TOP = ("labs", "labs.__main__")  # the wing "labs" is these two modules, not every module under labs/
LESSONS = "labs.lessons"
LESSON_FOLDER = re.compile(r"(\d+)-")  # labs/lessons/10-order-of-blame/ is lesson 10


@dataclass(frozen=True)
class Import:
    """One import in a file: the module it names, and where."""

    module: str
    line: int


def module_name(path: Path) -> str:
    """A file's module name: 'labs.course.model'; a lesson's file under labs.checks_module's name ('labs.lessons.l10'
    for its checks.py, 'labs.lessons.l10.x' for another file x.py of its folder)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[:2] == ["labs", "lessons"] and len(parts) > 3:
        number = LESSON_FOLDER.match(parts[2])
        lesson = f"l{number.group(1)}" if number else parts[2]
        rest = [] if parts[3:] == ["checks"] else parts[3:]
        return ".".join(["labs", "lessons", lesson, *rest])
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def wing_of(module: str) -> str | None:
    """The wing a module is in (the longest wing it starts with), or None for a module of no wing (the standard
    library, a third-party package)."""
    if module in TOP:
        return "labs"
    found = [wing for wing in LEVEL if wing != "labs" and (module == wing or module.startswith(wing + "."))]
    return max(found, key=len) if found else None


def imports_of(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every module a source imports, relative imports resolved, ``importlib.import_module("...")`` and
    ``__import__("...")`` with a constant name included."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            found.append(Import(base, node.lineno))
            found += [Import(f"{base}.{alias.name}", node.lineno) for alias in node.names
                      if wing_of(f"{base}.{alias.name}") == LESSONS]  # from labs.lessons import l09
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and isinstance(
                node.args[0].value, str):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("import_module", "__import__"):
                found.append(Import(node.args[0].value, node.lineno))
    return found


def against_the_order(module: str, imported: str) -> str | None:
    """Why ``module`` may not import ``imported`` (None when it may)."""
    mine, theirs = wing_of(module), wing_of(imported)
    if mine is None:
        return f"{module} is in no wing"
    if theirs is None or theirs == mine:
        return None
    if imported == "labs":
        return None  # the package itself, as `import labs.x` binds it
    if LEVEL[theirs] < LEVEL[mine]:
        return None
    if LEVEL[theirs] == LEVEL[mine]:
        return f"{mine} and {theirs} are side by side: neither imports the other"
    return f"{mine} is below {theirs}"


def lesson_of_module(module: str) -> str | None:
    """'l10' for a module of lesson 10's folder (or of its name), else None."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["labs", "lessons"] and len(parts) > 2 else None


def faults(path: Path, source: str) -> list[str]:
    """What in one file runs against the wings: imports up or sideways, and a lesson importing another's."""
    module = module_name(path)
    found = []
    for item in imports_of(source, module, path.name == "__init__.py"):
        where = f"{path.relative_to(ROOT)}:{item.line} imports {item.module}"
        why = against_the_order(module, item.module)
        if why:
            found.append(f"{where}: {why}")
        mine, theirs = lesson_of_module(module), lesson_of_module(item.module)
        if mine and item.module.startswith(LESSONS) and theirs != mine:
            found.append(f"{where}: a lesson's files import no other lesson's")
    return found


def python_files() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def test_every_module_of_ember_hx_and_labs_is_in_a_wing() -> None:
    files = python_files()
    assert len(files) > 60
    homeless = [str(path.relative_to(ROOT)) for path in files if wing_of(module_name(path)) is None]
    assert not homeless, f"in no wing of LEVELS: {homeless}"
    assert {wing_of(module_name(path)) for path in files} == set(LEVEL), "a wing of LEVELS holds no module"


def test_every_import_runs_down_the_wings_and_no_lesson_imports_another() -> None:
    files = python_files()
    crossings = [item for path in files for item in imports_of(path.read_text(encoding="utf-8"), module_name(path))
                 if wing_of(item.module) not in (None, wing_of(module_name(path)))]
    assert len(crossings) > 100  # the rule is tried on the house's real imports, not on none
    found = [fault for path in files for fault in faults(path, path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


def test_the_readme_states_the_same_order() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    wings = [", ".join(wing.removeprefix("labs.") for wing in level if wing != LESSONS)
             for level in LEVELS[1:-1]]
    assert f"({' ← '.join(wings)};" in " ".join(readme.split())


def lesson_file(folder: str, name: str = "checks.py") -> Path:
    return ROOT / "labs" / "lessons" / folder / name


@pytest.mark.parametrize(("path", "source", "why"), [
    (ROOT / "labs/course/model.py", "from labs.frontends.cli import main\n", "labs.course is below labs.frontends"),
    (ROOT / "labs/checking/pipeline.py", "def f():\n    import labs.showing.render\n", "below labs.showing"),
    (ROOT / "labs/showing/render.py", "from labs.work.work_file import JSON_NAME\n", "side by side"),
    (ROOT / "labs/work/work_merge.py", "from ..frontends import session\n", "labs.work is below labs.frontends"),
    (ROOT / "hx/dot.py", "from labs.course.words import counted\n", "hx is below labs.course"),
    (ROOT / "ember/nn.py", "import hx\n", "ember and hx are side by side"),
    (ROOT / "hx/graph.py", "import importlib\nimportlib.import_module('labs.checking.files')\n", "hx is below"),
    (lesson_file("10-order-of-blame"), "from labs.work.work_file import read_work\n", "labs.lessons and labs.work"),
    (ROOT / "labs/newwing/thing.py", "import json\n", "in no wing"),
])
def test_an_import_against_the_order_is_caught(path: Path, source: str, why: str) -> None:
    found = faults(path, source)
    assert len(found) == 1 and why in found[0], found


@pytest.mark.parametrize("source", [
    "from labs.lessons.l09 import add_backward\n",
    "import labs.lessons.l09\n",
    "from labs.lessons import l09\n",
    "def f():\n    import importlib\n    return importlib.import_module('labs.lessons.l09')\n",
])
def test_a_lesson_importing_another_lessons_files_is_caught(source: str) -> None:
    for path in (lesson_file("10-order-of-blame"), lesson_file("10-order-of-blame", "helpers.py")):
        found = faults(path, source)
        assert found and all("a lesson's files import no other lesson's" in fault for fault in found), found


def test_a_lesson_may_import_its_own_files_and_the_shared_helpers() -> None:
    source = ("from labs.checking.claimkit import Env\nfrom labs.lessons.l10 import helper\n"
              "import ember.scalar\nimport hx\n")
    assert faults(lesson_file("10-order-of-blame"), source) == []
    assert faults(ROOT / "labs/frontends/cli.py", "from labs.work.work_merge import merge\nimport labs\n") == []


# --- every Python file's annotations are checked ---------------------------------------------------------------------


def test_every_tracked_python_file_is_type_checked() -> None:
    """scripts/mypy.sh checks every Python file git tracks: pyproject's mypy ``files`` (labs/lessons/ excluded), the
    folders of its second run, and each lesson's checks.py on its own."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    script = (ROOT / "scripts/mypy.sh").read_text()
    (second,) = re.findall(r"^\.venv/bin/mypy --explicit-package-bases (.+)$", script, re.M)
    assert config["exclude"] == ["^labs/lessons/"] and "labs/lessons/*/checks.py" in script
    roots = [*config["files"], *second.split()]
    listed = subprocess.run(["git", "ls-files", "--", "*.py"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    assert len(listed) > 150
    unchecked = [name for name in listed if not re.fullmatch(r"labs/lessons/[^/]+/checks\.py", name) and (
        name.startswith("labs/lessons/") or not any(name.startswith(root + "/") for root in roots))]
    assert not unchecked, f"not type-checked by scripts/mypy.sh: {unchecked}"
