"""Lesson 16's page says what its own runs show (that it gives no answer away above a question is
tests/test_page_rules.py's rule, over its questions' giveaways)."""

from __future__ import annotations

import pytest

from labs.course.model import load_course
from tests.pages_kit import PAGES, group_of, page_outputs, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

COURSE = load_course()
TEXT = PAGES["L16"].read_text()


def test_the_page_says_what_its_runs_show() -> None:
    outputs = page_outputs("L16")
    printed = "".join(text_of(o) for o in outputs)
    # the two products the prose derives are what the Values give, and the rows the one-hot product picks
    assert "A.grad == G @ Bᵀ: True" in printed and "B.grad == Aᵀ @ G: True" in printed
    assert "one_hot @ W == the rows of W, picked: True" in printed
    assert "the same gradient: True" in printed
    # nudging A's six numbers takes two calls each, the count the opening question asks about
    calls = int(group_of(r"calls of A @ B made by vjp_numeric: (\d+)", printed))
    explain = COURSE.lesson("L16").questions[0].explain
    assert calls == 2 * 6 and f"2 × 6 = {calls}" in explain
    # the learner's @ agrees with the Values exactly (these numbers add up without rounding)
    assert "largest difference from your Values, A: 0.0" in printed
    assert "largest difference from your Values, B: 0.0" in printed
    # the race: the product's time grows with the table, the lookup stays below the product's smallest time,
    # and the lookup wins by far more than ten times, the prediction's answer
    (plot,) = [item for o in outputs for item in o if item["kind"] == "plot"]
    curves = {line["name"]: line["points"] for line in plot["series"]}
    rows, product = curves["W.rows(picked)"], curves["one_hot @ W"]
    assert [v for v, _ in rows] == [v for v, _ in product] == [32, 64, 128, 256]
    assert product[-1][1] > 3 * product[0][1]
    assert max(t for _, t in rows) < min(t for _, t in product)
    assert product[-1][1] / rows[-1][1] > 10
    (answer,) = [o.text for q in COURSE.lesson("L16").questions if q.id == "lookup_speed"
                 for o in q.options if o.id == q.answer]
    assert "more than ten times" in answer
