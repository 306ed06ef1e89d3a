"""Tests of ember's tensor engine against the scalar engine spelled out number by number.

Every gradient the tensor engine gives must equal, to 1e-9, the one ember's ``Value`` gives
for the same computation written element by element: the scalar engine is the oracle.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from ember.bigram import count_loss, count_pairs, pair_loss, sample, train
from ember.scalar import Value
from ember.shapes import broadcast_shape, flatten, nest, size
from ember.tensor import Tensor
from labs.checking.oracle import stretched

TOL = 1e-9


def values(t: Tensor) -> list[Value]:
    """One leaf Value per number of t, row-major."""
    return [Value(x) for x in t.data]


def assert_close(got: list[float], expected: list[float]) -> None:
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert math.isclose(g, e, rel_tol=TOL, abs_tol=TOL), (got, expected)


def rand_tensor(shape: tuple, rng: random.Random, low: float = -2.0, high: float = 2.0) -> Tensor:
    numbers = [rng.uniform(low, high) for _ in range(size(shape))]
    return Tensor(nest(numbers, shape))


BINARY: dict[str, Callable] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
}


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize(("sa", "sb"), [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((2, 3), (3,)), ((), (2, 2)),
                                         ((2, 1, 3), (4, 1)), ((4,), ())])
def test_binary_ops_match_the_scalar_oracle(op: str, sa: tuple, sb: tuple) -> None:
    rng = random.Random(hash((op, sa, sb)) & 0xFFFF)
    a, b = rand_tensor(sa, rng), rand_tensor(sb, rng, 0.5, 2.0)
    weights = rand_tensor(broadcast_shape(sa, sb), rng)
    loss = (BINARY[op](a, b) * weights).sum()
    loss.backward()
    va, vb, vw = values(a), values(b), values(weights)
    shape = broadcast_shape(sa, sb)
    xs, ys = [va[i] for i in stretched(sa, shape)], [vb[i] for i in stretched(sb, shape)]
    terms = [BINARY[op](x, y) * w for x, y, w in zip(xs, ys, vw)]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    total.backward()
    assert_close([loss.item()], [total.data])
    assert_close(a.grad, [v.grad for v in va])
    assert_close(b.grad, [v.grad for v in vb])


@pytest.mark.parametrize("name", ["exp", "log", "tanh", "relu", "neg", "pow"])
def test_unary_ops_match_the_scalar_oracle(name: str) -> None:
    rng = random.Random(7)
    low = 0.2 if name in ("log", "pow") else -2.0
    a = rand_tensor((3, 4), rng, low, 2.0)
    step: Callable = {
        "exp": lambda x: x.exp(), "log": lambda x: x.log(), "tanh": lambda x: x.tanh(),
        "relu": lambda x: x.relu(), "neg": lambda x: -x, "pow": lambda x: x ** 3,
    }[name]
    weights = rand_tensor((3, 4), rng)
    (step(a) * weights).sum().backward()
    va = values(a)
    terms = [step(x) * w for x, w in zip(va, weights.data)]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    total.backward()
    assert_close(a.grad, [v.grad for v in va])


def test_relu_has_slope_zero_at_zero() -> None:
    a = Tensor([0.0, 1.0, -1.0])
    a.relu().sum().backward()
    assert a.grad == [0.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (None, True), (0, False), (1, True), (-1, False), (2, False)]
)
def test_sum_matches_the_scalar_oracle(axis: int | None, keepdims: bool) -> None:
    rng = random.Random(3)
    a = rand_tensor((2, 3, 4), rng)
    s = a.sum(axis=axis, keepdims=keepdims)
    expected_shape = {None: (), 0: (3, 4), 1: (2, 1, 4), -1: (2, 3), 2: (2, 3)}[axis]
    if axis is None and keepdims:
        expected_shape = (1, 1, 1)
    assert s.shape == expected_shape
    weights = rand_tensor(s.shape, rng)
    (s * weights).sum().backward()
    # the oracle: each input number's gradient is the weight of the sum it went into
    k = axis % 3 if axis is not None else None
    expected = []
    for i in range(2):
        for j in range(3):
            for m in range(4):
                if k is None:
                    expected.append(weights.data[0])
                else:
                    kept = [x for axis_index, x in enumerate((i, j, m)) if axis_index != k]
                    dims = [n for axis_index, n in enumerate((2, 3, 4)) if axis_index != k]
                    expected.append(weights.data[kept[0] * dims[1] + kept[1]])
    assert_close(a.grad, expected)


def test_sum_values_and_mean() -> None:
    a = Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert a.sum(axis=0).tolist() == [5.0, 7.0, 9.0]
    assert a.sum(axis=1, keepdims=True).tolist() == [[6.0], [15.0]]
    m = a.mean()
    assert m.item() == 3.5
    m.backward()
    assert_close(a.grad, [1 / 6] * 6)


def test_matmul_matches_the_scalar_oracle() -> None:
    rng = random.Random(5)
    a, b = rand_tensor((3, 4), rng), rand_tensor((4, 2), rng)
    weights = rand_tensor((3, 2), rng)
    ((a @ b) * weights).sum().backward()
    va, vb = values(a), values(b)
    total = Value(0.0)
    for i in range(3):
        for j in range(2):
            dot = Value(0.0)
            for k in range(4):
                dot = dot + va[i * 4 + k] * vb[k * 2 + j]
            total = total + dot * weights.data[i * 2 + j]
    total.backward()
    assert_close(a.grad, [v.grad for v in va])
    assert_close(b.grad, [v.grad for v in vb])


def test_matmul_refuses_shapes_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 3\)"):
        Tensor([[1.0] * 3] * 2) @ Tensor([[1.0] * 3] * 2)


def test_rows_adds_the_gradient_of_a_repeated_row() -> None:
    w = Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    picked = w.rows([2, 0, 2])
    assert picked.tolist() == [[5.0, 6.0], [1.0, 2.0], [5.0, 6.0]]
    (picked * Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    assert w.grad == [3.0, 4.0, 0.0, 0.0, 6.0, 8.0]


def test_cross_entropy_matches_the_scalar_oracle_and_stays_finite() -> None:
    rng = random.Random(11)
    logits = rand_tensor((3, 5), rng)
    targets = [4, 0, 4]
    loss = logits.cross_entropy(targets)
    loss.backward()
    vs = values(logits)
    total = Value(0.0)
    for r, t in enumerate(targets):
        row = vs[r * 5:(r + 1) * 5]
        s = row[0].exp()
        for x in row[1:]:
            s = s + x.exp()
        total = total + (s.log() - row[t])
    total = total * (1 / 3)
    total.backward()
    assert_close([loss.item()], [total.data])
    assert_close(logits.grad, [v.grad for v in vs])
    big = Tensor([[1000.0, -1000.0], [-1000.0, 1000.0]])
    assert big.cross_entropy([0, 0]).item() == pytest.approx(1000.0)


def test_backward_is_iterative_and_adds_into_leaves() -> None:
    x = Tensor([1.0, 2.0])
    y = x
    for _ in range(5000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad == [1.0, 1.0]
    z = (x * x).sum()
    z.backward()
    z.backward()
    assert x.grad == [1.0 + 4.0, 1.0 + 8.0]


def test_backward_needs_one_number() -> None:
    with pytest.raises(ValueError, match=r"\(2,\)"):
        (Tensor([1.0, 2.0]) * 2).backward()


def test_bad_inputs_name_what_went_wrong() -> None:
    with pytest.raises(ValueError, match=r"data\[1\]"):
        flatten([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(4,\)"):
        broadcast_shape((3, 2), (4,))
    with pytest.raises(ValueError, match=r"\(2, 2\).*\(3,\)"):
        Tensor([[1.0, 2.0], [3.0, 4.0]]) + Tensor([1.0, 2.0, 3.0])


def test_a_rule_that_returns_the_wrong_shape_is_named() -> None:
    a = Tensor([[1.0], [2.0]])
    out = Tensor.made([2.0, 4.0], (2, 1), (a,), "double", lambda out: ([1.0, 2.0, 3.0],))
    with pytest.raises(ValueError, match=r"'double'.*\(2, 1\).*3 numbers"):
        out.sum().backward()


def test_the_bigram_reaches_the_count_model() -> None:
    text = b"ab\nabc\nbca\nca\n" * 3
    counts = count_pairs(text)
    assert sum(map(sum, counts)) == len(text) - 1
    w = Tensor([[0.0] * 256 for _ in range(256)])
    losses = train(w, lambda w: pair_loss(w, counts), 300, 50.0)
    assert losses[0] == pytest.approx(math.log(256))
    assert losses[-1] < count_loss(counts)  # below the add-one smoothed count model
    name = sample(w, random.Random(0))
    assert set(name) <= set("abc")


def test_training_that_diverges_stops_with_the_step_and_keeps_good_weights() -> None:
    counts = count_pairs(b"ab\nba\n")
    w = Tensor([[0.0] * 256 for _ in range(256)])
    with pytest.raises(FloatingPointError, match=r"step \d+.*smaller learning rate"):
        train(w, lambda w: pair_loss(w, counts) * 1e300 * 1e10, 3, 1e300)
    assert all(math.isfinite(x) for x in w.data)


def test_a_long_chain_is_freed_one_tensor_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Freeing a 5,000-step chain never nests one tensor's freeing inside another's (the browser's stack is small)."""
    nesting, deepest = [0], [0]
    finalize = Tensor.__del__

    def watched(self: Tensor) -> None:
        nesting[0] += 1
        deepest[0] = max(deepest[0], nesting[0])
        finalize(self)
        nesting[0] -= 1

    monkeypatch.setattr(Tensor, "__del__", watched)
    y = Tensor([1.0, 2.0])
    for _ in range(5000):
        y = (y * 1.0).tanh()
    y.sum().backward()
    del y
    assert deepest[0] <= 2


def test_a_ragged_list_is_refused_where_it_breaks_and_a_misfit_names_the_operation() -> None:
    with pytest.raises(ValueError, match=r"data\[1\]\[1\] has shape \(2,\) but data\[1\]\[0\] has shape \(\)"):
        Tensor([[1.0, 2.0], [3.0, [4.0, 5.0]]])
    with pytest.raises(TypeError, match=r"data\[0\]\[1\] is a str"):
        Tensor([[1.0, "2"]])
    with pytest.raises(ValueError, match=r"'\*'.*\(3, 2\).*\(4,\)"):
        Tensor([[1.0] * 2] * 3) * Tensor([1.0] * 4)


def test_an_axis_of_1_stretches_even_to_0_as_in_numpy() -> None:
    assert broadcast_shape((0,), (1,)) == (0,)
    assert broadcast_shape((1, 3), (0, 1)) == (0, 3)
    assert (Tensor([]) + Tensor([1.0])).shape == (0,)
