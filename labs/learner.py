"""The learner's modules: build them as a lab starts, and read the pieces back out."""

from __future__ import annotations

from .course import Course, CourseError
from .gaps import fill_gaps, find_gaps, same_piece

Pieces = dict[str, str]  # gap id -> the learner's body for that gap


def module_sources(course: Course, lab: str, pieces: Pieces, finished_earlier: bool = False) -> dict[str, str]:
    """Every module file (name -> source) as lab ``lab`` starts.

    Gaps of earlier lessons hold the learner's pieces (or, with
    ``finished_earlier``, the finished ones where the learner wrote none); this
    lesson's gaps hold the learner's work so far or their starters; later gaps
    hold their starters.
    """
    number = course.lesson(lab).number
    sources = {}
    for file_name, reference in course.reference.items():
        bodies = {}
        for gap in find_gaps(reference):
            region = course.regions[gap.id]
            bodies[gap.id] = region.content_at(number, pieces, finished_earlier)
        sources[file_name] = fill_gaps(reference, bodies)
    return sources


def read_pieces(course: Course, source: str) -> Pieces:
    """The learner's pieces in a module's source: every gap that no longer holds its region's starter."""
    pieces: Pieces = {}
    for gap in find_gaps(source):
        if gap.id not in course.regions:
            raise CourseError(f"the file marks a gap {gap.id} that the course does not have")
        if not same_piece(gap.body, course.regions[gap.id].starter):
            pieces[gap.id] = gap.body
    return pieces


def finished_pieces(course: Course, up_to: int) -> Pieces:
    """The finished piece of every gap of lessons up to and including ``up_to``."""
    return {gap_id: gap.finished for gap_id, gap in course.gaps.items() if gap.number <= up_to}


def starter_gaps(course: Course, source: str) -> set[str]:
    """Ids of the gaps in ``source`` that still hold their region's starter."""
    return {
        gap.id for gap in find_gaps(source)
        if gap.id in course.regions and same_piece(gap.body, course.regions[gap.id].starter)
    }
