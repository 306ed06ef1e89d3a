"""Correct pieces in shapes other than the finished ones pass every claim of their lab."""

from __future__ import annotations

import pytest

from labs.checking.pipeline import check_lesson
from labs.course.model import load_course
from tests.also_right import VARIANTS, Variant, variant_sources

COURSE = load_course()


def test_there_are_variants_for_every_lesson_with_a_file() -> None:
    assert VARIANTS
    assert all(variant.pieces for variant in VARIANTS)
    for variant in VARIANTS:
        assert all(gap_id in COURSE.gaps for gap_id in variant.pieces), variant.name


@pytest.mark.parametrize("variant", VARIANTS, ids=[f"{v.lesson}: {v.name}" for v in VARIANTS])
def test_a_correct_piece_in_another_shape_passes_every_claim_of_its_lab(variant: Variant) -> None:
    report = check_lesson(variant.lesson, variant_sources(COURSE, variant), course=COURSE)
    failed = [(r.claim, r.message) for r in report.results if not r.passed]
    assert report.problem is None and not failed, (report.problem, failed)
