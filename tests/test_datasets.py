"""The names data set: read through labs.course.datasets, it is the file lesson 18 describes."""

from __future__ import annotations

import math
from itertools import pairwise

from labs.course.datasets import NAMES, NAMES_LICENSE, names_license, names_text


def test_names_text_is_the_file_beside_the_package_byte_for_byte() -> None:
    text = names_text()
    assert text == NAMES.read_bytes()
    assert NAMES.parent.name == "data" and NAMES.parent.parent.name == "labs"
    names = text.decode("ascii").split("\n")
    assert len(names) == 32_033 and all(names)
    assert len(text) - 1 == 228_144


def test_the_licence_ships_beside_the_data() -> None:
    assert NAMES_LICENSE.parent == NAMES.parent
    assert names_license().startswith("MIT License") and "Andrej Karpathy" in names_license()


def test_the_count_models_losses_are_the_ones_the_course_states() -> None:
    counts: dict[tuple[int, int], int] = {}
    for pair in pairwise(names_text()):
        counts[pair] = counts.get(pair, 0) + 1
    totals: dict[int, int] = {}
    for (a, _), c in counts.items():
        totals[a] = totals.get(a, 0) + c
    pairs = sum(counts.values())

    def loss(s: float) -> float:
        return -sum(c * math.log((c + s) / (totals[a] + 256 * s)) for (a, _), c in counts.items()) / pairs

    assert round(loss(1.0), 4) == 2.4802 and round(loss(0.0), 4) == 2.4540
