"""Shared fixtures of the CPython tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from labs.checking.learner import forget_ember
from labs.frontends.session import Session


@contextmanager
def learner_session(folder: Path) -> Iterator[Session]:
    """A browser-side session whose learner package lives in ``folder``; sys.path and ember's modules are put back."""
    path = list(sys.path)
    modules = {name: module for name, module in sys.modules.items() if name == "ember" or name.startswith("ember.")}
    try:
        yield Session(folder)
    finally:
        sys.path[:] = path
        forget_ember()
        sys.modules.update(modules)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    """A browser-side session whose learner package lives in tmp_path; sys.path and ember's modules are put back."""
    with learner_session(tmp_path) as opened:
        yield opened
