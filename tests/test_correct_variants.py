"""Correct pieces written differently from the finished ones pass every claim of their lab."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from labs.course import lesson_number, load_course
from labs.learner import finished_pieces, module_sources
from labs.pipeline import check_lesson

COURSE = load_course()
VARIANT_DIR = Path(__file__).resolve().parent / "variants"


def load_variants() -> list[tuple[str, str, dict[str, str]]]:
    """(lesson, name, pieces) for every variant of every tests/variants/Lnn.toml."""
    variants = []
    for path in sorted(VARIANT_DIR.glob("L*.toml")):
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        variants += [(path.stem, raw["name"], dict(raw["pieces"])) for raw in table["variants"]]
    return variants


VARIANTS = load_variants()


def test_every_part_one_lesson_has_variants() -> None:
    assert {lesson for lesson, _, _ in VARIANTS} == {"L01", "L02", "L03", "L04", "L05", "L06"}


@pytest.mark.parametrize("lesson, name, pieces", VARIANTS, ids=[f"{v[0]} {v[1]}" for v in VARIANTS])
def test_a_correct_variant_passes_every_claim_of_its_lab(lesson: str, name: str, pieces: dict[str, str]) -> None:
    assert all(gap_id.startswith(lesson + ".") for gap_id in pieces), name
    sources = module_sources(COURSE, lesson, finished_pieces(COURSE, lesson_number(lesson)) | pieces)
    report = check_lesson(lesson, sources)
    assert report.problem is None, report.problem
    failed = [(r.claim, r.message) for r in report.results if not r.passed]
    assert not failed, failed
