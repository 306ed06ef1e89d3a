"""Part II as a teacher reads it: three-rung hints, feedback without a verdict, numbers from runs."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from labs.showing.display import reference_numbers
from tests.pages_kit import COURSE, PAGES, page_outputs, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs


@pytest.mark.parametrize("gap_id", sorted(COURSE.gaps))
def test_every_hint_ladder_has_three_rungs_the_middle_one_a_question(gap_id: str) -> None:
    hints = COURSE.gaps[gap_id].hints
    assert len(hints) >= 3
    assert "?" in hints[1], f"{gap_id}: the middle rung should ask a pointed question"


def test_no_feedback_starts_with_the_verdict_the_page_shows_itself() -> None:
    for lesson in COURSE.lessons.values():
        for question in lesson.questions:
            for option in question.options:
                assert not option.feedback.startswith(("Right", "Not quite")), (question.id, option.id)


# --- the pages: numbers that come from runs ---


@pytest.mark.parametrize("lesson", sorted(PAGES))
def test_every_page_draws_something_by_running_code(lesson: str) -> None:
    kinds = {item["kind"] for outputs in page_outputs(lesson) for item in outputs}
    assert kinds - {"stdout", "stderr"}, kinds


def test_lesson_10s_numbers_come_from_its_cells() -> None:
    outputs = page_outputs("L10")
    text = PAGES["L10"].read_text()
    assert "100 additions: 201 nodes in order" in text_of(outputs[1]) and "201 nodes" in text
    assert "RecursionError" in text_of(outputs[1])
    assert "nodes: 41, edges: 80" in text_of(outputs[3])
    assert "paths from the top to x: 1,099,511,627,776" in text_of(outputs[3])
    (walk,) = [item["trace"] for item in outputs[-1] if item["kind"] == "backward"]
    assert walk["source"] == "yours" and walk["seed"] == 1.0
    assert [e["share"] for e in walk["edges"] if e["input"] == "x"] == [1.0, 6.0]  # "x collects 1 + 6"
    assert [e["share"] for e in walk["edges"] if e["input"] == "w"] == [14.0, 14.0]  # "14 from each use"
    assert "x.grad = 7.0, w.grad = 28.0" in text_of(outputs[-1])
    assert "collects 1 from `c` and 6 through `e`, 7 in all" in text and "= 14\\) from each" in text


def test_lesson_13s_edge_counts_are_the_ones_its_cells_and_pytorch_give() -> None:
    outputs = page_outputs("L13")
    printed = "".join(text_of(o) for o in outputs)
    ember = re.search(r"fused: \d+ nodes, (\d+) backward edges\nspelled out: \d+ nodes, (\d+) backward edges", printed)
    assert ember, printed
    graphs = reference_numbers("pytorch_sigmoid")["graphs"]
    (edges,) = [q for q in COURSE.lesson("L13").questions if q.id == "edges"]
    options = {o.id: o.text for o in edges.options}
    assert options["ten_seventeen"] == f"{ember.group(1)} fused, {ember.group(2)} spelled out"
    assert options["eight_twelve"] == f"{graphs['fused']['edges']} fused, {graphs['spelled']['edges']} spelled out"
    assert f"PyTorch, spelled: {graphs['spelled']['edges']} edges" in printed
    assert "11 backward edges" not in PAGES["L13"].read_text()
    pair = [item for o in outputs for item in o if item["kind"] == "backward_pair"]
    assert pair and any(e["output"] == "1/d" for e in pair[0]["cards"][1]["trace"]["edges"])


def test_lesson_08_shows_all_eight_nodes_next_to_pytorch() -> None:
    outputs = page_outputs("L08")
    tables = [item for o in outputs for item in o if item["kind"] == "table"]
    (ledger,) = [item for item in tables if item["title"] == "Every node, next to PyTorch"]
    assert [row[0] for row in ledger["rows"]] == ["w", "x", "b", "y", "m", "a", "e", "L"]
    assert all(row[1] == row[2] and row[3] == row[4] for row in ledger["rows"])
    assert "nudging ran the whole loss 8 times for 4 inputs" in "".join(text_of(o) for o in outputs)


def test_lesson_11s_nudged_numbers_in_a_question_are_what_python_gives() -> None:
    prompt = {q.id: q.prompt for q in COURSE.lesson("L11").questions}["tiny_h"]

    def nudged(h: float) -> float:
        return ((2 + h) ** 3 - (2 - h) ** 3) / (2 * h)

    assert f"h = 1e-5 gives {nudged(1e-5):.10f}" in prompt
    assert f"h = 1e-12 it gives about {nudged(1e-12):.3f}" in prompt


@pytest.mark.parametrize("lesson", sorted(PAGES))
def test_the_page_states_the_lessons_own_title_question_time_and_what_it_builds_on(lesson: str) -> None:
    from site_hooks import ember_pages

    page = SimpleNamespace(meta={"lesson": lesson}, url=f"lessons/{PAGES[lesson].parent.name}/",
                           file=SimpleNamespace(src_uri=f"lessons/{PAGES[lesson].parent.name}.md"))
    text = PAGES[lesson].read_text()
    own = COURSE.lesson(lesson)
    body = text.split("---\n", 2)[2]
    assert not body.lstrip().startswith("# "), "the build writes the page's header; the page starts with its text"
    shown = ember_pages.on_page_markdown(body, page, None, None)
    header = shown[shown.index("# "):shown.index("\n\n", shown.index("**"))]
    stated = re.search(r"· about (\d+) minutes ·", header)
    assert stated and int(stated.group(1)) == own.minutes
    assert header.startswith(f"# {own.number:02d} · {own.title}\n") and f"**{own.question}**" in header
    assert all(COURSE.lesson(earlier).title in header for earlier in own.builds_on)
    if not own.builds_on:
        assert "first lesson" in header and "](L" not in header  # a link to a lesson names its page
