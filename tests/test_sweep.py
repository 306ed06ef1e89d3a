"""The contract sweeps' tools (labs/checking/sweep.py) and the finished pieces' arithmetic they compare with
(labs/checking/references.py), held to the finished pieces in ember/."""

from __future__ import annotations

import gc
import math
import random
from collections.abc import Sequence
from typing import Any

import pytest

from ember import shapes as finished_shapes
from ember.tensor import Tensor
from labs.checking import references, sweep
from labs.checking.claimkit import Fail
from labs.checking.oracle import size

INF, NAN = math.inf, math.nan
EDGES = (0.0, -0.0, sweep.TINY, INF, -INF, NAN)


def leaf(flat: list[float], shape: tuple[int, ...]) -> Tensor:
    out = Tensor.made(list(flat), shape, (), "", lambda _: ())
    out._backward = None  # a leaf: no rule
    return out


def grads(out: Tensor, seed: list[float]) -> list[list[float]]:
    out.grad = list(seed)
    assert out._backward is not None
    return [list(g) for g in out._backward(out)]


def test_numbers_compare_as_the_finished_piece_computes_them() -> None:
    assert sweep.same([NAN, INF, -INF, 1.0], [NAN, INF, -INF, 1.0 + 1e-12])
    assert not sweep.same([0.0], [NAN])
    assert not sweep.same([NAN], [0.0])
    assert not sweep.same([INF], [-INF])
    assert not sweep.same([1e308], [INF])
    assert not sweep.same([1.0, 2.0], [1.0])
    assert not sweep.same(["1.0"], [1.0]) and not sweep.same([True], [1.0])
    assert sweep.same([1], [1.0])
    assert not sweep.same(None, [1.0])
    assert sweep.same([-0.0], [0.0])


def test_the_words_name_an_inf_turned_into_nan_and_a_nan_hidden() -> None:
    assert "nan" in sweep.why_apart([NAN, 1.0], [INF, 1.0]) and "position 0" in sweep.why_apart([NAN], [INF])
    assert "hides" in sweep.why_apart([1.0, 0.0], [1.0, NAN]) and "position 1" in sweep.why_apart([1.0, 0.0],
                                                                                                   [1.0, NAN])
    assert "holds 1 number" in sweep.why_apart([1.0], [1.0, 2.0])


def test_the_smallest_failing_case_is_reported_whatever_the_order_it_came_in() -> None:
    cases = [sweep.Case("large", 9, 9), sweep.Case("ok", 1, 1), sweep.Case("small", 3, 3), sweep.Case("middle", 5, 5)]
    found = sweep.smallest_failing(cases, lambda c: sweep.Finding("differs") if c.data >= 3 else None)
    assert found is not None and found[0].shown == "small"
    assert sweep.smallest_failing(cases, lambda c: None) is None


def test_a_sweep_failure_names_the_gap_the_input_and_how_many_were_tried() -> None:
    cases = [sweep.Case(f"n = {n}", n, n) for n in (4, 2, 7)]
    with pytest.raises(Fail) as caught:
        sweep.fail_on_smallest("L99.gap", cases, lambda c: sweep.Finding("differs", {"got": c.data}))
    assert caught.value.key == "differs"
    assert caught.value.values == {"gap": "L99.gap", "tried": 3, "input": "n = 2", "got": 2}


class Node:
    def __init__(self) -> None:
        self.me: Any = None


def test_a_cycle_is_seen_with_the_collector_off_and_the_collector_is_left_as_it_was() -> None:
    def cycle() -> Node:
        node = Node()
        node.me = node
        return node

    assert gc.isenabled()
    assert sweep.freed_without_collector(Node)
    assert not sweep.freed_without_collector(cycle)
    assert gc.isenabled()
    gc.disable()
    try:
        assert sweep.freed_without_collector(Node)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_finished_result_is_freed_and_a_rule_that_holds_its_own_result_is_not() -> None:
    assert sweep.freed_without_collector(lambda: leaf([1.0, 2.0], (2,)).tanh())

    def holding() -> Tensor:
        x = leaf([1.0], (1,))
        out = Tensor.made([2.0], (1,), (x,), "held", lambda _: (list(out.grad),))
        return out

    assert not sweep.freed_without_collector(holding)


def test_the_checkers_walk_goes_through_nodes_a_piece_puts_between_a_result_and_its_inputs() -> None:
    a, b = leaf([1.0, 2.0], (2,)), leaf([3.0], (1,))
    stretched = Tensor.made([3.0, 3.0], (2,), (b,), "expand", lambda out: ([sum(out.grad)],))
    out = a * stretched
    ga, gb = sweep.grads_through(out, [1.0, 10.0], (a, b))
    assert ga == [3.0, 30.0] and gb == [21.0]


def test_a_callers_list_counts_as_changed_unless_it_holds_what_it_held() -> None:
    assert sweep.same_input([1, NAN, 2.0], [1, NAN, 2.0])
    assert not sweep.same_input([1, 2], [1, 2, 3])
    assert not sweep.same_input([0], [-1])


# --- the references are the finished pieces' arithmetic ------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_unbroadcast_and_binary_as_the_finished_pieces_compute_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        to = tuple(rng.choice((0, 1, 1, 2, 3)) for _ in range(rng.randint(0, 3)))
        shape = tuple(rng.choice((0, 1, 2)) for _ in range(rng.randint(0, 2))) + tuple(
            rng.choice((0, 1, 2, 3)) if n == 1 else n for n in to)
        grad = sweep.numbers(rng, size(shape), EDGES)
        assert sweep.same(references.unbroadcast(grad, shape, to), finished_shapes.unbroadcast(list(grad), shape, to))
        a, b = sweep.numbers(rng, size(shape), EDGES), sweep.numbers(rng, size(to), EDGES)
        upstream = sweep.numbers(rng, size(shape), EDGES)
        f, da, db = (lambda x, y: x * y), (lambda x, y: y), (lambda x, y: x)
        data, common, ga, gb = references.binary(a, shape, b, to, f, da, db, upstream)
        out = leaf(a, shape).binary(leaf(b, to), "*", f, da, db)
        assert common == out.shape and sweep.same(data, out.data)
        got_a, got_b = grads(out, upstream)
        assert sweep.same(ga, got_a) and sweep.same(gb, got_b)


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0), (2, 3), (3, 1, 2)])
def test_sum_along_an_axis_as_the_finished_piece_computes_it(shape: tuple[int, ...]) -> None:
    rng = random.Random(len(shape))
    for axis in [None, *range(-len(shape), len(shape))]:
        flat = sweep.numbers(rng, size(shape), (0.0, sweep.LARGE, sweep.TINY, INF, NAN))
        out_shape = references.summed_shape(shape, axis, False)
        seed = sweep.numbers(rng, size(out_shape), EDGES)
        data, grad = references.sum_along(flat, shape, axis, seed)
        out = leaf(flat, shape).sum(axis=axis)
        assert out.shape == out_shape and sweep.same(data, out.data)
        assert sweep.same(grad, grads(out, seed)[0])


@pytest.mark.parametrize("dims", [(1, 0, 1), (0, 2, 3), (2, 3, 0), (1, 1, 1), (2, 3, 4)])
def test_matmul_as_the_finished_piece_computes_it(dims: tuple[int, int, int]) -> None:
    n, k, m = dims
    rng = random.Random(n * 100 + k * 10 + m)
    a, b = sweep.numbers(rng, n * k, EDGES), sweep.numbers(rng, k * m, EDGES)
    seed = sweep.numbers(rng, n * m, EDGES)
    data, grad_a, grad_b = references.matmul(a, b, n, k, m, seed)
    out = leaf(a, (n, k)) @ leaf(b, (k, m))
    assert out.shape == (n, m) and sweep.same(data, out.data)
    got_a, got_b = grads(out, seed)
    assert sweep.same(grad_a, got_a) and sweep.same(grad_b, got_b)


@pytest.mark.parametrize("indices", [[], [0], [-1, 2, -1], [1, 1, 1], [3], [0, -4]])
def test_rows_as_the_finished_piece_computes_them_and_refuses_what_it_refuses(indices: list[int]) -> None:
    rng = random.Random(len(indices))
    table = sweep.numbers(rng, 6, EDGES)
    seed = sweep.numbers(rng, 2 * len(indices), EDGES)
    expected = references.rows(table, 3, 2, indices, seed)
    if isinstance(expected, references.Refused):
        with pytest.raises(IndexError):
            leaf(table, (3, 2)).rows(indices)
        return
    out = leaf(table, (3, 2)).rows(indices)
    assert sweep.same(expected[0], out.data) and sweep.same(expected[1], grads(out, seed)[0])


@pytest.mark.parametrize("targets", [[0, 2], [1, 1], [3, 0], [0], [0, -4]])
def test_cross_entropy_as_the_finished_piece_computes_it(targets: list[int]) -> None:
    logits = [700.0, -INF, 0.5, sweep.TINY, -700.0, 2.0]
    expected = references.cross_entropy(logits, 2, 3, targets, 2.5)
    if isinstance(expected, references.Refused):
        with pytest.raises((IndexError, ValueError)) as caught:
            leaf(logits, (2, 3)).cross_entropy(targets)
        assert type(caught.value).__name__ in expected.errors
        return
    loss = leaf(logits, (2, 3)).cross_entropy(targets)
    assert sweep.same([expected[0]], loss.data) and sweep.same(expected[1], grads(loss, [2.5])[0])


def test_a_piece_adding_with_fsum_may_refuse_inf_minus_inf_where_the_finished_piece_gives_nan() -> None:
    try:
        math.fsum([INF, -INF])
    except ValueError as error:
        refusal = f"ValueError: {error}"
    assert sweep.excused(refusal, [1.0], [NAN, 2.0])
    assert not sweep.excused(refusal, [1.0, INF])
    assert not sweep.excused("ValueError: something else", [NAN])
    assert not sweep.excused(None, [NAN])


# --- a sweep names the smallest input that shows the fault -----------------------------------------------------------


class KeptRows(Tensor):
    """The finished Tensor with a rows() whose rule reads the caller's list at backward time (a known mistake)."""

    __slots__ = ()

    def rows(self, indices: Sequence[int]) -> Tensor:
        n, m = self.shape
        if any(not -n <= i < n for i in indices):
            raise IndexError("no such row")
        data = [x for i in indices for x in self.data[(i % n) * m:(i % n + 1) * m]]

        def rule(out: Tensor) -> tuple[list[float]]:
            grad = [0.0] * len(self.data)
            for r, i in enumerate(indices):
                for j in range(m):
                    grad[(i % n) * m + j] += out.grad[r * m + j]
            return (grad,)
        return Tensor.made(data, (len(indices), m), (self,), "rows", rule)


def test_the_rows_sweep_names_the_smallest_of_the_inputs_that_show_a_kept_list() -> None:
    from labs.checking.claimkit import Env
    from labs.course.model import load_course

    course = load_course()
    claim = next(c for c in course.lesson("L16").claims if c.id == "rows_sweep")
    function = course.check_function(claim)
    checks = __import__("sys").modules[function.__module__]
    stand_in = type("tensor", (), {"Tensor": KeptRows})  # the learner's tensor module, with the kept-list rows()
    env = Env({"tensor": stand_in}, frozenset({"tensor"}))  # type: ignore[dict-item]  # a class for a module
    cases = checks.rows_cases()
    showing = [case for case in cases if checks.rows_kept(env, case) is not None]
    assert len({case.size for case in showing}) > 1  # larger inputs show it too: the smallest must be chosen
    with pytest.raises(Fail) as caught:
        function(env)
    assert caught.value.key == "kept" and caught.value.values["gap"] == "L16.rows"
    smallest = min(showing, key=lambda case: case.size)
    assert caught.value.values["input"] == smallest.shown
