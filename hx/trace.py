"""Step-through traces for lesson 10: the backward pass edge by edge, and the depth-first sort event by event."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field

from hx.fmt import fmt
from hx.graph import Graph, plain, read_attr, read_inputs

__all__ = [
    "BackwardTrace", "EdgeStep", "TopoEvent", "TopoTrace", "backward_trace", "local_derivatives", "topo_trace",
    "walk_trace",
]


def _number(x: object) -> float | None:
    """x as a float when it is a plain int or float, else None."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float.__float__(x) if isinstance(x, float) else float(int.__int__(x))


def _error_text(exc: BaseException) -> str:
    """'TypeName: message' for an exception, without trusting its __str__."""
    try:
        message = str(exc)
    except Exception:  # a learner's exception may fail to print itself
        message = ""
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


@dataclass(slots=True, eq=False, repr=False)
class EdgeStep:
    """What one _backward call sent back along one edge (input -> output).

    share is the input's grad after the call minus before it. When the same Value sits in
    several slots of output._prev (x*x), the call's combined change to it is split equally over
    those slots (exact for x*x), repeats says how many slots, and grad_before/grad_after
    walk through the slots one after another, so that grad_after - grad_before == share on
    every record and the last slot ends at the input's real grad.
    """

    step: int  # which step sent it, counting only calls of nodes with inputs (the ones drawn): 0 is the first
    output: str
    input: str
    output_index: int
    input_index: int
    position: int  # the input's slot in output._prev
    upstream: object  # output.grad when its _backward ran
    local: float | None  # share / upstream; None when upstream is 0 or not a number
    share: float | None  # None when a grad is not a number
    grad_before: object
    grad_after: object
    repeats: int = 1
    combined_share: float | None = None  # what the call sent to this input over all its slots

    def __repr__(self) -> str:
        return f"EdgeStep({self.to_dict()})"  # safe text, never a learner's repr

    def to_dict(self) -> dict[str, object]:
        """The record as plain data (numbers stay numbers, anything else becomes safe text)."""
        return {
            "step": self.step,
            "output": self.output,
            "input": self.input,
            "output_index": self.output_index,
            "input_index": self.input_index,
            "position": self.position,
            "upstream": plain(self.upstream),
            "local": self.local,
            "share": self.share,
            "grad_before": plain(self.grad_before),
            "grad_after": plain(self.grad_after),
            "repeats": self.repeats,
            "combined_share": self.combined_share,
        }


@dataclass(frozen=True, eq=False)
class BackwardTrace:
    """A whole backward pass run by hx: the order of the calls, every edge's share, the final grads."""

    graph: Graph = field(repr=False)
    order: tuple[str, ...]  # the nodes whose _backward ran, in that order (leaves have none to run)
    edges: tuple[EdgeStep, ...]
    grads: tuple[tuple[str, object], ...]  # every node's grad at the end, in graph order
    error: str | None = None  # 'TypeName: message' when a step failed; the trace stops there
    error_node: str | None = None
    seed: object = 1.0  # the root's grad when its own _backward ran (None when it never ran)
    source: str = "hx"  # "hx": hx chose the order; "yours": the learner's backward() did
    calls: tuple[str, ...] = ()  # with source "yours": every _backward call in order, leaves included

    @property
    def ok(self) -> bool:
        """True when every _backward ran without raising."""
        return self.error is None

    def shares_into(self, name: str) -> list[EdgeStep]:
        """The records of every edge that sent something back into the node with this name."""
        return [edge for edge in self.edges if edge.input == name]

    def edge_labels(self) -> dict[tuple[int, int, int], str]:
        """Each traced edge's share as text, keyed (input, output, slot) for to_dot(edge_labels=...)."""
        return {
            (edge.input_index, edge.output_index, edge.position): fmt(edge.share)
            for edge in self.edges
            if edge.share is not None
        }

    def to_dict(self) -> dict[str, object]:
        """The trace as plain data, fit for JSON."""
        return {
            "order": list(self.order),
            "edges": [edge.to_dict() for edge in self.edges],
            "grads": [[name, plain(grad)] for name, grad in self.grads],
            "error": self.error,
            "error_node": self.error_node,
            "root": self.graph.root.name,
            "seed": plain(self.seed),
            "source": self.source,
            "calls": list(self.calls),
        }


def _edge_steps(step: int, graph: Graph, i: int, upstream: object, before: dict[int, object],
                after: dict[int, object]) -> list[EdgeStep]:
    """The records of one _backward call of node i, one per slot of its _prev."""
    node = graph.nodes[i]
    repeats = {j: node.inputs.count(j) for j in before}
    running = dict(before)
    done: dict[int, int] = dict.fromkeys(before, 0)
    up = _number(upstream)
    records = []
    for k, j in enumerate(node.inputs):
        b, a = _number(before[j]), _number(after[j])
        combined = None if a is None or b is None else a - b
        share = None if combined is None else combined / repeats[j]
        done[j] += 1
        grad_before = running[j]
        last_slot = share is None or done[j] == repeats[j]
        grad_after = after[j] if last_slot else _number(grad_before) + share  # type: ignore[operator]
        running[j] = grad_after
        records.append(
            EdgeStep(
                step=step,
                output=node.name,
                input=graph.nodes[j].name,
                output_index=i,
                input_index=j,
                position=k,
                upstream=upstream,
                local=None if share is None or not up else share / up,
                share=share,
                grad_before=grad_before,
                grad_after=grad_after,
                repeats=repeats[j],
                combined_share=combined,
            )
        )
    return records


def backward_trace(root: object) -> BackwardTrace:
    """Run the backward pass of root step by step and record what each edge sends back.

    hx orders the graph itself (Graph.from_root, walked outputs first), sets every node's grad
    to 0.0 and root.grad to 1.0, then calls each non-leaf node's _backward once. It calls no
    other method of the learner's objects, and it never raises for a learner's mistake: the
    first failing _backward stops the trace and its error text is kept. It does change the
    grads stored on the learner's Values, as a backward pass does.
    """
    graph = Graph.from_root(root)
    values = graph.values
    order: list[str] = []
    edges: list[EdgeStep] = []
    error = error_node = None
    try:
        for value in values:
            if not isinstance(value, (int, float)):  # a bare number in some _prev has no grad to hold
                value.grad = 0.0  # type: ignore[attr-defined]
        root.grad = 1.0  # type: ignore[attr-defined]
    except Exception as exc:  # a learner's class may refuse the attribute
        error, error_node = _error_text(exc), graph.root.name
    steps = [] if error else [node.index for node in reversed(graph.nodes) if not node.is_leaf]
    for step, i in enumerate(steps):
        value, node = values[i], graph.nodes[i]
        backward = read_attr(value, "_backward", None)
        if not callable(backward):
            error, error_node = f"{node.name} has no callable _backward", node.name
            break
        upstream = read_attr(value, "grad")
        before = {j: read_attr(values[j], "grad") for j in dict.fromkeys(node.inputs)}
        try:
            backward()
        except Exception as exc:  # whatever the learner's step raises is reported
            error, error_node = _error_text(exc), node.name
            break
        after = {j: read_attr(values[j], "grad") for j in before}
        order.append(node.name)
        edges.extend(_edge_steps(step, graph, i, upstream, before, after))
    grads = tuple((node.name, read_attr(value, "grad")) for node, value in zip(graph.nodes, values))
    return BackwardTrace(graph=graph, order=tuple(order), edges=tuple(edges), grads=grads, error=error,
                         error_node=error_node)


def walk_trace(root: object) -> BackwardTrace:
    """Call the learner's own root.backward() and record every _backward call it makes, in its order.

    Before the call, each Value's _backward is replaced by a recorder that notes the upstream
    grad and its inputs' grads before and after the original step; afterwards every original
    step is put back, whatever happened. The order is the learner's: a wrong walk shows up as a
    wrong order, a node called twice appears twice. Nothing else of the learner's code is called.
    """
    graph = Graph.from_root(root)
    values = graph.values
    edges: list[EdgeStep] = []
    calls: list[str] = []
    order: list[str] = []
    seed: list[object] = []
    running: list[str] = []  # the node whose step is running now, for the error's place
    originals: dict[int, object] = {}

    def recorder(i: int, original: object) -> object:
        node = graph.nodes[i]

        def recorded_backward() -> None:
            running[:] = [node.name]
            upstream = read_attr(values[i], "grad")
            if i == graph.root.index and not seed:
                seed.append(upstream)
            before = {j: read_attr(values[j], "grad") for j in dict.fromkeys(node.inputs)}
            original()  # type: ignore[operator]
            after = {j: read_attr(values[j], "grad") for j in before}
            calls.append(node.name)
            if not node.is_leaf:  # a leaf's call sends nothing: it is listed in calls, not numbered as a step
                edges.extend(_edge_steps(len(order), graph, i, upstream, before, after))
                order.append(node.name)

        return recorded_backward

    error = error_node = None
    try:
        for i, value in enumerate(values):
            original = read_attr(value, "_backward", None)
            if callable(original) and not isinstance(value, (int, float)):
                value._backward = recorder(i, original)  # type: ignore[attr-defined]
                originals[i] = original
        backward = read_attr(root, "backward", None)
        if not callable(backward):
            raise TypeError(f"{graph.root.name} has no callable backward()")
        backward()
    except Exception as exc:  # whatever the learner's walk or step raises is reported
        error, error_node = _error_text(exc), (running[0] if running else graph.root.name)
    finally:
        for i, original in originals.items():
            with suppress(Exception):  # a learner's class may refuse; the recorder still calls the original
                values[i]._backward = original  # type: ignore[attr-defined]
    grads = tuple((node.name, read_attr(value, "grad")) for node, value in zip(graph.nodes, values))
    return BackwardTrace(graph=graph, order=tuple(order), edges=tuple(edges), grads=grads, error=error,
                         error_node=error_node, seed=seed[0] if seed else None, source="yours", calls=tuple(calls))


def local_derivatives(root: object) -> dict[tuple[int, int, int], str]:
    """Each edge's local derivative as text, keyed (input, output, slot) for to_dot(edge_labels=...).

    Found by asking each node's own _backward: with the node's grad set to 1 and its inputs'
    grads to 0, what an input receives is its local derivative (split equally over repeated
    slots, as in x * x). Every grad is put back afterwards. A step that fails leaves its edges
    without a label.
    """
    graph = Graph.from_root(root)
    values = graph.values
    saved = [read_attr(value, "grad") for value in values]
    labels: dict[tuple[int, int, int], str] = {}
    try:
        for node in graph.nodes:
            backward = read_attr(values[node.index], "_backward", None)
            if node.is_leaf or not callable(backward):
                continue
            inputs = list(dict.fromkeys(node.inputs))
            try:
                for j in inputs:
                    values[j].grad = 0.0  # type: ignore[attr-defined]
                values[node.index].grad = 1.0  # type: ignore[attr-defined]
                backward()
            except Exception:  # a step not written yet, or a learner's mistake: no labels for it
                continue
            for k, j in enumerate(node.inputs):
                got = _number(read_attr(values[j], "grad"))
                if got is not None:
                    labels[(j, node.index, k)] = fmt(got / node.inputs.count(j))
    finally:
        for value, grad in zip(values, saved):
            with suppress(Exception):  # a learner's class may refuse the attribute
                value.grad = grad  # type: ignore[attr-defined]
    return labels


@dataclass(slots=True, eq=False)
class TopoEvent:
    """One event of the depth-first sort, with the stack, seen set and order right after it.

    kind is "enter" (first visit: node added to seen, (node, True) pushed), "follow" (one
    parent pushed as (parent, False); via is the node it is a parent of), "skip-seen" (popped
    (node, False) again, already seen) or "append" (popped (node, True): node joins the order).
    """

    kind: str
    node: str
    index: int  # the node's position in the graph
    stack: tuple[tuple[str, bool], ...]  # bottom first
    seen: tuple[str, ...]  # in the order nodes were added
    order: tuple[str, ...]
    via: str | None = None

    def to_dict(self) -> dict[str, object]:
        """The event as plain data; the stack as a list of [name, parents_done]."""
        return {
            "kind": self.kind,
            "node": self.node,
            "index": self.index,
            "via": self.via,
            "stack": [[name, done] for name, done in self.stack],
            "seen": list(self.seen),
            "order": list(self.order),
        }


@dataclass(frozen=True, eq=False)
class TopoTrace:
    """The events of the depth-first sort from a root, and the order it ends with."""

    events: tuple[TopoEvent, ...]
    order: tuple[str, ...]  # the whole order, even when events were cut off
    total_events: int
    truncated: bool  # True when more than `limit` events happened and only the first ones are kept

    def to_dict(self) -> dict[str, object]:
        """The trace as plain data, fit for JSON."""
        return {
            "events": [event.to_dict() for event in self.events],
            "order": list(self.order),
            "total_events": self.total_events,
            "truncated": self.truncated,
        }


def topo_trace(root: object, limit: int | None = 1000) -> TopoTrace:
    """Sort the graph as the lesson does, with a stack of (node, parents_done) pairs, recording each event.

    Every parent is pushed, seen or not, so a node reached twice shows up as "skip-seen".
    Only the first `limit` events are recorded (None: all of them); the sort still runs to the
    end, so order and total_events are always complete. No recursion.
    """
    graph = Graph.from_root(root)
    names = [node.name for node in graph.nodes]
    index_of = graph.index_of
    events: list[TopoEvent] = []
    stack: list[tuple[object, bool]] = [(root, False)]
    seen: set[int] = set()
    seen_names: list[str] = []
    order: list[str] = []
    total = 0

    def record(kind: str, i: int, via: str | None = None) -> None:
        """Count one event, and keep it with copies of the stack, seen and order while under the limit."""
        nonlocal total
        total += 1
        if limit is None or len(events) < limit:
            snapshot = tuple((names[index_of(value)], done) for value, done in stack)
            events.append(TopoEvent(kind, names[i], i, snapshot, tuple(seen_names), tuple(order), via))

    while stack:
        node, parents_done = stack.pop()
        i = index_of(node)
        if parents_done:
            order.append(names[i])
            record("append", i)
        elif id(node) in seen:
            record("skip-seen", i)
        else:
            seen.add(id(node))
            seen_names.append(names[i])
            stack.append((node, True))
            record("enter", i)
            for parent in read_inputs(node):
                stack.append((parent, False))
                record("follow", index_of(parent), via=names[i])
    return TopoTrace(events=tuple(events), order=tuple(order), total_events=total, truncated=len(events) < total)
