"""What of the course's Python ships to the page and the notebook, and the course version made from it.

The site's build packs these files (scripts/build_site.py) and names the course by their digest; the
terminal computes the same digest for the work files it writes (labs/work/work_file.py).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from labs.course.model import LABS_DIR, LESSON_SHIPS, LESSONS_DIR

ROOT = LABS_DIR.parent  # the course's folder: ember/, labs/ and hx/ side by side
PACKAGES = ("ember", "labs", "hx")  # the course's Python the page gets
SUFFIXES = {".py", ".toml", ".json", ".txt", ".LICENSE"}  # sources, lesson data, the data set and its licence


def ships(path: Path, lessons_dir: Path = LESSONS_DIR) -> bool:
    """Whether a file of the packages ships: of a lesson's folder only what the page reads (its data and checks),
    never its page or its known-wrong pieces."""
    if "__pycache__" in path.parts:
        return False
    if path.parent.parent == lessons_dir:
        return path.name in LESSON_SHIPS
    return path.suffix in SUFFIXES


def shipped_files(packages: tuple[str, ...] = PACKAGES, root: Path = ROOT) -> list[Path]:
    """The shipped files of ``packages`` under ``root``, sorted."""
    lessons_dir = root / LESSONS_DIR.relative_to(ROOT)
    return sorted(path for package in packages for path in (root / package).rglob("*")
                  if path.is_file() and ships(path, lessons_dir))


def course_version(root: Path = ROOT, files: list[Path] | None = None) -> str:
    """The course version: the first 12 hex digits of the digest of every shipped file's path and bytes
    (``files``: the shipped files of PACKAGES under ``root``, when the caller has listed them already)."""
    digest = hashlib.sha256()
    for path in shipped_files(PACKAGES, root) if files is None else files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]
