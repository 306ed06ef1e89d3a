"""The work of the learner's own lists, counted inside a whole call.

:mod:`labs.checking.cost` counts what a rule reads from the lists a check hands it. A rule can also
hide work that grows with the square of its input in a list it builds itself: ``data = data + row``
in a loop, ``order.insert(0, node)``, ``queue.pop(0)``, ``if x in seen`` on a list. Python does
that work in C, so no line of the learner's code shows it, but the list knows.

For the length of one measurement, :func:`own_lists_counted` swaps the learner's gap functions (and
methods) for copies compiled from the same source in which every list they build, by a literal
(``[]``, ``[0.0] * n``), a comprehension, ``list(...)`` or ``sorted(...)``, is an
:class:`~labs.checking.cost.Own`, a :class:`~labs.checking.cost.Tally`
on the measurement's :class:`~labs.checking.cost.Work`. What they compute is unchanged; their lists
count what is read, copied or moved in them. The count depends only on the code, so the verdict is
the same in the terminal and in the page, on any machine.

A gap that is not a set of whole functions or methods (a piece inside a method's body, a gap that
also assigns module state) is left as it is: its lists are not counted.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import CodeType, FunctionType, ModuleType
from typing import Any

from labs.checking.cost import Own, Work
from labs.course.gaps import GapSyntaxError, find_gaps, gap_at_line

COUNTED = "__ember_counted__"  # the name the copies call to make a list count; set in the module while measured
MAKERS = frozenset({"list", "sorted"})  # built-ins whose result is a new list


class _CountLists(ast.NodeTransformer):
    """Wraps every expression that makes a new list in ``__ember_counted__(...)``."""

    def _counted(self, node: ast.expr) -> ast.expr:
        return ast.copy_location(ast.Call(ast.Name(COUNTED, ast.Load()), [node], []), node)

    def visit_List(self, node: ast.List) -> ast.expr:
        self.generic_visit(node)
        return self._counted(node) if isinstance(node.ctx, ast.Load) else node

    def visit_ListComp(self, node: ast.ListComp) -> ast.expr:
        self.generic_visit(node)
        return self._counted(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in MAKERS:
            return self._counted(node)
        return node


def _defines_only_functions(tree: ast.Module) -> bool:
    """True when a gap's code is nothing but function definitions (a docstring or comment aside)."""
    body = [stmt for stmt in tree.body if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]
    return bool(body) and all(isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) for stmt in body)


def _needs_its_class(tree: ast.Module) -> bool:
    """True when the code calls super() or names __class__, which only works compiled inside its class."""
    return any(isinstance(node, ast.Name) and node.id in ("super", "__class__") for node in ast.walk(tree))


def counting_copy(text: str, path: str, first_line: int) -> CodeType | None:
    """The code of a gap's text (its lines between the markers), compiled with every new list counted, its lines
    numbered as in the learner's file; None when the gap is not made of whole functions."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None
    if not _defines_only_functions(tree) or _needs_its_class(tree):
        return None
    tree = ast.fix_missing_locations(_CountLists().visit(tree))
    ast.increment_lineno(tree, first_line - 1)
    return compile(tree, path, "exec")


def _class_around(source_tree: ast.Module, line: int, indent: str) -> str | None:
    """The name of the top-level class whose body holds ``line`` at the depth ``indent``, if any."""
    for node in source_tree.body:
        if isinstance(node, ast.ClassDef) and node.lineno < line <= (node.end_lineno or node.lineno):
            body_indent = next((stmt.col_offset for stmt in node.body), None)
            return node.name if body_indent == len(indent) else None
    return None


Swap = tuple[Any, str, Any, Any]  # (where, name, the learner's own, the counting copy)


@lru_cache(maxsize=64)  # the sources of one learner's recent checks
def _counting_gaps(source: str, path: str) -> tuple[tuple[CodeType, str | None], ...]:
    """Each gap of a learner's file that is made of whole functions: its counting copy, and the class whose methods
    it holds (None for functions of the module). Worked out once per source."""
    try:
        gaps = find_gaps(source)
        source_tree = ast.parse(source)
    except (GapSyntaxError, SyntaxError):
        return ()
    found: list[tuple[CodeType, str | None]] = []
    for gap in gaps:
        code = counting_copy(gap.text, path, gap.open_line + 1)
        if code is None:
            continue
        if not gap.indent:
            found.append((code, None))
        elif (name := _class_around(source_tree, gap.open_line, gap.indent)) is not None:
            found.append((code, name))
    return tuple(found)


def _swaps(module: ModuleType, source: str, modules: list[ModuleType]) -> list[Swap]:
    """Every function or method of ``module``'s gaps paired with its counting copy, wherever the learner's
    modules hold it (a function ``from ... import``-ed into another module is swapped there too)."""
    path = getattr(module, "__file__", None) or module.__name__
    swaps: list[Swap] = []
    for code, class_name in _counting_gaps(source, path):
        container: Any = module if class_name is None else getattr(module, class_name, None)
        if container is not module and not isinstance(container, type):
            continue
        made: dict[str, Any] = {}
        try:
            exec(code, module.__dict__, made)  # defines the copies only: the gap holds nothing but functions
        except Exception:  # a default value that only its class can compute: this gap goes uncounted
            continue
        for name, copy in made.items():
            own = container.__dict__.get(name)
            if own is None:
                continue
            if container is not module:
                swaps.append((container, name, own, copy))
                continue
            if not isinstance(own, FunctionType):
                continue
            swaps.extend((other, key, own, copy) for other in modules
                         for key, value in list(vars(other).items()) if value is own)
    return swaps


@contextmanager
def own_lists_counted(env: Any, work: Work) -> Iterator[None]:
    """Inside the block, the lists the learner's gap functions build count their reads, copies and moves on
    ``work``, like the lists the check hands them. Needs ``env.sources`` (the source each module ran from);
    without it, nothing changes."""
    sources: dict[str, str] = getattr(env, "sources", None) or {}
    modules = [module for name, module in env.modules.items() if module is not None and name in sources]
    for module in modules:
        module.__dict__[COUNTED] = lambda items: Own(items, work)
    swaps = [swap for module in modules for swap in _swaps(module, sources[_name(env, module)], modules)]
    try:
        for where, name, _, copy in swaps:
            setattr(where, name, copy)
        yield
    finally:
        for where, name, own, _ in reversed(swaps):
            setattr(where, name, own)
        for module in modules:
            module.__dict__.pop(COUNTED, None)


def _name(env: Any, module: ModuleType) -> str:
    return next(name for name, value in env.modules.items() if value is module)


def placer(env: Any) -> Callable[[str, int], str | None]:
    """For a check's messages: a line of one of the learner's files as 'line 3 of gap L16.rows' (None outside
    their gaps)."""
    sources: dict[str, str] = getattr(env, "sources", None) or {}
    by_path = {getattr(module, "__file__", None): sources[name] for name, module in env.modules.items()
               if module is not None and name in sources}

    def place(path: str, line: int) -> str | None:
        source = by_path.get(path)
        if source is None:
            return None
        try:
            gap = gap_at_line(find_gaps(source), line)
        except GapSyntaxError:
            return None
        return None if gap is None else f"line {line - gap.open_line} of gap {gap.id}"
    return place
