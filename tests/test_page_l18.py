"""Lesson 18's page: the learner's pair_loss is held against the spelled-out loss before training runs on it, and
the page's words say what its runs show and whose code each piece is."""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path

import pytest

from labs.checking.learner import finished_pieces
from labs.course.model import load_course
from labs.showing.render import render
from tests.known_wrong import MUTANTS
from tests.pages_kit import PAGES, group_of, learner_session, page_outputs, position, text_of

pytestmark = pytest.mark.xdist_group("page-cells")  # they share page_outputs

COURSE = load_course()
LAB = "```ember-lab\nL18\n```"
GAP_NAMES = ("count_pairs(", "count_loss(", "pair_loss(", "sample(")


def cells() -> list[str]:
    return re.findall(r"```ember-cell\n(.*?)```", PAGES["L18"].read_text(), re.DOTALL)


def cell_index(needle: str) -> int:
    (index,) = [i for i, code in enumerate(cells()) if needle in code]
    return index


def tables(outputs: list[dict]) -> list[dict]:
    return [item for item in outputs if item["kind"] == "table"]


def test_pair_loss_is_held_against_the_spelled_out_loss_before_the_training_uses_it() -> None:
    spelled = cell_index("spelled_w.rows(firsts).cross_entropy(nexts)")
    training = cell_index('key="loss"')
    assert spelled < training
    assert all("pair_loss(" not in code for code in cells()[:spelled])
    assert position("L18", LAB) < position("L18", "spelled_w.rows(firsts)")


def test_the_page_says_which_pieces_are_the_course_s_and_no_more_is_claimed_for_the_learner() -> None:
    text = PAGES["L18"].read_text()
    assert "Every piece of this model is yours" not in text
    assert "whole trick" not in text
    assert "`train(W, loss_of, steps, lr, each)` in the same file is the course's code" in text
    assert "The course gave the rest: the `Tensor`\nconstructor and `Tensor.made`" in text
    assert "L18.pair_loss" in [getattr(gap, "id", gap) for gap in COURSE.lesson("L18").gaps]


def test_the_pages_words_match_what_its_cells_print_and_show() -> None:
    outputs = page_outputs("L18")
    # the two losses agree "to the last few digits, in the loss and in every one of the 65,536 numbers"
    spelled = outputs[cell_index("spelled_w.rows(firsts)")]
    printed = text_of(spelled)
    assert float(group_of(r"loss difference: (\S+)", printed)) < 1e-12
    assert float(group_of(r"gradients of W: (\S+)", printed)) < 1e-12
    assert int(group_of(r"row a is picked (\d+) times", printed)) > 1  # rows() sees a repeated row
    (table,) = tables(spelled)
    assert table["rows"][0][1:] == ["27", "1999"]
    assert table["rows"][1][1] == table["rows"][1][2] and table["rows"][2][1] == table["rows"][2][2]
    # training reaches the target line with the finished pieces, at learning rate 70, in about 141 steps
    training = text_of(outputs[cell_index('key="loss"')])
    step = int(group_of(r"step (\d+): loss \S+, at the target", training))
    assert 120 <= step <= 160
    assert "disagree" not in training and "W's loss now: " in training
    # the absurd learning rate stops with W back at weights whose loss was finite
    too_big = text_of(outputs[cell_index("first_steps(1e305)")])
    assert "learning rate 1e+305: step 3: the loss is inf" in too_big
    assert "W is back at the weights of step 2, whose loss was" in too_big


def test_a_name_in_a_table_is_text_aligned_left_even_when_it_reads_like_a_number() -> None:
    html = render({"kind": "table", "title": "", "headers": ["name"], "rows": [["e"], ["ee"], ["ele"], ["2.5"]]})
    assert "<td>e</td>" in html and "<td>ee</td>" in html and "<td>ele</td>" in html
    assert '<td class="hx-num">2.5</td>' in html


def test_the_step_never_moves_a_weight_by_more_than_the_learning_rate() -> None:
    """The page: an entry of the gradient is never larger than 1 in size."""
    from ember.bigram import count_pairs, pair_loss
    from ember.tensor import Tensor
    from labs.course.datasets import names_text

    counts = count_pairs(names_text())
    w = Tensor([[(a * 7 + b * 13) % 11 - 5.0 for b in range(256)] for a in range(256)])
    pair_loss(w, counts).backward()
    assert 0.0 < max(abs(g) for g in w.grad) <= 1.0


def test_the_first_loss_is_ln_256() -> None:
    from ember.bigram import count_pairs, pair_loss
    from ember.tensor import Tensor

    w = Tensor([[0.0] * 256 for _ in range(256)])
    assert pair_loss(w, count_pairs(b"emma\nava\n")).item() == pytest.approx(math.log(256))


def training_text(pieces: dict[str, str]) -> str:
    """What the training cell prints on these pieces, after the cells it builds on (the data, the counts)."""
    page = PAGES["L18"]
    needed = [cell_index("names_text()\nnames ="), cell_index("counts = count_pairs(text)"), cell_index('key="loss"')]
    with tempfile.TemporaryDirectory(prefix="ember-page-") as folder, learner_session(Path(folder)) as session:
        for index in needed:
            result = json.loads(session.handle("run", json.dumps(
                {"page": page.name, "lab": "L18", "pieces": pieces, "code": cells()[index]})))
            assert result["error"] is None, result["error"]
    return text_of(result["outputs"])


def test_a_pair_loss_that_says_too_little_never_gets_the_training_cell_to_say_at_the_target() -> None:
    """A pair_loss whose value counts each row's logsumexp once reaches the target line at once by its own numbers;
    the cell reports W's loss by the course's arithmetic, far above the target, and says that the two disagree."""
    (mutant,) = [m for m in MUTANTS if m.name == "pair_loss that counts the logsumexp of a row once"]
    pieces = finished_pieces(COURSE, COURSE.lesson("L18").number) | mutant.pieces
    printed = training_text(pieces)
    assert "at the target" not in printed
    assert "below the target line, but W's loss is above the target" in printed
    true = float(group_of(r"W's loss now: (\S+) by the course's own arithmetic", printed))
    yours = float(group_of(r"your pair_loss says (\S+): they disagree", printed))
    assert true > 4.0 and yours < true - 1.0


def test_the_course_s_own_loss_of_w_is_the_finished_pair_loss() -> None:
    from ember.bigram import count_pairs, pair_loss
    from ember.tensor import Tensor
    from labs.showing.truth import bigram_loss, same_loss

    counts = count_pairs(b"emma\nolivia\nava\nisabella\n")
    assert bigram_loss([0.0] * 256 * 256, counts) == pytest.approx(math.log(256), rel=1e-12)
    scores = [[((a * 7 + b * 13) % 11 - 5.0) / 3 for b in range(256)] for a in range(256)]
    w = Tensor(scores)
    assert same_loss(pair_loss(w, counts).item(), bigram_loss(w.data, counts))
    assert not same_loss(pair_loss(w, counts).item() + 1e-3, bigram_loss(w.data, counts))
