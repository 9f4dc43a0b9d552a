"""A break-it pass over the float path, `vmap` and `jit`: hostile inputs, every path, tallied.

Each probe calls one public function (or transform) with one hostile input and
classifies the outcome:

- ``ok``: a float (or a node, a bool for a comparison) equal bit for bit on
  every path tried (plain call, on `Leaf`, under `jit`, `vmap` against a loop);
- ``clean``: a `TypeError` or `ValueError` (the documented errors), the same on
  every path that raised;
- ``traceback``: any other exception (IndexError, LookupError, OverflowError,
  NumPy's errors, ...): a bug;
- ``wrong``: paths disagree, or a result is not a float: the worst bug.

Run: ``python scripts/break_it.py`` (needs NumPy); prints the tally and each bug.
"""

from __future__ import annotations

import itertools
import math
import struct
import sys
import warnings
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import numpy as np

import autograd as ag
from autograd.core.convert import to_float
from autograd.core.functions import BINARY_FUNCTIONS, FUNCTIONS

HOSTILE: list[object] = [
    0.5,
    -0.0,
    math.inf,
    math.nan,
    3,
    -7,
    2**53,
    2**53 + 1,
    -(2**63),
    10**400,
    -(10**400),
    np.float64(1.5),
    np.float32(1.5),
    np.float32(0.1),
    np.int64(3),
    np.int32(-2),
    np.bool_(True),
    np.float16(0.5),
    np.uint8(7),
    Fraction(1, 2),
    Fraction(1, 3),
    Decimal("0.5"),
    Decimal("0.1"),
    Decimal("nan"),
    True,
    False,
    "1.0",
    b"1",
    1j,
    None,
    [1.0],
    (1.0,),
    {"a": 1.0},
    object(),
    np.array(1.0),
    np.array([1.0, 2.0]),
    np.array([1.0, 2.0], dtype=">f8"),
]


def floats(xs: object) -> list[object]:
    """A batch's results as a list, NumPy float64 items as the floats they are (exactly)."""
    return [float(x) if type(x) is np.float64 else x for x in xs]  # type: ignore[attr-defined]


def bits(v: object) -> object:
    if type(v) is float:
        return struct.pack("<d", v)
    if isinstance(v, list | tuple):
        return type(v), tuple(bits(x) for x in v)
    if isinstance(v, np.ndarray):
        return "array", v.dtype.str, v.tobytes()
    return type(v), v


class Tally:
    def __init__(self) -> None:
        self.counts = {"ok": 0, "clean": 0, "traceback": 0, "wrong": 0}
        self.bugs: list[str] = []

    def probe(self, what: str, paths: dict[str, Callable[[], object]], want: str = "float") -> None:
        results: dict[str, object] = {}
        for name, run in paths.items():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    results[name] = run()
            except (TypeError, ValueError) as e:
                results[name] = ("raised", type(e).__name__)
            except Exception as e:  # what the pass looks for
                self.counts["traceback"] += 1
                self.bugs.append(f"traceback {what} [{name}]: {type(e).__name__}: {e}"[:300])
                return
        kinds = {k: bits(v) for k, v in results.items()}
        raised = [k for k, v in results.items() if isinstance(v, tuple) and v[:1] == ("raised",)]
        if raised and len(raised) < len(results):
            self.counts["wrong"] += 1
            self.bugs.append(f"wrong {what}: some paths raise, some answer: {results}"[:300])
        elif raised:
            self.counts["clean"] += 1
        elif len(set(map(repr, kinds.values()))) > 1:
            self.counts["wrong"] += 1
            self.bugs.append(f"wrong {what}: paths disagree: {results}"[:300])
        elif want == "list" and not all(
            isinstance(v, list) and all(type(x) is float for x in v) for v in results.values()
        ):
            self.counts["wrong"] += 1
            self.bugs.append(f"wrong {what}: not a list of floats: {results}"[:300])
        elif want == "float" and not all(type(v) is float for v in results.values()):
            self.counts["wrong"] += 1
            self.bugs.append(f"wrong {what}: not a float: {results}"[:300])
        else:
            self.counts["ok"] += 1


def leaf_value(f: Callable[..., object], *xs: object) -> object:
    out = f(*[ag.Leaf(x) if type(x) is float else x for x in xs])
    return out.value if isinstance(out, ag.Node) else out


def unary(t: Tally) -> None:
    for (name, f), x in itertools.product(FUNCTIONS.items(), HOSTILE):
        t.probe(
            f"{name}({x!r:.40})",
            {"plain": lambda f=f, x=x: f(x), "jit": lambda f=f, x=x: ag.jit(f)(x)},
        )
        t.probe(
            f"grad {name}({x!r:.40})",
            {
                "grad": lambda f=f, x=x: ag.grad(f)(x),
                "jit grad": lambda f=f, x=x: ag.jit(ag.grad(f))(x),
            },
        )


def binary(t: Tally) -> None:
    others = [0.5, 3, 2**53 + 1, 10**400, np.float32(1.5), Fraction(1, 3), "a", None]
    for (name, f), x, y in itertools.product(BINARY_FUNCTIONS.items(), HOSTILE, others):
        t.probe(
            f"{name}({x!r:.30}, {y!r:.30})",
            {"plain": lambda f=f, x=x, y=y: f(x, y), "jit": lambda f=f, x=x, y=y: ag.jit(f)(x, y)},
        )


def comparisons(t: Tally) -> None:
    cmps = {n: getattr(ag, n) for n in ("eq", "ne", "lt", "le", "gt", "ge") if hasattr(ag, n)}
    pairs = [
        (2**53 + 1, 2**53),
        (10**400, math.inf),
        (-(10**400), -math.inf),
        (1, 1.0),
        (np.float32(0.1), 0.1),
        (Fraction(1, 2), 0.5),
        ("a", 1.0),
        (None, 1.0),
    ]
    for (name, cmp), (a, b) in itertools.product(cmps.items(), pairs):

        def f(x: float, c: object, cmp=cmp, b=b) -> object:
            return ag.where(cmp(c, b), x, -x)

        t.probe(
            f"where({name}({a!r:.30}, {b!r:.30}), x, -x)",
            {"plain": lambda f=f, a=a: f(1.0, a), "jit": lambda f=f, a=a: ag.jit(f)(1.0, a)},
        )


def reductions(t: Tally) -> None:
    inputs: list[object] = [
        [1.0, 2.0],
        [1, 2**53 + 1],
        [10**400, 1.0],
        [[1.0], [2.0]],
        ["a", "b"],
        {"a": 1.0},
        [1j, 2.0],
        [None],
        [],
        np.array([1.0, 2.0]),
        np.array([[1.0]]),
        [np.float32(0.5)],
        [Fraction(1, 3)],
        (1.0, 2.0),
        "ab",
    ]
    for name in ("sum", "mean"):
        fn = getattr(ag, name)
        for xs in inputs:
            t.probe(f"{name}({xs!r:.40})", {"plain": lambda fn=fn, xs=xs: fn(xs)})
    for xs in inputs:
        t.probe(f"dot({xs!r:.40}, same)", {"plain": lambda xs=xs: ag.dot(xs, xs)})


def where_values(t: Tally) -> None:
    for c, x in itertools.product([True, np.bool_(True), False, 1, "yes", None], HOSTILE):
        t.probe(f"where({c!r}, {x!r:.30}, 2.0)", {"plain": lambda c=c, x=x: ag.where(c, x, 2.0)})


def vmaps(t: Tally) -> None:
    def sq(x: ag.Scalar) -> ag.Scalar:
        return x * x

    def shared(x: ag.Scalar, w: object) -> ag.Scalar:
        return x * w[0] + w[1]  # type: ignore[index]

    batches: list[object] = [
        [1.0, 2.0],
        [2, 3],
        [10**400, 1],
        [2**53 + 1],
        np.array([1.0, 2.0]),
        np.array([1.0, 2.0], dtype=">f8"),
        np.array([1.0, 2.0], dtype=np.float32),
        np.array([1, 2]),
        [np.float32(1.5), np.int64(2)],
        [Fraction(1, 2)],
        ["a"],
        [None],
        [[1.0]],
        np.array([[1.0, 2.0]]),
    ]  # an empty batch is refused by vmap on purpose (no size to map): not a probe
    for xs in batches:
        t.probe(
            f"vmap(sq)({xs!r:.40})",
            {
                "loop": lambda xs=xs: [sq(to_float(x)) for x in xs],
                "vmap": lambda xs=xs: floats(ag.vmap(sq)(xs)),
                "jit vmap": lambda xs=xs: floats(ag.jit(ag.vmap(sq))(xs)),
            },
            want="list",
        )
        t.probe(
            f"vmap(grad(sq))({xs!r:.40})",
            {
                "loop": lambda xs=xs: [ag.grad(sq)(to_float(x)) for x in xs],
                "vmap": lambda xs=xs: floats(ag.vmap(ag.grad(sq))(xs)),
                "jit vmap": lambda xs=xs: floats(ag.jit(ag.vmap(ag.grad(sq)))(xs)),
            },
            want="list",
        )
    for w in ([1.0, 2.0, 3.0], (1.0, 2.0), np.array([1.0, 2.0, 3.0]), np.array([5.0, 6.0])):
        xs = np.ones(3)
        t.probe(
            f"vmap(shared, in_axes=(0, None))(ones(3), {w!r:.40})",
            {
                "loop": lambda w=w, xs=xs: floats(shared(to_float(x), w) for x in xs),
                "vmap": lambda w=w, xs=xs: floats(ag.vmap(shared, in_axes=(0, None))(xs, w)),
                "jit vmap": lambda w=w, xs=xs: floats(
                    ag.jit(ag.vmap(shared, in_axes=(0, None)))(xs, w)
                ),
            },
            want="list",
        )


def main() -> int:
    t = Tally()
    for part in (unary, binary, comparisons, reductions, where_values, vmaps):
        part(t)
    total = sum(t.counts.values())
    print(f"{total} probes: " + ", ".join(f"{k} {v}" for k, v in t.counts.items()))
    for b in t.bugs:
        print(" ", b)
    return 1 if t.counts["traceback"] or t.counts["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
