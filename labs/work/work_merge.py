"""Reading a work file (labs/work/work_file.py) into a learner's saved state: what it would change, and the changes.

A gap the file holds is ``new`` (the state has no code there), ``same``, or ``changed``; new and changed
gaps take the file's text (the state's text of a changed gap is answered under ``aside``), except gaps
named in ``keep_mine``. Gaps the file does not hold are kept.
An answer present on one side is taken as it is; on both, it keeps every option tried (the state's
first), whether the answer was shown, and was ever right on either side, with the last pick of the
side that picked right (else the state's). A lesson's progress keeps the better of the two (a lesson
done beats one not done, then more claims held in proportion, then the later run; a tie keeps the
state's). The seed is the file's when the state has none or has no answers yet (so options show in
the order the learner met them); ``last`` is the file's only where the state has none.

:func:`preview` says it lesson by lesson, :func:`merge` answers the changes (only what changes), and
:func:`merged_state` applies them to a state. ``state`` is the page's saved state as web/src/work/store.js
keeps it; everything in and out is plain data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from labs.course.gaps import lesson_of
from labs.course.model import Course
from labs.course.questions import is_seed
from labs.work.records import ever_right
from labs.work.work_file import State, WorkFile, state_table, state_texts


def _normal_answer(entry: dict[str, Any]) -> dict[str, Any]:
    """An answer with every field (an older entry's as the page reads it: whether it was ever right by the rule
    labs/data/work_records.json states for both sides)."""
    tried = entry.get("tried")
    right = ever_right(entry)
    if tried is None:
        tried = [] if entry["correct"] else [entry["option"]]
    return {"option": entry["option"], "correct": entry["correct"], "everCorrect": right, "tried": list(tried),
            "revealed": bool(entry.get("revealed"))}


def merge_answer(mine: dict[str, Any] | None, theirs: dict[str, Any]) -> dict[str, Any]:
    """One question's answer from both sides (see the module's docstring)."""
    if mine is None:
        return dict(theirs)
    a, b = _normal_answer(mine), _normal_answer(theirs)
    pick = b if b["correct"] and not a["correct"] else a
    return {"option": pick["option"], "correct": pick["correct"], "everCorrect": a["everCorrect"] or b["everCorrect"],
            "tried": a["tried"] + [option for option in b["tried"] if option not in a["tried"]],
            "revealed": a["revealed"] or b["revealed"]}


def _rank(entry: dict[str, Any]) -> tuple[bool, float, int, float]:
    passed, total = entry["passed"], entry["total"]
    return entry["done"], passed / total if total else 0.0, passed, entry.get("at") or 0


def better_progress(mine: dict[str, Any] | None, theirs: dict[str, Any]) -> dict[str, Any]:
    """One lesson's progress from both sides: the better (a tie keeps ``mine``)."""
    return dict(theirs) if mine is None or _rank(theirs) > _rank(mine) else mine


@dataclass(frozen=True)
class _Plan:
    """What reading a work file into a state does: each gap's, answer's and lesson's status, and what it takes."""

    mine: dict[str, str]  # the state's exact texts
    gaps: dict[str, str]  # gap id -> new | changed | same
    answers: dict[str, tuple[str, dict[str, Any]]]  # question -> (new | merged | kept, the merged answer)
    progress: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any]]]  # lesson -> (status, mine, merged)


def _plan(course: Course, state: State, work: WorkFile) -> _Plan:
    mine, _, _ = state_texts(course, state)
    gaps = {gap_id: "new" if gap_id not in mine else "same" if mine[gap_id] == text else "changed"
            for gap_id, text in work.pieces.items()}
    my_answers, my_progress = state_table(state, "answers"), state_table(state, "progress")
    answers = {}
    for key, entry in work.answers.items():
        before = my_answers.get(key)
        merged = merge_answer(before, entry)
        answers[key] = ("new" if before is None else "kept" if merged == _normal_answer(before) else "merged", merged)
    progress = {}
    for key, entry in work.progress.items():
        before = my_progress.get(key)
        better = better_progress(before, entry)
        progress[key] = ("new" if before is None else "kept" if better is before else "better", before, better)
    return _Plan(mine, gaps, answers, progress)


def merge(course: Course, state: State, work: WorkFile, keep_mine: Iterable[str] = ()) -> dict[str, Any]:
    """The changes that read ``work`` into ``state``: ``{pieces: {gap: {code, origin}}, aside: {gap: text},
    answers: {question: entry}, progress: {lesson: entry}, seed, last}`` (only what changes; ``seed`` and
    ``last`` are null to keep the state's)."""
    plan = _plan(course, state, work)
    taken = [gap_id for gap_id, status in plan.gaps.items() if status != "same" and gap_id not in set(keep_mine)]
    answered = bool(state_table(state, "answers"))
    take_seed = work.seed is not None and work.seed != state.get("seed") and (
        not is_seed(state.get("seed")) or not answered)
    return {
        "pieces": {gap_id: {"code": work.pieces[gap_id], "origin": work.origins.get(gap_id, "own")}
                   for gap_id in taken},
        "aside": {gap_id: plan.mine[gap_id] for gap_id in taken if plan.gaps[gap_id] == "changed"},
        "answers": {key: merged for key, (status, merged) in plan.answers.items() if status != "kept"},
        "progress": {key: merged for key, (status, _, merged) in plan.progress.items() if status != "kept"},
        "seed": work.seed if take_seed else None,
        "last": work.last if not isinstance(state.get("last"), str) else None,
    }


def merged_state(state: State, changes: dict[str, Any], version: str | None = None) -> State:
    """``state`` with the changes :func:`merge` answered (pieces saved as exact texts under ``version``)."""
    result: State = {"pieces": dict(state_table(state, "pieces")), "answers": dict(state_table(state, "answers")),
              "progress": dict(state_table(state, "progress")), "last": state.get("last"), "seed": state.get("seed")}
    for gap_id, piece in changes["pieces"].items():
        result["pieces"][gap_id] = {"code": piece["code"], "exact": True, "origin": piece["origin"],
                                    **({"version": version} if version else {})}
    result["answers"] |= changes["answers"]
    result["progress"] |= changes["progress"]
    for name in ("seed", "last"):
        if changes[name] is not None:
            result[name] = changes[name]
    return result


def preview(course: Course, state: State, work: WorkFile) -> dict[str, Any]:
    """What reading ``work`` into ``state`` would do, lesson by lesson, as plain data::

        {"course_version": "3f2a…" | null, "files": ["scalar.py", …], "notes": ["…"],
         "counts": {"new": 2, "changed": 1, "same": 20},
         "lessons": [{"lesson": "L10", "title": "…",
                      "gaps": [{"gap": "L10.backward", "status": "new" | "changed" | "same", "origin": "own"}],
                      "answers": [{"question": "L10.bfs", "status": "new" | "merged" | "kept"}],
                      "progress": {"status": "new" | "better" | "kept", "mine": {…} | null,
                                   "file": {…}, "merged": {…}} | null}]}

    Only lessons the file holds something for are listed, in the course's order.
    """
    plan = _plan(course, state, work)
    lessons = []
    for lesson in course.lessons.values():
        gaps = [{"gap": gap_id, "status": status, "origin": work.origins.get(gap_id, "own")}
                for gap_id, status in plan.gaps.items() if lesson_of(gap_id) == lesson.id]
        answers = [{"question": key, "status": status}
                   for key, (status, _) in plan.answers.items() if lesson_of(key) == lesson.id]
        progress = None
        if lesson.id in plan.progress:
            status, before, merged = plan.progress[lesson.id]
            progress = {"status": status, "mine": before, "file": work.progress[lesson.id], "merged": merged}
        if gaps or answers or progress:
            lessons.append({"lesson": lesson.id, "title": lesson.title, "gaps": gaps, "answers": answers,
                            "progress": progress})
    counts = {status: list(plan.gaps.values()).count(status) for status in ("new", "changed", "same")}
    return {"course_version": work.course_version, "files": list(work.files), "notes": list(work.notes),
            "counts": counts, "lessons": lessons}
