"""The course's rules for every lesson page, each held over every lesson the course has.

From ``QUESTIONS_FIRST_FROM`` on, a page opens with a question on an earlier lesson and asks for at least one
prediction; on every page, a prediction stands above every text its lesson's data says reveals its answer, and no
text its data names as a giveaway stands above a question or in a heading of its page (the table of contents lists
every heading beside the page).
The third rule, that a cell comes after the gaps it needs, is ``tests/test_cell_order.py``'s.
"""

from __future__ import annotations

import re

import pytest

from labs.course.model import Lesson, Question, lesson_number
from labs.course.pages import FENCE, QUESTIONS_FIRST_FROM
from tests.pages_kit import COURSE, PAGES, question_fence

RECALLS = re.compile(r"From lessons? (\d\d(?:(?:, | and )\d\d)*):")  # "From lesson 07: ...", "From lessons 16 and 17:"
QUESTIONS_FIRST = [lesson for lesson in PAGES if lesson_number(lesson) >= lesson_number(QUESTIONS_FIRST_FROM)]


def recalled_lessons(question: Question) -> list[int]:
    """The numbers of the lessons a question's prompt says it is on ("From lesson 07: ..."), or none."""
    match = RECALLS.match(question.prompt)
    return [int(number) for number in re.findall(r"\d\d", match.group(1))] if match else []


def opening_problem(lesson: Lesson, text: str) -> str | None:
    """What keeps a page from opening with a question on an earlier lesson, or None."""
    first = FENCE.search(text)
    if not first or first.group(1) != "ember-question":
        return f"{lesson.id}'s page opens with {first.group(1) if first else 'no fence'}, not a question"
    key = first.group(2).strip()
    question = next((q for q in lesson.questions if f"{lesson.id}.{q.id}" == key), None)
    recalled = recalled_lessons(question) if question else []
    if not recalled or any(number >= lesson.number for number in recalled):
        return f"{key} opens the page, but its prompt does not start with earlier lessons ('From lesson 07: ...')"
    return None


def prediction_problems(lesson: Lesson, text: str) -> list[str]:
    """Each text said to reveal a prediction's answer that is missing from the page or stands above the question."""
    problems = []
    for question in lesson.questions:
        key = f"{lesson.id}.{question.id}"
        asked = text.find(question_fence(key))
        if question.revealed_by and asked < 0:
            problems.append(f"{key} is not on its page")
            continue
        for reveal in question.revealed_by:
            if reveal not in text:
                problems.append(f"{key} is revealed by {reveal!r}, which its page does not hold")
            elif text.index(reveal) < asked:
                problems.append(f"{reveal!r} stands above {key}, whose answer it shows")
    return problems


def headings(text: str) -> list[str]:
    """A page's headings, as its table of contents lists them."""
    return re.findall(r"^#+ (.*)$", text, re.MULTILINE)


def giveaway_problems(lesson: Lesson, text: str) -> list[str]:
    """Each text said to give a question's answer away that stands above the question or in a heading of the page."""
    problems = []
    titles = " ".join(headings(text)).lower()
    for question in lesson.questions:
        key = f"{lesson.id}.{question.id}"
        asked = text.find(question_fence(key))
        if question.giveaways and asked < 0:
            problems.append(f"{key} is not on its page")
            continue
        for giveaway in question.giveaways:
            if giveaway in text[:asked]:
                problems.append(f"{giveaway!r} stands above {key}, whose answer it gives away")
            if giveaway.lower() in titles:
                problems.append(f"a heading says {giveaway!r}, which gives {key}'s answer away")
    return problems


@pytest.mark.parametrize("lesson", QUESTIONS_FIRST)
def test_a_page_opens_with_a_question_on_an_earlier_lesson(lesson: str) -> None:
    assert opening_problem(COURSE.lesson(lesson), PAGES[lesson].read_text()) is None


@pytest.mark.parametrize("lesson", list(PAGES))
def test_a_prediction_stands_above_all_that_reveals_its_answer(lesson: str) -> None:
    own = COURSE.lesson(lesson)
    if lesson in QUESTIONS_FIRST:
        assert any(q.revealed_by for q in own.questions), (
            f"{lesson} asks for no prediction: no question of its lesson.toml names what reveals its answer")
    assert prediction_problems(own, PAGES[lesson].read_text()) == []


@pytest.mark.parametrize("lesson", list(PAGES))
def test_no_text_above_a_question_or_in_a_heading_gives_its_answer_away(lesson: str) -> None:
    assert giveaway_problems(COURSE.lesson(lesson), PAGES[lesson].read_text()) == []


def test_the_giveaways_are_many_and_the_rule_sees_one_above_its_question_or_in_a_heading() -> None:
    """Lesson 16's page with a giveaway of its first prediction put above it, and one in a heading."""
    assert sum(len(q.giveaways) for lesson in COURSE.lessons.values() for q in lesson.questions) >= 31
    lesson = COURSE.lesson("L16")
    question = next(q for q in lesson.questions if q.giveaways)
    key, giveaway = f"L16.{question.id}", question.giveaways[0]
    text = PAGES["L16"].read_text()
    assert giveaway_problems(lesson, text) == []
    above = text.replace(question_fence(key), f"{giveaway}\n\n{question_fence(key)}", 1)
    assert giveaway_problems(lesson, above) == [f"{giveaway!r} stands above {key}, whose answer it gives away"]
    heading = text + f"\n## Why {giveaway.upper()} holds\n"
    assert giveaway_problems(lesson, heading) == [f"a heading says {giveaway!r}, which gives {key}'s answer away"]
    assert giveaway_problems(lesson, text.replace(question_fence(key), "")) == [f"{key} is not on its page"]


def test_the_rules_see_a_page_that_breaks_them() -> None:
    """Lesson 18's page with its opening question moved below a cell, and a prediction moved below its reveal."""
    lesson = COURSE.lesson("L18")
    text = PAGES["L18"].read_text()
    recall, first_loss = question_fence("L18.recall_repeated_row"), question_fence("L18.first_loss")
    late_recall = text.replace(recall, "").replace("## Counting", f"## Counting\n\n{recall}")
    assert "opens with ember-cell" in str(opening_problem(lesson, late_recall))
    early_prediction = text.replace(recall, question_fence("L18.unseen_pair"), 1)
    assert "does not start with earlier lessons" in str(opening_problem(lesson, early_prediction))
    late_prediction = text.replace(first_loss, "") + f"\n{first_loss}\n"
    assert prediction_problems(lesson, late_prediction) == [
        f"{reveal!r} stands above L18.first_loss, whose answer it shows"
        for reveal in ('key="loss"', "The first loss is the one the question above asked about")]
    assert QUESTIONS_FIRST[0] == QUESTIONS_FIRST_FROM and QUESTIONS_FIRST[-1] == list(COURSE.lessons)[-1]
