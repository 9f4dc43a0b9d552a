"""`jit` of `grad` against `jit` of a function that calls `grad`: first and later calls.

Run: ``python bench/inner_grad.py [pairs]`` (default 20,000; about 15 s). The loss
is `equation_level.tanh_sum` with its data as an argument. ``jit(grad(loss))``
compiles the backward sweep itself (one statement per rule, loops over the
terms); a `grad` called inside a jitted function (``jit(step)``, JAX's usual
training step) has its sweep traced as nodes, each rule's arithmetic an
equation. Each row: the first call, the median of 7 later calls, and whether
the result has eager's bits.
"""

import random
import statistics
import sys
import time
from collections.abc import Callable

from equation_level import tanh_sum

import autograd as ag

Scalar = ag.Scalar


def gradient(ws: list[Scalar], xs: list[Scalar]) -> list[Scalar]:
    """``grad(tanh_sum)`` called inside the jitted function."""
    return ag.grad(tanh_sum)(ws, xs)


def step(ws: list[Scalar], xs: list[Scalar]) -> list[Scalar]:
    """A training step: the gradient, then an update of every weight."""
    return [w - 0.1 * g for w, g in zip(ws, ag.grad(tanh_sum)(ws, xs), strict=True)]


def main() -> None:
    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    rng = random.Random(4)
    ws = [rng.uniform(-1, 1) for _ in range(pairs)]
    xs = [rng.uniform(-1, 1) for _ in range(pairs)]
    shapes: dict[str, Callable[[list[Scalar], list[Scalar]], object]] = {
        "jit(grad(loss))": ag.grad(tanh_sum),
        "jit(f), f calls grad(loss)": gradient,
        "jit(step), step calls grad(loss)": step,
    }
    print(f"| {pairs:,} pairs | first call | later (median of 7) | bits as eager |")
    print("|---|---|---|---|")
    for name, f in shapes.items():
        jitted = ag.jit(f)
        t = time.perf_counter()
        got = jitted(ws, xs)
        first = time.perf_counter() - t
        later = []
        for _ in range(7):
            t = time.perf_counter()
            jitted(ws, xs)
            later.append(time.perf_counter() - t)
        same = repr(got) == repr(f(ws, xs))
        print(f"| {name} | {first:.2f} s | {statistics.median(later) * 1e3:.2f} ms | {same} |")


if __name__ == "__main__":
    main()
