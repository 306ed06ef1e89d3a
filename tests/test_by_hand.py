"""labs/checking/by_hand.py: a tensor graph walked through its rules alone, and the habits it names."""

from __future__ import annotations

from ember.tensor import Tensor
from labs.checking.by_hand import kept_by_a_cycle, kept_row, lazy_form, walk_by_hand


def test_a_walk_by_hand_adds_the_shares_of_a_leaf_used_twice_and_leaves_every_grad_as_it_was() -> None:
    w = Tensor([[1.0, 2.0], [3.0, 4.0]])
    w.grad = [0.5, 0.5, 0.5, 0.5]
    loss = (w.rows([1, 1]).sum() + w.rows([0]).sum()) * 2.0
    walk = walk_by_hand(loss, [1.0])
    assert walk.of(w) == [2.0, 2.0, 4.0, 4.0]
    assert walk.written == []
    assert w.grad == [0.5, 0.5, 0.5, 0.5] and loss.grad == [0.0]


def test_a_rule_that_writes_a_grad_itself_is_caught_in_the_graph_and_on_a_watched_leaf_outside_it() -> None:
    w = Tensor([[1.0, 2.0]])
    picked = w.rows([0])

    def writes_the_parent(out: Tensor) -> tuple[list[float], ...]:
        picked.grad = [7.0, 7.0]
        return ([0.0, 0.0],)
    loss = Tensor.made([3.0], (), (picked,), "writer", writes_the_parent)
    ((writer, written),) = walk_by_hand(loss, [1.0]).written
    assert writer is loss and written is picked

    copy = Tensor([[1.0, 2.0]])  # W's numbers, not W: the graph never reaches W

    def writes_w(out: Tensor) -> tuple[list[float], ...]:
        w.grad = [1.0, 1.0]
        return ([0.0, 0.0],)
    loss = Tensor.made([3.0], (), (copy,), "writer", writes_w)
    assert walk_by_hand(loss, [1.0]).written == []  # unwatched: not seen, and not put back
    assert w.grad == [1.0, 1.0]
    w.grad = [0.0, 0.0]
    ((_, written),) = walk_by_hand(loss, [1.0], watched=(w,)).written
    assert written is w and w.grad == [0.0, 0.0]  # put back as it was


def test_a_result_kept_alive_by_its_own_rule_is_found_and_a_plain_one_is_not() -> None:
    def plain() -> Tensor:
        return Tensor([1.0, 2.0]).sum()

    def closure() -> Tensor:
        x = Tensor([1.0, 2.0])
        out = Tensor.made([3.0], (), (x,), "sum", lambda _: ([out.grad[0]] * 2,))
        return out
    assert kept_by_a_cycle(plain) is None
    assert kept_by_a_cycle(closure) == 0
    assert kept_by_a_cycle(plain, plain, closure) == 2


def test_generators_and_one_row_lists_are_named() -> None:
    assert lazy_form(x for x in [1.0]) == "a generator"
    assert lazy_form(((x for x in [1.0]),)) == "a tuple holding a generator"
    assert lazy_form(([1.0],)) is None
    probs = [0.5, 0.5]

    def rule(out: object) -> object:
        return probs
    assert kept_row(rule, rows=3, width=2) == 2
    assert kept_row(rule, rows=1, width=2) is None
    assert kept_row(rule, rows=3, width=4) is None
