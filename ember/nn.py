"""Neurons, layers and a small multilayer perceptron made of ember Values."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from .scalar import Value


class Module:
    """Anything with parameters that a gradient can teach."""

    def parameters(self) -> list[Value]:
        """Every Value this module learns."""
        return []

    # --- gap L12.zero_grad ---
    def zero_grad(self) -> None:
        """Forget the gradients of the last backward pass."""
        for p in self.parameters():
            p.grad = 0.0
    # --- end gap ---


class Neuron(Module):
    """Weights times inputs plus a bias, through relu unless it is linear."""

    def __init__(self, n_inputs: int, linear: bool = False, rng: random.Random | None = None) -> None:
        rng = rng or random.Random()
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(n_inputs)]
        self.b = Value(0.0)
        self.linear = linear

    # --- gap L12.neuron ---
    def __call__(self, x: Sequence[Value | float]) -> Value:
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act if self.linear else act.relu()
    # --- end gap ---

    def parameters(self) -> list[Value]:
        """The weights, then the bias."""
        return self.w + [self.b]


class Layer(Module):
    """Several neurons reading the same inputs."""

    def __init__(self, n_inputs: int, n_outputs: int, linear: bool = False, rng: random.Random | None = None) -> None:
        self.neurons = [Neuron(n_inputs, linear, rng) for _ in range(n_outputs)]

    def __call__(self, x: Sequence[Value | float]) -> list[Value]:
        return [neuron(x) for neuron in self.neurons]

    def parameters(self) -> list[Value]:
        """Every neuron's parameters."""
        return [p for neuron in self.neurons for p in neuron.parameters()]


class MLP(Module):
    """Layers one after another; the last one is linear."""

    def __init__(self, n_inputs: int, sizes: Sequence[int], seed: int | None = None) -> None:
        rng = random.Random(seed)
        widths = [n_inputs, *sizes]
        self.layers = [
            Layer(widths[i], widths[i + 1], linear=(i == len(sizes) - 1), rng=rng) for i in range(len(sizes))
        ]

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        out = self.layers[0](x)
        for layer in self.layers[1:]:
            out = layer(out)
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        """Every layer's parameters."""
        return [p for layer in self.layers for p in layer.parameters()]


# --- gap L12.step ---
def sgd_step(parameters: Iterable[Value], learning_rate: float) -> None:
    """Move every parameter a small step against its gradient."""
    for p in parameters:
        p.data -= learning_rate * p.grad
# --- end gap ---
