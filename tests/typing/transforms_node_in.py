"""A node in, a node out: jvp, vjp, jacobian and hessian called on nodes (mypy only).

Functions typed in `Node` (or `Scalar`) may be called on floats or on nodes;
floats give floats, nodes give `Scalar`s (nodes linked to their graph, or
``0.0`` where the result does not depend on them).
"""

from collections.abc import Callable, Mapping, Sequence
from typing import assert_type

import autograd as ag
from autograd import Leaf, Node, Scalar


def f(x: Node) -> Scalar:
    return ag.exp(x) * x


def f2(x: Node, y: Node) -> Scalar:
    return x * y


def outs(x: Node) -> list[Scalar]:
    return [x * x, ag.tanh(x)]


def pair_outs(x: Node, y: Node) -> list[Scalar]:
    return [x * y, x + y]


def named_outs(x: Node) -> dict[str, Scalar]:
    return {"square": x * x}


def vec(x: Sequence[Node]) -> Scalar:
    return x[0] * x[1]


def vec_outs(x: Sequence[Node]) -> list[Scalar]:
    return [x[0] * x[1], x[0]]


def params(p: Mapping[str, Node]) -> Scalar:
    return p["w"] * p["b"]


def with_aux(x: Node) -> tuple[Scalar, str]:
    return x * x, "aux"


x = Leaf(1.0)
y = Leaf(2.0)


def unknown_kind(v: Scalar) -> Scalar:
    """A `Scalar` of unknown kind: pyright narrows ``s: Scalar = x`` to its value's type."""
    return v


s = unknown_kind(x)

# hessian: floats in, floats out; nodes in, nodes out
assert_type(ag.hessian(f)(1.0), float)
assert_type(ag.hessian(f)(x), Node)
assert_type(ag.hessian(f)(s), Scalar)  # either: the union of both
assert_type(ag.hessian(vec)([1.0, 2.0]), Sequence[Sequence[float]])
assert_type(ag.hessian(vec)([x, 2.0]), Sequence[Sequence[Node]])
assert_type(ag.hessian(params)({"w": 1.0, "b": 2.0}), dict[str, dict[str, float]])
assert_type(ag.hessian(params)({"w": x, "b": 2.0}), dict[str, dict[str, Node]])
# a node among two scalars: every entry a node (a zero is a `Const`)
assert_type(ag.hessian(f2, argnums=(0, 1))(x, 2.0), tuple[tuple[Node, Node], tuple[Node, Node]])
assert_type(ag.hessian(f2, argnums=(0, 1))(x, y), tuple[tuple[Node, Node], tuple[Node, Node]])
assert_type(
    ag.hessian(f2, argnums=(0, 1))(1.0, 2.0), tuple[tuple[float, float], tuple[float, float]]
)
assert_type(ag.hessian(with_aux, has_aux=True)(x), tuple[Node, str])
assert_type(ag.hessian(with_aux, has_aux=True)(1.0), tuple[float, str])

# jacobian
assert_type(ag.jacobian(f)(x), Node)
assert_type(ag.jacobian(outs)(x), Sequence[Node])
assert_type(ag.jacobian(outs)(1.0), Sequence[float])
assert_type(ag.jacobian(named_outs)(x), dict[str, Node])
assert_type(ag.jacobian(vec)([x, y]), Sequence[Node])
assert_type(ag.jacobian(vec_outs)([x, y]), Sequence[Sequence[Node]])
assert_type(ag.jacobian(params)({"w": x, "b": y}), dict[str, Node])
assert_type(ag.jacobian(f2, argnums=(0, 1))(1.0, y), tuple[Node, Node])
assert_type(ag.jacobian(f2, argnums=(0, 1))(x, y), tuple[Node, Node])
assert_type(ag.jacobian(f2, argnums=(0, 1))(1.0, 2.0), tuple[float, float])

# jvp: keyed on the primals and tangents
assert_type(ag.jvp(f, (1.0,), (1.0,)), tuple[float, float])
assert_type(ag.jvp(f, (x,), (1.0,)), tuple[Node, Node])
assert_type(ag.jvp(f, (1.0,), (x,)), tuple[Scalar, Scalar])  # a node tangent: linear in it
assert_type(ag.jvp(outs, (x,), (1.0,)), tuple[Sequence[Node], Sequence[Node]])
assert_type(ag.jvp(named_outs, (x,), (1.0,)), tuple[dict[str, Node], dict[str, Node]])
assert_type(ag.jvp(outs, (s,), (1.0,)), tuple[Sequence[Scalar], Sequence[Scalar]])  # either
assert_type(ag.jvp(with_aux, (x,), (1.0,), has_aux=True), tuple[Node, Node, str])
assert_type(ag.jvp(vec, ([1.0, 2.0],), ([1.0, 0.0],)), tuple[float, float])  # a pytree primal

# vjp: keyed on the primals
value, pullback = ag.vjp(f, x)
assert_type(value, Node)
assert_type(pullback, Callable[[Scalar], tuple[Node]])
value2, pullback2 = ag.vjp(f2, 1.0, y)
assert_type(value2, Scalar)
assert_type(pullback2(1.0), tuple[Scalar, Scalar])
values, pullback3 = ag.vjp(outs, x)
assert_type(values, Sequence[Node])
assert_type(pullback3([1.0, 0.0]), tuple[Node])
assert_type(ag.vjp(outs, s)[0], Sequence[Scalar])
assert_type(ag.vjp(f2, x, y)[1](1.0), tuple[Node, Node])
assert_type(ag.vjp(pair_outs, 1.0, 2.0)[1]([1.0, 0.0]), tuple[float, float])
assert_type(ag.vjp(pair_outs, x, y)[1]([1.0, 0.0]), tuple[Node, Node])
assert_type(ag.vjp(pair_outs, x, 2.0)[1]([1.0, 0.0]), tuple[Scalar, Scalar])
assert_type(ag.vjp(with_aux, x, has_aux=True)[2], str)
assert_type(ag.vjp(f, 1.0)[0], float)  # floats stay floats

# misuse stays rejected
ag.hessian(vec)(x)  # type: ignore[call-overload]  # vec takes a sequence
ag.hessian(f)("x")  # type: ignore[call-overload]  # not a scalar

# narrower than run time: after float primals the pullback is typed for float
# cotangents (it takes a node too, and then returns nodes)
ag.vjp(f, 1.0)[1](x)  # type: ignore[arg-type]  # a float pullback


def square(v: Scalar) -> Scalar:
    return v * v


# jvp and vjp of a scalar function on node primals: nodes, typed Node
assert_type(ag.jvp(square, (x,), (1.0,)), tuple[Node, Node])
assert_type(ag.vjp(square, x)[0], Node)
assert_type(ag.vjp(square, x)[1](1.0), tuple[Node])
