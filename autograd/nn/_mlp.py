"""Multi-layer perceptrons as data: frozen parameter records and a pure forward pass."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Sequence
from typing import overload

import attrs

from autograd.core.functions import dot, relu
from autograd.core.nodes import Scalar

Activation = Callable[[Scalar], Scalar]


@attrs.frozen
class Dense:
    """One fully connected layer: ``out[i] = dot(w[i], x) + b[i]``.

    ``w`` holds one row of input weights per output unit. Fields are tuples,
    so a layer is immutable and a pytree: `autograd.grad` returns a `Dense` of
    gradients, and the optimisers map over it. The fields are typed ``float``, as
    the parameters and gradients a user holds are; under a transform they are
    nodes (see docs/typing.md).
    """

    w: tuple[tuple[float, ...], ...]
    b: tuple[float, ...]


@attrs.frozen
class MLP:
    """The parameters of a multi-layer perceptron: its layers, input side first."""

    layers: tuple[Dense, ...]

    @property
    def sizes(self) -> tuple[int, ...]:
        """Unit counts, input first: ``(2, 16, 16, 1)``."""
        if not self.layers:
            return ()
        return (len(self.layers[0].w[0]), *(len(layer.b) for layer in self.layers))


def init_mlp(sizes: Sequence[int], seed: int) -> MLP:
    """Random parameters for an MLP with the given unit counts, input first.

    Every weight and bias of a layer with ``n`` inputs is drawn uniformly from
    ``[-1/sqrt(n), 1/sqrt(n))`` (PyTorch's default for ``nn.Linear``), as
    ``(2 * u - 1) / sqrt(n)`` where ``u`` comes from
    ``random.Random(seed).random()``. Only ``random()`` is used because it is
    the one stream Python promises to keep across versions; the draw order is
    layer by layer, each row of weights then the biases.

    Args:
        sizes: at least two positive unit counts, e.g. ``(2, 16, 16, 1)``.
        seed: the integer seed.

    Returns:
        The parameters, every leaf a float.

    Raises:
        ValueError: for fewer than two sizes or a size below one.

    >>> params = init_mlp((2, 3, 1), seed=0)
    >>> params.sizes, len(params.layers[0].w), len(params.layers[0].w[0])
    ((2, 3, 1), 3, 2)
    """
    if len(sizes) < 2 or any(type(n) is not int or n < 1 for n in sizes):
        raise ValueError(f"init_mlp() needs two or more positive int sizes, got {sizes!r}")
    rng = random.Random(seed)
    layers = []
    for n_in, n_out in itertools.pairwise(sizes):
        root = math.sqrt(n_in)

        def draw(root: float = root) -> float:
            return (2.0 * rng.random() - 1.0) / root

        w = tuple(tuple(draw() for _ in range(n_in)) for _ in range(n_out))
        b = tuple(draw() for _ in range(n_out))
        layers.append(Dense(w, b))
    return MLP(tuple(layers))


@overload
def mlp(
    params: MLP, x: Sequence[float], activation: Callable[[float], float] = relu
) -> tuple[float, ...]: ...
@overload
def mlp(params: MLP, x: Sequence[Scalar], activation: Activation = relu) -> tuple[Scalar, ...]: ...
def mlp(
    params: MLP, x: Sequence[Scalar], activation: Callable[..., Scalar] = relu
) -> tuple[Scalar, ...]:
    """The network's outputs for one input: ``activation`` after every layer but the last.

    Floats in give floats out (fast, for predictions); under a transform the
    parameters are nodes and so is the output.

    Args:
        params: the parameters (from `init_mlp`, or updated by an optimiser).
        x: one input, as many numbers as the first layer takes.
        activation: applied between layers (`autograd.relu` by default;
            `autograd.tanh` works too). The last layer is linear.

    Returns:
        One score per unit of the last layer.

    Raises:
        ValueError: if ``x`` has the wrong length.

    >>> layer = Dense(w=((1.0, -1.0), (0.5, 0.5)), b=(0.0, 1.0))
    >>> mlp(MLP((layer,)), [3.0, 1.0])
    (2.0, 3.0)
    """
    h: Sequence[Scalar] = x
    last = len(params.layers) - 1
    for i, layer in enumerate(params.layers):
        if len(h) != len(layer.w[0]):
            raise ValueError(f"layer {i} takes {len(layer.w[0])} inputs, got {len(h)}")
        out = [dot(row, h) + b for row, b in zip(layer.w, layer.b, strict=True)]
        h = out if i == last else [activation(v) for v in out]
    return tuple(h)
