"""What a cell prints, collected in order, sent to the page in batches, and capped on screen.

Printing is cheap here however much a cell prints: text is kept as a list of
chunks (never a growing string), and the page is sent at most one batch every
:data:`BATCH_SECONDS` while the cell runs. When a cell is done, each text item
holds its first :data:`SHOWN_LINES` lines to show, the number of lines left
out, and the whole text (up to :data:`KEPT_CHARS`) for the page to offer apart.
Every item leaves with its HTML (``item["html"]``, from :mod:`labs.showing.render`), which the page inserts.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from typing import Any

from labs.showing.render import LIVE_LINES, PAGE, Look, render

Output = dict[str, Any]
BATCH_SECONDS = 0.1
SHOWN_LINES = 1000
SHOWN_CHARS = 100_000
KEPT_CHARS = 8_000_000
LIVE_KEY = "__text"


class _Text:
    """One run of text on one stream, kept as chunks."""

    def __init__(self, stream: str) -> None:
        self.stream = stream
        self.chunks: list[str] = []
        self.chars = 0
        self.lines = 0

    def add(self, text: str) -> None:
        if self.chars < KEPT_CHARS:
            self.chunks.append(text)
        self.chars += len(text)
        self.lines += text.count("\n")

    def tail(self, lines: int) -> str:
        """The last ``lines`` lines (cheap: reads chunks from the end)."""
        taken: list[str] = []
        count = 0
        for chunk in reversed(self.chunks):
            taken.append(chunk)
            count += chunk.count("\n")
            if count > lines:
                break
        return "\n".join("".join(reversed(taken)).split("\n")[-lines - 1:])

    def to_item(self) -> Output:
        """The text as an output item: all of it, or its head, a count of what is left, and the whole."""
        text = "".join(self.chunks)
        shown = _head(text, SHOWN_LINES, SHOWN_CHARS)
        if len(shown) == len(text) and self.chars <= KEPT_CHARS:
            return {"kind": self.stream, "text": text}
        item: Output = {"kind": self.stream, "text": shown, "more_lines": self.lines - shown.count("\n"),
                        "total_lines": self.lines, "full": text}
        if self.chars > KEPT_CHARS:
            item["dropped_chars"] = self.chars - len(text)
        return item


def _head(text: str, lines: int, chars: int) -> str:
    """The first ``lines`` lines of a text, and at most ``chars`` characters."""
    end = -1
    for _ in range(lines):
        end = text.find("\n", end + 1)
        if end == -1:
            return text[:chars]
    return text[:min(end + 1, chars)]


class Outputs(io.TextIOBase):
    """Collects what a cell prints and shows, in order, merging neighbouring text of one stream."""

    def __init__(self, live: Callable[[str], object] | None = None, look: Look = PAGE) -> None:
        self.items: list[Output | _Text] = []
        self.live = live
        self.look = look
        self.last_batch = time.monotonic()

    def writable(self) -> bool:
        return True

    def write(self, text: str, stream: str = "stdout") -> int:
        if text:
            last = self.items[-1] if self.items else None
            if not (isinstance(last, _Text) and last.stream == stream):
                last = _Text(stream)
                self.items.append(last)
            last.add(text)
            if self.live is not None and time.monotonic() - self.last_batch >= BATCH_SECONDS:
                self.send_batch()
        return len(text)

    def send_batch(self) -> None:
        """Send the page the latest lines printed so far, as one keyed item."""
        self.last_batch = time.monotonic()
        texts = [item for item in self.items if isinstance(item, _Text)]
        if self.live is None or not texts:
            return
        last = texts[-1]
        lines = sum(item.lines for item in texts)
        self.live(json.dumps(self.drawn({"kind": "text", "key": LIVE_KEY, "stream": last.stream,
                                         "text": last.tail(LIVE_LINES), "lines": lines})))

    def drawn(self, item: Output) -> Output:
        """The item with its HTML added."""
        return {**item, "html": render(item, self.look)}

    def add(self, item: Output) -> None:
        """Append a display item; an item with a key replaces the earlier one with that key."""
        key = item.get("key")
        for index, old in enumerate(self.items):
            if key and isinstance(old, dict) and old.get("key") == key:
                self.items[index] = item
                return
        self.items.append(item)

    def finish(self) -> list[Output]:
        """Every item, in order, text capped for the screen, each with its HTML."""
        return [self.drawn(item.to_item() if isinstance(item, _Text) else item) for item in self.items]


class Stderr(io.TextIOBase):
    """The stderr side of :class:`Outputs`."""

    def __init__(self, outputs: Outputs) -> None:
        self.outputs = outputs

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return self.outputs.write(text, "stderr")
