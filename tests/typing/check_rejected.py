"""Lines that must stay type errors. Each carries the error code mypy reports, so
``warn_unused_ignores`` (strict) fails the moment one is accepted."""

from __future__ import annotations

import math
from typing import Generic, TypeVar, assert_never

import attrs

import autograd as ag
from autograd import Node, Scalar

x = ag.Leaf(2.0)
n: Node = x * 3.0


def f(v: Scalar) -> Scalar:
    return v * v


# comparisons and conversions: compare `.value`, use autograd's functions
less = x < 1  # type: ignore[operator]
same = x == 0.0  # type: ignore[comparison-overlap]  # raises TypeError at run time too
at_least = n >= x  # type: ignore[operator]
float(n)  # type: ignore[arg-type]
int(x)  # type: ignore[call-overload]
math.exp(n)  # type: ignore[arg-type]
MYPY = False  # mypy takes the name as true; pyright as false (pyproject's defineConstant)
if MYPY:  # a truth test: mypy only, pyright has no rule for it (at run time it raises TypeError)
    truth = "yes" if n else "no"  # type: ignore[truthy-bool]

# nodes are frozen: no assignment, and no .grad to set
x.value = 1.0  # type: ignore[misc]
n.value = 1.0  # type: ignore[misc]
x.grad = 0.0  # type: ignore[attr-defined]

# transforms check their arguments
ag.grad(f)("a")  # type: ignore[call-overload]
ag.grad(f)(1.0, 2.0)  # type: ignore[call-overload]
ag.grad(f, argnums="0")  # type: ignore[call-overload]
ag.grad(1.0)  # type: ignore[call-overload]
ag.value_and_grad(f)(None)  # type: ignore[call-overload]


# in float-typed code too: a gradient is a float, a wrong argnums or a list output is refused
def ff(v: float, w: float) -> float:
    return v * w


def fl(v: float) -> list[float]:
    return [v]


v1 = ag.grad(ff)(1.0, 2.0).value  # type: ignore[attr-defined]
v2 = ag.grad(ff, argnums=(0, 1))(1.0, 2.0)[0].value  # type: ignore[attr-defined]
ag.grad(fl)  # type: ignore[arg-type]
ag.grad(ff)("1.0", 2.0)  # type: ignore[arg-type]

# ops take float | Node only
ag.exp("1")  # type: ignore[call-overload]
ag.sum(["a"])  # type: ignore[list-item]
n + "a"  # type: ignore[operator]
"a" * n  # type: ignore[operator]

# a gradient of a float function is a float, not a node
g: Node = ag.grad(f)(1.0)  # type: ignore[assignment]


def forgot_a_case(node: Node) -> int:
    match node:
        case ag.Leaf() | ag.Const():
            return 0
        case ag.Add() | ag.Mul() | ag.Pow():
            return 2
        case _:
            assert_never(node)  # type: ignore[arg-type]


# parameter classes generic in their leaves (docs/typing.md): the same misuses are caught
S = TypeVar("S", bound=Scalar)


@attrs.frozen
class Linear(Generic[S]):
    w: S
    b: S


def generic_loss(p: Linear[S], x: float) -> Scalar:
    if p.w > 0.0:  # type: ignore[operator]  # compare `.value`, or use relu/where
        return p.b
    return p.w * x


def generic_outputs(p: Linear[S]) -> list[Scalar]:
    return [p.w, p.b]


gl = ag.grad(generic_loss)(Linear(1.0, 2.0), 3.0)
v3 = gl.w.value  # type: ignore[attr-defined]  # a gradient of floats
ag.grad(generic_loss)(Linear("a", "b"), 3.0)  # type: ignore[type-var]  # leaves are scalars
ag.grad(generic_loss)([1.0, 2.0], 3.0)  # type: ignore[arg-type]  # not a Linear
ag.grad(generic_outputs)  # type: ignore[arg-type]  # not a scalar output
