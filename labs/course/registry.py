"""The registry of check functions: each lesson's checks.py registers the function behind each of its claims.

The course model (labs.course.model) pairs every claim of the lesson data with its function here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ClaimFunction = Callable[[Any], None]  # takes the learner's modules (labs.checking.claimkit.Env)

# (lesson id, claim id) -> function; filled by the @claim decorator as a lesson's checks.py is imported.
REGISTRY: dict[tuple[str, str], ClaimFunction] = {}


def claim(lesson: str, claim_id: str) -> Callable[[ClaimFunction], ClaimFunction]:
    """Register a function as the code behind claim ``claim_id`` of ``lesson``."""

    def register(function: ClaimFunction) -> ClaimFunction:
        key = (lesson, claim_id)
        if key in REGISTRY:
            raise ValueError(f"claim {lesson}.{claim_id} is registered twice")
        REGISTRY[key] = function
        return function

    return register
