"""Counts in words: a number with its noun, singular for one (``1 node``, ``2 nodes``)."""

from __future__ import annotations


def counted(count: object, one: str, many: str | None = None, *, separators: bool = False) -> str:
    """``count`` and the noun that agrees with it: ``one`` for exactly 1, else ``many`` (``one`` + "s").

    A count that is not a number (a placeholder such as "?") takes the plural. With ``separators``, whole
    numbers get thousands separators (1,000).
    """
    number = f"{count:,}" if separators and isinstance(count, int) and not isinstance(count, bool) else f"{count}"
    return f"{number} {one if count == 1 else (many or one + 's')}"
