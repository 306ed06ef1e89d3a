"""How a learner's rule's work grows with its input, counted, never timed.

Part III's rules should cost a fixed amount per number: a training step runs them over 65,536
weights. A rule with the right numbers can still scan a whole list once per number (an
``unbroadcast`` that sums the gradient again for every output, a ``rows()`` that builds its data
by ``data = data + row``), and that freezes a training without changing a single result.

The checks hand the learner's code lists that count what is read from them (:class:`Tally`):
every item, every number of a slice, every number an iteration passes, both sides of a ``+``.
A rule is run on a small input and on one ``GROWTH`` times larger; the counts of a rule whose
cost grows with the square of its input grow about ``GROWTH`` times faster than a linear one's.
The count is the same on every machine, in the terminal and in the page.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, SupportsIndex

GROWTH = 8  # the larger input holds this many times the numbers of the smaller one
QUADRATIC = 3.0  # reads growing more than this many times GROWTH are judged to grow with the square


class Work:
    """A running count of the numbers read from the lists one measurement handed out."""

    def __init__(self) -> None:
        self.reads = 0


class Tally(list):  # holds whatever the measured code stores
    """A list that adds to its :class:`Work` every number read from it; its slices and sums count too."""

    def __init__(self, items: Iterable[Any], work: Work) -> None:
        super().__init__(items)
        self.work = work

    def _counted(self, items: Iterable[Any]) -> Tally:
        return Tally(items, self.work)

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        got = super().__getitem__(index)
        if isinstance(index, slice):
            self.work.reads += len(got)
            return self._counted(got)
        self.work.reads += 1
        return got

    def __iter__(self) -> Iterator[Any]:
        work = self.work
        for item in super().__iter__():
            work.reads += 1
            yield item

    def __reversed__(self) -> Iterator[Any]:
        work = self.work
        for item in super().__reversed__():
            work.reads += 1
            yield item

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, list):
            return NotImplemented
        self.work.reads += len(self) + len(other)
        return Tally([*list.__iter__(self), *list.__iter__(other)], self.work)  # a join is a Tally, never Own

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, list):
            return NotImplemented
        self.work.reads += len(self) + len(other)
        return Tally([*list.__iter__(other), *list.__iter__(self)], self.work)

    def __iadd__(self, other: Any) -> Tally:
        items = plain(other)
        self.work.reads += len(items)
        list.extend(self, items)
        return self

    def __contains__(self, item: object) -> bool:
        self.work.reads += len(self)
        return super().__contains__(item)

    def index(self, *args: Any) -> int:
        self.work.reads += len(self)
        return super().index(*args)

    def count(self, item: Any) -> int:
        self.work.reads += len(self)
        return super().count(item)

    def copy(self) -> Tally:
        self.work.reads += len(self)
        return self._counted(super().__iter__())

    # What moves or copies many items at once: lists the learner's own code builds count these too
    # (labs/checking/own_lists.py), so that ``out.insert(0, x)`` or ``queue.pop(0)`` in a loop shows.

    def __mul__(self, times: SupportsIndex) -> Tally:
        made = list.__mul__(self, times)
        self.work.reads += len(made)
        return self._counted(made)

    __rmul__ = __mul__

    def __imul__(self, times: SupportsIndex) -> Tally:
        list.__imul__(self, times)
        self.work.reads += len(self)
        return self

    def extend(self, items: Iterable[Any]) -> None:
        items = plain(items)
        self.work.reads += len(items)
        list.extend(self, items)

    def insert(self, index: SupportsIndex, item: Any) -> None:
        self.work.reads += len(self) - _position(index, len(self))  # the items after it move up
        list.insert(self, index, item)

    def pop(self, index: SupportsIndex = -1) -> Any:
        self.work.reads += max(len(self) - 1 - _position(index, len(self)), 0)  # the items after it move down
        return list.pop(self, index)

    def remove(self, item: Any) -> None:
        self.work.reads += len(self)  # searched from the start, then the rest moves down
        list.remove(self, item)

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        start = index.indices(len(self))[0] if isinstance(index, slice) else _position(index, len(self))
        self.work.reads += len(self) - start
        list.__delitem__(self, index)

    def __setitem__(self, index: SupportsIndex | slice, value: Any) -> None:
        if isinstance(index, slice):
            value = plain(value)
            start, stop, step = index.indices(len(self))
            replaced = len(range(start, stop, step))
            moved = 0 if replaced == len(value) else len(self) - stop  # the items after it move when it resizes
            self.work.reads += len(value) + moved
        list.__setitem__(self, index, value)

    def reverse(self) -> None:
        self.work.reads += len(self)
        list.reverse(self)

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self.work.reads += len(self)
        list.sort(self, *args, **kwargs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            self.work.reads += min(len(self), len(other))
        return list.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None  # a list is not hashable, and neither is a Tally


class Own(Tally):
    """A list the learner's own code made, counting like a Tally (labs/checking/own_lists.py); a slice or a copy
    of it is one too, but a join with + is a plain Tally, as the checks that look for joins expect."""

    def _counted(self, items: Iterable[Any]) -> Tally:
        return Own(items, self.work)


def _position(index: SupportsIndex, length: int) -> int:
    """Where ``index`` falls in a list of ``length`` items, as list.insert and list.pop clamp it."""
    at = int(index)
    if at < 0:
        at += length
    return min(max(at, 0), length)


FAULTS = {  # the Tally method that counted a read -> what in the learner's code reads that way
    "index": ".index(), which searches a list from its start",
    "count": ".count(), which reads a whole list",
    "__contains__": "`in` on a list, which searches it from its start",
    "__getitem__": "slices such as data[:i] or data[i:], each a copy of part of a list",
    "__iter__": "a loop or comprehension over a whole list (or list(...) of it)",
    "__reversed__": "reversed(...) over a whole list",
    "__add__": "list + list, which copies both lists into a new one",
    "__radd__": "list + list, which copies both lists into a new one",
    "__iadd__": "+= on a list",
    "copy": ".copy(), which copies a whole list",
    "insert": ".insert(), which moves every item after the place it inserts at",
    "pop": ".pop(i) from the front or middle, which moves every item after it",
    "remove": ".remove(), which searches a list and moves every item after it",
    "__delitem__": "del on a list's front or middle, which moves every item after it",
    "__setitem__": "a slice assignment that changes a list's length, which moves every item after it",
    "__mul__": "[...] * n, which makes a whole new list",
    "__imul__": "*= on a list, which makes it whole again",
    "extend": ".extend(), which copies every item it adds",
    "reverse": ".reverse(), which moves every item",
    "sort": ".sort(), which reads every item",
    "__eq__": "== between lists, which compares them item by item",
}


class Traced(Work):
    """A Work that also notes which kind of read (the Tally method that counted it) each count came from."""

    def __init__(self) -> None:
        self._reads = 0
        self.kinds: Counter[str] = Counter()
        self.places: Counter[tuple[str, str, int]] = Counter()  # (kind, file, line) of the code that asked
        super().__init__()

    @property
    def reads(self) -> int:
        return self._reads

    @reads.setter
    def reads(self, value: int) -> None:
        if value > self._reads:
            counter = sys._getframe(1)  # the Tally method that counted; the code that called it is one further
            kind, asker = counter.f_code.co_name, counter.f_back
            self.kinds[kind] += value - self._reads
            if asker is not None:
                self.places[kind, asker.f_code.co_filename, asker.f_lineno] += value - self._reads
        self._reads = value

    def restart(self) -> None:
        self._reads = 0
        self.kinds.clear()
        self.places.clear()

    def snapshot(self) -> Traced:
        """The counts so far, kept apart from what comes later."""
        kept = Traced()
        kept._reads, kept.kinds, kept.places = self._reads, Counter(self.kinds), Counter(self.places)
        return kept

    def since(self, before: Traced) -> Traced:
        """The counts made after ``before`` (a snapshot of this Work) was taken."""
        later = Traced()
        later._reads, later.kinds = self._reads - before._reads, self.kinds - before.kinds
        later.places = self.places - before.places
        return later


Placer = Callable[[str, int], "str | None"]  # (file, line) -> 'line 3 of gap L16.rows', for a learner's file


def _grew_most(small: Traced, large: Traced) -> str:
    growth = {kind: large.kinds[kind] - GROWTH * small.kinds[kind] for kind in large.kinds}
    return max(growth, key=lambda k: growth[k]) if growth else "__iter__"


def fault_of(kind: str, small: Traced, large: Traced, place: Placer | None = None) -> str:
    """A kind of read in the learner's terms, with the line of the learner's code where it grew most, when
    ``place`` can name one."""
    words = FAULTS.get(kind, "reading a list again for every number")
    if place is None:
        return words
    lines = {(path, line): count - GROWTH * small.places[kind, path, line]
             for (k, path, line), count in large.places.items() if k == kind}
    for path, line in sorted(lines, key=lambda at: -lines[at]):
        if (named := place(path, line)) is not None:
            return f"{words} ({named})"
    return words


def fault(small: Traced, large: Traced, place: Placer | None = None) -> str:
    """What kind of read grew the most between the small and the large input, in the learner's terms."""
    return fault_of(_grew_most(small, large), small, large, place)


def square_kind(small: Traced, large: Traced, growth: int = GROWTH) -> str | None:
    """The kind of read (a key of FAULTS) that on its own grows with the square of the input while it is at least
    an eighth of the large input's reads, if any: a join or a scan in a loop shows even where many reads that grow
    in step with the input hide it in the total."""
    for kind, count in large.kinds.most_common():
        if count * 8 < large.reads:
            break
        if grows_with_the_square(small.kinds[kind], count, growth):
            return kind
    return None


def square_growth(small: Traced, large: Traced, place: Placer | None = None,
                  growth: int = GROWTH) -> dict[str, str] | None:
    """When the work grows with the square, in all or in one kind of it: the counts a message shows (``growth``) and
    what in the learner's code does that work (``fault``, with its line when ``place`` names one); None when it
    grows in step with the input."""
    if grows_with_the_square(small.reads, large.reads, growth):
        return {"growth": growth_text(small.reads, large.reads, growth), "fault": fault(small, large, place)}
    kind = square_kind(small, large, growth)
    if kind is None:
        return None
    return {"growth": growth_text(small.kinds[kind], large.kinds[kind], growth),
            "fault": fault_of(kind, small, large, place)}


def growing_kind(small: Traced, large: Traced, growth: int = GROWTH) -> str | None:
    """The kind of read behind work that grows with the square (the one that grew most when the total does, else
    the one that does so on its own), or None."""
    if grows_with_the_square(small.reads, large.reads, growth):
        return _grew_most(small, large)
    return square_kind(small, large, growth)


SEARCHES = frozenset({"__contains__", "index", "count"})  # kinds of read that look for an item in a list
SCANS = frozenset({"__iter__", "__getitem__", "__reversed__"})  # kinds of read that go over a list, not move it


def plain(items: Iterable[Any]) -> list[Any]:
    """A Tally (or any list) as a plain list, without counting the reads."""
    return list(list.__iter__(items)) if isinstance(items, list) else list(items)


def reads(run: Callable[[Work], object]) -> int:
    """How many numbers ``run`` read from the Tally lists it made with the Work it is handed."""
    work = Work()
    run(work)
    return work.reads


def grows_with_the_square(small: int, large: int, growth: int = GROWTH) -> bool:
    """Whether reads of ``small`` and then ``large`` (an input ``growth`` times larger) grow faster than linear
    work can: more than ``QUADRATIC`` times ``growth``, where a quadratic rule's grow about ``growth`` squared."""
    return large > QUADRATIC * growth * max(small, 1)


def growth_text(small: int, large: int, growth: int = GROWTH) -> str:
    """What a message says of two counts: 'read 1,200 numbers, then 76,800 on 8 times the input (64×)'."""
    ratio = large / max(small, 1)
    return f"read {small:,} numbers, then {large:,} on an input {growth} times larger ({ratio:.0f}×)"


def tallied(tensor: Any, work: Work) -> Any:
    """A learner Tensor whose ``.data`` and ``.grad`` now count what is read from them; the tensor itself."""
    tensor.data = Tally(plain(tensor.data), work)
    tensor.grad = Tally(plain(tensor.grad), work)
    return tensor


@contextmanager
def counted_results(module: Any, names: Iterable[str], work: Work, charge_made: bool = False) -> Iterator[None]:
    """Inside the block, the list each named function of ``module`` returns counts what is read from it, and with
    ``charge_made`` its length counts too, as the work of making it.

    For the course's own helpers (``broadcast_index``, ``expand``) that a learner's rule reads through:
    a rule that scans their result once per number, or makes one per number, is found as if it scanned its own
    lists.
    """
    kept = {name: getattr(module, name) for name in names if callable(getattr(module, name, None))}

    def counting(function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            got = function(*args, **kwargs)
            if not isinstance(got, list):
                return got
            if charge_made:
                work.reads += len(got)
            return Tally(plain(got), work)
        return wrapped

    for name, function in kept.items():
        setattr(module, name, counting(function))
    try:
        yield
    finally:
        for name, function in kept.items():
            setattr(module, name, function)


SHAPE_HELPERS = ("broadcast_index", "expand")  # the course's own helpers in ember/shapes.py that rules read through


@contextmanager
def helpers_counted(env: Any, work: Work) -> Iterator[None]:
    """Inside the block, broadcast_index and expand hand back counting lists, and each list they make counts its
    own length as work, wherever the learner's code reads them: in ember/shapes.py (``unbroadcast``) and in
    ember/tensor.py (the operations), which imports them. The lists the learner's own gaps build count too
    (:func:`labs.checking.own_lists.own_lists_counted`): the whole call is measured."""
    from labs.checking.own_lists import own_lists_counted  # it builds on this module's Tally

    with ExitStack() as stack:
        stack.enter_context(own_lists_counted(env, work))
        for module in (env.shapes, env.tensor):
            if module is not None:
                stack.enter_context(counted_results(module, SHAPE_HELPERS, work, charge_made=True))
        yield


class Growth:
    """Reads of one piece of work on a small input and on one GROWTH times larger, with how many numbers each
    input held. Given two :class:`Traced` counts, it also looks at each kind of read on its own, and names the
    kind that grows with the square."""

    def __init__(self, what: str, small: int | Traced, large: int | Traced, numbers_small: int,
                 numbers_large: int, place: Placer | None = None) -> None:
        self.what = what
        self.numbers_small, self.numbers_large = numbers_small, numbers_large
        traced = (small, large) if isinstance(small, Traced) and isinstance(large, Traced) else None
        self.found = square_growth(*traced, place) if traced else None
        self.small, self.large = (small.reads if isinstance(small, Work) else small,
                                  large.reads if isinstance(large, Work) else large)
        if traced and self.found is not None and not grows_with_the_square(self.small, self.large):
            kind = square_kind(*traced)  # found in one kind of read, so there is one
            if kind is not None:
                self.small, self.large = traced[0].kinds[kind], traced[1].kinds[kind]

    @property
    def quadratic(self) -> bool:
        return self.found is not None or grows_with_the_square(self.small, self.large)

    def values(self) -> dict[str, Any]:
        """The fields every cost message shows."""
        fault_text = self.found["fault"] if self.found else "reading a list again for every number"
        return dict(what=self.what, growth=growth_text(self.small, self.large), n_small=f"{self.numbers_small:,}",
                    n_large=f"{self.numbers_large:,}", times=GROWTH, fault=fault_text,
                    per_small=f"{self.small / max(self.numbers_small, 1):.1f}",
                    per_large=f"{self.large / max(self.numbers_large, 1):.1f}")
