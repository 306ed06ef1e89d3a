"""Correct pieces written differently from the finished ones: each must pass every claim of its lab."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from labs.checking.learner import finished_pieces, module_sources
from labs.course.model import Course, folder_lesson, lesson_folders, lesson_number

ALSO_RIGHT_FILE = "also_right.toml"  # in each lesson's folder


@dataclass(frozen=True)
class Variant:
    """A correct piece for one or more gaps, and the lab (the file's lesson) it must pass."""

    name: str
    lesson: str
    pieces: dict[str, str]


def load_variants() -> list[Variant]:
    """Every variant of every lesson folder's also_right.toml, in lesson order; its lesson is the folder's."""
    variants = []
    for folder in lesson_folders():
        path = folder / ALSO_RIGHT_FILE
        if not path.exists():
            continue
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        lesson = folder_lesson(folder)
        variants += [Variant(raw["name"], lesson, dict(raw["pieces"])) for raw in table.get("variants", [])]
    return variants


def variant_sources(course: Course, variant: Variant) -> dict[str, str]:
    """The modules as the variant's lab starts, every piece finished except the variant's."""
    pieces = finished_pieces(course, lesson_number(variant.lesson)) | variant.pieces
    return module_sources(course, variant.lesson, pieces)


VARIANTS = load_variants()


def variant_piece(lesson: str, name_start: str, gap_id: str) -> str:
    """The piece for ``gap_id`` of the one variant of ``lesson`` whose name starts with ``name_start``."""
    (variant,) = [v for v in VARIANTS if v.lesson == lesson and v.name.startswith(name_start)]
    return variant.pieces[gap_id]


# A correct backward() in PyTorch's way (Kahn's algorithm): it calls a leaf's step between other nodes' steps.
KAHN_BACKWARD = variant_piece("L10", "Kahn's algorithm", "L10.backward")
