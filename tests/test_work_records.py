"""The saved state's records, stated once in labs/data/work_records.json: Python's side of it (labs/work/records.py).
The page's side is held to the same verdicts by web/test/work-records.test.mjs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labs.work import records
from labs.work.work_file import MAX_COUNT, MAX_TIME, state_table
from labs.work.work_merge import merge_answer

ROOT = Path(__file__).resolve().parent.parent


def test_the_page_and_the_work_file_read_one_statement_of_the_records() -> None:
    page = (ROOT / "web/src/work/records.js").read_text(encoding="utf-8")
    assert re.search(r'^import \w+ from "\.\./\.\./\.\./labs/data/work_records\.json"', page, re.MULTILINE)
    store = (ROOT / "web/src/work/store.js").read_text(encoding="utf-8")
    assert "readsAs(" in store and "typeof entry.option" not in store  # no field-by-field copy left in the store
    assert (records.SHAPE["kinds"]["count"]["max"], records.SHAPE["kinds"]["time"]["max"]) == (MAX_COUNT, MAX_TIME)


@pytest.mark.parametrize(("record", "value", "field", "says"), [
    ("answer", [], None, "must be a table"),
    ("answer", {"correct": True}, "option", "must be an option id"),
    ("answer", {"option": "a", "correct": "yes"}, "correct", "must be true or false"),
    ("answer", {"option": "a", "correct": True, "tried": ["a", 1]}, "tried", "must be a list of option ids"),
    ("progress", {"passed": True, "total": 1, "done": False}, "passed", "must be a whole number from 0 to 10000"),
    ("progress", {"passed": 1.5, "total": 2, "done": False}, "passed", "must be a whole number from 0 to 10000"),
    ("progress", {"passed": 0, "total": 1, "done": False, "at": -1}, "at", "must be a time (milliseconds since 1970)"),
    ("progress", {"passed": 0, "total": 1, "done": False, "at": float("nan")}, "at",
     "must be a time (milliseconds since 1970)"),
    ("progress", {"passed": 0, "total": 10**400, "done": False}, "total", "must be a whole number from 0 to 10000"),
    ("piece", {"code": "x", "exact": "yes"}, "exact", "must be true or false"),
    ("rival", {"tab": "t"}, "code", "must be text"),
])
def test_a_record_is_refused_at_its_first_wrong_field_in_the_datas_words(record: str, value: object,
                                                                          field: str | None, says: str) -> None:
    with pytest.raises(records.RecordError) as caught:
        records.check(record, value)
    assert (caught.value.field, caught.value.says) == (field, says)


def test_where_the_sides_disagreed_they_now_agree() -> None:
    # a whole count written 1.0 is 1 (the page's JSON cannot tell them apart), and fields not listed are kept
    assert records.check("progress", {"passed": 1.0, "total": 2, "done": False, "newer": [1]}) == {
        "passed": 1, "total": 2, "done": False, "newer": [1]}
    kept = state_table({"answers": {"L10.bfs": {"option": "four", "correct": True, "hint": "x"}, "L10.x": 3}},
                       "answers")
    assert kept == {"L10.bfs": {"option": "four", "correct": True, "hint": "x"}}
    # a piece the page would not keep is no piece for the work file either
    assert state_table({"pieces": {"L10.backward": {"code": "x", "saved": -5}}}, "pieces") == {}
    assert state_table({"conflicts": {"g": [], "h": [{"code": "x", "tab": "t"}]}}, "conflicts") == {
        "h": [{"code": "x", "tab": "t"}]}


@pytest.mark.parametrize(("answer", "right"), [
    ({"option": "four", "correct": True}, True),  # the oldest format: right when it is right
    ({"option": "four", "correct": True, "revealed": True}, False),
    ({"option": "four", "correct": True, "tried": []}, False),  # newer: only everCorrect says so
    ({"option": "two", "correct": False, "everCorrect": True, "tried": ["two"]}, True),
    ({"option": "two", "correct": False}, False),
])
def test_ever_right_is_the_datas_rule_and_the_merge_keeps_it(answer: dict[str, object], right: bool) -> None:
    assert records.ever_right(answer) is right
    assert merge_answer(answer, {"option": "zero", "correct": False, "tried": ["zero"]})["everCorrect"] is right
