"""What the site's build steps share: the repository's root, running a command, the course's Python files,
fetching pinned wheels, where the standard library goes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The standard library the lesson pages' worker and the notebook's kernel start with, under assets/gen/: Pyodide's,
# its modules a start imports compiled (web/precompile-stdlib.mjs). web/src/runtime/worker.js asks for it by this name.
STDLIB = "py/stdlib.zip"


def run(*command: str, cwd: Path = ROOT) -> None:
    """Run a command (from the repository root unless told), failing the build if it fails."""
    print("  $", " ".join(command), flush=True)
    subprocess.run(command, cwd=cwd, check=True)


def python_files(packages: tuple[str, ...]) -> list[Path]:
    """The files of the course's Python packages that ship to the browser (labs/course/shipped.py decides)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from labs.course.shipped import shipped_files

    return shipped_files(packages, ROOT)


def pins(requirements: Path) -> dict[str, str]:
    """The pinned packages of a requirements file: normalised name -> version."""
    found = {}
    for line in requirements.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            found[name.replace("-", "_").lower()] = version
    return found


def download_wheels(requirements: Path, cache: Path) -> list[Path]:
    """The pinned pure-Python wheels of ``requirements`` for Pyodide's Python 3.14, downloaded once into ``cache``."""
    wanted = pins(requirements)
    cache.mkdir(parents=True, exist_ok=True)

    def cached() -> list[Path]:
        return sorted(w for w in cache.glob("*.whl")
                      if wanted.get(w.name.split("-")[0].lower()) == w.name.split("-")[1])

    if len(cached()) < len(wanted):
        run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            "--python-version", "3.14", "--dest", str(cache),
            *(f"{name}=={version}" for name, version in wanted.items()))
    found = cached()
    if len(found) != len(wanted):
        raise SystemExit(f"expected wheels for {sorted(wanted)}, found {[w.name for w in found]}")
    return found
