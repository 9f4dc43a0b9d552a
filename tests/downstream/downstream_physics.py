"""A downstream project: a small mechanics script using every transform.

An anharmonic oscillator: forces from `grad`, stiffness from `grad(grad)`
and `hessian`, a Lagrangian differentiated with an argnums tuple, `jvp`/`vjp`
of a flow map, `jacobian` of a field, `has_aux`, `stop_gradient` and
`check_grads`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import assert_type

import attrs

import autograd as ag


@attrs.frozen
class State:
    q: float
    p: float


def potential(q: float, k: float = 2.0) -> float:
    return 0.5 * k * q**2 + 0.1 * q**4


def hamiltonian(s: State, mass: float) -> float:
    return s.p**2 / (2.0 * mass) + potential(s.q)


def flat_hamiltonian(qp: Sequence[float], mass: float) -> float:
    return hamiltonian(State(qp[0], qp[1]), mass)


def lagrangian(q: float, qdot: float, mass: float) -> float:
    return 0.5 * mass * qdot**2 - potential(q)


def energy_parts(s: State, mass: float) -> tuple[float, dict[str, float]]:
    kinetic = s.p**2 / (2.0 * mass)
    return kinetic + potential(s.q), {"kinetic": kinetic}


def flow(x: float, y: float) -> list[float]:
    return [x * ag.tanh(y), x + y * y]


def leapfrog(s: State, mass: float, dt: float) -> State:
    dh = ag.grad(hamiltonian)(s, mass)
    p_half = s.p - 0.5 * dt * dh.q
    q = s.q + dt * p_half / mass
    p = p_half - 0.5 * dt * ag.grad(potential)(q)
    return State(q, p)


def main() -> float:
    force = -ag.grad(potential)(1.0)
    assert_type(force, float)
    stiffness = ag.grad(ag.grad(potential))(1.0)
    assert_type(stiffness, float)
    assert math.isclose(stiffness, 2.0 + 1.2 * 1.0**2)

    h = ag.hessian(potential)(1.0)
    assert_type(h, float)
    # a Hessian of a class has no spelling ("a State of States"): flatten to a sequence
    h_state = ag.hessian(flat_hamiltonian)([1.0, 0.5], 1.0)
    assert_type(h_state[1][1], float)
    assert math.isclose(h_state[1][1], 1.0)

    # Euler-Lagrange pieces: dL/dq and dL/d(mass) together, mass is argument 2
    dl_dq, dl_dm = ag.grad(lagrangian, argnums=(0, 2))(1.0, 0.5, 2.0)
    assert_type(dl_dq, float)
    assert_type(dl_dm, float)
    dl_dm_only = ag.grad(lagrangian, argnums=2)(1.0, 0.5, 2.0)
    assert_type(dl_dm_only, float)
    momentum = ag.grad(lagrangian, argnums=1)(1.0, 0.5, 2.0)
    assert_type(momentum, float)

    g_state, parts = ag.grad(energy_parts, has_aux=True)(State(1.0, 0.5), 1.0)
    assert_type(g_state.p, float)
    assert_type(parts["kinetic"], float)

    value, tangent = ag.jvp(flow, (1.0, 2.0), (1.0, 0.0))
    assert_type(tangent[0], float)
    _, pullback = ag.vjp(flow, 1.0, 2.0)
    gx, _ = pullback([1.0, 0.0])
    assert_type(gx, float)
    jac = ag.jacobian(flow, argnums=(0, 1))(1.0, 2.0)
    assert math.isclose(jac[0][0], value[0])
    # a lambda gets its parameter types from where it goes: give it a typed place
    field: Callable[[Sequence[float]], list[float]] = lambda v: [v[0] * v[1], v[0] - v[1]]  # noqa: E731
    j_field = ag.jacobian(field)([1.0, 2.0])
    assert_type(j_field, Sequence[Sequence[float]])
    assert math.isclose(j_field[0][1], 1.0)

    # the frozen part of a model: no gradient flows through stop_gradient
    partly_frozen: Callable[[float], float] = lambda q: q * ag.stop_gradient(potential(q))  # noqa: E731
    frozen = ag.grad(partly_frozen)(1.0)
    assert_type(frozen, float)
    assert math.isclose(frozen, potential(1.0))

    s = State(1.0, 0.0)
    e0 = hamiltonian(s, 1.0)
    for _ in range(100):
        s = leapfrog(s, 1.0, 0.01)
    drift = abs(hamiltonian(s, 1.0) - e0)
    assert drift < 1e-3, drift

    ag.check_grads(hamiltonian, (State(1.0, 0.5), 1.0), order=2)
    ag.check_grads(lagrangian, (1.0, 0.5, 2.0))
    return drift


if __name__ == "__main__":
    print(f"energy drift {main():.2e}")
