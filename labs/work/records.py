"""The records of the learner's saved state (a piece, an answer, a lesson's progress, a rival text), checked by
their shape as ``labs/data/work_records.json`` states it once for both sides: the page's store
(web/src/work/records.js) reads the same file, and web/test/work-records.test.mjs holds the two to the same verdicts.

:func:`check` answers a record as kept (the fields it lists checked, the others kept as they are; a whole count
given as ``1.0`` kept as ``1``, as the page's JSON keeps it) or raises :class:`RecordError`, which names the first
field that is wrong and what it must be. :func:`ever_right` says whether an answer was ever right before the
answer was shown.
"""

from __future__ import annotations

import json
from typing import Any

from labs.course.datasets import DATA_DIR

SHAPE: dict[str, Any] = json.loads((DATA_DIR / "work_records.json").read_text(encoding="utf-8"))


class RecordError(ValueError):
    """A record that does not have its shape: ``field`` (None: the record itself) and what it ``says``."""

    def __init__(self, field: str | None, says: str) -> None:
        super().__init__(f"{field or 'the record'} {says}")
        self.field = field
        self.says = says


def _number(value: object) -> float | None:
    """A JSON number as a number (True and False are not numbers), else None."""
    return value if type(value) is int or type(value) is float else None


def _kept(kind: dict[str, Any], value: object) -> tuple[bool, object]:
    """Whether ``value`` is of ``kind``, and the value kept."""
    held = kind["is"]
    if held == "text":
        return isinstance(value, str), value
    if held == "flag":
        return isinstance(value, bool), value
    if held == "texts":
        return isinstance(value, list) and all(isinstance(item, str) for item in value), value
    number = _number(value)
    if number is None or number != number or not kind["min"] <= number <= kind["max"]:  # NaN is not itself
        return False, value
    if held == "whole":
        return float(number).is_integer(), int(number)
    return True, number  # "number"


def check(record: str, value: object, shape: dict[str, Any] | None = None) -> dict[str, Any]:
    """``value`` as a kept record of kind ``record`` ("piece", "answer", "progress", "rival"), or a RecordError."""
    shape = shape or SHAPE
    if not isinstance(value, dict):
        raise RecordError(None, shape["not_a_record"])
    kept = dict(value)
    for name, field in shape["records"][record].items():
        if name not in value:
            if field.get("required"):
                raise RecordError(name, shape["kinds"][field["kind"]]["says"])
            continue
        kind = shape["kinds"][field["kind"]]
        good, kept[name] = _kept(kind, value[name])
        if not good:
            raise RecordError(name, kind["says"])
    return kept


def table_entry(table: str, entry: object, shape: dict[str, Any] | None = None) -> object:
    """An entry of a table of the saved state ("pieces", "answers", "progress", "conflicts") as kept: a record, or
    for a table of lists a list of one or more records; a RecordError where it is not."""
    shape = shape or SHAPE
    kind = shape["tables"][table]
    if not kind.get("list"):
        return check(kind["record"], entry, shape)
    if not isinstance(entry, list) or not entry:
        raise RecordError(None, "must be a list of one or more records")
    return [check(kind["record"], item, shape) for item in entry]


def valid(record: str, value: object, shape: dict[str, Any] | None = None) -> bool:
    """Whether ``value`` is a record of kind ``record``."""
    try:
        check(record, value, shape)
    except RecordError:
        return False
    return True


def ever_right(answer: dict[str, Any], shape: dict[str, Any] | None = None) -> bool:
    """Whether a (checked) answer was ever right before the answer was shown: it matches one of the shape's
    ``ever_right`` patterns (a list: one of its values; null: the field is absent)."""

    def holds(wanted: object, name: str) -> bool:
        have = answer.get(name)
        allowed = wanted if isinstance(wanted, list) else [wanted]
        return any(have is None if one is None else have is not None and have == one and type(have) is type(one)
                   for one in allowed)

    return any(all(holds(wanted, name) for name, wanted in pattern.items())
               for pattern in (shape or SHAPE)["ever_right"])
