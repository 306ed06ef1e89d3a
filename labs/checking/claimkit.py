"""What a lesson's check functions are written with.

A claim function receives an :class:`Env` (the learner's freshly imported
modules) and either returns (the claim holds) or raises :class:`Fail` naming one
of the claim's messages, with the values the message shows.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import GeneratorType, ModuleType
from typing import Any, TypeGuard

from hx.graph import topological_order
from labs.course.registry import ClaimFunction, claim

__all__ = ["ClaimFunction", "claim"]  # the lessons' checks take both from here, with the rest of their tools

class Fail(Exception):
    """A claim does not hold: ``key`` names its message, ``values`` fill it in."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass
class Env:
    """The learner's modules as one check sees them: ``env.scalar``, ``env.nn``, ... (None when missing)."""

    modules: dict[str, ModuleType]
    names: frozenset[str] = frozenset()  # every learner module of the course, present or not
    sources: dict[str, str] = field(default_factory=dict)  # the source each module ran from, by module name

    def __getattr__(self, name: str) -> Any:  # a learner's module (or None): what it holds is theirs to say
        if name in self.__dict__.get("names", ()) or name in self.__dict__.get("modules", {}):
            return self.__dict__["modules"].get(name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @property
    def Value(self) -> Any:  # noqa: N802 - reads like the class it returns (the learner's: any class)
        """The learner's Value class."""
        return self.scalar.Value


def show(x: object) -> str:
    """Values as a learner reads them: 28.0, -0.125, 6e-12, 12.000001; [1.0, 2.0] for a list, (2.0, -4.0) for a tuple.

    Floats keep twelve significant digits (enough to show any difference a check tolerates, and
    never rounding a small number to 0); ints stay ints; other things are shown as repr.
    """
    if isinstance(x, list):
        return "[" + ", ".join(show(item) for item in x) + "]"
    if isinstance(x, tuple):
        return "(" + ", ".join(show(item) for item in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, GeneratorType):  # the checker's own generators: shown as the list of what they give
        return show(list(x))
    if isinstance(x, float):
        return repr(float(f"{x:.12g}") + 0.0)  # + 0.0 turns -0.0 into 0.0
    return repr(x)


def is_number(x: object) -> TypeGuard[float]:
    """True for an int or a float (not a bool)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def close(got: object, expected: float, tol: float = 1e-6) -> bool:
    """True when ``got`` is a number within a relative (and absolute) ``tol`` of ``expected``."""
    if not is_number(got):
        return False
    return math.isclose(got, expected, rel_tol=tol, abs_tol=tol)


def expect_close(key: str, got: object, expected: float, tol: float = 1e-6, **values: Any) -> None:
    """Fail with message ``key`` unless ``got`` is close to ``expected``."""
    if not close(got, expected, tol):
        raise Fail(key, got=show(got), expected=show(expected), **values)


def nudged_slope(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    """The checker's own central difference (independent of the learner's code)."""
    return (f(x + h) - f(x - h)) / (2 * h)


def quiet_slope(f: Callable[[float], float], x: float) -> float:
    """nudged_slope rounded to 9 significant digits and 9 decimals, so messages do not show its noise
    (a slope of 0 can come out as 1e-11)."""
    return float(f"{round(nudged_slope(f, x), 9):.9g}") + 0.0


def graph_order(root: Any) -> list[Any]:
    """The checker's own topological order of a learner's graph (inputs first), without recursion."""
    return topological_order(root)


def backward_by_hand(root: Any) -> None:
    """Seed the root and call every ``_backward`` in the checker's own safe order."""
    root.grad = 1.0
    for node in reversed(graph_order(root)):
        node._backward()


def leaves(root: Any) -> Iterable[Any]:
    """The Values in a graph that were not made from others."""
    return [node for node in graph_order(root) if not node._prev]


def default_step_slip(function: Callable[..., object], got: object,
                      central: Callable[[float], float]) -> tuple[str, str] | None:
    """('tiny_default' or 'large_default', the step) when ``got`` is ``central(h)``, the central difference with
    ``function``'s own default h (read from its signature), and that step is far from about 1e-6."""
    try:
        parameter = inspect.signature(function).parameters.get("h")
    except (TypeError, ValueError):
        return None
    h = None if parameter is None else parameter.default
    if not is_number(h) or not 0 < h < math.inf:
        return None
    if not close(got, central(float(h)), 1e-9):
        return None
    if h < 1e-9:
        return "tiny_default", show(h)
    if h > 1e-4:
        return "large_default", show(h)
    return None


def watching_own_list(f: Callable[[list[float]], Any], xs: list[float]) -> tuple[Callable[[list[float]], Any],
                                                                                   list[list[float]]]:
    """f, wrapped to record each time it is handed the caller's own list ``xs`` with an entry moved (a nudge made
    in place, even one put back afterwards), and the list of what it saw then."""
    seen_nudged: list[list[float]] = []
    kept = list(xs)

    def watched(p: list[float]) -> Any:
        if p is xs and list(p) != kept:
            seen_nudged.append(list(p))
        return f(p)

    return watched, seen_nudged
