"""Correct pieces written differently from the finished ones: each must pass every claim of its lab."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from labs.course import Course, lesson_number
from labs.learner import finished_pieces, module_sources

VARIANT_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Variant:
    """A correct piece for one or more gaps, and the lab (the file's lesson) it must pass."""

    name: str
    lesson: str
    pieces: dict[str, str]


def load_variants() -> list[Variant]:
    """Every variant of every tests/variants/Lnn.toml, in file order; a file's lesson is its name."""
    variants = []
    for path in sorted(VARIANT_DIR.glob("L*.toml")):
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        variants += [Variant(raw["name"], path.stem, dict(raw["pieces"])) for raw in table.get("variants", [])]
    return variants


def variant_sources(course: Course, variant: Variant) -> dict[str, str]:
    """The modules as the variant's lab starts, every piece finished except the variant's."""
    pieces = finished_pieces(course, lesson_number(variant.lesson)) | variant.pieces
    return module_sources(course, variant.lesson, pieces)


VARIANTS = load_variants()
