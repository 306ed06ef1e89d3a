"""The README is the house's map: every module, build step, script, benchmark and test file is named in it (in
backticks, by its file name, or with its folder's), so that the next person finds where a thing lives and where a
new one goes."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPPED = ("ember/*.py", "hx/*.py", "labs/*.py", "labs/*/*.py", "labs/data/*", "scripts/*", "web/*.mjs",
          "web/src/*", "web/notebook/*", "site_hooks/*.py", "bench/*.py", "tests/*.py", "site_tests/*.py")
UNNAMED = {"__init__.py", "conftest.py"}  # every package and test folder has them: the folder's line says what


def tracked(patterns: tuple[str, ...]) -> list[Path]:
    """The files git tracks under these patterns (labs/lessons/ is the course's data: one folder a lesson)."""
    listed = subprocess.run(["git", "ls-files", "--", *patterns], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return [Path(name) for name in listed if not name.startswith("labs/lessons/")]


def test_the_readme_names_every_module_build_step_script_and_test_file() -> None:
    readme = (ROOT / "README.md").read_text()
    files = tracked(MAPPED)
    assert len(files) > 150
    named = [f"`{path.name}`" in readme or f"`{path.parent.name}/{path.name}`" in readme for path in files]
    missing = [str(path) for path, said in zip(files, named, strict=True) if not said and path.name not in UNNAMED]
    assert not missing, f"not on the README's map: {missing}"
