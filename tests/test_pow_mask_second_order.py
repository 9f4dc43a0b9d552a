"""Second derivatives of ``x ** y`` behind its masks: the mathematical value, not a leaked nan.

``x ** y`` with a node exponent masks two first derivatives as PyTorch does:
d/dx is 0 where ``y == 0`` (``x ** 0`` is 1 for every x), d/dy is 0 where
``x == 0 <= y`` (``0 ** y`` is 0 for every ``y > 0``). Each mask is a ``where``
whose unselected branch gets a zero cotangent when differentiated again; if that
branch meets ``log(0)`` or ``0 ** -1`` the zero becomes nan (PyTorch's double
backward does: its issue 95180). The rule makes the unselected branch's base
safe (1.0), so the second derivative is the mathematical one, as in JAX and
HIPS autograd. Oracles here: exact reasoning (the function is constant on a
neighbourhood in the masked direction), central finite differences of the
first derivative, and the first derivatives' bits, which must not move.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar
from autograd.core.floats import log_float, pow_float

INF, NAN = math.inf, math.nan
SPECIAL = (0.0, -0.0, 5e-324, 1e-310, 1e-300, 0.5, 1.0, -2.0, 2.0, 1e300, INF, -INF, NAN)


def bits(v: float) -> str:
    """A float's identity: nan equals nan, -0.0 differs from 0.0."""
    return repr(v)


def central_difference(f: Callable[[float], Scalar], at: float, h: float = 1e-6) -> float:
    # f of a float is a float: the forward of every op on floats computes a float
    a, b = f(at + h), f(at - h)
    assert isinstance(a, float)
    assert isinstance(b, float)
    return (a - b) / (2.0 * h)


def zero_base(y: Scalar) -> Scalar:
    return 0.0**y


def pow_xy(x: Scalar, y: Scalar) -> Scalar:
    return x**y


# ---- HIPS autograd's tests/test_numpy.py, on our API -----------------------------


def check_grads(f: Callable[[Scalar], Scalar], df: Callable[[float], float], at: float) -> None:
    """HIPS's ``check_grads`` (reverse mode, order 2): each derivative against a central
    difference of the one below it, to its tolerances (rtol 1e-4 on a step of 1e-6)."""
    d2f = ag.grad(ag.grad(f))
    for analytic, numeric in (
        (df(at), central_difference(f, at)),
        (d2f(at), central_difference(df, at)),
    ):
        assert math.isfinite(analytic), analytic
        assert abs(analytic - numeric) <= 1e-4 * (1.0 + abs(numeric)), (analytic, numeric)


def test_power_arg1_zero() -> None:
    # HIPS: fun = lambda y: np.power(0., y); check_grads(fun)(npr.rand()**2)
    rng = random.Random(42)
    for _ in range(20):
        y = rng.random() ** 2 + 2e-6  # a step of 1e-6 either side stays in y > 0
        check_grads(lambda v: 0.0**v, ag.grad(zero_base), y)


def test_power_arg0_at_exponent_zero() -> None:
    # HIPS: fun = make_fun(0.); grad(fun)(0.) == 0. and grad(grad(fun))(0.) == 0. (c.f. #116)
    def fun(x: Scalar) -> Scalar:
        return x**0.0

    assert ag.grad(fun)(0.0) == 0.0
    assert ag.grad(ag.grad(fun))(0.0) == 0.0


# ---- the exponent direction at a zero base: 0 ** y is 0 for every y > 0 ---------

positive = st.floats(min_value=5e-324, max_value=1e300) | st.sampled_from([0.5, 1.0, 2.0, INF])


@given(positive)
def test_second_derivative_of_zero_to_the_y_is_zero(y: float) -> None:
    d2 = ag.grad(ag.grad(zero_base))
    assert bits(d2(y)) == "0.0"
    assert bits(ag.jit(d2)(y)) == "0.0"  # the rule is compiled too: the same bits
    assert bits(ag.grad(zero_base)(y)) == "0.0"  # the first derivative, unchanged


@pytest.mark.parametrize("y", [1e-3, 0.3, 1.0, 2.0, 7.5])
def test_it_is_the_slope_of_the_first_derivative(y: float) -> None:
    d1 = ag.grad(zero_base)
    assert ag.grad(d1)(y) == central_difference(d1, y) == 0.0


@pytest.mark.parametrize("x", [0.0, -0.0])
@pytest.mark.parametrize("y", [0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 1e300, INF])
def test_d2_dy2_at_a_zero_base_is_zero_for_a_node_base_too(x: float, y: float) -> None:
    d2 = ag.grad(ag.grad(pow_xy, argnums=1), argnums=1)
    assert bits(d2(x, y)) == "0.0"
    assert bits(ag.jit(d2)(x, y)) == "0.0"


def test_a_zero_base_with_a_negative_exponent_is_not_masked() -> None:
    # 0 ** y is inf for y < 0: no mask, and the infinite derivatives stay infinite
    d1 = ag.grad(zero_base)
    assert d1(-1.0) == -INF
    assert ag.grad(d1)(-1.0) == INF


# ---- the base direction at exponent 0: x ** 0 is 1 for every x ------------------


@pytest.mark.parametrize("x", SPECIAL)
@pytest.mark.parametrize("y", [0.0, -0.0])
def test_d2_dx2_at_exponent_zero_is_zero(x: float, y: float) -> None:
    d2 = ag.grad(ag.grad(pow_xy, argnums=0), argnums=0)
    d_dy = ag.grad(ag.grad(pow_xy, argnums=0), argnums=1)
    assert bits(d2(x, y)) == "0.0"  # torch: nan at x = 0, nan and subnormal x
    assert bits(ag.jit(d2)(x, y)) == "0.0"
    # d/dx is the masked 0 on the line y == 0, so its slope in y is 0 (not 1/x: the
    # mask is PyTorch's first-derivative convention, kept)
    assert bits(d_dy(x, y)) == "0.0"


@pytest.mark.parametrize("x", [0.5, 2.0, 1e-300, 1e300])
def test_d2_dx2_at_exponent_zero_is_the_slope_of_the_first_derivative(x: float) -> None:
    d1 = ag.grad(pow_xy, argnums=0)
    d2 = ag.grad(d1, argnums=0)
    assert d2(x, 0.0) == central_difference(lambda v: d1(v, 0.0), x, h=x * 1e-6) == 0.0


# ---- first derivatives keep their bits --------------------------------------------


def _c_pow(x: float, y: float) -> float:
    return pow_float(x, y)  # C's pow, as the rule's float sweep uses


everything = st.floats() | st.sampled_from(SPECIAL)


@given(everything, everything)
def test_first_derivatives_are_torchs_formula_bit_for_bit(x: float, y: float) -> None:
    # PyTorch's pow_backward for a seed of 1: no d/dx at exponent 0, no d/dy at 0 ** (y >= 0)
    dx = 0.0 if y == 0.0 else y * _c_pow(x, y - 1.0)
    dy = 0.0 if x == 0.0 and y >= 0.0 else _c_pow(x, y) * log_float(x)
    expected = [bits(dx), bits(dy)]
    both = ag.grad(pow_xy, argnums=(0, 1))
    assert [bits(v) for v in both(x, y)] == expected  # the float sweep
    assert [bits(v) for v in ag.jit(both)(x, y)] == expected  # compiled
    # the node sweep, as a second derivative builds it: a value_and_grad's value (both
    # inputs nodes: a plain-number exponent would take the scalar-exponent path)
    node_dx, _ = ag.value_and_grad(ag.grad(pow_xy, argnums=0), argnums=(0, 1))(x, y)
    node_dy, _ = ag.value_and_grad(ag.grad(pow_xy, argnums=1), argnums=(0, 1))(x, y)
    assert [bits(node_dx), bits(node_dy)] == expected
