"""The multiple-choice questions outside the lesson page: the learner's order of options, and the notebook's words.

Every learner sees a question's options in an order of their own, made from a seed the lesson page
keeps with their saved work (``web/src/base/order.js`` is the same algorithm): each option gets a rank, the
32-bit FNV-1a hash of the UTF-8 bytes of ``"<seed>:<question>:<option>"`` (question as ``L10.bfs``,
option by its id) passed through MurmurHash3's 32-bit finaliser, and options are listed by rank,
smallest first; equal ranks keep the course's order.

The notebook shows the options lettered a, b, c, ... in that order; an answer is a letter or an
option's text. A wrong answer earns that option's feedback only; the right one earns "Right.", its
feedback and the question's explanation. Every text is escaped in the HTML made here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from labs.course.gaps import lesson_of
from labs.course.model import Course, CourseError, Option, Question

SEED_PATTERN = re.compile(r"[0-9a-f]{8,64}")  # a learner seed: lower-case hex, 8 to 64 digits
FALLBACK_SEED = "00000000"  # for a learner without a seed of their own (as order.js)
LETTERS = "abcdefghijklmnopqrstuvwxyz"
MASK = 0xFFFFFFFF
PASS, FAIL = "#2e7d32", "#c62828"  # the page's colours for right and not quite


def rank(text: str) -> int:
    """FNV-1a (32 bits) of a text's UTF-8 bytes, finished with MurmurHash3's fmix32."""
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & MASK
    value ^= value >> 16
    value = (value * 0x85EBCA6B) & MASK
    value ^= value >> 13
    value = (value * 0xC2B2AE35) & MASK
    value ^= value >> 16
    return value


def option_order(seed: str, key: str, ids: list[str]) -> list[str]:
    """The option ids of question ``key`` ('L10.bfs') in the order learner ``seed`` sees them."""
    ranked = sorted(enumerate(ids), key=lambda pair: (rank(f"{seed}:{key}:{pair[1]}"), pair[0]))
    return [option_id for _, option_id in ranked]


def is_seed(value: object) -> bool:
    """Whether a value is a learner seed as the page makes and keeps them."""
    return isinstance(value, str) and SEED_PATTERN.fullmatch(value) is not None


def find_question(course: Course, key: str) -> Question:
    """The question named ``key`` ('L10.bfs'); a CourseError names what is unknown."""
    lesson_id = lesson_of(key)
    question_id = key[len(lesson_id) + 1:]
    lesson = course.lessons.get(lesson_id)
    question = next((q for q in lesson.questions if q.id == question_id), None) if lesson else None
    if question is None:
        raise CourseError(f"there is no question {key!r}; questions are named like 'L10.bfs'")
    return question


def shuffled(question: Question, key: str, seed: str) -> list[Option]:
    """A question's options in the learner's order."""
    by_id = {option.id: option for option in question.options}
    return [by_id[option_id] for option_id in option_order(seed, key, list(by_id))]


@dataclass(frozen=True)
class Shown:
    """What the notebook shows: the same words as HTML (every text escaped) and as plain text."""

    html: str
    text: str


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _letters(count: int) -> str:
    """'a or b', 'a, b or c', ..."""
    letters = list(LETTERS[:count])
    return f"{', '.join(letters[:-1])} or {letters[-1]}"


def ask_view(question: Question, key: str, seed: str, own_seed: bool) -> Shown:
    """A question's options, lettered in the learner's order, and how to answer."""
    options = shuffled(question, key, seed)
    how = (f"Answer with answer('{key}', 'a'): a letter ({_letters(len(options))}) or the option's text. "
           f"To see the answer, show_answer('{key}').")
    note = "" if own_seed else (
        "These options are in the course's default order: open this notebook from the lesson page's "
        "Open as notebook button to see them in the order your page shows them.")
    items = "".join(f"<li><strong>{LETTERS[i]}.</strong> {_e(option.text)}</li>" for i, option in enumerate(options))
    page = (f'<div class="ember-ask" data-question="{_e(key)}"><ul style="list-style:none;padding-left:0.5em">'
            f"{items}</ul><p>{_e(how)}</p>{f'<p><em>{_e(note)}</em></p>' if note else ''}</div>")
    lines = [f"{LETTERS[i]}. {option.text}" for i, option in enumerate(options)]
    return Shown(page, "\n".join([*lines, "", how, *([note] if note else [])]))


def pick(question: Question, key: str, seed: str, choice: str) -> Option | None:
    """The option a learner's choice names: its letter in their order (case and a trailing ')' or '.'
    do not matter), or its text; None when it names none."""
    options = shuffled(question, key, seed)
    said = choice.strip()
    letter = said.rstrip(").").strip().lower()
    if len(letter) == 1 and letter in LETTERS[: len(options)]:
        return options[LETTERS.index(letter)]
    return next((option for option in options if option.text.strip().lower() == said.lower()), None)


def _verdict(right: bool, words: str, explain: str | None, colour: str, key: str) -> Shown:
    """One answer's verdict and feedback (and the explanation, once it is earned)."""
    lead = "Right." if right else "Not quite."
    after = "" if explain is not None else f"Try another option, or show_answer('{key}')."
    page = (f'<div class="ember-answer" data-verdict="{"right" if right else "wrong"}" '
            f'style="border-left:4px solid {colour};padding-left:0.6em">'
            f"<p><strong>{lead}</strong> {_e(words)}</p>"
            + (f"<p><em>{_e(explain)}</em></p>" if explain is not None else f"<p>{_e(after)}</p>") + "</div>")
    text = "\n".join([f"{lead} {words}", explain if explain is not None else after])
    return Shown(page, text)


def answer_view(question: Question, key: str, seed: str, choice: str) -> Shown:
    """The verdict on a learner's choice: a wrong option's feedback only, or 'Right.' with the explanation."""
    option = pick(question, key, seed, choice)
    if option is None:
        words = (f"Put a letter ({_letters(len(question.options))}) or an option's text between the quotes: "
                 f"answer('{key}', 'a'). Run ask('{key}') to see the options.")
        if choice.strip():
            words = f"{choice.strip()!r} is none of the options. " + words
        return Shown(f"<p>{_e(words)}</p>", words)
    if option.id == question.answer:
        return _verdict(True, option.feedback, question.explain, PASS, key)
    return _verdict(False, option.feedback, None, FAIL, key)


def reveal_view(question: Question, key: str, seed: str) -> Shown:
    """The right option, with its letter in the learner's order, its feedback and the explanation."""
    options = shuffled(question, key, seed)
    at = next(i for i, option in enumerate(options) if option.id == question.answer)
    right = options[at]
    lead = f"The answer is {LETTERS[at]}: {right.text}."
    page = (f'<div class="ember-answer" data-verdict="shown" style="border-left:4px solid {PASS};padding-left:0.6em">'
            f"<p><strong>{_e(lead)}</strong> {_e(right.feedback)}</p><p><em>{_e(question.explain)}</em></p></div>")
    return Shown(page, "\n".join([f"{lead} {right.feedback}", question.explain]))
