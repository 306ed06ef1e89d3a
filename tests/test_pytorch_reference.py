"""Lesson 13's reference numbers come from a real PyTorch run: this test records them and guards them.

Set EMBER_UPDATE_SNAPSHOTS=1 to write labs/data/pytorch_sigmoid.json again.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ember.scalar import Value

if TYPE_CHECKING:
    import torch

REFERENCE = Path(__file__).resolve().parent.parent / "labs" / "data" / "pytorch_sigmoid.json"
POINT = {"w": 0.5, "x": 2.0, "b": -1.0, "y": 1.0}


def grad_of(tensor: torch.Tensor) -> float:
    """The gradient backward() left on a leaf or a retained node."""
    assert tensor.grad is not None
    return tensor.grad.item()


def pytorch_numbers() -> dict:
    """Values and gradients of L = (sigmoid(w*x + b) - y)**2, fused and spelled out, from PyTorch in float64."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch

    def run(spelled: bool) -> tuple[dict, dict]:
        leaves = {name: torch.tensor(value, dtype=torch.float64, requires_grad=True) for name, value in POINT.items()}
        nodes = {"z": leaves["w"] * leaves["x"] + leaves["b"]}
        if spelled:
            nodes["n"] = -nodes["z"]
            nodes["q"] = torch.exp(nodes["n"])
            nodes["d"] = 1 + nodes["q"]
            nodes["s"] = 1 / nodes["d"]
        else:
            nodes["s"] = torch.sigmoid(nodes["z"])
        nodes["L"] = (nodes["s"] - leaves["y"]) ** 2
        for node in nodes.values():
            node.retain_grad()
        graph = backward_graph(nodes["L"])
        nodes["L"].backward()
        every = {**leaves, **nodes}
        return {name: {"value": tensor.item(), "grad": grad_of(tensor)} for name, tensor in every.items()}, graph

    fused, fused_graph = run(False)
    spelled, spelled_graph = run(True)
    return {"torch": torch.__version__, "point": POINT, "fused": fused, "spelled": spelled,
            "graphs": {"fused": fused_graph, "spelled": spelled_graph}}


def backward_graph(root: torch.Tensor) -> dict:
    """PyTorch's backward graph under root, read from grad_fn.next_functions.

    Each function once, in the order a depth-first walk from root.grad_fn meets it, with
    the functions it sends gradients to; a slot holding None (an input that is a constant,
    like the 1 in 1 + q) is kept as None. 'edges' counts the slots that lead to a function.
    """
    functions, seen, stack = [], set(), [root.grad_fn]
    while stack:
        function = stack.pop()
        if function is None or function in seen:
            continue
        seen.add(function)
        following = [None if f is None else type(f).__name__ for f, _ in function.next_functions]
        functions.append([type(function).__name__, following])
        stack.extend(f for f, _ in reversed(function.next_functions))
    edges = sum(name is not None for _, following in functions for name in following)
    constants = sum(name is None for _, following in functions for name in following)
    return {"functions": functions, "edges": edges, "constant_slots": constants}


def test_the_recorded_numbers_are_what_pytorch_gives() -> None:
    numbers = pytorch_numbers()
    if os.environ.get("EMBER_UPDATE_SNAPSHOTS") == "1":
        REFERENCE.parent.mkdir(parents=True, exist_ok=True)
        REFERENCE.write_text(json.dumps(numbers, indent=2) + "\n")
    assert json.loads(REFERENCE.read_text()) == numbers


def test_ember_agrees_with_the_recorded_pytorch_numbers() -> None:
    recorded = json.loads(REFERENCE.read_text())
    for spelled in (False, True):
        leaves = {name: Value(value) for name, value in POINT.items()}
        nodes = {"z": leaves["w"] * leaves["x"] + leaves["b"]}
        if spelled:
            nodes["n"] = -nodes["z"]
            nodes["q"] = nodes["n"].exp()
            nodes["d"] = 1 + nodes["q"]
            nodes["s"] = 1 / nodes["d"]
        else:
            nodes["s"] = nodes["z"].sigmoid()
        nodes["L"] = (nodes["s"] - leaves["y"]) ** 2
        nodes["L"].backward()
        torch_side = recorded["spelled" if spelled else "fused"]
        for name, node in {**leaves, **nodes}.items():
            assert math.isclose(node.data, torch_side[name]["value"], rel_tol=1e-12, abs_tol=1e-15), name
            assert math.isclose(node.grad, torch_side[name]["grad"], rel_tol=1e-12, abs_tol=1e-15), name


def test_pytorch_counts_fewer_edges_than_ember_and_keeps_constants_out_of_its_graph() -> None:
    graphs = json.loads(REFERENCE.read_text())["graphs"]
    assert (graphs["fused"]["edges"], graphs["spelled"]["edges"]) == (8, 12)
    assert (graphs["fused"]["constant_slots"], graphs["spelled"]["constant_slots"]) == (0, 2)
    spelled = [name for name, _ in graphs["spelled"]["functions"]]
    assert "ReciprocalBackward0" in spelled and "SigmoidBackward0" not in spelled  # 1 / d: reciprocal, multiply
    assert "SigmoidBackward0" in [name for name, _ in graphs["fused"]["functions"]]


def test_the_worked_numbers_of_the_lesson() -> None:
    fused = json.loads(REFERENCE.read_text())["fused"]
    assert {name: fused[name]["grad"] for name in ("w", "x", "b", "y", "z")} == {
        "w": -0.5, "x": -0.125, "b": -0.25, "y": 1.0, "z": -0.25}
    assert (fused["z"]["value"], fused["s"]["value"], fused["L"]["value"]) == (0.0, 0.5, 0.25)


CHAIN = Path(__file__).resolve().parent.parent / "labs" / "data" / "pytorch_chain.json"
CHAIN_POINT = {"w": 2.0, "x": 3.0, "b": 1.0, "y": 10.0}


def pytorch_chain() -> dict:
    """Lesson 08's worked example m = w*x, a = m + b, e = a - y, L = e*e, from PyTorch in float64."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch

    leaves = {name: torch.tensor(value, dtype=torch.float64, requires_grad=True) for name, value in CHAIN_POINT.items()}
    nodes = {"m": leaves["w"] * leaves["x"]}
    nodes["a"] = nodes["m"] + leaves["b"]
    nodes["e"] = nodes["a"] - leaves["y"]
    nodes["L"] = nodes["e"] * nodes["e"]
    for node in nodes.values():
        node.retain_grad()
    nodes["L"].backward()
    every = {**leaves, **nodes}
    return {"torch": torch.__version__, "point": CHAIN_POINT,
            "nodes": {name: {"value": t.item(), "grad": grad_of(t)} for name, t in every.items()}}


def test_the_recorded_chain_numbers_are_what_pytorch_gives() -> None:
    numbers = pytorch_chain()
    if os.environ.get("EMBER_UPDATE_SNAPSHOTS") == "1":
        CHAIN.write_text(json.dumps(numbers, indent=2) + "\n")
    assert json.loads(CHAIN.read_text()) == numbers
    grads = {name: node["grad"] for name, node in numbers["nodes"].items()}
    assert grads == {"w": -18.0, "x": -12.0, "b": -6.0, "y": 6.0, "m": -6.0, "a": -6.0, "e": -6.0, "L": 1.0}


def test_pytorchs_relu_sends_nothing_back_at_exactly_zero() -> None:
    """Lesson 11 says ember's relu follows PyTorch at the corner: slope 0 at exactly 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch

    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    torch.relu(x).backward()
    assert grad_of(x) == 0.0
    x_value = Value(0.0)
    x_value.relu().backward()
    assert x_value.grad == grad_of(x)


def test_pytorch_needs_retain_graph_for_a_second_backward_and_keeps_only_leaf_grads() -> None:
    """What lesson 10 says of PyTorch and a second backward pass, checked on lesson 09's example."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch

        def example() -> tuple:
            a, b, c = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, -3.0, 10.0))
            e = a * b + c
            return a, b, c, e, e * a

        a, b, c, e, loss = example()
        loss.backward()
        try:
            loss.backward()
        except RuntimeError as error:
            assert "second time" in str(error)
        else:
            raise AssertionError("a second backward() without retain_graph=True should fail")
        assert e.grad is None  # an intermediate tensor keeps no grad unless asked with retain_grad()

        a, b, c, e, loss = example()
        e.retain_grad()
        loss.backward(retain_graph=True)
        loss.backward()
    assert (a.grad.item(), b.grad.item(), c.grad.item()) == (-4.0, 8.0, 4.0)  # the leaves add up
    assert e.grad.item() == 4.0  # retained: 2.0 from each pass
