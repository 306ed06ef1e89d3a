"""Known-wrong pieces, from each lesson folder's known_wrong.toml: each breaks the claims it lists, as it says."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from labs.checking.learner import finished_pieces, module_sources
from labs.course.model import CHECKS_FILE, Course, lesson_folders, lesson_number, load_course

KNOWN_WRONG_FILE = "known_wrong.toml"  # in each lesson's folder, beside its checks.py


@dataclass(frozen=True)
class Mutant:
    """A wrong piece for one or more gaps, the (lesson, claim, message) triples it must trigger, and the
    words that the messages it triggers must use to name its fault."""

    name: str
    pieces: dict[str, str]
    breaks: tuple[tuple[str, str, str], ...]
    words: tuple[str, ...]


def _parse_break(text: str) -> tuple[str, str, str]:
    claim, key = text.split(":")
    lesson, claim_id = claim.split(".")
    return lesson, claim_id, key


def load_mutants() -> list[Mutant]:
    """Every mutant of every lesson folder's known_wrong.toml, in lesson order."""
    mutants = []
    for path in (folder / KNOWN_WRONG_FILE for folder in lesson_folders()):
        if not path.exists():
            continue
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        for raw in table["mutants"]:
            breaks = tuple(_parse_break(b) for b in raw["breaks"])
            mutants.append(Mutant(raw["name"], dict(raw["pieces"]), breaks, tuple(raw.get("words", ()))))
    return mutants


def mutant_sources(course: Course, mutant: Mutant, lesson: str) -> dict[str, str]:
    """The modules as ``lesson``'s lab starts, every piece finished except the mutant's."""
    pieces = finished_pieces(course, lesson_number(lesson)) | mutant.pieces
    return module_sources(course, lesson, pieces)


def times_the_code(lesson: str) -> bool:
    """Whether a lesson's claims time the learner's code: their verdicts may depend on how fast it runs."""
    source = (load_course(checks=False).lesson(lesson).folder / CHECKS_FILE).read_text(encoding="utf-8")
    return any(clock in source for clock in ("perf_counter", "monotonic", "time.time"))


def breaks_a_timed_lab(mutant: Mutant) -> bool:
    """Whether a mutant breaks a lab whose claims time the code: on a busy machine its "too slow" claim can
    end by the check's time limit instead of with its own message."""
    return any(times_the_code(lesson) for lesson, _, _ in mutant.breaks)


MUTANTS = load_mutants()
