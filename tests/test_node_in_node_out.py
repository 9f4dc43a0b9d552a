"""Transforms called on nodes outside any transform return linked nodes.

As the ops do: a float in, a float out; a node in, a node out. So the result
of ``grad(f)(x)`` (or `jvp`, `vjp`, `jacobian`, `hessian`) for a `Leaf` ``x``
can itself be differentiated with `gradients`, and its value is bit for bit
the float result. The derivative through it is checked against central
differences of the float transform, an oracle that shares no sweep with it.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import assert_type, cast

import pytest

import autograd as ag
from autograd import Leaf, Node, Scalar


def f(x: Scalar) -> Scalar:
    return ag.tanh(x) * x**3 + ag.exp(-x)


def bits(v: float) -> bytes:
    return struct.pack("<d", v)


@pytest.mark.parametrize("x0", [0.3, -1.7, 0.0, 2.5])
def test_grad_of_a_leaf_is_a_node_that_differentiates_again(x0: float) -> None:
    x = Leaf(x0)
    g = ag.grad(f)(x)
    assert isinstance(g, ag.Add | ag.Mul)  # a node of the derivative graph
    assert bits(g.value) == bits(ag.grad(f)(x0))
    assert bits(ag.gradients(g)[x]) == bits(ag.grad(ag.grad(f))(x0))


def test_value_and_grad_returns_nodes_for_nodes_and_floats_for_floats() -> None:
    x = Leaf(0.7)
    value, g = ag.value_and_grad(f)(x)
    assert isinstance(value, Node)
    assert isinstance(g, Node)
    assert bits(g.value) == bits(ag.grad(f)(0.7))
    assert type(ag.grad(f)(0.7)) is float
    assert type(ag.value_and_grad(f)(0.7)[1]) is float


def test_a_leaf_among_floats_links_only_what_depends_on_it() -> None:
    w = Leaf(2.0)
    grads = ag.grad(lambda p: p["w"] * p["b"] ** 2, argnums=0)({"w": w, "b": 3.0})
    assert isinstance(grads["w"], Node)  # d/dw = b**2, built from b's variable
    assert grads["w"].value == 9.0
    assert isinstance(grads["b"], Node)
    assert math.isclose(ag.gradients(grads["b"])[w], 6.0)  # d/dw (2 w b) at b = 3


def test_types_say_so() -> None:
    x = Leaf(1.0)
    assert_type(ag.grad(f)(x), Node)
    assert_type(ag.grad(f)(1.0), float)


# ---- jvp, vjp, jacobian, hessian --------------------------------------------

H = 1e-5


def central(fn: Callable[[float], float], x0: float) -> float:
    """The derivative of a float function at ``x0`` by central differences."""
    return (fn(x0 + H) - fn(x0 - H)) / (2 * H)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-8)


def f2(x: Node, y: Node) -> Scalar:
    return ag.sin(x) * y**2 + ag.exp(x * y)


def node(v: Scalar) -> Node:
    assert isinstance(v, Node), f"expected a node, got {v!r}"
    return v


def d(out: Scalar, wrt: Leaf) -> float:
    """d out / d wrt through the graph of a transform's result."""
    return ag.gradients(node(out)).get(wrt, 0.0)


@pytest.mark.parametrize("x0", [0.3, -1.7, 2.5])
def test_jvp_of_a_leaf_primal_is_linked(x0: float) -> None:
    x = Leaf(x0)
    value, tangent = ag.jvp(f, (x,), (1.0,))
    f_value, f_tangent = ag.jvp(f, (x0,), (1.0,))
    assert type(f_value) is float
    assert type(f_tangent) is float
    assert bits(node(value).value) == bits(f_value)
    assert bits(node(tangent).value) == bits(f_tangent)
    assert close(d(value, x), f_tangent)
    assert close(d(tangent, x), central(lambda u: ag.jvp(f, (u,), (1.0,))[1], x0))


def test_jvp_of_a_leaf_tangent_is_linear_in_it() -> None:
    t = Leaf(2.0)
    _, tangent = ag.jvp(f2, (0.4, 1.1), (t, 0.5))
    assert bits(node(tangent).value) == bits(ag.jvp(f2, (0.4, 1.1), (2.0, 0.5))[1])
    assert close(d(tangent, t), ag.jvp(f2, (0.4, 1.1), (1.0, 0.0))[1])


@pytest.mark.parametrize("x0", [0.3, -1.7])
def test_vjp_of_leaf_primals_is_linked(x0: float) -> None:
    x, y = Leaf(x0), Leaf(0.8)
    value, pullback = ag.vjp(f2, x, y)
    gx, gy = pullback(1.0)
    f_value, f_pullback = ag.vjp(f2, x0, 0.8)
    fx, fy = f_pullback(1.0)
    assert bits(node(value).value) == bits(f_value)
    assert (bits(node(gx).value), bits(node(gy).value)) == (bits(fx), bits(fy))
    assert close(d(value, x), fx)
    assert close(d(gx, x), central(lambda u: ag.vjp(f2, u, 0.8)[1](1.0)[0], x0))
    assert close(d(gy, x), central(lambda u: ag.vjp(f2, u, 0.8)[1](1.0)[1], x0))


def test_vjp_of_a_leaf_cotangent_is_linear_in_it() -> None:
    c = Leaf(3.0)
    _, pullback = ag.vjp(f2, 0.4, 1.1)
    # typed for float cotangents after float primals; run time takes a node too
    gx, _ = cast("Callable[[Scalar], tuple[Scalar, Scalar]]", pullback)(c)
    assert type(pullback(3.0)[0]) is float
    assert bits(node(gx).value) == bits(pullback(3.0)[0])
    assert close(d(gx, c), pullback(1.0)[0])


def outputs(v: Sequence[Node]) -> list[Scalar]:
    return [v[0] * ag.tanh(v[1]), ag.exp(v[0]) + v[1] ** 3]


def test_jacobian_of_leaves_is_linked() -> None:
    x0, y0 = 0.6, -0.9
    x, y = Leaf(x0), Leaf(y0)
    jac = ag.jacobian(outputs)([x, y])
    f_jac = ag.jacobian(outputs)([x0, y0])
    for i in range(2):
        for j in range(2):
            assert bits(node(jac[i][j]).value) == bits(f_jac[i][j])

            def entry(u: float, i: int = i, j: int = j) -> float:
                return ag.jacobian(outputs)([u, y0])[i][j]

            assert close(d(jac[i][j], x), central(entry, x0)), (i, j)


def test_hessian_of_leaves_is_linked() -> None:
    x0, y0 = 0.6, -0.9
    x, y = Leaf(x0), Leaf(y0)
    hess = ag.hessian(f2, argnums=(0, 1))(x, y)
    f_hess = ag.hessian(f2, argnums=(0, 1))(x0, y0)
    assert type(f_hess[0][1]) is float
    for i in range(2):
        for j in range(2):
            assert bits(node(hess[i][j]).value) == bits(f_hess[i][j])

            def entry(u: float, i: int = i, j: int = j) -> float:
                return ag.hessian(f2, argnums=(0, 1))(x0, u)[i][j]

            assert close(d(hess[i][j], y), central(entry, y0)), (i, j)


def test_hessian_of_a_leaf_and_its_aux() -> None:
    def with_aux(x: Node) -> tuple[Scalar, Scalar]:
        return ag.tanh(x) * x, x * 2.0

    x = Leaf(0.5)
    hess, aux = ag.hessian(with_aux, has_aux=True)(x)
    assert bits(node(hess).value) == bits(ag.hessian(with_aux, has_aux=True)(0.5)[0])
    assert close(d(hess, x), central(lambda u: ag.hessian(with_aux, has_aux=True)(u)[0], 0.5))
    assert d(aux, x) == 2.0  # aux stays a node too, as grad's does
    assert type(ag.hessian(with_aux, has_aux=True)(0.5)[1]) is float


def test_linear_transforms_types_say_so() -> None:
    x = Leaf(1.0)
    assert_type(ag.hessian(f)(x), Node)
    assert_type(ag.hessian(f)(1.0), float)
    assert_type(ag.jvp(f, (x,), (1.0,)), tuple[Node, Node])
    assert_type(ag.jvp(f, (1.0,), (1.0,)), tuple[float, float])
    assert_type(ag.vjp(f, x)[0], Node)
    assert_type(ag.jacobian(outputs)([x, 2.0]), Sequence[Sequence[Node]])


# ---- a node in, a node out: zeros and constants too ---------------------------


def const_out(x: Scalar) -> Scalar:
    return 3.0  # depends on nothing: every derivative is zero


def pair_out(x: Scalar) -> list[Scalar]:
    return [x * 2.0, 3.0]


def _flat(v: object) -> list[object]:
    if isinstance(v, list | tuple):
        return [y for x in v for y in _flat(x)]
    if isinstance(v, dict):
        return [y for x in v.values() for y in _flat(x)]
    return [v]


NODE_IN: list[tuple[str, Callable[[Node], object]]] = [
    ("grad", lambda x: ag.grad(const_out)(x)),
    ("value_and_grad", lambda x: ag.value_and_grad(const_out)(x)),
    ("grad of a dict", lambda x: ag.grad(lambda p: p["a"] * 2.0)({"a": x, "b": 2.0})),
    ("jvp", lambda x: ag.jvp(const_out, (x,), (1.0,))),
    ("jvp of a node tangent", lambda x: ag.jvp(const_out, (1.0,), (x,))),
    ("vjp", lambda x: (ag.vjp(const_out, x)[0], ag.vjp(const_out, x)[1](1.0))),
    ("jacobian", lambda x: ag.jacobian(pair_out)(x)),
    ("hessian", lambda x: ag.hessian(const_out)(x)),
    ("hessian of a linear function", lambda x: ag.hessian(lambda y: y * 2.0)(x)),
]


@pytest.mark.parametrize(("name", "call"), NODE_IN, ids=[n for n, _ in NODE_IN])
def test_a_node_in_gives_nodes_out_zeros_and_constants_included(
    name: str, call: Callable[[Node], object]
) -> None:
    x = Leaf(1.5)
    out = _flat(call(x))
    assert out
    assert all(isinstance(v, Node) for v in out), (name, out)
    floats = _flat(call_on_float(call))
    assert [bits(cast(Node, v).value) for v in out] == [bits(cast(float, v)) for v in floats]


def call_on_float(call: Callable[[Node], object]) -> object:
    return call(1.5)  # type: ignore[arg-type]  # the same call on a float, for its bits


def test_a_node_typed_result_type_checks() -> None:
    def square(x: Scalar) -> Scalar:
        return x * x

    def derivative_node() -> Node:
        return ag.grad(square)(Leaf(3.0))

    assert derivative_node().value == 6.0
    assert_type(ag.value_and_grad(square)(Leaf(3.0)), tuple[Node, Node])
    assert_type(ag.hessian(square)(Leaf(3.0)), Node)


def test_a_node_and_a_float_give_nodes_in_every_entry_as_typed() -> None:
    """Pairs: a node among the two scalars makes every entry a node (`OnPair`)."""
    x0, y0 = 0.6, -0.9
    want = ag.hessian(f2, argnums=(0, 1))(x0, y0)
    cases = [
        (
            ag.hessian(f2, argnums=(0, 1))(Leaf(x0), y0),
            ag.jacobian(f2, argnums=(0, 1))(Leaf(x0), y0),
        ),
        (
            ag.hessian(f2, argnums=(0, 1))(x0, Leaf(y0)),
            ag.jacobian(f2, argnums=(0, 1))(x0, Leaf(y0)),
        ),
    ]
    for hess, jac in cases:
        entries: list[Node] = [*hess[0], *hess[1], *jac]  # typed Node: checked by mypy
        assert all(isinstance(e, Node) for e in entries)
        assert [bits(e.value) for e in entries[:4]] == [bits(w) for row in want for w in row]
