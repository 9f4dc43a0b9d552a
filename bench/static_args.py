"""A jitted call with a static argument of each kind, in a loop: what the cache key costs.

The seed example's ``jit(value_and_grad(loss), static_argnums=1)`` called with
the same static value each time (a training loop). A static value of a plain
type, or a tuple or named tuple of them, is checked in the call's own generated
function (`autograd.compiler.dispatch`); other values (a frozenset, here) take
the general cache key each call. The first row has no static argument.

    .venv/bin/python bench/static_args.py

Prints, per kind, the median of 9 rounds of 20,000 calls and its ratio to the
first row.
"""

from __future__ import annotations

import statistics
import timeit
from typing import NamedTuple

import autograd as ag


class Config(NamedTuple):
    """A network's configuration, as a static argument."""

    sizes: tuple[int, ...]
    act: str


def loss(p: dict[str, ag.Scalar], cfg: object = None) -> ag.Scalar:
    """The seed example's loss; ``cfg`` only selects the trace."""
    return ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5


STATICS: list[tuple[str, object]] = [
    ("an int", 16),
    ("a str", "relu"),
    ("a float", 0.5),
    ("a tuple of ints", (2, 16, 16, 1)),
    ("a named tuple", Config((2, 16, 16, 1), "relu")),
    ("a frozenset (general key)", frozenset({"relu"})),
]


def per_call(f: object, *args: object) -> float:
    """Median seconds a call over 9 rounds of 20,000 calls."""
    call = f  # a jitted function
    rounds = [
        timeit.timeit(lambda: call(*args), number=20_000) / 20_000  # type: ignore[operator]
        for _ in range(9)
    ]
    return statistics.median(rounds)


def main() -> None:
    """Print the table."""
    p: dict[str, ag.Scalar] = {"w1": 2.0, "w2": 3.0}
    plain = ag.jit(ag.value_and_grad(loss))
    plain(p)
    base = per_call(plain, p)
    print("| static argument | per call | vs none |\n|---|---|---|")
    print(f"| none | {base * 1e6:.2f} us | 1.00 |")
    for name, value in STATICS:
        f = ag.jit(ag.value_and_grad(loss), static_argnums=1)
        f(p, value)
        t = per_call(f, p, value)
        print(f"| {name} | {t * 1e6:.2f} us | {t / base:.2f} |")


if __name__ == "__main__":
    main()
