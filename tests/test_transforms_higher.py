"""Higher-order derivatives by composition, jacobian and hessian, against exact oracles.

Oracles are mpmath's high-precision numerical differentiation (``mpmath.diff``)
and closed forms; nothing here is a number our own engine produced.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Node, Scalar

mpmath.mp.dps = 50
CI = settings(derandomize=True, max_examples=60, deadline=None)

MpFn = Callable[[mpmath.mpf], mpmath.mpf]

# (name, our function, the same function in mpmath, points)
UNARY: list[tuple[str, Callable[[Scalar], Scalar], MpFn, list[float]]] = [
    ("exp", ag.exp, mpmath.exp, [-1.3, 0.0, 0.7]),
    ("log", ag.log, mpmath.log, [0.3, 1.0, 4.5]),
    ("tanh", ag.tanh, mpmath.tanh, [-0.8, 0.1, 1.9]),
    ("sigmoid", ag.sigmoid, lambda x: 1 / (1 + mpmath.exp(-x)), [-2.0, 0.0, 1.5]),
    ("sqrt", ag.sqrt, mpmath.sqrt, [0.3, 1.0, 4.5]),
    ("sin", ag.sin, mpmath.sin, [-1.3, 0.0, 2.7]),
    ("cos", ag.cos, mpmath.cos, [-1.3, 0.0, 2.7]),
    ("cube", lambda x: x**3.0, lambda x: x**3, [-1.5, 0.4, 2.0]),
    ("pow2.5", lambda x: x**2.5, lambda x: x**2.5, [0.5, 1.0, 3.0]),
    ("rsqrt", lambda x: x**-0.5, lambda x: x**-0.5, [0.5, 2.0]),
    ("reciprocal", lambda x: 1.0 / x, lambda x: 1 / x, [-2.0, 0.3]),
    (
        "composite",
        lambda x: ag.tanh(x * x) * ag.exp(-x) + ag.log(1.0 + x * x),
        lambda x: mpmath.tanh(x * x) * mpmath.exp(-x) + mpmath.log(1 + x * x),
        [-0.9, 0.2, 1.1],
    ),
    (
        "node exponent",
        lambda x: (x + 2.0) ** ag.sigmoid(x),
        lambda x: (x + 2) ** (1 / (1 + mpmath.exp(-x))),
        [-0.5, 0.6],
    ),
]


def derivative(f: Callable[[Scalar], Scalar], n: int) -> Callable[[Scalar], Scalar]:
    for _ in range(n):
        f = ag.grad(f)
    return f


def exact(f: MpFn, x: float, n: int) -> float:
    return float(mpmath.diff(f, mpmath.mpf(x), n))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize(("name", "f", "mp_f", "points"), UNARY, ids=[u[0] for u in UNARY])
def test_nth_derivative_matches_mpmath(
    name: str,
    f: Callable[[Scalar], Scalar],
    mp_f: MpFn,
    points: list[float],
    n: int,
) -> None:
    for x in points:
        got = derivative(f, n)(x)
        want = exact(mp_f, x, n)
        assert got == pytest.approx(want, rel=1e-11, abs=1e-11), (name, n, x)


@pytest.mark.parametrize(("name", "f", "mp_f", "points"), UNARY, ids=[u[0] for u in UNARY])
def test_hessian_and_forward_over_reverse_match_grad_grad(
    name: str, f: Callable[[Scalar], Scalar], mp_f: MpFn, points: list[float]
) -> None:
    for x in points:
        want = exact(mp_f, x, 2)
        assert ag.hessian(f)(x) == pytest.approx(want, rel=1e-11, abs=1e-11)
        assert ag.jvp(ag.grad(f), (x,), (1.0,))[1] == pytest.approx(want, rel=1e-11, abs=1e-11)
        # a third derivative three ways: reverse^3, hessian of grad, grad of hessian
        third = exact(mp_f, x, 3)
        assert ag.hessian(ag.grad(f))(x) == pytest.approx(third, rel=1e-10, abs=1e-10)
        assert ag.grad(ag.hessian(f))(x) == pytest.approx(third, rel=1e-10, abs=1e-10)


def test_inner_grad_closing_over_outer_variable_has_no_perturbation_confusion() -> None:
    assert ag.grad(lambda x: x * ag.grad(lambda y: x * y)(2.0))(1.0) == 2.0
    # d/dx [x * d/dy (x*y + y*y) at y=x] = d/dx [x * (x + 2x)] = 6x
    assert ag.grad(lambda x: x * ag.grad(lambda y: x * y + y * y)(x))(1.5) == 9.0
    # the same in forward mode, and mixed
    inner_fwd = lambda x: x * ag.jvp(lambda y: x * y, (2.0,), (1.0,))[1]  # noqa: E731
    assert ag.jvp(inner_fwd, (1.0,), (1.0,))[1] == 2.0
    assert ag.grad(inner_fwd)(1.0) == 2.0


def cube(y: Scalar) -> Scalar:
    return y**3.0


def test_value_and_grad_inside_grad() -> None:
    def f(x: Node) -> Scalar:
        value, slope = ag.value_and_grad(cube)(x)
        return value * slope  # x**3 * 3x**2 = 3x**5

    assert ag.grad(f)(2.0) == 15.0 * 2.0**4
    assert ag.hessian(f)(2.0) == 60.0 * 2.0**3


def test_inner_grad_of_a_function_independent_of_its_input_is_zero() -> None:
    assert ag.grad(lambda x: x * ag.grad(lambda y: x * 3.0)(2.0))(1.0) == 0.0


def test_third_derivative_of_a_pytree_function() -> None:
    def f(p: dict[str, Scalar]) -> Scalar:
        return p["a"] ** 3.0 * p["b"] + ag.exp(p["a"] * p["b"])

    def d3(p: dict[str, Scalar]) -> Scalar:
        # d^3 / da^2 db, by nesting grad with a closure
        def df_da(q: dict[str, Scalar]) -> Scalar:
            return ag.grad(f)(q)["a"]

        return ag.grad(df_da)(p)["a"]

    a, b = 0.7, -1.2
    got = ag.grad(d3)({"a": a, "b": b})["b"]
    want = mpmath.diff(
        lambda u, v: u**3 * v + mpmath.exp(u * v), (mpmath.mpf(a), mpmath.mpf(b)), (2, 1)
    )
    assert got == pytest.approx(float(want), rel=1e-11)


def test_hessian_of_two_variables_matches_mpmath_partials() -> None:
    def f(x: Sequence[Scalar]) -> Scalar:
        return ag.tanh(x[0] * x[1]) + x[0] ** 2.0 * ag.log(x[1])

    def mp_f(u: object, v: object) -> object:
        return mpmath.tanh(u * v) + u**2 * mpmath.log(v)  # type: ignore[operator]  # mpf arithmetic

    x = [0.4, 1.7]
    h = ag.hessian(f)(x)
    pt = (mpmath.mpf(x[0]), mpmath.mpf(x[1]))
    for i in range(2):
        for j in range(2):
            order = (int(i == 0) + int(j == 0), int(i == 1) + int(j == 1))
            assert h[i][j] == pytest.approx(float(mpmath.diff(mp_f, pt, order)), rel=1e-11)


def test_hessian_structure_for_dicts_and_argnums() -> None:
    def f(p: dict[str, Scalar]) -> Scalar:
        return p["w"] * p["w"] * p["b"]

    assert ag.hessian(f)({"w": 2.0, "b": 3.0}) == {
        "w": {"w": 6.0, "b": 4.0},
        "b": {"w": 4.0, "b": 0.0},
    }

    def g(x: Scalar, y: Scalar) -> Scalar:
        return x * x * y

    assert ag.hessian(g, argnums=(0, 1))(2.0, 3.0) == ((6.0, 4.0), (4.0, 0.0))
    assert ag.hessian(g, argnums=1)(2.0, 3.0) == 0.0


def test_jacobian_structure_output_outside_input_inside() -> None:
    def f(p: dict[str, Scalar]) -> dict[str, Scalar]:
        return {"prod": p["a"] * p["b"], "sum": p["a"] + p["b"], "const": 1.0}

    assert ag.jacobian(f)({"a": 2.0, "b": 5.0}) == {
        "prod": {"a": 5.0, "b": 2.0},
        "sum": {"a": 1.0, "b": 1.0},
        "const": {"a": 0.0, "b": 0.0},
    }

    def g(x: Node, y: Node) -> list[Scalar]:
        return [x * y, x]

    assert ag.jacobian(g, argnums=(0, 1))(2.0, 3.0) == [(3.0, 2.0), (1.0, 0.0)]


# ---- properties over random compositions -------------------------------------------

OPS: list[Callable[[Scalar, Scalar], Scalar]] = [
    lambda a, b: a + b,
    lambda a, b: a * b,
    lambda a, b: a - b,
    lambda a, b: ag.tanh(a) * b,
    lambda a, b: ag.exp(a * 0.3) + b,
    lambda a, b: ag.sigmoid(a - b),
    lambda a, b: ag.log(1.0 + a * a) * b,
    lambda a, b: (a * a + 1.0) ** 0.5,
    lambda a, b: a / (1.0 + b * b),
]


def composition(program: list[tuple[int, int, int]], n_in: int) -> Callable[..., list[Scalar]]:
    """A random straight-line program over the inputs; every value is an output."""

    def f(*xs: Scalar) -> list[Scalar]:
        values = list(xs)
        for op, i, j in program:
            values.append(OPS[op](values[i % len(values)], values[j % len(values)]))
        return values[n_in:]

    return f


programs = st.lists(
    st.tuples(st.integers(0, len(OPS) - 1), st.integers(0, 50), st.integers(0, 50)),
    min_size=1,
    max_size=8,
)
points = st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3)


@CI
@given(programs, points, points, points)
def test_jvp_and_vjp_are_transposes(
    program: list[tuple[int, int, int]], x: list[float], v: list[float], u_seed: list[float]
) -> None:
    f = composition(program, 3)
    value, jv = ag.jvp(f, x, v)
    u = [u_seed[k % 3] for k in range(len(value))]
    _, pullback = ag.vjp(f, *x)
    jtu = pullback(u)
    lhs = math.fsum(a * b for a, b in zip(u, jv, strict=True))
    rhs = math.fsum(a * b for a, b in zip(jtu, v, strict=True))
    scale = math.fsum(abs(a * b) for a, b in zip(u, jv, strict=True)) + 1.0
    assert abs(lhs - rhs) <= 1e-12 * scale


@CI
@given(programs, points)
def test_jacobian_rows_are_exactly_grad_of_each_output(
    program: list[tuple[int, int, int]], x: list[float]
) -> None:
    f = composition(program, 3)

    def vector(xs: Sequence[Scalar]) -> list[Scalar]:
        return f(*xs)

    rows = ag.jacobian(vector)(x)
    for k, row in enumerate(rows):

        def output_k(xs: Sequence[Scalar], k: int = k) -> Scalar:
            return f(*xs)[k]

        assert row == ag.grad(output_k)(x)  # bit for bit


@CI
@given(programs, points)
def test_hessian_is_symmetric(program: list[tuple[int, int, int]], x: list[float]) -> None:
    f = composition(program, 3)

    def total(xs: Sequence[Scalar]) -> Scalar:
        return ag.sum(f(*xs))

    h = ag.hessian(total)(x)
    for i in range(3):
        for j in range(i):
            assert h[i][j] == pytest.approx(h[j][i], rel=1e-12, abs=1e-12)


# ---- NUMERICS.md section 3: second derivatives and integer exponents (torch column) ------

SECTION_3: list[tuple[str, Callable[[float], float], float, float]] = [
    ("d/dx x**0 (int) at 0", ag.grad(lambda x: x**0), 0.0, 0.0),
    ("d/dx x**2 (int) at 0", ag.grad(lambda x: x**2), 0.0, 0.0),
    ("d/dx x**-1 (int) at 0", ag.grad(lambda x: x**-1), 0.0, -math.inf),
    ("relu''(0)", ag.grad(ag.grad(ag.relu)), 0.0, 0.0),
    (
        "abs''(0), abs as relu(x) + relu(-x)",
        ag.grad(ag.grad(lambda x: ag.relu(x) + ag.relu(-x))),
        0.0,
        0.0,
    ),
    ("(x**3.0)'' at 0", ag.grad(ag.grad(lambda x: x**3.0)), 0.0, 0.0),
    ("(x**2.0)'' at 0", ag.grad(ag.grad(lambda x: x**2.0)), 0.0, 2.0),
    ("(x**1.0)'' at 0", ag.grad(ag.grad(lambda x: x**1.0)), 0.0, 0.0),
    ("(x**0.5)'' at 0", ag.grad(ag.grad(lambda x: x**0.5)), 0.0, -math.inf),
    ("log''(0)", ag.grad(ag.grad(ag.log)), 0.0, -math.inf),
    ("tanh''(1000)", ag.grad(ag.grad(ag.tanh)), 1000.0, -0.0),
    ("sigmoid''(-1000)", ag.grad(ag.grad(ag.sigmoid)), -1000.0, 0.0),
    ("exp''(1000)", ag.grad(ag.grad(ag.exp)), 1000.0, math.inf),
]


def same(a: float, b: float) -> bool:
    """Equal, with nan equal to nan and the sign of zero compared."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@pytest.mark.parametrize(("case", "fn", "x", "torch"), SECTION_3, ids=[r[0] for r in SECTION_3])
def test_numerics_section_3(
    case: str, fn: Callable[[float], float], x: float, torch: float
) -> None:
    assert same(fn(x), torch), (case, fn(x), torch)


SECOND: list[tuple[str, Callable[[Scalar], Scalar], float, float]] = [
    ("relu", ag.relu, 0.0, 0.0),
    ("x**3.0", lambda x: x**3.0, 0.0, 0.0),
    ("x**2.0", lambda x: x**2.0, 0.0, 2.0),
    ("x**1.0", lambda x: x**1.0, 0.0, 0.0),
    ("x**0.5", lambda x: x**0.5, 0.0, -math.inf),
    ("log", ag.log, 0.0, -math.inf),
    ("tanh", ag.tanh, 1000.0, -0.0),
    ("sigmoid", ag.sigmoid, -1000.0, 0.0),
    ("exp", ag.exp, 1000.0, math.inf),
]


@pytest.mark.parametrize(("case", "f", "x", "torch"), SECOND, ids=[r[0] for r in SECOND])
def test_numerics_section_3_by_hessian_and_forward_over_reverse(
    case: str, f: Callable[[Scalar], Scalar], x: float, torch: float
) -> None:
    # forward over reverse (hessian's strategy) adds the product rule's terms in
    # another order than PyTorch's double backward: the sign of a zero may differ
    for second in (ag.hessian(f)(x), ag.jvp(ag.grad(f), (x,), (1.0,))[1]):
        assert same(abs(second), abs(torch)) if torch == 0.0 else same(second, torch), case
