"""sqrt, abs, sin, cos: values, first and second derivatives at float64's edges.

Three oracles, none of them this engine:

- `SECTION_9`: the rows of NUMERICS.md section 9 ("Second-round ops", torch
  2.13.0+cpu float64, value, d/dx, d2/dx2), copied as they stand: the contract.
  `MORE_EDGES` adds the edges section 9 leaves out (sqrt and abs at the huge sin
  arguments and pi, sin and cos at -inf, the largest float, 5e-324), measured
  the same way. Ours must give these bits; docs/numerics.md shows the same rows.
- live PyTorch float64, when installed: the table is re-measured bit for bit
  (so it cannot drift), and random points are compared to an ulp or two (0-d
  ``torch.sqrt`` is not correctly rounded: 1 ulp off on about 1.2% of floats,
  where IEEE ``sqrt`` and so ours are exact; its sin and cos differ from the C
  library's by 1 ulp on about 0.1%).
- mpmath: exact values and derivatives at finite points, to a few ulps; and
  central differences of the engine's forward pass where the op is smooth.

Bits are compared with `struct.pack`, so ``-0.0`` is not ``0.0``; every nan is
one value (its sign and payload are not part of the contract).
"""

from __future__ import annotations

import importlib.util
import io
import math
import struct
import sys
import warnings
from collections.abc import Callable
from typing import assert_type

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import central_difference, fd_atol

import autograd as ag
from autograd import Abs, Cos, Leaf, Node, Scalar, Sin, Sqrt

INF, NAN = math.inf, math.nan
PI = math.pi
HUGE_SIN_ARGS = (1e22, 2.0**53)  # argument reduction needs all of pi's bits here
MAX = sys.float_info.max

Unary = Callable[[Scalar], Scalar]
OPS: dict[str, Unary] = {"sqrt": ag.sqrt, "abs": ag.abs, "sin": ag.sin, "cos": ag.cos}
CLASSES: dict[str, type[Sqrt | Abs | Sin | Cos]] = {
    "sqrt": Sqrt,
    "abs": Abs,
    "sin": Sin,
    "cos": Cos,
}

Row = tuple[str, float, float, float, float]  # op, x, value, d/dx, d2/dx2

# NUMERICS.md section 9, torch 2.13.0+cpu float64, row for row.
SECTION_9: list[Row] = [
    ("sqrt", 0.0, 0.0, INF, -INF),
    ("sqrt", -0.0, -0.0, -INF, INF),
    ("sqrt", 1.0, 1.0, 0.5, -0.25),
    ("sqrt", -1.0, NAN, NAN, NAN),
    ("sqrt", 4.0, 2.0, 0.25, -0.03125),
    ("sqrt", 1e-310, 9.999999999999986e-156, 5.000000000000007e154, -INF),
    ("sqrt", 1e308, 1e154, 5e-155, -0.0),
    ("sqrt", INF, INF, 0.0, -0.0),
    ("sqrt", -INF, NAN, NAN, NAN),
    ("sqrt", NAN, NAN, NAN, NAN),
    ("abs", 0.0, 0.0, 0.0, 0.0),
    ("abs", -0.0, 0.0, 0.0, 0.0),
    ("abs", 1.0, 1.0, 1.0, 0.0),
    ("abs", -1.0, 1.0, -1.0, 0.0),
    ("abs", 4.0, 4.0, 1.0, 0.0),
    ("abs", 1e-310, 1e-310, 1.0, 0.0),
    ("abs", 1e308, 1e308, 1.0, 0.0),
    ("abs", INF, INF, 1.0, 0.0),
    ("abs", -INF, INF, -1.0, 0.0),
    ("abs", NAN, NAN, 0.0, 0.0),  # torch's sgn(nan) is 0, not copysign's ±1
    ("sin", 0.0, 0.0, 1.0, -0.0),
    ("sin", -0.0, -0.0, 1.0, 0.0),
    ("sin", 1.0, 0.8414709848078965, 0.5403023058681398, -0.8414709848078965),
    ("sin", PI, 1.2246467991473532e-16, -1.0, -1.2246467991473532e-16),
    ("sin", 1e22, -0.8522008497671888, 0.523214785395139, 0.8522008497671888),
    ("sin", 2.0**53, -0.848925964814655, -0.5285117844130887, 0.848925964814655),
    ("sin", 1e-310, 1e-310, 1.0, -1e-310),
    ("sin", INF, NAN, NAN, NAN),  # math.sin(inf) raises ValueError: the op must not
    ("sin", NAN, NAN, NAN, NAN),
    ("cos", 0.0, 1.0, -0.0, -1.0),
    ("cos", -0.0, 1.0, 0.0, -1.0),
    ("cos", 1.0, 0.5403023058681398, -0.8414709848078965, -0.5403023058681398),
    ("cos", PI, -1.0, -1.2246467991473532e-16, 1.0),
    ("cos", 1e22, 0.523214785395139, 0.8522008497671888, -0.523214785395139),
    ("cos", 2.0**53, -0.5285117844130887, 0.848925964814655, 0.5285117844130887),
    ("cos", 1e-310, 1.0, -1e-310, -1.0),
    ("cos", INF, NAN, NAN, NAN),
    ("cos", NAN, NAN, NAN, NAN),
]

# The same measurement at the edges section 9 leaves out.
MORE_EDGES: list[Row] = [
    ("sqrt", 5e-324, 2.2227587494850775e-162, 2.2494568972715982e161, -INF),
    ("sqrt", MAX, 1.3407807929942596e154, 3.729170365600104e-155, -0.0),
    ("sqrt", 1e22, 100000000000.0, 5e-12, -2.4999999999999997e-34),
    ("sqrt", 2.0**53, 94906265.62425156, 5.2683560638617535e-09, -2.9245251020114397e-25),
    ("sqrt", PI, 1.772453850905516, 0.28209479177387814, -0.04489678053129163),
    ("sqrt", -1e-310, NAN, NAN, NAN),
    ("abs", 5e-324, 5e-324, 1.0, 0.0),
    ("abs", -1e-310, 1e-310, -1.0, 0.0),
    ("abs", 1e22, 1e22, 1.0, 0.0),
    ("abs", -PI, PI, -1.0, 0.0),
    ("sin", -1e-310, -1e-310, 1.0, 1e-310),
    ("sin", 5e-324, 5e-324, 1.0, -5e-324),
    ("sin", -PI, -1.2246467991473532e-16, -1.0, 1.2246467991473532e-16),
    ("sin", 1e308, 0.4533964905016491, -0.8913089376870335, -0.4533964905016491),
    ("sin", MAX, 0.004961954789184062, -0.9999876894265599, -0.004961954789184062),
    ("sin", -INF, NAN, NAN, NAN),
    ("cos", -1e-310, 1.0, 1e-310, -1.0),
    ("cos", 5e-324, 1.0, -5e-324, -1.0),
    ("cos", -PI, -1.0, 1.2246467991473532e-16, 1.0),
    ("cos", 1e308, -0.8913089376870335, -0.4533964905016491, 0.8913089376870335),
    ("cos", MAX, -0.9999876894265599, -0.004961954789184062, 0.9999876894265599),
    ("cos", -INF, NAN, NAN, NAN),
]

# Where 0-d torch.sqrt is not correctly rounded, ours is IEEE sqrt (as ``x ** 0.5`` is):
# the value 1 ulp off torch's, and the second derivative, rounded from it, 3 ulps.
OURS_NOT_TORCH: dict[tuple[str, float], tuple[float, float, float]] = {
    ("sqrt", PI): (1.7724538509055159, 0.28209479177387814, -0.04489678053129165),
}


def _ours(row: Row) -> Row:
    name, x = row[0], row[1]
    return (name, x, *OURS_NOT_TORCH.get((name, x), row[2:]))


def _params(rows: list[Row]) -> list[object]:
    return [pytest.param(*row, id=f"{row[0]}({row[1]!r})") for row in rows]


TORCH_ROWS = _params(SECTION_9 + MORE_EDGES)
ROWS = _params([_ours(row) for row in SECTION_9 + MORE_EDGES])
EDGES: tuple[float, ...] = tuple(sorted({r[1] for r in SECTION_9 + MORE_EDGES}, key=repr))


def bits(v: float) -> bytes:
    """The IEEE bits of ``v`` (``-0.0`` differs from ``0.0``); every nan is one value."""
    return b"nan" if math.isnan(v) else struct.pack("<d", v)


def assert_bits(actual: object, expected: float, what: str) -> None:
    assert isinstance(actual, float), f"{what}: {actual!r} is not a float"
    assert bits(actual) == bits(expected), f"{what}: ours {actual!r}, expected {expected!r}"


def within_ulps(actual: float, expected: float, ulps: float) -> bool:
    """Same bits, or both finite and ``ulps`` apart (an ulp of a subnormal is 5e-324)."""
    if bits(actual) == bits(expected):
        return True
    if not (math.isfinite(actual) and math.isfinite(expected)):
        return False
    return abs(actual - expected) <= ulps * math.ulp(expected)


# hessian is forward over reverse: it rounds sqrt'' in another order than grad(grad)
HESSIAN_ULPS = {"sqrt": 2.0, "abs": 0.0, "sin": 0.0, "cos": 0.0}


def first(f: Unary) -> Callable[[float], float]:
    return ag.grad(f)


def second(f: Unary) -> Callable[[float], float]:
    d: Callable[[Scalar], Scalar] = ag.grad(f)
    return ag.grad(d)


def float_value(f: Unary, x: float) -> float:
    out = f(x)
    assert isinstance(out, float), f"a float in gives {out!r}"
    return out


def node_value(f: Unary, x: float) -> float:
    out = f(Leaf(x))
    assert isinstance(out, Node), f"a node in gives {out!r}"
    return out.value


def test_each_op_has_its_node_class_in_the_union() -> None:
    for name, f in OPS.items():
        out = f(Leaf(2.0))
        assert type(out) is CLASSES[name]
        assert repr(out) == f"{CLASSES[name].__name__}(value={out.value!r})"
        node: Node = out  # a member of the closed union (mypy checks this line)
        assert node is out


def test_float_in_float_out_node_in_node_out_typed() -> None:
    x = Leaf(0.5)
    assert_type(ag.sqrt(0.25), float)
    assert_type(ag.abs(-0.25), float)
    assert_type(ag.sin(0.0), float)
    assert_type(ag.cos(0.0), float)
    assert_type(ag.sqrt(x), Node)
    assert_type(ag.abs(x), Node)
    assert_type(ag.sin(x), Node)
    assert_type(ag.cos(x), Node)
    assert (ag.sqrt(0.25), ag.abs(-0.25), ag.sin(0.0), ag.cos(0.0)) == (0.5, 0.25, 0.0, 1.0)


# --- the table: the contract, and PyTorch re-measuring it -----------------------------


@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), ROWS)
def test_value_follows_the_table(name: str, x: float, value: float, d1: float, d2: float) -> None:
    f = OPS[name]
    assert_bits(float_value(f, x), value, "float path")
    assert_bits(node_value(f, x), value, "node path")


@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), ROWS)
def test_first_derivative_follows_the_table(
    name: str, x: float, value: float, d1: float, d2: float
) -> None:
    f = OPS[name]
    assert_bits(first(f)(x), d1, "grad")
    v, t = ag.jvp(f, (x,), (1.0,))
    assert_bits(v, value, "jvp value")
    assert_bits(t, d1, "jvp tangent")
    v2, back = ag.vjp(f, x)
    assert_bits(v2, value, "vjp value")
    assert_bits(back(1.0)[0], d1, "vjp cotangent")


@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), ROWS)
def test_second_derivative_follows_the_table(
    name: str, x: float, value: float, d1: float, d2: float
) -> None:
    f = OPS[name]
    assert_bits(second(f)(x), d2, "grad(grad)")
    h = ag.hessian(f)(x)  # forward over reverse: see test_hessian_is_grad_of_grad
    assert within_ulps(h, d2, HESSIAN_ULPS[name]), f"hessian: ours {h!r}, expected {d2!r}"


def _torch_row(name: str, x: float) -> tuple[float, float, float]:
    """Value, d/dx and d2/dx2 from PyTorch float64 (double backward)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns at import when numpy is absent
        import torch

    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = getattr(torch, name)(t)
    (g,) = torch.autograd.grad(y, t, create_graph=True)
    (h,) = torch.autograd.grad(g, t)
    return float(y.detach()), float(g.detach()), float(h)


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="PyTorch is the live oracle: pip install -e '.[oracle]' (torch==2.13.0, CPU)",
)


@needs_torch
@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), TORCH_ROWS)
def test_table_is_what_pytorch_gives(
    name: str, x: float, value: float, d1: float, d2: float
) -> None:
    tv, t1, t2 = _torch_row(name, x)
    assert_bits(tv, value, "torch value")
    assert_bits(t1, d1, "torch d/dx")
    assert_bits(t2, d2, "torch d2/dx2")


# sqrt's derivatives divide by its value, which torch rounds differently from IEEE
# sqrt on 1.2% of floats; its second derivative is four roundings more.
TORCH_ULPS = {"sqrt": (1.0, 2.0, 6.0), "abs": (0.0, 0.0, 0.0)}
TORCH_ULPS |= {"sin": (1.0, 1.0, 1.0), "cos": (1.0, 1.0, 1.0)}


@needs_torch
@pytest.mark.parametrize("name", OPS)
@given(x=st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(EDGES))
def test_random_points_match_live_pytorch(name: str, x: float) -> None:
    tv, t1, t2 = _torch_row(name, x)
    f = OPS[name]
    ours = (float_value(f, x), first(f)(x), second(f)(x))
    rows = zip(("value", "d/dx", "d2/dx2"), ours, (tv, t1, t2), TORCH_ULPS[name], strict=True)
    for what, a, e, u in rows:
        assert within_ulps(a, e, u), f"{name} {what} at {x!r}: ours {a!r}, torch {e!r}"


# --- mpmath: exact values and derivatives ---------------------------------------------

MP_DPS = 60  # digits: beyond float64's 17, and mpmath reduces huge sin arguments itself


def _mp_exact(name: str, x: float) -> tuple[float, float, float]:
    """Value, d/dx and d2/dx2 in exact arithmetic, rounded once to float."""
    with mpmath.workdps(MP_DPS):
        v = mpmath.mpf(x)  # exact: every float is an mpf
        if name == "sqrt":
            r = mpmath.sqrt(v)
            return float(r), float(1 / (2 * r)), float(-1 / (4 * v * r))
        if name == "abs":
            return float(abs(v)), float(mpmath.sign(v)), 0.0
        s, c = mpmath.sin(v), mpmath.cos(v)
        if name == "sin":
            return float(s), float(c), float(-s)
        return float(c), float(-s), float(-c)


# ulps from the exact value: IEEE sqrt is correctly rounded; g / (2 * sqrt(x)) rounds
# twice; its derivative, ((-(1 / 2r) / 2r) * 2) / 2r, five times; the C library's
# sin and cos are within an ulp
MP_ULPS = {"sqrt": (0.0, 1.5, 4.0), "abs": (0.0, 0.0, 0.0)}
MP_ULPS |= {"sin": (1.0, 1.0, 1.0), "cos": (1.0, 1.0, 1.0)}
FINITE_EDGES = [x for x in EDGES if math.isfinite(x)]


def _domain(name: str) -> st.SearchStrategy[float]:
    any_finite = st.floats(allow_nan=False, allow_infinity=False)
    if name == "sqrt":  # from the smallest subnormal up (mpmath has no 1 / 0)
        positive = st.floats(min_value=5e-324, allow_infinity=False)
        return positive | st.sampled_from([x for x in FINITE_EDGES if x > 0.0])
    if name == "abs":
        return (any_finite | st.sampled_from(FINITE_EDGES)).filter(lambda v: v != 0.0)
    return any_finite | st.sampled_from(FINITE_EDGES)


def _check_against_mpmath(name: str, x: float) -> None:
    f = OPS[name]
    exact = _mp_exact(name, x)
    ours = (float_value(f, x), first(f)(x), second(f)(x))
    rows = zip(("value", "d/dx", "d2/dx2"), ours, exact, MP_ULPS[name], strict=True)
    for what, a, e, u in rows:
        assert within_ulps(a, e, u), f"{name} {what} at {x!r}: ours {a!r}, exact {e!r}"


@given(x=_domain("sqrt"))
def test_sqrt_matches_mpmath(x: float) -> None:
    _check_against_mpmath("sqrt", x)


@given(x=_domain("abs"))
def test_abs_matches_mpmath(x: float) -> None:
    _check_against_mpmath("abs", x)


@given(x=_domain("sin"))
def test_sin_matches_mpmath(x: float) -> None:
    _check_against_mpmath("sin", x)


@given(x=_domain("cos"))
def test_cos_matches_mpmath(x: float) -> None:
    _check_against_mpmath("cos", x)


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("x", [0.3, 1.7, 25.0])
def test_mpmath_closed_forms_are_the_derivatives(name: str, x: float) -> None:
    # the oracle's oracle: numerical differentiation at high precision
    with mpmath.workdps(MP_DPS):
        fn = {"sqrt": mpmath.sqrt, "abs": mpmath.fabs, "sin": mpmath.sin, "cos": mpmath.cos}[name]
        d1, d2 = (float(mpmath.diff(fn, mpmath.mpf(x), n)) for n in (1, 2))
    _, e1, e2 = _mp_exact(name, x)
    assert math.isclose(d1, e1, rel_tol=1e-15)
    assert math.isclose(d2, e2, rel_tol=1e-15, abs_tol=1e-30)


# --- properties over every float ------------------------------------------------------

every_float = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@pytest.mark.parametrize("name", OPS)
@given(x=every_float | st.sampled_from(EDGES))
def test_never_raises_and_the_float_path_is_the_node_path(name: str, x: float) -> None:
    f = OPS[name]
    assert_bits(node_value(f, x), float_value(f, x), "node path vs float path")
    assert_bits(ag.jvp(f, (x,), (1.0,))[1], first(f)(x), "jvp vs grad")
    d2 = second(f)(x)
    assert isinstance(d2, float)
    assert isinstance(ag.hessian(f)(x), float)


@pytest.mark.parametrize("name", OPS)
@given(x=every_float | st.sampled_from(EDGES))
def test_hessian_is_grad_of_grad(name: str, x: float) -> None:
    # forward over reverse rounds sqrt'' in another order: (1/2r) * 2 / 2r against
    # -(1/2r)/2r * 2 / 2r, up to 2 ulps apart; the other ops' rules are exact products
    f = OPS[name]
    h, d2 = ag.hessian(f)(x), second(f)(x)
    assert within_ulps(h, d2, HESSIAN_ULPS[name]), f"at {x!r}: hessian {h!r}, grad(grad) {d2!r}"


@given(x=every_float | st.sampled_from(EDGES))
def test_sqrt_is_the_scalar_power_one_half(x: float) -> None:
    # `x ** 0.5` was the documented way to write sqrt: the values must not move
    assert_bits(ag.sqrt(x), (Leaf(x) ** 0.5).value, "sqrt(x) vs x ** 0.5")


def _smooth(name: str) -> st.SearchStrategy[float]:
    if name == "sqrt":
        return st.floats(1e-2, 1e6)
    if name == "abs":
        return st.floats(1e-2, 1e6) | st.floats(-1e6, -1e-2)
    return st.floats(-1e3, 1e3)


@pytest.mark.parametrize("name", OPS)
@given(data=st.data())
def test_derivatives_match_central_differences_where_smooth(name: str, data: st.DataObject) -> None:
    x = data.draw(_smooth(name))
    f, d1 = OPS[name], first(OPS[name])
    fd1 = central_difference(lambda xs: float_value(f, xs[0]), [x], 0)  # the forward pass only
    assert math.isclose(d1(x), fd1, rel_tol=1e-6, abs_tol=fd_atol(float_value(f, x)))
    fd2 = central_difference(lambda xs: d1(xs[0]), [x], 0)  # the first-order rule's values
    assert math.isclose(second(f)(x), fd2, rel_tol=1e-6, abs_tol=fd_atol(d1(x)))


# --- the rest of the engine sees them ----------------------------------------------


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("x", EDGES)
def test_jit_is_bit_identical_to_eager(name: str, x: float) -> None:
    f = OPS[name]
    assert_bits(ag.jit(f)(x), float_value(f, x), "jit(f)")
    assert_bits(ag.jit(first(f))(x), first(f)(x), "jit(grad(f))")


@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("x", EDGES)
def test_jit_of_second_derivatives_is_bit_identical_to_eager(name: str, x: float) -> None:
    f = OPS[name]
    assert_bits(ag.jit(second(f))(x), second(f)(x), "jit(grad(grad(f)))")
    assert_bits(ag.jit(ag.hessian(f))(x), ag.hessian(f)(x), "jit(hessian(f))")


def test_a_composition_of_all_four_follows_the_chain_rule() -> None:
    def f(x: Scalar) -> Scalar:
        return ag.sqrt(ag.abs(ag.sin(x) * ag.cos(x)))

    x = 0.7
    with mpmath.workdps(MP_DPS):
        exact = mpmath.diff(lambda v: mpmath.sqrt(abs(mpmath.sin(v) * mpmath.cos(v))), x)
    assert within_ulps(ag.grad(f)(x), float(exact), 4.0)
    assert_bits(ag.jit(ag.grad(f))(x), ag.grad(f)(x), "jit(grad(f))")


def test_the_cli_grammar_accepts_the_four_names() -> None:
    from autograd.cli import main

    out = io.StringIO()
    expr = "sqrt(x) + abs(y) + sin(z) * cos(w)"
    assert main(["grad", expr, "x=4", "y=-2", "z=0", "w=0"], out=out) == 0
    assert out.getvalue().splitlines() == [
        "value = 4.0",
        "d/dx = 0.25",
        "d/dy = -1.0",
        "d/dz = 1.0",
        "d/dw = -0.0",  # sin(0) * -sin(0)
    ]


@pytest.mark.parametrize(("name", "x"), [("sqrt", -1.0), ("sin", INF), ("cos", -INF)])
def test_debug_nans_names_the_op_that_made_a_nan(name: str, x: float) -> None:
    f = OPS[name]
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=name.capitalize()):
        f(x)  # a plain-float call
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=name.capitalize()):
        first(f)(x)
