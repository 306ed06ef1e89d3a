"""Short, safe text for whatever a learner stored in data, grad or _op."""

from __future__ import annotations

import math

__all__ = ["MISSING", "escape_html", "fmt", "one_line"]

_NUMERIC_MODULES = frozenset({"numpy", "fractions", "decimal"})
_MAX_TEXT = 40


class _Missing:
    """The marker for an attribute that a learner's object does not have."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def _float_text(x: float) -> str:
    """A float in at most six significant digits: 28, -0.125, 1e-07, nan, inf."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"  # also -0.0: the sign of a zero only distracts in a gradient table
    return float.__format__(x, ".6g")


def fmt(x: object) -> str:
    """Compact text for a number, and a safe stand-in for anything else (never a learner's repr)."""
    if type(x) is float:
        return _float_text(x)
    if x is MISSING:
        return "?"
    if x is None or isinstance(x, bool):
        return "None" if x is None else ("True" if x else "False")
    if isinstance(x, float):
        return _float_text(float.__float__(x))
    if isinstance(x, int):
        if -(10**15) < x < 10**15:
            return int.__repr__(x)
        try:
            return _float_text(int.__float__(x))
        except OverflowError:
            return "huge int"
    if isinstance(x, str):
        text = str.__repr__(x)  # quoted, so a number stored as text stands out: '2'
        return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 4] + "...'"
    if isinstance(x, complex):
        return complex.__repr__(x)
    if type(x).__module__.partition(".")[0] in _NUMERIC_MODULES:
        try:
            return _float_text(float(x))  # type: ignore[arg-type]
        except Exception:  # an odd array or NaN-like decimal: fall through
            pass
    return f"<{type(x).__name__}>"


def one_line(text: str) -> str:
    """The text with line breaks and tabs shown as \\n, \\r, \\t, so it stays on one line."""
    if text.isprintable():
        return text
    return text.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")


def escape_html(text: str) -> str:
    """Text made safe for HTML text and attribute values: what html.escape(text, quote=True) answers.

    Written out because importing the html module builds its table of 2,000 named characters, a
    twentieth of a second of the page's cold start in Pyodide, for escaping that needs none of them.
    """
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#x27;"))
