"""Part II as a teacher reads it: other correct walks pass lesson 10, hint ladders have three rungs."""

from __future__ import annotations

import textwrap

import pytest

from labs.course import load_course
from labs.learner import finished_pieces, module_sources
from labs.pipeline import check_lesson

COURSE = load_course()

# PyTorch's engine orders the backward pass this way: count how many users each node has,
# and run a node once all of them have sent their shares (Kahn's algorithm, outputs first).
KAHN = '''
def backward(self) -> None:
    users = {self: 0}
    stack = [self]
    while stack:
        node = stack.pop()
        for parent in node._prev:
            if parent not in users:
                users[parent] = 0
                stack.append(parent)
            users[parent] += 1
    for node in users:
        if node._prev:
            node.grad = 0.0
    self.grad = 1.0
    ready = [self]
    while ready:
        node = ready.pop()
        node._backward()
        for parent in node._prev:
            users[parent] -= 1
            if users[parent] == 0:
                ready.append(parent)
'''


def test_a_kahn_backward_passes_every_claim_of_lesson_10() -> None:
    pieces = finished_pieces(COURSE, 9) | {"L10.backward": textwrap.dedent(KAHN)}
    report = check_lesson("L10", module_sources(COURSE, "L10", pieces))
    assert [r.claim for r in report.results] == [f"L10.{c.id}" for c in COURSE.lesson("L10").claims]
    assert report.passed, [(r.claim, r.message) for r in report.results if not r.passed]


@pytest.mark.parametrize("gap_id", sorted(COURSE.gaps))
def test_every_hint_ladder_has_three_rungs_the_middle_one_a_question(gap_id: str) -> None:
    hints = COURSE.gaps[gap_id].hints
    assert len(hints) >= 3
    assert "?" in hints[1], f"{gap_id}: the middle rung should ask a pointed question"


def test_no_feedback_starts_with_the_verdict_the_page_shows_itself() -> None:
    for lesson in COURSE.lessons.values():
        for question in lesson.questions:
            for option in question.options:
                assert not option.feedback.startswith(("Right", "Not quite")), (question.id, option.id)
