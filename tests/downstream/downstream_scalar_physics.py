"""A downstream project in the Scalar/Node style: an oscillator through every transform.

An anharmonic oscillator written in `Scalar` (functions of numbers or nodes)
and a phase-space state generic in its leaves (``State[S]``): forces from
`grad`, stiffness from `grad` of `grad` and `hessian`, the Hessian of the
Hamiltonian over the state, `jacobian`, `jvp` and `vjp` of a flow map, a
Lagrangian differentiated with argnums tuples, and the same transforms called
on nodes (a `Leaf` the script holds), where each result is a `Node` linked to
the graph, so a third derivative is one `gradients` call away.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Generic, TypeVar, assert_type

import attrs

import autograd as ag
from autograd import Leaf, Node, Scalar

S = TypeVar("S", bound=Scalar)


@attrs.frozen
class State(Generic[S]):
    q: S
    p: S


def potential(q: Scalar, k: float = 2.0) -> Scalar:
    return 0.5 * k * q**2 + 0.1 * q**4


def hamiltonian(s: State[S], mass: float) -> Scalar:
    return s.p**2 / (2.0 * mass) + potential(s.q)


def lagrangian(q: Scalar, qdot: Scalar, mass: Scalar) -> Scalar:
    return 0.5 * mass * qdot**2 - potential(q)


def flow(x: Scalar, y: Scalar) -> list[Scalar]:
    return [x * ag.tanh(y), x + y * y]


def number(x: Scalar) -> float:
    """What a `Scalar` function gives on floats: a float, which its annotation cannot say."""
    assert isinstance(x, float)
    return x


def leapfrog(s: State[float], mass: float, dt: float) -> State[float]:
    force = ag.grad(hamiltonian)(s, mass)
    assert_type(force, State[float])
    p_half = s.p - 0.5 * dt * force.q
    q = s.q + dt * p_half / mass
    p = p_half - 0.5 * dt * ag.grad(potential)(q)
    return State(q, p)


def on_floats() -> float:
    force = -ag.grad(potential)(1.0)
    assert_type(force, float)
    stiffness = ag.grad(ag.grad(potential))(1.0)
    assert_type(stiffness, float)
    assert math.isclose(stiffness, 2.0 + 1.2)
    assert_type(ag.grad(potential)(1.0, k=3.0), float)

    curvature = ag.hessian(potential)(1.0)
    assert_type(curvature, float)
    h = ag.hessian(hamiltonian)(State(1.0, 0.5), 2.0)
    assert_type(h.p.p, float)  # d2H/dp2 = 1/m
    assert_type(h.q.p, float)
    assert math.isclose(h.p.p, 0.5)
    assert h.q.p == 0.0

    # Euler-Lagrange pieces: argnums tuples and single later arguments
    dl_dq, dl_dqdot = ag.grad(lagrangian, argnums=(0, 1))(1.0, 0.5, 2.0)
    assert_type(dl_dq, float)
    assert_type(dl_dqdot, float)
    dl_dm = ag.grad(lagrangian, argnums=2)(1.0, 0.5, 2.0)
    assert_type(dl_dm, float)
    momentum = ag.grad(lagrangian, argnums=1)(1.0, 0.5, 2.0)
    assert_type(momentum, float)
    assert math.isclose(momentum, 1.0)

    # the flow map: its Jacobian, a tangent pushed forward, a cotangent pulled back
    jac = ag.jacobian(flow, argnums=(0, 1))(1.0, 2.0)
    assert_type(jac, Sequence[tuple[float, float]])
    assert_type(jac[1][0], float)
    column = ag.jacobian(flow)(1.0, 2.0)
    assert_type(column, Sequence[float])
    value, tangent = ag.jvp(flow, (1.0, 2.0), (1.0, 0.0))
    assert_type(value, Sequence[float])
    assert_type(tangent, Sequence[float])
    assert math.isclose(tangent[0], jac[0][0])
    e, de = ag.jvp(potential, (1.0,), (1.0,))
    assert_type(de, float)
    out, pullback = ag.vjp(flow, 1.0, 2.0)
    assert_type(out, Sequence[float])
    gx, gy = pullback([1.0, 0.0])
    assert_type(gx, float)
    assert_type(gy, float)
    assert math.isclose(gy, jac[0][1])
    e2, pull_e = ag.vjp(potential, 1.0)
    assert_type(pull_e(1.0), tuple[float])
    assert e == e2

    s = State(1.0, 0.0)
    e0 = number(hamiltonian(s, 1.0))
    for _ in range(100):
        s = leapfrog(s, 1.0, 0.01)
    drift = abs(number(hamiltonian(s, 1.0)) - e0)
    assert drift < 1e-3, drift
    ag.check_grads(hamiltonian, (State(1.0, 0.5), 1.0), order=2)
    return drift


def on_nodes() -> float:
    """The same transforms on a leaf the script holds: nodes linked to it."""
    x = Leaf(1.0)
    force = ag.grad(potential)(x)
    assert_type(force, Node)
    stiffness = ag.grad(ag.grad(potential))(x)
    assert_type(stiffness, Node)
    curvature = ag.hessian(potential)(x)
    assert_type(curvature, Node)
    third = ag.gradients(curvature)[x]  # d3V/dq3 = 2.4 q
    assert math.isclose(third, 2.4)
    assert math.isclose(stiffness.value, curvature.value)

    h = ag.hessian(hamiltonian)(State[Node](x, Leaf(0.5)), 2.0)
    assert_type(h.q.q, Node)
    e, de = ag.jvp(potential, (x,), (1.0,))
    assert_type(e, Node)
    assert_type(de, Node)
    y = Leaf(2.0)
    value, tangent = ag.jvp(flow, (x, y), (1.0, 0.0))
    assert_type(value, Sequence[Node])
    assert_type(tangent, Sequence[Node])
    out, pullback = ag.vjp(flow, x, y)
    assert_type(out, Sequence[Node])
    gx, gy = pullback([1.0, 0.0])
    assert_type(gx, Node)
    assert math.isclose(gy.value, ag.jacobian(flow, argnums=(0, 1))(1.0, 2.0)[0][1])
    e2, pull_e = ag.vjp(potential, x)
    assert_type(e2, Node)
    assert_type(pull_e(1.0), tuple[Node])
    assert math.isclose(ag.gradients(pull_e(1.0)[0])[x], curvature.value)
    return third


def main() -> float:
    on_nodes()
    return on_floats()


if __name__ == "__main__":
    print(f"energy drift {main():.2e}")
