"""Lessons 01-13 ask before they show, and say what their runs show.

A prediction question's answer is never printed above it, and what the prose says matches what the page's own cells
print. That no text above a question, nor any heading, states its answer is tests/test_page_rules.py's rule, over
the giveaways each question names in its lesson's data.
"""

from __future__ import annotations

import re

import pytest

import hx
from ember.scalar import Value
from labs.course.model import load_course
from labs.showing.render import item_html
from tests.also_right import KAHN_BACKWARD
from tests.pages_kit import PAGES, page_outputs, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

COURSE = load_course()


def question_at(lesson: str, question: str) -> int:
    """Where a question's fence starts on its lesson's page."""
    text = PAGES[lesson].read_text()
    fence = f"```ember-question\n{question}\n```"
    assert fence in text, fence
    return text.index(fence)


# A number in a right answer may also be printed above its question as some other quantity.
COINCIDENCES = {
    ("L03.shares", "4"): "cell 1 prints ∂f/∂y = 4.0 of another function",
    ("L06.paths", "2"): "the answer's 2⁴⁰ reads as 2 and 40",
    ("L07.what_is_remembered", "3.0"): "cell 3 prints b = Value(3.0), another Value",
}


@pytest.mark.parametrize("lesson", sorted(PAGES))
def test_no_cell_prints_a_predictions_number_above_it(lesson: str) -> None:
    """Run the page top to bottom; a number in a question's right answer is not printed before it."""
    text = PAGES[lesson].read_text()
    cells = [m.start() for m in re.finditer(r"^```ember-cell", text, re.MULTILINE)]
    outputs = [text_of(o) for o in page_outputs(lesson)]
    for question in COURSE.lesson(lesson).questions:
        at = question_at(lesson, f"{lesson}.{question.id}")
        printed = "".join(out for start, out in zip(cells, outputs) if start < at)
        (answer,) = [o.text for o in question.options if o.id == question.answer]
        for number in re.findall(r"-?\d(?:[\d,.]*\d)?", answer):
            found = re.search(rf"(?<![\d.]){re.escape(number)}(?!\d)", printed)
            if found and (f"{lesson}.{question.id}", number) not in COINCIDENCES:
                pytest.fail(f"{lesson}.{question.id}: its answer's {number} is printed above it: {printed!r}")


def test_lesson_04s_cost_question_counts_the_calls_its_cell_prints() -> None:
    printed = "".join(text_of(o) for o in page_outputs("L04"))
    calls = re.search(r"65,536 weights would need ([\d,]+) calls", printed)
    assert calls and calls.group(1) == f"{2 * 65_536:,}"
    (question,) = [q for q in COURSE.lesson("L04").questions if q.id == "vjp_cost"]
    (answer,) = [o.text for o in question.options if o.id == question.answer]
    assert "central differences" in question.prompt and calls.group(1) in answer
    assert calls.group(1) in question.explain and "directions" not in answer


def test_lesson_10s_breadth_first_order_is_the_one_its_cell_runs() -> None:
    printed = text_of(page_outputs("L10")[0])
    ran = re.search(r"steps run in this order: (.*)", printed)
    assert ran
    named = [name for name in ran.group(1).split(", ") if not name.startswith("the constant")]
    (question,) = [q for q in COURSE.lesson("L10").questions if q.id == "safe_order"]
    walked = [o for o in question.options if "breadth-first" in o.feedback]
    assert [o.text for o in walked] == [", ".join(named)] == ["c, x, d, w, e"]
    assert "c, x, d, e, w" not in PAGES["L10"].read_text() + "".join(o.text for o in question.options)


def test_lesson_03_says_where_the_gradient_arrows_point_as_the_run_draws_them() -> None:
    (field,) = [item for o in page_outputs("L03") for item in o if item["kind"] == "field"]
    far_left = [arrow for arrow in field["arrows"] if arrow[0] < -0.75]
    between = [arrow for arrow in field["arrows"] if -0.7 < arrow[0] < 0.7]
    assert far_left and all(dx < 0 for _, _, dx, _ in far_left)  # away from the hill, on the right
    assert all(dx > 0 for _, _, dx, _ in between)
    text = PAGES["L03"].read_text()
    assert "Every arrow points away from the hollow and toward the top of the hill" not in text
    assert "*away* from the hill" in text and "\\(x = -1.6\\)" in text


def test_only_lessons_with_earlier_gaps_offer_to_load_their_finished_pieces() -> None:
    from labs.frontends.website import course_data

    lessons = course_data(COURSE, {}, "dev")["lessons"]
    assert lessons["L01"]["earlier_gaps"] is False
    assert all(lessons[lesson]["earlier_gaps"] is True for lesson in COURSE.lessons if lesson != "L01")


def _lesson_09_example() -> Value:
    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    d = a * b
    d.label = "d"
    e = d + c
    e.label = "e"
    loss = e * a
    loss.label = "L"
    return loss


def test_walk_cards_number_the_steps_they_show_even_when_leaves_are_called_between(
        monkeypatch: pytest.MonkeyPatch) -> None:
    namespace: dict[str, object] = {}
    exec(KAHN_BACKWARD, namespace)  # a correct backward() that calls leaves between other steps
    monkeypatch.setattr(Value, "backward", namespace["backward"])
    trace = hx.walk_trace(_lesson_09_example())
    assert trace.ok and trace.calls.index("c") < trace.calls.index("d")  # a leaf's call comes before d's step
    assert sorted({edge.step for edge in trace.edges}) == list(range(len(trace.order)))
    cards = item_html({"kind": "backward", "title": "", "trace": trace.to_dict()}, lambda dot: "")
    assert [int(n) for n in re.findall(r"step (\d+) ·", cards)] == [1, 1, 2, 2, 3, 3]
