"""Where a batched `jit(vmap(grad(f)))` beats running each example's compiled code.

For a deep, narrow function (a 1,000-step chain) and a wide one (a layer of 16
neurons, relu or tanh), later calls at 8 to 128 examples, three ways: always
the NumPy batch (``Options(numpy_call=0)``), always one example at a time
(``Options(batch_from=10**6)``), and as `jit` chooses (`vmapped.break_even`).
Medians of 7 calls, in milliseconds; every way gives each example eager's bits.

    python bench/vmap_crossover.py
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import autograd as ag
from autograd.compiler.options import Options

SIZES = (8, 16, 32, 64, 128)
WAYS = {
    "batched": Options(numpy_call=0),
    "one by one": Options(batch_from=10**6),
    "as jit chooses": Options(),
}


def chain(x: ag.Scalar) -> ag.Scalar:
    for _ in range(1000):
        x = ag.tanh(0.9 * x + 0.1)
    return x


_WEIGHTS = [random.Random(0).uniform(-1, 1) for _ in range(16)]


def relu_layer(x: ag.Scalar) -> ag.Scalar:
    return ag.sum([ag.relu(w * x + 0.1) for w in _WEIGHTS])


def tanh_layer(x: ag.Scalar) -> ag.Scalar:
    return ag.sum([ag.tanh(w * x + 0.1) for w in _WEIGHTS])


def median_ms(f: Callable[[list[float]], object], xs: list[float]) -> float:
    f(xs)  # the first call compiles
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        f(xs)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    rng = random.Random(1)
    print("| function, way | " + " | ".join(str(n) for n in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    for name, fn in (
        ("1,000-step chain", chain),
        ("relu layer", relu_layer),
        ("tanh layer", tanh_layer),
    ):
        for way, options in WAYS.items():
            cells = []
            for n in SIZES:
                xs = [rng.uniform(-1, 1) for _ in range(n)]
                f = ag.jit(ag.vmap(ag.grad(fn)), options=options)
                cells.append(f"{median_ms(f, xs):.2f} ms")
            print(f"| {name}, {way} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
