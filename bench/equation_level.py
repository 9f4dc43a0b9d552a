"""First and later calls of programs `jit` rolls at the equation level.

Run: ``python bench/equation_level.py [--mid] [--only NAME,...]`` (about a minute). Each
program runs in this process once: its first call (trace, compile, run), then
the median of 7 later calls, and whether the values match eager bit for bit.
Compare checkouts by running it from each, one after the other. ``--mid`` runs
programs of 1,000 to 15,000 nodes instead, near `Options.loops_from` and
`Options.min_run`, where the equation level and `reroll` share the work.
"""

import argparse
import random
import statistics
import time
from collections.abc import Callable

import autograd as ag

Scalar = ag.Scalar


def tanh_sum(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
    """A wide sum of terms with a slope of their own: by depth, loops both ways."""
    return ag.sum([ag.tanh(w * x) for w, x in zip(ws, xs, strict=True)])


def sin_sum(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
    return ag.sum([ag.sin(w) * x for w, x in zip(ws, xs, strict=True)])


def tanh_terms(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
    """Terms of three equations whose sweep reads each ``tanh``: by depth, loops both ways.

    Each run is swept by a loop streaming the values it reads.
    """
    return ag.sum([ag.tanh(w * x) * w for w, x in zip(ws, xs, strict=True)])


def rnn_losses(w: Scalar, xs: list[Scalar]) -> Scalar:
    """A loss at every step of an RNN: the sum's joins sunk, the steps one loop."""
    h, states = w, []
    for x in xs:
        h = ag.tanh(h * x + 0.25)
        states.append(h)
    return ag.sum([ag.sin(s * 1.5) for s in states])


def points_net(w: list[list[Scalar]], xs: list[list[float]], ys: list[float]) -> Scalar:
    """A 2-16-1 net's mean hinge loss over data points: each point one iteration."""
    losses = []
    for x, y in zip(xs, ys, strict=True):
        h = [ag.tanh(ag.dot(n[:2], x) + n[2]) for n in w[:-1]]
        out = ag.dot(w[-1][:-1], h) + w[-1][-1]
        losses.append(ag.relu(1.0 - y * out))
    return ag.mean(losses)


def entropy(ps: list[Scalar]) -> Scalar:
    """Each input read by two runs (by depth): ``log(p)``'s and the products'."""
    return ag.sum([p * ag.log(p) for p in ps])


def shared(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
    """Each product read at three depths: its sum's joins sunk, each term an iteration.

    By depth, the product's readers would change order.
    """
    terms = []
    for w, x in zip(ws, xs, strict=True):
        v = w * x
        terms.append(ag.tanh(ag.tanh(ag.tanh(x))) * v + v * 0.5 + ag.tanh(v))
    return ag.sum(terms)


def chain(x: Scalar, steps: list[float]) -> Scalar:
    for _ in steps:
        x = ag.tanh(0.9 * x + 0.1)
    return x


def slope(x: Scalar, steps: list[float]) -> Scalar:
    """The chain's derivative: differentiated, its trace is the chain then its sweep.

    As traced, with the runs' values kept, the sweep's run reads the chain's last first.
    """
    return ag.grad(chain)(x, steps)


def rnn(w: list[Scalar], xs: list[float]) -> Scalar:
    h: Scalar = 0.3
    for x in xs:
        h = ag.tanh(w[0] * h + w[1] * x)
    return h


Data = tuple[
    list[float], list[float], list[float], list[list[float]], list[list[float]], list[float]
]


def _data(seed: int, pairs: int, steps: int, points: int) -> Data:
    """Weights and inputs of the sums, an RNN's inputs, and a 2-16-1 net with its points."""
    rng = random.Random(seed)
    ws = [rng.uniform(-1, 1) for _ in range(pairs)]
    xs = [rng.uniform(-1, 1) for _ in range(pairs)]
    seq = [((i * 7919) % 1013) / 337.0 - 1.5 for i in range(steps)]
    net = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(16)]
    net.append([rng.uniform(-1, 1) for _ in range(17)])
    at = [[rng.uniform(-2, 2) for _ in range(2)] for _ in range(points)]
    labels = [rng.choice([-1.0, 1.0]) for _ in range(points)]
    return ws, xs, seq, net, at, labels


def _mid_cases() -> dict[str, tuple[Callable[..., Scalar], tuple[object, ...]]]:
    ws, xs, steps, net, points, labels = _data(5, 5_000, 400, 20)

    def dot(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.dot(ws, xs)

    return {
        "dot_1000": (dot, (ws[:1_000], xs[:1_000])),
        "dot_2000": (dot, (ws[:2_000], xs[:2_000])),
        "dot_5000": (dot, (ws, xs)),
        "tanh_sum_2000": (tanh_sum, (ws[:2_000], xs[:2_000])),
        "entropy_2000": (entropy, ([abs(w) + 0.01 for w in ws[:2_000]],)),
        "shared_500": (shared, (ws[:500], xs[:500])),
        "chain_400": (chain, (0.5, steps)),
        "slope_400": (slope, (0.5, steps)),
        "rnn_400": (rnn, ([0.8, 0.1], steps)),
        "rnn_losses_400": (rnn_losses, (0.3, steps)),
        "points_net_20": (points_net, (net, points, labels)),
    }


def _cases() -> dict[str, tuple[Callable[..., Scalar], tuple[object, ...]]]:
    ws, xs, steps, net, points, labels = _data(4, 100_000, 20_000, 100)
    data = xs[:20_000]

    def tanh_sum_captured(ws: list[Scalar]) -> Scalar:
        """`tanh_sum` with its data in a closure: constants, each term's code its own."""
        return tanh_sum(ws, data)

    return {
        "tanh_sum": (tanh_sum, (ws, xs)),
        "tanh_sum_20000": (tanh_sum, (ws[:20_000], data)),
        "tanh_sum_captured": (tanh_sum_captured, (ws[:20_000],)),
        "sin_sum": (sin_sum, (ws, xs)),
        "entropy": (entropy, ([abs(w) + 0.01 for w in ws[:20_000]],)),
        "tanh_terms": (tanh_terms, (ws[:20_000], xs[:20_000])),
        "rnn_losses": (rnn_losses, (0.3, steps)),
        "slope": (slope, (0.5, steps[:10_000])),
        "points_net": (points_net, (net, points, labels)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated program names")
    parser.add_argument("--mid", action="store_true", help="the mid-sized programs")
    ns = parser.parse_args()
    only = {n for n in ns.only.split(",") if n}
    print("| program | first call | later (median of 7) | bits as eager |")
    print("|---|---|---|---|")
    for name, (f, args) in (_mid_cases() if ns.mid else _cases()).items():
        if only and name not in only:
            continue
        jitted = ag.jit(ag.value_and_grad(f))
        t = time.perf_counter()
        got = jitted(*args)
        first = time.perf_counter() - t
        later = []
        for _ in range(7):
            t = time.perf_counter()
            jitted(*args)
            later.append(time.perf_counter() - t)
        same = repr(got) == repr(ag.value_and_grad(f)(*args))
        later_ms = statistics.median(later) * 1e3
        print(f"| {name} | {first * 1e3:.1f} ms | {later_ms:.3f} ms | {same} |")


if __name__ == "__main__":
    main()
