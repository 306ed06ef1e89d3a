"""Shared fixtures of the CPython tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from labs.session import Session


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    """A browser-side session whose learner package lives in tmp_path; sys.path and ember's modules are put back."""
    path = list(sys.path)
    modules = {name: module for name, module in sys.modules.items() if name == "ember" or name.startswith("ember.")}
    yield Session(tmp_path)
    sys.path[:] = path
    for name in [name for name in sys.modules if name == "ember" or name.startswith("ember.")]:
        del sys.modules[name]
    sys.modules.update(modules)
