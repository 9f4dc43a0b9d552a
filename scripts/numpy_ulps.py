"""Measure how far NumPy's float64 elementwise functions are from Python's `math`, in ulps.

Batched execution (`vmap` under `jit` with NumPy, issue 13) would compute each
op with NumPy over a whole batch; the engine's eager path uses `math` (libm).
This prints, per function, how many of N random inputs differ and the largest
difference in ulps, over several input ranges. Run:

    .venv/bin/python scripts/numpy_ulps.py [--count 200000] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import sys
from collections.abc import Callable


def ulps(a: float, b: float) -> int:
    """Distance between two finite floats in units in the last place (0 if equal)."""
    if a == b or (a != a and b != b):
        return 0
    ia = struct.unpack("<q", struct.pack("<d", a))[0]
    ib = struct.unpack("<q", struct.pack("<d", b))[0]
    ia = ia if ia >= 0 else -(ia & 0x7FFFFFFFFFFFFFFF)
    ib = ib if ib >= 0 else -(ib & 0x7FFFFFFFFFFFFFFF)
    return abs(ia - ib)


def main() -> None:
    try:
        import numpy as np
    except ImportError:
        sys.exit("this measurement needs NumPy: pip install numpy")
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ranges: dict[str, Callable[[], float]] = {
        "[-1, 1]": lambda: rng.uniform(-1.0, 1.0),
        "[-50, 50]": lambda: rng.uniform(-50.0, 50.0),
        "[-700, 700]": lambda: rng.uniform(-700.0, 700.0),
        "any finite": lambda: math.ldexp(rng.uniform(-1.0, 1.0), rng.randint(-1074, 1023)),
    }
    functions: dict[str, tuple[Callable[[float], float], Callable[..., object]]] = {
        "exp": (math.exp, np.exp),
        "log": (math.log, np.log),
        "tanh": (math.tanh, np.tanh),
        "sin": (math.sin, np.sin),
        "cos": (math.cos, np.cos),
        "sqrt": (math.sqrt, np.sqrt),
    }
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}, {args.count} inputs per cell")
    print("| function | range | inputs that differ | max ulps |")
    print("|---|---|---|---|")
    for name, (ref, vec) in functions.items():
        for label, draw in ranges.items():
            xs = [draw() for _ in range(args.count)]
            if name in ("log", "sqrt"):
                xs = [abs(x) for x in xs]
            with np.errstate(all="ignore"):  # overflow to inf is the answer, not an error
                got = vec(np.array(xs, dtype=np.float64)).tolist()
            diffs = []
            for x, g in zip(xs, got, strict=True):
                try:
                    want = ref(x)
                except (OverflowError, ValueError):
                    continue
                diffs.append(ulps(want, g))
            differ = sum(1 for d in diffs if d)
            print(f"| {name} | {label} | {differ} of {len(diffs)} | {max(diffs, default=0)} |")


if __name__ == "__main__":
    main()
