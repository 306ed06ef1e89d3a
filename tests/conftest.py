"""Shared fixtures of the CPython tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from labs.frontends.session import Session
from tests.pages_kit import learner_session


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    """A browser-side session whose learner package lives in tmp_path; sys.path and ember's modules are put back."""
    with learner_session(tmp_path) as opened:
        yield opened
