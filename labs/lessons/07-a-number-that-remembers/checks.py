"""Checks of lesson 07, A number that remembers: Value, its repr, and the forward pass of + and *.

No check here calls a ``_backward`` of + or *: those are lesson 08's gaps.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from labs.checking.claimkit import Env, Fail, claim, close, show


@claim("L07", "leaf")
def leaf(env: Env) -> None:
    v = env.Value(2)
    if type(v.data) is not float or v.data != 2.0:
        raise Fail("data", got=repr(v.data), type=type(v.data).__name__)
    if not close(v.grad, 0.0):
        raise Fail("grad", got=show(v.grad))
    if type(v.grad) is not float:
        raise Fail("grad_type", got=repr(v.grad), type=type(v.grad).__name__)
    if not (isinstance(v._prev, (tuple, list)) and len(v._prev) == 0) or v._op != "":  # a list keeps order too
        raise Fail("history", prev=repr(v._prev), op=repr(v._op))
    try:
        v._backward()
    except Exception as error:  # missing (AttributeError) or not callable (TypeError) alike
        raise Fail("no_backward", error=f"{type(error).__name__}: {error}") from None


@claim("L07", "label")
def label(env: Env) -> None:
    named = env.Value(1.0, label="w")
    got = repr(named.label) if hasattr(named, "label") else "no label at all"
    if got != "'w'":
        raise Fail("wrong", got=got)


@claim("L07", "repr")
def repr_(env: Env) -> None:
    v = env.Value(-1.5)
    v.grad = 0.25
    third = env.Value(2 / 3, label="w")
    third.grad = -0.125
    cases = ((env.Value(2.0), "Value(2.0, grad=0.0)"), (v, "Value(-1.5, grad=0.25)"),
             (third, "Value(0.6666666666666666, grad=-0.125)"))
    for value, expected in cases:
        if repr(value) != expected:
            if type(value.grad) is not float and repr(value) == expected.replace("grad=0.0", f"grad={value.grad!r}"):
                raise Fail("grad_type", got=repr(value), grad=repr(value.grad), type=type(value.grad).__name__)
            raise Fail("wrong", got=repr(value), expected=expected)


def check_records(env: Env, symbol: str, compute: Callable[[Any, Any], Any]) -> None:
    """``a <symbol> b`` of two Values holds the result and remembers (a, b) and the symbol; ``a <symbol> a`` (a, a)."""
    a, b = env.Value(2.0), env.Value(-3.0)
    try:
        out = compute(a, b)
    except TypeError as error:
        raise Fail("crash", error=str(error)) from None
    for name, value, was in (("a", a, 2.0), ("b", b, -3.0)):
        if value.data != was:
            raise Fail("changed_input", name=name, now=show(value.data), was=show(was))
    if not close(out.data, compute(2.0, -3.0)):
        raise Fail("data", got=show(out.data), expected=show(compute(2.0, -3.0)))
    twice = compute(a, a)._prev
    if len(twice) != 2:
        raise Fail("twice", prev=repr(twice), count=len(twice))
    prev = out._prev
    if not (isinstance(prev, (tuple, list)) and len(prev) == 2 and prev[0] is a and prev[1] is b and out._op == symbol):
        raise Fail("history", prev=repr(prev), op=repr(out._op))


@claim("L07", "add_records")
def add_records(env: Env) -> None:
    check_records(env, "+", operator.add)


@claim("L07", "mul_records")
def mul_records(env: Env) -> None:
    check_records(env, "*", operator.mul)


@claim("L07", "wrap_number")
def wrap_number(env: Env) -> None:
    for symbol, compute in (("+", operator.add), ("*", operator.mul)):
        for number in (2, 0.5):
            a = env.Value(3.0)
            try:
                out = compute(a, number)
            except (AttributeError, TypeError) as error:
                raise Fail("no_wrap", op=symbol, number=number, error=str(error)) from None
            if not close(out.data, compute(3.0, number)):
                raise Fail("data", op=symbol, number=number, got=show(out.data), expected=show(compute(3.0, number)))
            if a.data != 3.0:
                raise Fail("changed_input", op=symbol, number=number, now=show(a.data))
            prev = out._prev
            items = list(prev) if isinstance(prev, (tuple, list, set, frozenset)) else []
            leaves = [item for item in items if item is not a and isinstance(item, env.Value) and not item._prev]
            if len(items) != 2 or len(leaves) != 1:
                raise Fail("raw", op=symbol, number=number, got=repr(prev))
            if leaves[0].data != number:
                raise Fail("leaf_changed", op=symbol, number=number, held=show(leaves[0].data))
            if not isinstance(prev, (tuple, list)) or prev[0] is not a:
                raise Fail("order", op=symbol, number=number, got=repr(prev))
