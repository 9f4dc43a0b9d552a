"""What debug_nans() costs when it is off (and, for reference, when it is on).

Node construction: `Add`/`Mul` as shipped (with the ``v != v`` check) against
copies without it. Reverse sweep: `backward` (one context-variable read)
against a copy of the sweep without it. Medians of repeated timeit runs.

Run: ``python bench/debug_nans_overhead.py``
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable, Collection

import attrs

import autograd as ag
from autograd.core.nodes import Node, S, _Arith
from autograd.walks import backward, float_view, toposort


@attrs.frozen(eq=False)
class AddNoCheck(_Arith):
    """Add without the nan check: the baseline."""

    x: Node = attrs.field(repr=False)
    y: Node = attrs.field(repr=False)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        return self.x.value + self.y.value


@attrs.frozen(eq=False)
class MulNoCheck(_Arith):
    """Mul without the nan check: the baseline."""

    x: Node = attrs.field(repr=False)
    y: Node = attrs.field(repr=False)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        return self.x.value * self.y.value


def backward_no_check(
    root: Node, seed: S, primal: Callable[[Node], S], stop: Collection[Node] = ()
) -> dict[Node, S]:
    """The reverse sweep as it was before the debug hook."""
    cotangents: dict[Node, S] = {root: seed}
    for node, ins in reversed(toposort(root, stop)):
        g = cotangents[node]
        if not ins:
            continue
        for x, gx in zip(ins, node.vjp(g, primal), strict=True):
            prev = cotangents.get(x)
            cotangents[x] = gx if prev is None else prev + gx
    return cotangents


def median_us(stmt: Callable[[], object], number: int, repeat: int = 21) -> float:
    """Median time of one call, in microseconds."""
    runs = timeit.repeat(stmt, number=number, repeat=repeat)
    return statistics.median(runs) / number * 1e6


def paired(
    shipped: Callable[[], object], baseline: Callable[[], object], number: int, repeat: int = 21
) -> tuple[float, float, float]:
    """Interleaved runs (the machine is shared): medians in us and the median ratio."""
    a, b, ratios = [], [], []
    for _ in range(repeat):
        ta = timeit.timeit(shipped, number=number)
        tb = timeit.timeit(baseline, number=number)
        a.append(ta)
        b.append(tb)
        ratios.append(ta / tb)
    scale = 1e6 / number
    return statistics.median(a) * scale, statistics.median(b) * scale, statistics.median(ratios)


def chain(n: int) -> Node:
    x: Node = ag.Leaf(0.5)
    for _ in range(n):
        x = ag.tanh(x * 1.0001 + 0.1)
    return x


def add_checked(a: float, b: float) -> float:
    """The shipped forward-rule shape: compute, compare with itself, return."""
    v = a + b
    if v != v:
        raise AssertionError
    return v


def add_plain(a: float, b: float) -> float:
    """The rule shape before the hook."""
    return a + b


def main() -> None:
    """Print medians and ratios."""
    t_check, t_plain, ratio = paired(
        lambda: add_checked(1.5, 2.5), lambda: add_plain(1.5, 2.5), 500_000
    )
    print("the check alone, in a forward-rule-shaped function (interleaved, 21 x 500000 calls)")
    print(
        f"  {t_check * 1000:.0f} ns with, {t_plain * 1000:.0f} ns without: "
        f"{(t_check - t_plain) * 1000:+.0f} ns per node, median ratio {ratio:.3f}"
    )
    a, b = ag.Leaf(1.5), ag.Leaf(2.5)
    rows = [
        ("Add(a, b)", lambda: ag.Add(a, b), lambda: AddNoCheck(a, b)),
        ("Mul(a, b)", lambda: ag.Mul(a, b), lambda: MulNoCheck(a, b)),
    ]
    print("construction (interleaved, median of 21 x 100000 calls)")
    for name, shipped, baseline in rows:
        t_shipped, t_base, ratio = paired(shipped, baseline, 100_000)
        print(
            f"  {name}: {t_shipped * 1000:.0f} ns with check, {t_base * 1000:.0f} ns without, "
            f"median ratio {ratio:.3f}"
        )
    root = chain(1000)
    t_sweep, t_base, ratio = paired(
        lambda: backward(root, 1.0, float_view),
        lambda: backward_no_check(root, 1.0, float_view),
        20,
    )
    print("reverse sweep of a 4001-node chain (interleaved, median of 21 x 20 sweeps)")
    print(
        f"  backward: {t_sweep:.0f} us with the context read, {t_base:.0f} us without, "
        f"median ratio {ratio:.3f}"
    )
    with ag.debug_nans():
        t_on = median_us(lambda: ag.Mul(a, b), 20_000)
        t_on_sweep = median_us(lambda: backward(root, 1.0, float_view), 20)
    print("for reference, inside debug_nans():")
    print(f"  Mul(a, b): {t_on * 1000:.0f} ns; backward: {t_on_sweep:.0f} us")


if __name__ == "__main__":
    main()
