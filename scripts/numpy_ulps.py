"""Measure how far each op's NumPy twin is from the engine's float helper, in ulps.

Batched `vmap` under `jit` runs every float helper that generated code calls
(`exp_float`, `pow_float`, `tanh`, ...) as its NumPy twin over a whole batch
(`autograd.compiler.arrays.twins(numpy_functions=True)`); eager code calls the helper, which
uses `math` (the C library). This prints, per helper: how many of N random
inputs differ, the largest difference in ulps over finite nonzero results,
and whether every nan, infinite or zero result (of random inputs and of
special ones: nan, inf, signed zeros, subnormals, huge) has the same bits.
Inputs mix [-1, 1], [-50, 50], [-700, 700] and floats from random bits;
exponents of the ``pow`` helpers are drawn from the scalar-exponent paths
(2, 3, 0.5, -1, -2, -0.5), 1.5 and small integers. Run:

    .venv/bin/python scripts/numpy_ulps.py [--count 1000000] [--seed 0]

docs/numerics.md publishes the table (measured with ``--count 1000000``).
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import sys
from collections.abc import Callable

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, math.inf, -math.inf, math.nan]
SPECIAL += [5e-324, -5e-324, 2.2250738585072014e-308, 1e300, -1e300, 710.0, -745.5, 1e-8]
EXPONENTS = [2.0, 3.0, 0.5, -1.0, -2.0, -0.5, 1.5]


def draw(rng: random.Random) -> float:
    """One input: mostly moderate, sometimes any float at all (from its bits)."""
    k = rng.random()
    if k < 0.4:
        return rng.uniform(-1.0, 1.0)
    if k < 0.7:
        return rng.uniform(-50.0, 50.0)
    if k < 0.85:
        return rng.uniform(-700.0, 700.0)
    x: float = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    return x


def columns(name: str, arity: int, count: int, rng: random.Random) -> list[list[float]]:
    """Random inputs, then every special input (every pair of them for two inputs)."""
    if arity == 1:
        return [[draw(rng) for _ in range(count)] + SPECIAL]
    a = [draw(rng) for _ in range(count)]
    if name.startswith("pow"):
        b = [rng.choice([*EXPONENTS, float(rng.randint(-5, 5))]) for _ in range(count)]
    else:
        b = [draw(rng) for _ in range(count)]
    a += [x for x in SPECIAL for _ in SPECIAL]
    b += SPECIAL * len(SPECIAL)
    return [a, b]


def measure(
    np: object, fn: Callable[..., float], twin: Callable[..., object], cols: list[list[float]]
) -> tuple[int, int, int, bool]:
    """(inputs compared, inputs that differ, max ulps over the rest, specials exact)."""
    got = twin(*[np.array(c) for c in cols]).tolist()  # type: ignore[attr-defined]
    want = [fn(*args) for args in zip(*cols, strict=True)]
    specials_exact, differ, worst = True, 0, 0
    for g, w in zip(got, want, strict=True):
        if struct.pack("<d", g) == struct.pack("<d", w) or (g != g and w != w):
            continue
        differ += 1
        if not (math.isfinite(g) and math.isfinite(w)) or g == 0.0 or w == 0.0:
            specials_exact = False  # a nan, an inf or a zero: must be the same bits
            continue
        worst = max(worst, ulps(g, w))
    return len(got), differ, worst, specials_exact


def ulps(a: float, b: float) -> int:
    """Distance between two finite floats in units in the last place."""
    ia: int = struct.unpack("<q", struct.pack("<d", a))[0]
    ib: int = struct.unpack("<q", struct.pack("<d", b))[0]
    ia = ia if ia >= 0 else -(ia & 0x7FFFFFFFFFFFFFFF)
    ib = ib if ib >= 0 else -(ib & 0x7FFFFFFFFFFFFFFF)
    return abs(ia - ib)


def main() -> None:
    try:
        import numpy as np
    except ImportError:
        sys.exit("this measurement needs NumPy: pip install 'typed-autograd[numpy]'")
    from autograd.compiler import arrays
    from autograd.core.sym import HELPERS

    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    twins = arrays.twins(numpy_functions=True)
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}, {args.count} inputs each")
    print("| helper | inputs that differ | max ulps | specials |")
    print("|---|---|---|---|")
    for name, fn in sorted(HELPERS.items()):
        if not callable(fn) or name == "check_guard":
            continue
        arity = fn.__code__.co_argcount if hasattr(fn, "__code__") else 1  # math.tanh: one
        rng = random.Random(f"{args.seed}:{name}")
        with arrays.quiet():
            n, differ, worst, exact = measure(
                np, fn, twins[f"np_{name}"], columns(name, arity, args.count, rng)
            )
        print(f"| {name} | {differ} of {n} | {worst} | {'exact' if exact else 'DIFFER'} |")


if __name__ == "__main__":
    main()
