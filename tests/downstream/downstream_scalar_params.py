"""A downstream project in the Scalar/Node style: parameter classes generic in their leaves.

A linear classifier with a learnt temperature. Its parameters are an attrs class
and a NamedTuple, each generic in the type of its leaves (``Linear[S]``, ``S`` a
type variable bound to `Scalar`): ``Linear[float]`` is what the user builds and
what a gradient is, ``Linear[Node]`` what a transform passes the loss, and the
loss is written once for both (``Linear[S] -> Scalar``, one type variable per
parameter, since a transform may make one of them nodes and leave the other
floats). So every gradient is read as floats, with no cast; built from nodes, it
is nodes (docs/typing.md, "Parameter classes in the Scalar/Node style").
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Generic, NamedTuple, TypeVar, assert_type

import attrs

import autograd as ag
from autograd import Leaf, Node, Scalar

S = TypeVar("S", bound=Scalar)
U = TypeVar("U", bound=Scalar)


@attrs.frozen
class Linear(Generic[S]):
    w: S
    b: S


class Temperature(NamedTuple, Generic[U]):
    log_t: U
    shift: U


def score(p: Linear[S], x: float) -> Scalar:
    return p.w * x + p.b


def loss(p: Linear[S], t: Temperature[U], xs: Sequence[float], ys: Sequence[float]) -> Scalar:
    scale = ag.exp(-t.log_t)
    terms = [
        ag.log(1.0 + ag.exp(-y * (score(p, x) * scale + t.shift)))
        for x, y in zip(xs, ys, strict=True)
    ]
    return ag.mean(terms)


def loss_and_margin(
    p: Linear[S], t: Temperature[U], xs: Sequence[float], ys: Sequence[float]
) -> tuple[Scalar, dict[str, Scalar]]:
    margins = [y * score(p, x) for x, y in zip(xs, ys, strict=True)]
    return loss(p, t, xs, ys), {"first_margin": margins[0]}


def regularised(p: Linear[S], strength: float) -> Scalar:
    # mypy: a value of a type variable on the left of an operator whose right side may be
    # a node is an error (it does not try the reflected operator), so read it as a Scalar
    w: Scalar = p.w
    b: Scalar = p.b
    return strength * (w * w + b * b)


def step(p: Linear[float], g: Linear[float], rate: float) -> Linear[float]:
    return Linear(p.w - rate * g.w, p.b - rate * g.b)


XS = [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0]
YS = [-1.0, -1.0, 1.0, -1.0, 1.0, 1.0]


def train(steps: int = 200) -> tuple[Linear[float], float]:
    p = Linear(0.0, 0.0)
    t = Temperature(0.0, 0.0)
    assert_type(p, Linear[float])
    value_and_grads = ag.jit(ag.value_and_grad(loss, argnums=(0, 1)))
    value = math.inf
    for _ in range(steps):
        value, (g, gt) = value_and_grads(p, t, XS, YS)
        assert_type(value, float)
        assert_type(g, Linear[float])
        assert_type(g.w, float)
        assert_type(gt.log_t, float)
        p = step(p, g, 0.5)
        t = Temperature(t.log_t - 0.1 * gt.log_t, t.shift - 0.1 * gt.shift)
        if math.hypot(g.w, g.b) < 1e-6:  # floats: math and comparisons work on them
            break
    return p, value


def main() -> float:
    p, value = train()
    t = Temperature(0.0, 0.0)

    # grad of one argument; value_and_grad; an argnums tuple
    g = ag.grad(loss)(p, t, XS, YS)
    assert_type(g, Linear[float])
    assert_type(abs(g.w) + math.sqrt(g.b**2), float)
    v, g2 = ag.value_and_grad(loss)(p, t, XS, YS)
    assert_type(v, float)
    assert_type(g2.b, float)
    gt = ag.grad(loss, argnums=1)(p, t, XS, YS)
    assert_type(gt, Temperature[float])
    assert_type(gt.log_t, float)
    gp, gt2 = ag.grad(loss, argnums=(0, 1))(p, t, XS, YS)
    assert_type(gp.w, float)
    assert_type(gt2.shift, float)
    assert math.isclose(gp.w, g.w)
    assert math.isclose(gt2.log_t, gt.log_t)

    # has_aux: the gradient and the aux, the aux as its declared type (floats at run time)
    g_aux, aux = ag.grad(loss_and_margin, has_aux=True)(p, t, XS, YS)
    assert_type(g_aux.w, float)
    assert_type(aux["first_margin"], Scalar)
    assert isinstance(aux["first_margin"], float)
    (v_aux, _), g_aux2 = ag.value_and_grad(loss_and_margin, has_aux=True)(p, t, XS, YS)
    assert_type(v_aux, float)
    assert_type(g_aux2.b, float)

    # functools.partial: the data and the temperature bound by keyword
    bound = functools.partial(loss, t=t, xs=XS, ys=YS)
    g_partial = ag.grad(bound)(p)
    assert_type(g_partial, Linear[float])
    assert math.isclose(g_partial.w, g.w)
    g_reg = ag.grad(functools.partial(regularised, strength=0.1))(p)
    assert_type(g_reg.w, float)

    # lambdas: a lambda of a scalar is typed from grad's first overload by pyright and is
    # `Any` to mypy, so the variable receiving the result is annotated; a lambda of the
    # parameters gets its types from a typed place
    slope: float = ag.grad(lambda r: loss(step(p, g, 0.0), Temperature(r, 0.0), XS, YS))(0.0)
    assert_type(slope, float)
    objective: Callable[[Linear[float]], Scalar] = lambda q: loss(q, t, XS, YS)  # noqa: E731
    g_lambda = ag.grad(objective)(p)
    assert_type(g_lambda, Linear[float])
    assert math.isclose(g_lambda.b, g.b)

    # nodes in, nodes out: parameters built from leaves give a gradient of nodes
    w, b = Leaf(p.w), Leaf(p.b)
    g_nodes = ag.grad(loss)(Linear[Node](w, b), t, XS, YS)
    assert_type(g_nodes, Linear[Node])
    assert_type(g_nodes.w, Node)
    assert math.isclose(g_nodes.w.value, g.w)
    curvature = ag.gradients(g_nodes.w)[w]  # d/dw of dloss/dw: the gradient is a graph
    assert curvature > 0.0

    ag.check_grads(loss, (p, t, XS, YS), order=2)
    return value


if __name__ == "__main__":
    print(f"final loss {main():.4f}")
