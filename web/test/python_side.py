"""What the course's Python answers, printed as one JSON object for the page's unit tests (web/test/*.test.mjs),
which hold the page's JavaScript to it: how an id names its lesson, and the learner's order of options."""

from __future__ import annotations

import json

from labs.course.gaps import lesson_of
from labs.course.model import Course, load_course
from labs.course.questions import FALLBACK_SEED, SEED_PATTERN, is_seed, option_order, rank

SEEDS = ["0123456789abcdef", "fedcba9876543210", "5eed5eed5eed5eed", "a1b2c3d4", FALLBACK_SEED]
EXTRA_CASES = [
    ("0123456789abcdef", "L99.ünïcode", ["α", "β", "γ", "δ"]),
    ("0123456789abcdef", "L99.tie", ["same", "same"]),  # equal ranks keep the course's order
]
RANKED = ["", "a", "é", "0123456789abcdef:L10.bfs:four"]
SEED_SAMPLES = ["0123456789abcdef", "ABCDEF01", "1234567", "12345678", "0x12345678", "", "zzzzzzzz", "a" * 64,
                "a" * 65]


def course_ids(course: Course) -> list[str]:
    """Every id of the course: gaps, lessons, claims and questions."""
    ids = [*course.gaps, *course.lessons]
    for lesson in course.lessons.values():
        ids += [claim.key for claim in lesson.claims] + [f"{lesson.id}.{q.id}" for q in lesson.questions]
    return ids


def facts(course: Course) -> dict[str, object]:
    """Python's answer to each question the unit tests put to the page's modules."""
    cases = [(seed, f"{lesson.id}.{q.id}", [option.id for option in q.options])
             for seed in SEEDS for lesson in course.lessons.values() for q in lesson.questions] + EXTRA_CASES
    return {
        "ids": [{"id": id_, "lesson": lesson_of(id_), "parts": list(id_.partition(".")[::2])}
                for id_ in course_ids(course)],
        "orders": [{"seed": seed, "key": key, "ids": ids, "order": option_order(seed, key, ids)}
                   for seed, key, ids in cases],
        "ranks": [{"text": text, "rank": rank(text)} for text in RANKED],
        "seeds": {"pattern": SEED_PATTERN.pattern, "fallback": FALLBACK_SEED,
                  "samples": [{"text": text, "isSeed": is_seed(text)} for text in SEED_SAMPLES]},
    }


if __name__ == "__main__":
    print(json.dumps(facts(load_course()), ensure_ascii=False))
