"""Every row of the project's numerics table (PyTorch float64) that our ops cover.

Values and first derivatives of unary and binary cases, second derivatives through
``grad(grad(f))``, IEEE ``pow`` special values, saturation and signed zeros. Signs
of zero are compared with ``math.copysign``, nan with ``math.isnan``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import as_node

import autograd as ag
from autograd import Leaf, Node, Scalar

INF, NAN = math.inf, math.nan


def same(actual: float, expected: float, ulps: int = 0) -> bool:
    """Equal as IEEE values (to ``ulps``), telling ``-0.0`` from ``0.0``; nan equals nan."""
    if math.isnan(expected):
        return math.isnan(actual)
    if ulps and math.isfinite(expected) and abs(actual - expected) <= ulps * math.ulp(expected):
        return True
    return actual == expected and math.copysign(1.0, actual) == math.copysign(1.0, expected)


Unary = Callable[[Scalar], Scalar]

# (case, f, x, torch value, torch d/dx): NUMERICS.md section 1
SECTION_1: list[tuple[str, Unary, float, float, float]] = [
    ("relu(0.0)", ag.relu, 0.0, 0.0, 0.0),
    ("relu(-0.0)", ag.relu, -0.0, -0.0, 0.0),
    ("relu(nan)", ag.relu, NAN, NAN, 1.0),
    ("x**0.0 at 0", lambda x: x**0.0, 0.0, 1.0, 0.0),
    ("x**0.0 at nan", lambda x: x**0.0, NAN, 1.0, 0.0),
    ("x**1 at 0", lambda x: x**1, 0.0, 0.0, 1.0),
    ("x**2 at 0", lambda x: x**2, 0.0, 0.0, 0.0),
    ("x**2 at -0.0", lambda x: x**2, -0.0, 0.0, -0.0),
    ("x**0.5 at 0", lambda x: x**0.5, 0.0, 0.0, INF),
    ("x**1.5 at 0", lambda x: x**1.5, 0.0, 0.0, 0.0),
    ("x**-1 at 0", lambda x: x**-1, 0.0, INF, -INF),
    ("x**-1 at -0.0", lambda x: x**-1, -0.0, -INF, -INF),
    ("x**-2 at 0", lambda x: x**-2, 0.0, INF, -INF),
    ("x**-0.5 at 0", lambda x: x**-0.5, 0.0, INF, -INF),
    ("x**0.5 at -0.0", lambda x: x**0.5, -0.0, -0.0, -INF),
    ("x**(1/3) at -8", lambda x: x ** (1 / 3), -8.0, NAN, NAN),
    ("x**2 at -2", lambda x: x**2, -2.0, 4.0, -4.0),
    ("x**3 at -2", lambda x: x**3, -2.0, -8.0, 12.0),
    ("x**2 at 1e200", lambda x: x**2, 1e200, INF, 2e200),
    ("sqrt(0.0) as x**0.5", lambda x: x**0.5, 0.0, 0.0, INF),
    ("sqrt(-0.0) as x**0.5", lambda x: x**0.5, -0.0, -0.0, -INF),
    ("log(0.0)", ag.log, 0.0, -INF, INF),
    ("log(-0.0)", ag.log, -0.0, -INF, -INF),
    ("log(-1.0)", ag.log, -1.0, NAN, -1.0),
    ("log(inf)", ag.log, INF, INF, 0.0),
    ("log(nan)", ag.log, NAN, NAN, NAN),
    ("log(5e-324)", ag.log, 5e-324, -744.4400719213812, INF),
    ("exp(709.0)", ag.exp, 709.0, 8.218407461554972e307, 8.218407461554972e307),
    ("exp(710.0)", ag.exp, 710.0, INF, INF),
    ("exp(1000.0)", ag.exp, 1000.0, INF, INF),
    ("exp(-1000.0)", ag.exp, -1000.0, 0.0, 0.0),
    ("exp(-inf)", ag.exp, -INF, 0.0, 0.0),
    ("exp(inf)", ag.exp, INF, INF, INF),
    ("exp(-0.0)", ag.exp, -0.0, 1.0, 1.0),
    ("tanh(-0.0)", ag.tanh, -0.0, -0.0, 1.0),
    ("tanh(10.0)", ag.tanh, 10.0, 0.9999999958776927, 8.244614529632978e-09),
    ("tanh(19.0)", ag.tanh, 19.0, 0.9999999999999999, 2.220446049250313e-16),
    ("tanh(20.0)", ag.tanh, 20.0, 1.0, 0.0),
    ("tanh(1000.0)", ag.tanh, 1000.0, 1.0, 0.0),
    ("tanh(-1000.0)", ag.tanh, -1000.0, -1.0, 0.0),
    ("tanh(inf)", ag.tanh, INF, 1.0, 0.0),
    ("tanh(nan)", ag.tanh, NAN, NAN, NAN),
    ("sigmoid(0.0)", ag.sigmoid, 0.0, 0.5, 0.25),
    ("sigmoid(36.0)", ag.sigmoid, 36.0, 0.9999999999999998, 2.2204460492503126e-16),
    ("sigmoid(40.0)", ag.sigmoid, 40.0, 1.0, 0.0),
    ("sigmoid(1000.0)", ag.sigmoid, 1000.0, 1.0, 0.0),
    ("sigmoid(-40.0)", ag.sigmoid, -40.0, 4.248354255291589e-18, 4.248354255291589e-18),
    ("sigmoid(-745.0)", ag.sigmoid, -745.0, 0.0, 0.0),
    ("sigmoid(-1000.0)", ag.sigmoid, -1000.0, 0.0, 0.0),
    ("1/x at 0.0", lambda x: 1 / x, 0.0, INF, -INF),
    ("1/x at -0.0", lambda x: 1 / x, -0.0, -INF, -INF),
    ("x/0.0 at 1", lambda x: x / 0.0, 1.0, INF, INF),
    ("x/0.0 at 0", lambda x: x / 0.0, 0.0, NAN, INF),
    ("x*0.0 at inf", lambda x: x * 0.0, INF, NAN, 0.0),
    ("x-x at inf", lambda x: x - x, INF, NAN, 0.0),
    ("-x at 0.0", lambda x: -x, 0.0, -0.0, -1.0),
    ("x*log(x) at 0", lambda x: x * ag.log(x), 0.0, NAN, NAN),
    ("0*log(x) at 0 (mask by mult)", lambda x: 0.0 * ag.log(x), 0.0, NAN, NAN),
    ("x*stop_gradient(log(x)) at 0", lambda x: x * ag.stop_gradient(ag.log(x)), 0.0, NAN, -INF),
]


@pytest.mark.parametrize(
    ("f", "x", "value", "dx"), [r[1:] for r in SECTION_1], ids=[r[0] for r in SECTION_1]
)
def test_unary_value_and_derivative_follow_pytorch(
    f: Unary, x: float, value: float, dx: float
) -> None:
    v, g = ag.value_and_grad(f)(x)
    assert same(v, value), f"value {v!r}, PyTorch {value!r}"
    # torch's tanh' is one fused multiply-add, 1 - y*y; ours is (1 - y)(1 + y): 1 ulp
    assert same(g, dx, ulps=1 if f is ag.tanh else 0), f"d/dx {g!r}, PyTorch {dx!r}"


@given(x=st.floats(-25.0, 25.0))
def test_tanh_derivative_is_within_an_ulp_of_the_fused_one_minus_square(x: float) -> None:
    y = ag.tanh(x)
    fused = float(1 - Fraction(y) * Fraction(y))  # exact, then one rounding: torch's fma
    assert same(ag.grad(ag.tanh)(x), fused, ulps=1)


def test_python_control_flow_on_value_masks_safely_where_pytorch_where_gives_nan() -> None:
    # torch.where(x > 0, log(x), 0) at 0 has gradient nan (0 * inf in the backward pass);
    # a branch on `.value` records only the branch taken, so the gradient is 0.
    def masked_log(x: Node) -> Scalar:
        return ag.log(x) if x.value > 0.0 else 0.0

    def masked_exp(x: Node) -> Scalar:
        return x if x.value < 1.0 else ag.exp(-x)

    assert ag.value_and_grad(masked_log)(0.0) == (0.0, 0.0)
    assert ag.value_and_grad(masked_exp)(-1000.0) == (-1000.0, 1.0)


Binary = Callable[[Scalar, Scalar], Scalar]

# (case, f, x, y, torch value, torch d/dx, torch d/dy): NUMERICS.md section 2
SECTION_2: list[tuple[str, Binary, float, float, float, float, float]] = [
    ("x**y at (0,2)", lambda x, y: x**y, 0.0, 2.0, 0.0, 0.0, 0.0),
    ("x**y at (0,0)", lambda x, y: x**y, 0.0, 0.0, 1.0, 0.0, 0.0),
    ("x**y at (0,0.5)", lambda x, y: x**y, 0.0, 0.5, 0.0, INF, 0.0),
    ("x**y at (0,-1)", lambda x, y: x**y, 0.0, -1.0, INF, -INF, -INF),
    ("x**y at (-2,2)", lambda x, y: x**y, -2.0, 2.0, 4.0, -4.0, NAN),
    ("x**y at (-2,0.5)", lambda x, y: x**y, -2.0, 0.5, NAN, NAN, NAN),
    ("x**y at (2,3)", lambda x, y: x**y, 2.0, 3.0, 8.0, 12.0, 5.545177444479562),
    ("x**y at (10,400)", lambda x, y: x**y, 10.0, 400.0, INF, INF, INF),
    ("exp(y*log(x)) at (0,2)", lambda x, y: ag.exp(y * ag.log(x)), 0.0, 2.0, 0.0, NAN, NAN),
    ("exp(y*log(x)) at (-2,2)", lambda x, y: ag.exp(y * ag.log(x)), -2.0, 2.0, NAN, NAN, NAN),
    ("x/y at (1,0)", lambda x, y: x / y, 1.0, 0.0, INF, INF, -INF),
    ("x/y at (0,0)", lambda x, y: x / y, 0.0, 0.0, NAN, INF, NAN),
    ("x/y at (1,-0.0)", lambda x, y: x / y, 1.0, -0.0, -INF, -INF, -INF),
    # the mask on ∂/∂y multiplies by the cotangent, as torch's pow_backward_exponent
    ("-(x**y) at (0,2)", lambda x, y: -(x**y), 0.0, 2.0, -0.0, -0.0, -0.0),
    ("(x**y)*inf at (0,0)", lambda x, y: x**y * INF, 0.0, 0.0, INF, 0.0, NAN),
    ("(x**y)*inf at (0,2)", lambda x, y: x**y * INF, 0.0, 2.0, NAN, NAN, NAN),
]


@pytest.mark.parametrize(
    ("f", "x", "y", "value", "dx", "dy"), [r[1:] for r in SECTION_2], ids=[r[0] for r in SECTION_2]
)
def test_binary_value_and_partials_follow_pytorch(
    f: Binary, x: float, y: float, value: float, dx: float, dy: float
) -> None:
    v, (gx, gy) = ag.value_and_grad(f, argnums=(0, 1))(x, y)
    assert isinstance(gx, float)
    assert isinstance(gy, float)
    assert same(v, value), f"value {v!r}, PyTorch {value!r}"
    assert same(gx, dx), f"d/dx {gx!r}, PyTorch {dx!r}"
    assert same(gy, dy), f"d/dy {gy!r}, PyTorch {dy!r}"


def first_derivative(f: Unary) -> Callable[[float], float]:
    return ag.grad(f)


def second_derivative(f: Unary) -> Callable[[float], float]:
    first: Callable[[Scalar], Scalar] = ag.grad(f)
    return ag.grad(first)


# (case, f, x, torch second derivative): NUMERICS.md section 3 (integer-exponent rows
# are first derivatives)
SECTION_3: list[tuple[str, Callable[[float], float], float, float]] = [
    ("d/dx x**0 (int) at 0", first_derivative(lambda x: x**0), 0.0, 0.0),
    ("d/dx x**2 (int) at 0", first_derivative(lambda x: x**2), 0.0, 0.0),
    ("d/dx x**-1 (int) at 0", first_derivative(lambda x: x**-1), 0.0, -INF),
    ("d2 relu at 0", second_derivative(ag.relu), 0.0, 0.0),
    ("d2 x**3.0 at 0", second_derivative(lambda x: x**3.0), 0.0, 0.0),
    ("d2 x**2.0 at 0", second_derivative(lambda x: x**2.0), 0.0, 2.0),
    ("d2 x**1.0 at 0", second_derivative(lambda x: x**1.0), 0.0, 0.0),
    ("d2 x**0.5 at 0", second_derivative(lambda x: x**0.5), 0.0, -INF),
    ("d2 log at 0", second_derivative(ag.log), 0.0, -INF),
    ("d2 tanh at 1000", second_derivative(ag.tanh), 1000.0, -0.0),
    ("d2 sigmoid at -1000", second_derivative(ag.sigmoid), -1000.0, 0.0),
    ("d2 exp at 1000", second_derivative(ag.exp), 1000.0, INF),
]


@pytest.mark.parametrize(
    ("d", "x", "expected"), [r[1:] for r in SECTION_3], ids=[r[0] for r in SECTION_3]
)
def test_second_derivatives_follow_pytorch(
    d: Callable[[float], float], x: float, expected: float
) -> None:
    assert same(d(x), expected), f"{d(x)!r}, PyTorch {expected!r}"


# (base, exponent, torch.pow with a tensor exponent): NUMERICS.md section 4
SECTION_4: list[tuple[float, float, float]] = [
    (-10.0, 401.0, -INF),
    (-10.0, 400.0, INF),
    (10.0, -400.0, 0.0),
    (-2.0, 0.5, NAN),
    (-INF, 0.5, INF),
    (-INF, 3.0, -INF),
    (-INF, -3.0, -0.0),
    (1.0, INF, 1.0),
    (-1.0, INF, 1.0),
    (0.0, 0.0, 1.0),
    (INF, 0.0, 1.0),
    (NAN, 0.0, 1.0),
    (1.0, NAN, 1.0),
    (-0.0, -1.0, -INF),
    (-0.0, -2.0, INF),
    (-0.0, 3.0, -0.0),
    (0.5, -INF, INF),
    (2.0, -INF, 0.0),
    (-8.0, 0.3333333333333333, NAN),
]
POW_IDS = [f"{x!r}**{y!r}" for x, y, _ in SECTION_4]


@pytest.mark.parametrize(("x", "y", "expected"), SECTION_4, ids=POW_IDS)
def test_pow_with_node_exponent_is_ieee_pow(x: float, y: float, expected: float) -> None:
    assert same((Leaf(x) ** Leaf(y)).value, expected)
    assert same((x ** Leaf(y)).value, expected)


@pytest.mark.parametrize(("x", "y", "expected"), SECTION_4, ids=POW_IDS)
def test_pow_with_constant_exponent_follows_pytorch_scalar_path(
    x: float, y: float, expected: float
) -> None:
    # torch.pow(Tensor, 0.5) is sqrt: sqrt(-inf) is nan where C pow gives inf
    scalar_path = NAN if (x, y) == (-INF, 0.5) else expected
    assert same((Leaf(x) ** y).value, scalar_path)


@given(st.floats(allow_nan=False, width=64))
def test_pow_scalar_path_of_exponent_one_is_c_pow_bit_for_bit(x: float) -> None:
    # `pow_scalar_float` returns x for c == 1 (as torch copies the base) and jit inlines it:
    # the claim is that C's pow(x, 1) gives the same bits, so no value changed
    from autograd.core.floats import pow_float, pow_scalar_float

    assert same(pow_scalar_float(x, 1.0), pow_float(x, 1.0))
    assert same(pow_scalar_float(x, 1.0), x)


def test_pow_examples_from_the_contract() -> None:
    assert (Leaf(-2.0) ** 2.0).value == 4.0
    assert (Leaf(0.0) ** 0.0).value == 1.0
    assert math.isnan((Leaf(-8.0) ** (1 / 3)).value)


# (x, tanh' or sigmoid' in float64): NUMERICS.md section 5; saturated outputs give exactly 0
@pytest.mark.parametrize(
    ("f", "x", "dx"),
    [
        (ag.tanh, 19.0, 2.220446049250313e-16),
        (ag.tanh, 20.0, 0.0),
        (ag.sigmoid, 36.0, 2.2204460492503126e-16),
        (ag.sigmoid, 40.0, 0.0),
        (ag.sigmoid, 50.0, 0.0),
    ],
)
def test_saturated_gradient_is_computed_from_the_output(f: Unary, x: float, dx: float) -> None:
    assert same(ag.grad(f)(x), dx)


# NUMERICS.md section 8: signs of zero
def test_negation_of_zero_is_negative_zero() -> None:
    neg: Unary = lambda x: -x  # noqa: E731 - a typed lambda: mypy cannot infer one inside grad()
    times_minus_one: Unary = lambda x: -1.0 * x  # noqa: E731
    assert same(ag.value_and_grad(neg)(0.0)[0], -0.0)
    assert same(ag.value_and_grad(times_minus_one)(0.0)[0], -0.0)


@pytest.mark.parametrize("x", [0.0, -0.0])
def test_difference_of_equal_zeros_is_positive_zero(x: float) -> None:
    def minus_itself(v: Scalar) -> Scalar:
        return v - v

    assert same(ag.value_and_grad(minus_itself)(x)[0], 0.0)


def test_signed_zero_cases() -> None:
    def reciprocal(x: Scalar) -> Scalar:
        return 1 / x

    assert ag.value_and_grad(reciprocal)(-0.0) == (-INF, -INF)
    assert ag.value_and_grad(ag.log)(-0.0) == (-INF, -INF)
    assert same(ag.tanh(-0.0), -0.0)
    assert same(ag.tanh(Leaf(-0.0)).value, -0.0)
    assert same(ag.relu(-0.0), -0.0)


# --- no Python exception or complex number escapes an op ------------------------

ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True)
FUNCTIONS: list[Unary] = [ag.exp, ag.log, ag.tanh, ag.relu, ag.sigmoid]
OPERATORS: list[Binary] = [
    lambda x, y: x + y,
    lambda x, y: x - y,
    lambda x, y: x * y,
    lambda x, y: x / y,
    lambda x, y: x**y,
]


@given(x=ANY_FLOAT)
def test_functions_on_any_float_give_the_node_value_and_never_raise(x: float) -> None:
    for f in FUNCTIONS:
        on_float = f(x)
        on_node = as_node(f(Leaf(x)))
        assert type(on_float) is float
        assert same(on_node.value, on_float)  # the float path is the node's forward rule
        g = ag.grad(f)(x)
        assert type(g) is float


@given(x=ANY_FLOAT, y=ANY_FLOAT)
def test_operators_on_any_floats_never_raise(x: float, y: float) -> None:
    for op in OPERATORS:
        for a, b in ((Leaf(x), y), (x, Leaf(y)), (Leaf(x), Leaf(y))):
            assert type(as_node(op(a, b)).value) is float
        value, grads = ag.value_and_grad(op, argnums=(0, 1))(x, y)
        assert type(value) is float
        assert all(type(g) is float for g in grads)
    for c in (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 1 / 3, 10**400):
        assert type((Leaf(x) ** c).value) is float

        def power(v: Scalar, c: float = c) -> Scalar:
            return v**c

        assert type(first_derivative(power)(x)) is float


def test_division_by_a_subnormal_is_ieee_division() -> None:
    # x * y**-1 gave nan and inf here: 1 / 1e-310 overflows
    assert same((Leaf(0.0) / Leaf(1e-310)).value, 0.0)
    assert same((Leaf(1e-300) / Leaf(1e-310)).value, 10000000000.00003)  # torch.div
    assert same((0.0 / Leaf(1e-310)).value, 0.0)
    assert same((Leaf(1e-300) / 1e-310).value, 10000000000.00003)


# NUMERICS.md section 9, "Division x / y": value, d/dx, d/dy, d2/dy2 (torch.div, float64)
DIVISION: list[tuple[float, float, float, float, float, float]] = [
    (1.0, 0.0, INF, INF, -INF, INF),
    (-1.0, 0.0, -INF, INF, INF, -INF),
    (0.0, 0.0, NAN, INF, NAN, NAN),
    (1.0, -0.0, -INF, -INF, -INF, -INF),
    (0.0, 1e-310, 0.0, INF, -0.0, NAN),
    (1e-300, 1e-310, 10000000000.00003, INF, -INF, INF),
    (1.0, 1e-310, INF, INF, -INF, INF),
    (INF, INF, NAN, 0.0, NAN, NAN),
    (1.0, INF, 0.0, 0.0, -0.0, 0.0),
    (1e300, 1e-10, INF, 10000000000.0, -INF, INF),
    (1e300, 1e160, 1e140, 1e-160, -1.0000000000000001e-20, 2e-180),
    (3.0, 4.0, 0.75, 0.25, -0.1875, 0.09375),
    (NAN, 1.0, NAN, 1.0, NAN, NAN),
]


def _quotient(x: Scalar, y: Scalar) -> Scalar:
    return x / y


def _times(c: float, y: float) -> Unary:
    def quotient(x: Scalar) -> Scalar:
        return c * x / y

    return quotient


def _over(x: float) -> Unary:
    def quotient(y: Scalar) -> Scalar:
        return x / y

    return quotient


@pytest.mark.parametrize(
    ("x", "y", "value", "dx", "dy", "dyy"), DIVISION, ids=[f"{r[0]!r}/{r[1]!r}" for r in DIVISION]
)
def test_division_follows_torch_div(
    x: float, y: float, value: float, dx: float, dy: float, dyy: float
) -> None:
    v, (gx, gy) = ag.value_and_grad(_quotient, argnums=(0, 1))(x, y)
    assert (same(v, value), same(gx, dx), same(gy, dy)) == (True, True, True), (v, gx, gy)
    assert same(second_derivative(_over(x))(y), dyy)
    # a number on either side is a constant of the same division
    assert same(ag.grad(_over(x))(y), dy)
    assert same(ag.grad(_times(1.0, y))(x), dx)
    assert same(ag.jvp(_over(x), (y,), (1.0,))[1], dy)


def test_log_derivative_divides_as_torch() -> None:
    # torch's log backward is g / x; g * (1 / x) gave 2.333333333333333
    assert ag.grad(lambda x: 7.0 * ag.log(x))(3.0) == 2.3333333333333335
    assert same(second_derivative(ag.log)(1e160), -1e-320)  # -(1/x)/x; -1/(x*x) was -0.0
    assert ag.grad(lambda x: 1e300 / x)(1e160) == -1.0000000000000001e-20  # was -0.0


def test_mean_is_one_division_by_the_count() -> None:
    xs = [1.0, 2.0, 4.0]
    assert ag.mean(xs) == 2.3333333333333335  # torch.mean; 7 * (1 / 3) is 2.333333333333333
    assert as_node(ag.mean([Leaf(x) for x in xs])).value == ag.mean(xs)


# --- second derivatives near 0 and at large magnitudes (NUMERICS.md section 9) --------
# (case, f, x, exact): the exact column, stable closed forms checked against mpmath
SECOND_NEAR_ZERO: list[tuple[str, Unary, float, float]] = [
    ("tanh''(1e-12)", ag.tanh, 1e-12, -2e-12),
    ("tanh''(1e-08)", ag.tanh, 1e-08, -1.9999999999999997e-08),
    ("tanh''(-3e-06)", ag.tanh, -3e-06, 5.999999999928e-06),
    ("tanh''(1e-200)", ag.tanh, 1e-200, -2e-200),
    ("sigmoid''(1e-12)", ag.sigmoid, 1e-12, -1.25e-13),
    ("sigmoid''(1e-08)", ag.sigmoid, 1e-08, -1.25e-09),
    ("sigmoid''(-3e-06)", ag.sigmoid, -3e-06, 3.7499999999887504e-07),
    ("sigmoid''(1e-200)", ag.sigmoid, 1e-200, -1.25e-201),
    ("exp''(1e-12)", ag.exp, 1e-12, 1.000000000001),
    ("exp''(1e-08)", ag.exp, 1e-08, 1.00000001),
    ("exp''(-3e-06)", ag.exp, -3e-06, 0.9999970000045),
    ("exp''(1e-200)", ag.exp, 1e-200, 1.0),
    ("log''(1e-300)", ag.log, 1e-300, -INF),
    ("log''(1e+160)", ag.log, 1e160, -1e-320),
    ("log''(1e+200)", ag.log, 1e200, -0.0),
]


@pytest.mark.parametrize(
    ("f", "x", "exact"), [r[1:] for r in SECOND_NEAR_ZERO], ids=[r[0] for r in SECOND_NEAR_ZERO]
)
def test_second_derivatives_match_the_exact_value(f: Unary, x: float, exact: float) -> None:
    assert same(second_derivative(f)(x), exact, ulps=2)
    assert same(ag.hessian(f)(x), exact, ulps=2)  # forward over reverse: the same rules


def _exact_second(name: str, x: float) -> float:
    with mpmath.workdps(60):
        v = mpmath.mpf(x)
        if name == "tanh":
            y = mpmath.tanh(v)
            return float(-2 * y * (1 - y * y))
        s = 1 / (1 + mpmath.exp(-v))
        return float(-s * (1 - s) * mpmath.tanh(v / 2))  # 1 - 2s without cancelling


@pytest.mark.parametrize(("name", "f"), [("tanh", ag.tanh), ("sigmoid", ag.sigmoid)])
@given(x=st.floats(-0.5, 0.5) | st.floats(-1e-8, 1e-8))
def test_second_derivative_near_zero_is_within_a_few_ulps_of_mpmath(
    name: str, f: Unary, x: float
) -> None:
    # the (1 - y)(1 + y) and s(1 - s) forms cancel here: 1843 ulps at 0.005, 0.0 at 1e-17
    exact = _exact_second(name, x)
    assert same(second_derivative(f)(x), exact, ulps=4) or abs(exact) < 1e-300


@pytest.mark.parametrize("f", [ag.tanh, ag.sigmoid])
@given(x=st.floats(-40.0, 40.0))
def test_first_derivative_stays_within_two_ulps_of_torch_formula(f: Unary, x: float) -> None:
    # torch: tanh' = fma(-y, y, 1), sigmoid' = (1 - s) * s from the output; the forms
    # chosen near 0 for the second derivative move the first by at most 2 ulps
    y = as_node(f(Leaf(x))).value
    torch_form = float(1 - Fraction(y) ** 2) if f is ag.tanh else (1.0 - y) * y
    assert same(ag.grad(f)(x), torch_form, ulps=2)


def test_nested_grad_through_a_branching_rule_is_compiled_not_frozen() -> None:
    # tanh's rule picks its form by value: traced, the pick is a Where node tested at run time
    def slope(x: float) -> Scalar:
        return ag.grad(ag.tanh)(x)

    compiled = ag.jit(slope)
    assert [compiled(x) for x in (0.1, 0.9, 19.0)] == [slope(x) for x in (0.1, 0.9, 19.0)]
    fast = ag.jit(ag.grad(ag.tanh))  # the compiled rule tests the value at run time
    assert [fast(x) for x in (0.1, 0.9, 19.0)] == [ag.grad(ag.tanh)(x) for x in (0.1, 0.9, 19.0)]


# --- Python ints: promoted as float(i) would, overflowing to ±inf -------------------

INTS = st.integers(2**1023, 2**1100) | st.integers(-(2**1100), -(2**1023)) | st.integers()


def _as_python_would(i: int) -> float:
    """float(i), with a signed infinity where float() raises OverflowError."""
    return float(i) if abs(i) < 2**1024 - 2**970 else INF if i > 0 else -INF


@given(i=INTS)
def test_ints_of_any_size_are_promoted_by_every_function(i: int) -> None:
    f = _as_python_would(i)
    for op in FUNCTIONS:
        on_int, on_float = op(i), op(f)
        assert isinstance(on_int, float)
        assert isinstance(on_float, float)
        assert same(on_int, on_float), op
        assert same(ag.grad(op)(i), ag.grad(op)(f)), op
    assert same(ag.sum([1.0, i]), 1.0 + f)
    assert same(ag.sum([i, i]), f + f)
    assert same(ag.mean([i]), f)
    assert same(ag.dot([i], [2.0]), f * 2.0)
    assert same(ag.dot([1.0, i], [i, 1]), f + f)


@given(i=INTS)
def test_a_function_returning_an_int_of_any_size_under_a_transform(i: int) -> None:
    def const(x: Scalar) -> Scalar:
        return i

    f = _as_python_would(i)
    value, g = ag.value_and_grad(const)(1.0)
    assert (same(value, f), g) == (True, 0.0)
    assert ag.grad(const)(1.0) == 0.0
    assert same(ag.jvp(const, (1.0,), (1.0,))[0], f)


def test_huge_int_rows() -> None:
    assert same(ag.exp(-(10**400)), 0.0)  # was inf
    assert same(ag.sigmoid(10**400), 1.0)  # was 0.0
    assert same(ag.tanh(-(10**400)), -1.0)  # raised OverflowError
    assert same(ag.log(10**400), INF)  # was 921.03: math.log reads the int exactly
    assert same(ag.relu(10**400), INF)  # returned the int
