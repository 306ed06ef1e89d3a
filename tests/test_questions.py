"""The learner's own order of options (the same in Python and in the page's JavaScript), the saved
answers the page reads, and the questions in the lesson notebooks."""

from __future__ import annotations

import html
import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from labs.course.model import Option, Question, load_course
from labs.course.pages import ExampleCell, lesson_pages, page_pieces
from labs.course.questions import (
    FALLBACK_SEED,
    answer_view,
    ask_view,
    option_order,
    rank,
    reveal_view,
    shuffled,
)
from labs.frontends import notebook
from labs.frontends.notebook_files import notebook_contents

ROOT = Path(__file__).resolve().parent.parent
COURSE = load_course()
PAGES = lesson_pages()
QUESTIONS = [(f"{lesson.id}.{q.id}", q) for lesson in COURSE.lessons.values() for q in lesson.questions]
SEEDS = ["0123456789abcdef", "fedcba9876543210", "5eed5eed5eed5eed", "a1b2c3d4", FALLBACK_SEED]


def ids(question: Question) -> list[str]:
    return [option.id for option in question.options]


# --- the order ------------------------------------------------------------------------------------


def test_an_order_is_a_permutation_and_the_same_every_time() -> None:
    for seed in SEEDS:
        for key, question in QUESTIONS:
            order = option_order(seed, key, ids(question))
            assert sorted(order) == sorted(ids(question))
            assert order == option_order(seed, key, ids(question))


def test_for_one_learner_the_right_answer_moves_around() -> None:
    for seed in SEEDS:
        places = Counter(option_order(seed, key, ids(q)).index(q.answer) for key, q in QUESTIONS)
        assert places[0] < len(QUESTIONS) * 0.6, (seed, places)  # the course lists it first 45 times of 46
        assert len(places) >= 3, (seed, places)


def test_two_learners_see_different_orders() -> None:
    for one, other in itertools.pairwise(SEEDS):
        differ = [key for key, q in QUESTIONS if option_order(one, key, ids(q)) != option_order(other, key, ids(q))]
        assert len(differ) > len(QUESTIONS) // 2, (one, other, differ)


def test_questions_with_the_same_option_ids_are_ordered_independently() -> None:
    option_ids = ["a", "b", "c", "d"]
    orders = {tuple(option_order("0123456789abcdef", f"L99.q{n}", option_ids)) for n in range(40)}
    assert len(orders) >= 12  # of the 24 orders of four options


def test_every_place_is_about_equally_likely() -> None:
    counts: Counter[int] = Counter()
    for n in range(3000):
        seed = f"{n * 2654435761 % 2**32:08x}"
        counts[option_order(seed, "L10.bfs", ["four", "twentyeight", "thirtytwo"]).index("four")] += 1
    assert all(850 < counts[place] < 1150 for place in range(3)), counts


def test_the_hash_is_fnv_1a_then_murmurs_finaliser() -> None:
    def fmix(value: int) -> int:
        value ^= value >> 16
        value = value * 0x85EBCA6B % 2**32
        value ^= value >> 13
        value = value * 0xC2B2AE35 % 2**32
        return value ^ (value >> 16)

    assert rank("") == fmix(0x811C9DC5)
    assert rank("a") == fmix((0x811C9DC5 ^ 0x61) * 0x01000193 % 2**32)  # FNV-1a("a") is 0xe40c292c
    assert (0x811C9DC5 ^ 0x61) * 0x01000193 % 2**32 == 0xE40C292C
    assert rank("é") != rank("e")  # UTF-8 bytes, not code points cut to one byte


# The page's JavaScript orders options and reads saved answers as this: web/test/order.test.mjs and
# web/test/saved-answers.test.mjs, run by node, hold it to labs/course/questions.py.


# --- the notebook's questions -------------------------------------------------------------------------


CONTENTS = notebook_contents(COURSE, PAGES)


def source(cell: dict) -> str:
    return "".join(cell["source"])


@pytest.mark.parametrize("lesson_id", [lesson.id for lesson in COURSE.lessons.values() if lesson.gaps])
def test_a_notebook_asks_every_question_of_its_page_in_the_pages_order(lesson_id: str) -> None:
    book = json.loads(CONTENTS[f"{lesson_id}.ipynb"])
    codes = [source(cell) for cell in book["cells"] if cell["cell_type"] == "code"]
    expected = []
    for piece in page_pieces(PAGES[lesson_id]):
        if isinstance(piece, ExampleCell):
            expected.append(piece.code)
        else:
            expected += [f"ask({piece.key!r})", f"answer({piece.key!r}, '')"]
    shown = [code.split("  #")[0] if code.startswith("answer(") else code for code in codes[1:-2]]
    assert shown == expected
    assert sorted(code for code in shown if code.startswith("ask(")) == sorted(
        f"ask('{lesson_id}.{q.id}')" for q in COURSE.lesson(lesson_id).questions)
    for index, cell in enumerate(book["cells"]):
        if source(cell).startswith("ask("):
            prompt = dict(QUESTIONS)[source(cell)[5:-2]].prompt
            before = source(book["cells"][index - 1])
            assert before.startswith("#### Question") and f"<p>{html.escape(prompt, quote=False)}</p>" in before


def test_a_question_s_prompt_is_escaped_in_its_markdown_cell() -> None:
    book = json.loads(CONTENTS["L10.ipynb"])
    cells = [source(cell) for cell in book["cells"]]
    at = cells.index("ask('L10.bfs')")
    assert "<p>On the trap graph (w = 2; x = w*w;" in cells[at - 1]  # an HTML block: * makes no emphasis
    assert "node's _backward" in cells[at - 1]


class Printed:
    """What the notebook's question functions printed (outside a notebook they print their plain text)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self) -> str:
        return self.capsys.readouterr().out


@pytest.fixture
def drive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A notebook drive (the kernel's working folder) holding the learner's seed, as the hand-over writes it."""
    (tmp_path / "ember").mkdir()
    (tmp_path / "ember" / ".learner.json").write_text('{"seed": "0123456789abcdef"}\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(notebook._state, "folder", None)
    return tmp_path


def test_ask_lists_the_options_in_the_learners_order(drive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = Printed(capsys)
    question = dict(QUESTIONS)["L10.bfs"]
    notebook.ask("L10.bfs")
    lines = printed().splitlines()
    order = option_order("0123456789abcdef", "L10.bfs", ids(question))
    texts = {option.id: option.text for option in question.options}
    assert lines[:3] == [f"{letter}. {texts[option_id]}" for letter, option_id in zip("abc", order)]
    assert "answer('L10.bfs', 'a')" in lines[4] and "default order" not in "\n".join(lines)


def test_without_a_handed_over_seed_ask_uses_the_fallback_and_says_so(drive: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    printed = Printed(capsys)
    question = dict(QUESTIONS)["L10.bfs"]
    texts = {option.id: option.text for option in question.options}
    fallback = [f"{letter}. {texts[option_id]}"
                for letter, option_id in zip("abc", option_order(FALLBACK_SEED, "L10.bfs", ids(question)))]
    for content in (None, '{"seed": 5}', "not json", '["0123456789abcdef"]'):
        seed_file = drive / "ember" / ".learner.json"
        if content is None:
            seed_file.unlink(missing_ok=True)
        else:
            seed_file.write_text(content)
        notebook.ask("L10.bfs")
        text = printed()
        assert text.splitlines()[:3] == fallback, content
        assert "course's default order" in text and "Open as notebook" in text


def letter_of(option_id: str, key: str, seed: str = "0123456789abcdef") -> str:
    return "abcdefgh"[option_order(seed, key, ids(dict(QUESTIONS)[key])).index(option_id)]


def test_a_wrong_answer_gives_that_options_feedback_only(drive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = Printed(capsys)
    question = dict(QUESTIONS)["L10.bfs"]
    for option in question.options:
        if option.id == question.answer:
            continue
        notebook.answer("L10.bfs", letter_of(option.id, "L10.bfs"))
        text = printed()
        assert text.startswith(f"Not quite. {option.feedback}")
        assert question.explain not in text
        assert all(other.feedback not in text for other in question.options if other is not option)
        assert "show_answer('L10.bfs')" in text


def test_the_right_answer_by_letter_or_text_gives_right_and_the_explanation(
        drive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = Printed(capsys)
    question = dict(QUESTIONS)["L10.bfs"]
    right = next(option for option in question.options if option.id == question.answer)
    for choice in (letter_of(right.id, "L10.bfs"), letter_of(right.id, "L10.bfs").upper() + ")", f" {right.text} "):
        notebook.answer("L10.bfs", choice)
        assert printed() == f"Right. {right.feedback}\n{question.explain}\n", choice


def test_an_answer_that_names_no_option_says_how_to_answer(drive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = Printed(capsys)
    notebook.answer("L10.bfs", "")
    assert printed().startswith("Put a letter (a, b or c) or an option's text between the quotes: answer('L10.bfs'")
    notebook.answer("L10.bfs", "z")
    assert printed().startswith("'z' is none of the options.")
    notebook.ask("L10.nope")
    assert "there is no question 'L10.nope'" in printed()


def test_show_answer_names_the_right_option_by_its_letter(drive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = Printed(capsys)
    question = dict(QUESTIONS)["L10.bfs"]
    right = next(option for option in question.options if option.id == question.answer)
    notebook.show_answer("L10.bfs")
    assert printed() == (f"The answer is {letter_of(right.id, 'L10.bfs')}: {right.text}. {right.feedback}\n"
                         f"{question.explain}\n")


def test_after_start_the_seed_is_read_from_the_engines_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "copy"
    (copy / "ember").mkdir(parents=True)
    (copy / "ember" / ".learner.json").write_text('{"seed": "fedcba9876543210"}')
    monkeypatch.chdir(tmp_path)  # no seed in the working folder: the fallback copy holds it
    monkeypatch.setitem(notebook._state, "folder", copy)
    assert notebook.learner_seed() == ("fedcba9876543210", True)


HOSTILE = Question("q", "<b>prompt</b>", (
    Option("x", "<script>alert(1)</script>", "feedback & <i>more</i>"),
    Option("y", 'say "hi"', "<img src=x onerror=alert(1)>"),
), "y", "explain <u>this</u>")


def test_every_text_of_a_question_is_escaped_in_the_notebooks_html() -> None:
    pieces = [ask_view(HOSTILE, "L99.q", "0123456789abcdef", False).html,
              *(answer_view(HOSTILE, "L99.q", "0123456789abcdef", choice).html for choice in ("a", "b", "<nope>")),
              reveal_view(HOSTILE, "L99.q", "0123456789abcdef").html]
    joined = "".join(pieces)
    for raw in ("<script>", "<i>", "<img", "<u>", "<nope>", '"hi"'):
        assert raw not in joined
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pieces[0]
    assert [o.id for o in shuffled(HOSTILE, "L99.q", "0123456789abcdef")] == option_order(
        "0123456789abcdef", "L99.q", ["x", "y"])
