"""The work file's verdicts on the saved state's records, printed as one JSON object for
web/test/work-records.test.mjs, which holds the page's store (web/src/work/records.js) to them.

The records given: for each record kind of labs/data/work_records.json, a full one and one with only the
required fields, each field missing, each field holding each value of SAMPLES (of every kind: texts, flags,
whole and broken numbers, NaN and the infinities, null, lists, tables), a field the shape does not list, and
values that are no table at all; answers of every combination of the fields 'ever right' reads. Python's verdict
on each: kept (and the value kept) or refused (the field, and what it must be).

Numbers JSON cannot write (NaN, Infinity, -Infinity) go as {"$number": "NaN"}. Arguments such as
``answer.correct=text`` give a field another kind on this side only (to show the test fails when the sides differ).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import sys
from typing import Any

from labs.work import records

SAMPLES: list[Any] = [
    "", "four", True, False, 0, 3, -1, 1.5, 3.0, -0.0, 10_000, 10_001, 1_700_000_000_000, 8_640_000_000_000_000,
    8_640_000_000_000_001, 2**53 + 1, 10**400, 1e300, math.nan, math.inf, -math.inf, None, [], ["a", "b"],
    ["a", 1], [None], {}, {"code": "x"},
]
GOOD: dict[str, Any] = {"text": "x = 1\n", "option": "four", "flag": True, "count": 3, "time": 1_700_000_000_000,
                        "release": 1_700_000_000, "options": ["twentyeight", "thirtytwo"]}
NOT_TABLES: list[Any] = [None, [], "answer", 3, True]


def encoded(value: Any) -> Any:
    """A value as JSON can write it: NaN and the infinities as {"$number": …}."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"$number": "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"}
    if isinstance(value, list):
        return [encoded(item) for item in value]
    if isinstance(value, dict):
        return {key: encoded(item) for key, item in value.items()}
    return value


def given(shape: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every (record kind, value) the test gives both sides."""
    cases: list[tuple[str, Any]] = []
    for record, fields in shape["records"].items():
        full = {name: GOOD[field["kind"]] for name, field in fields.items()}
        cases += [(record, full), (record, {name: value for name, value in full.items()
                                            if fields[name].get("required")})]
        for name in fields:
            cases.append((record, {key: value for key, value in full.items() if key != name}))
            cases += [(record, {**full, name: sample}) for sample in SAMPLES]
        cases += [(record, {**full, "newer": {"a": [1, None]}}), (record, [full])]
        cases += [(record, value) for value in NOT_TABLES]
    for correct, ever, revealed, tried in itertools.product([True, False], [True, False, None], [True, False, None],
                                                            [["thirtytwo"], [], None]):
        answer = {"option": "four", "correct": correct, "everCorrect": ever, "revealed": revealed, "tried": tried}
        cases.append(("answer", {key: value for key, value in answer.items() if value is not None}))
    return cases


def verdict(record: str, value: Any, shape: dict[str, Any]) -> dict[str, Any]:
    try:
        kept = records.check(record, value, shape)
    except records.RecordError as error:
        return {"kept": False, "field": error.field, "says": error.says}
    return {"kept": True, "value": encoded(kept)}


def table_cases(shape: dict[str, Any]) -> list[dict[str, Any]]:
    """Entries of each table of the saved state, and whether each reads."""
    rival = {"code": "x", "tab": "t1", "saved": 1}
    entries = [rival, [rival], [], [rival, {"code": 1}], [rival, rival], None, {"option": "four", "correct": True},
               {"passed": 1, "total": 2, "done": False}, {"code": "x"}]
    cases = []
    for table in records.SHAPE["tables"]:
        for entry in entries:
            try:
                records.table_entry(table, entry, shape)
                reads = True
            except records.RecordError:
                reads = False
            cases.append({"table": table, "entry": entry, "reads": reads})
    return cases


def facts(shape: dict[str, Any]) -> dict[str, Any]:
    out = []
    for record, value in given(records.SHAPE):  # the same records, whatever shape judges them
        case = {"record": record, "value": encoded(value), "verdict": verdict(record, value, shape)}
        if record == "answer" and case["verdict"]["kept"]:
            case["everRight"] = records.ever_right(value, shape)
        out.append(case)
    return {"records": out, "tables": table_cases(shape)}


def flipped(shape: dict[str, Any], flips: list[str]) -> dict[str, Any]:
    """The shape with ``record.field=kind`` flips applied."""
    shape = copy.deepcopy(shape)
    for flip in flips:
        where, kind = flip.split("=")
        record, name = where.split(".")
        shape["records"][record][name]["kind"] = kind
    return shape


if __name__ == "__main__":
    print(json.dumps(facts(flipped(records.SHAPE, sys.argv[1:])), ensure_ascii=False, allow_nan=False))
