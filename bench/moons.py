"""A deterministic two-moons data set and MLP parameters for the W2 workload.

Written here rather than imported, so the benchmark depends on nothing but the
engine under test (and, optionally, micrograd and torch).
"""

from __future__ import annotations

import itertools
import math
import random

SIZES = (2, 16, 16, 1)
"""micrograd's demo network: 2 inputs, two ReLU layers of 16, one linear output."""

Params = list[list[list[float]]]
"""``params[layer][neuron]`` is that neuron's weights followed by its bias."""


def make_moons(
    n: int = 100, noise: float = 0.1, seed: int = 0
) -> tuple[list[list[float]], list[float]]:
    """``n`` points on two interleaved half circles, labels -1.0 and 1.0 (as sklearn's)."""
    rng = random.Random(seed)
    xs: list[list[float]] = []
    ys: list[float] = []
    for i in range(n):
        upper = i < n // 2
        k = i if upper else i - n // 2
        t = math.pi * k / max(1, (n // 2 if upper else n - n // 2) - 1)
        x0, x1 = (math.cos(t), math.sin(t)) if upper else (1.0 - math.cos(t), 0.5 - math.sin(t))
        xs.append([x0 + rng.gauss(0.0, noise), x1 + rng.gauss(0.0, noise)])
        ys.append(-1.0 if upper else 1.0)
    return xs, ys


def init_params(sizes: tuple[int, ...] = SIZES, seed: int = 1) -> Params:
    """Weights uniform in [-1, 1] (micrograd's init), biases 0."""
    rng = random.Random(seed)
    return [
        [[rng.uniform(-1.0, 1.0) for _ in range(nin)] + [0.0] for _ in range(nout)]
        for nin, nout in itertools.pairwise(sizes)
    ]


def flat(params: Params) -> list[float]:
    """The parameters in micrograd's order: per neuron, its weights then its bias."""
    return [p for layer in params for neuron in layer for p in neuron]
