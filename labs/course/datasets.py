"""The course's data sets, read the same way in the page's worker, the notebook's kernel and CPython.

The files sit in ``labs/data/`` inside the package, so they travel wherever ``labs`` goes: the
page's Python bundle, the notebook's course wheel and the repository itself.
"""

from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
NAMES = DATA_DIR / "names.txt"
NAMES_LICENSE = DATA_DIR / "names.LICENSE"
NAMES_SOURCE = "the names.txt of github.com/karpathy/makemore (MIT licence, © 2022 Andrej Karpathy)"


def names_text() -> bytes:
    """The 32,033 names of names.txt as raw bytes, one name a line."""
    return NAMES.read_bytes()


def names_license() -> str:
    """The licence of names.txt, as shipped beside it."""
    return NAMES_LICENSE.read_text(encoding="utf-8")
