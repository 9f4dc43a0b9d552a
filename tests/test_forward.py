"""Forward mode (`jvp`) and `vjp`: PyTorch's float64 numbers, pytrees, nesting, errors.

Expected values are the torch columns of NUMERICS.md sections 1 and 2
(measured with torch 2.13 float64), never numbers taken from this engine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple, cast

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Node, Scalar
from autograd.core.functions import FUNCTIONS

INF, NAN = math.inf, math.nan


def same(a: float, b: float) -> bool:
    """Equal, with nan equal to nan and the sign of zero compared."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


# NUMERICS.md section 1 (the rows our ops express): case, f, x, torch value, torch d/dx
def row(*values: object, **marks: object) -> object:
    """A parametrize row named by its first field (the case)."""
    return pytest.param(*values, id=str(values[0]), **marks)  # type: ignore[arg-type]  # marks


SECTION_1 = [
    row("relu(0.0)", ag.relu, 0.0, 0.0, 0.0),
    row("relu(-0.0)", ag.relu, -0.0, -0.0, 0.0),
    row("relu(nan)", ag.relu, NAN, NAN, 1.0),
    row("x**0.0 at 0", lambda x: x**0.0, 0.0, 1.0, 0.0),
    row("x**0.0 at nan", lambda x: x**0.0, NAN, 1.0, 0.0),
    row("x**1 at 0", lambda x: x**1, 0.0, 0.0, 1.0),
    row("x**2 at 0", lambda x: x**2, 0.0, 0.0, 0.0),
    row("x**2 at -0.0", lambda x: x**2, -0.0, 0.0, -0.0),
    row("x**0.5 at 0", lambda x: x**0.5, 0.0, 0.0, INF),
    row("x**1.5 at 0", lambda x: x**1.5, 0.0, 0.0, 0.0),
    row("x**-1 at 0", lambda x: x**-1, 0.0, INF, -INF),
    row("x**-1 at -0.0", lambda x: x**-1, -0.0, -INF, -INF),
    row("x**-2 at 0", lambda x: x**-2, 0.0, INF, -INF),
    row("x**-0.5 at 0", lambda x: x**-0.5, 0.0, INF, -INF),
    row("x**0.5 at -0.0", lambda x: x**0.5, -0.0, -0.0, -INF),
    row("x**(1/3) at -8", lambda x: x ** (1 / 3), -8.0, NAN, NAN),
    row("x**2 at -2", lambda x: x**2, -2.0, 4.0, -4.0),
    row("x**3 at -2", lambda x: x**3, -2.0, -8.0, 12.0),
    row("x**2 at 1e200", lambda x: x**2, 1e200, INF, 2e200),
    row("log(0.0)", ag.log, 0.0, -INF, INF),
    row("log(-0.0)", ag.log, -0.0, -INF, -INF),
    row("log(-1.0)", ag.log, -1.0, NAN, -1.0),
    row("log(inf)", ag.log, INF, INF, 0.0),
    row("log(nan)", ag.log, NAN, NAN, NAN),
    row("log(5e-324)", ag.log, 5e-324, -744.4400719213812, INF),
    row("exp(709.0)", ag.exp, 709.0, 8.218407461554972e307, 8.218407461554972e307),
    row("exp(710.0)", ag.exp, 710.0, INF, INF),
    row("exp(-1000.0)", ag.exp, -1000.0, 0.0, 0.0),
    row("exp(-inf)", ag.exp, -INF, 0.0, 0.0),
    row("exp(inf)", ag.exp, INF, INF, INF),
    row("exp(-0.0)", ag.exp, -0.0, 1.0, 1.0),
    row("tanh(-0.0)", ag.tanh, -0.0, -0.0, 1.0),
    row("tanh(10.0)", ag.tanh, 10.0, 0.9999999958776927, 8.244614529632978e-09),
    row("tanh(19.0)", ag.tanh, 19.0, 0.9999999999999999, 2.220446049250313e-16),
    row("tanh(20.0)", ag.tanh, 20.0, 1.0, 0.0),
    row("tanh(-1000.0)", ag.tanh, -1000.0, -1.0, 0.0),
    row("tanh(inf)", ag.tanh, INF, 1.0, 0.0),
    row("tanh(nan)", ag.tanh, NAN, NAN, NAN),
    row("sigmoid(0.0)", ag.sigmoid, 0.0, 0.5, 0.25),
    row("sigmoid(36.0)", ag.sigmoid, 36.0, 0.9999999999999998, 2.2204460492503126e-16),
    row("sigmoid(40.0)", ag.sigmoid, 40.0, 1.0, 0.0),
    row("sigmoid(-40.0)", ag.sigmoid, -40.0, 4.248354255291589e-18, 4.248354255291589e-18),
    row("sigmoid(-745.0)", ag.sigmoid, -745.0, 0.0, 0.0),
    row("1/x at 0.0", lambda x: 1.0 / x, 0.0, INF, -INF),
    row("1/x at -0.0", lambda x: 1.0 / x, -0.0, -INF, -INF),
    row("x/0.0 at 1", lambda x: x / 0.0, 1.0, INF, INF),
    row("x/0.0 at 0", lambda x: x / 0.0, 0.0, NAN, INF),
    row("x*0.0 at inf", lambda x: x * 0.0, INF, NAN, 0.0),
    row("x-x at inf", lambda x: x - x, INF, NAN, 0.0),
    row("-x at 0.0", lambda x: -x, 0.0, -0.0, -1.0),
    row("x*log(x) at 0", lambda x: x * ag.log(x), 0.0, NAN, NAN),
    row("0*log(x) at 0", lambda x: 0.0 * ag.log(x), 0.0, NAN, NAN),
    row("x*detach(log(x)) at 0", lambda x: x * ag.stop_gradient(ag.log(x)), 0.0, NAN, -INF),
]


@pytest.mark.parametrize(("case", "f", "x", "value", "slope"), SECTION_1)
def test_numerics_section_1_forward_and_reverse(
    case: str, f: Callable[[Scalar], Scalar], x: float, value: float, slope: float
) -> None:
    v, t = ag.jvp(f, (x,), (1.0,))
    assert same(v, value), (case, v)
    if case.startswith("tanh") and math.isfinite(slope) and slope != 0.0:
        # torch's tanh' is one fused multiply-add, 1 - y*y; ours is (1 - y)(1 + y): 1 ulp
        assert abs(t - slope) <= math.ulp(slope), (case, "jvp", t)
        return
    assert same(t, slope), (case, "jvp", t)
    assert same(ag.grad(f)(x), slope), (case, "grad")
    _, pullback = ag.vjp(f, x)
    assert same(pullback(1.0)[0], slope), (case, "vjp")


def pow_var(x: Scalar, y: Scalar) -> Scalar:
    return x**y


def div(x: Scalar, y: Scalar) -> Scalar:
    return x / y


# NUMERICS.md section 2: f, x, y, torch value, d/dx, d/dy
SECTION_2: list[tuple[str, Callable[[Scalar, Scalar], Scalar], float, float, tuple[float, ...]]] = [
    ("x**y at (0,2)", pow_var, 0.0, 2.0, (0.0, 0.0, 0.0)),
    ("x**y at (0,0)", pow_var, 0.0, 0.0, (1.0, 0.0, 0.0)),
    ("x**y at (0,0.5)", pow_var, 0.0, 0.5, (0.0, INF, 0.0)),
    ("x**y at (0,-1)", pow_var, 0.0, -1.0, (INF, -INF, -INF)),
    ("x**y at (-2,2)", pow_var, -2.0, 2.0, (4.0, -4.0, NAN)),
    ("x**y at (-2,0.5)", pow_var, -2.0, 0.5, (NAN, NAN, NAN)),
    ("x**y at (2,3)", pow_var, 2.0, 3.0, (8.0, 12.0, 5.545177444479562)),
    ("x**y at (10,400)", pow_var, 10.0, 400.0, (INF, INF, INF)),
    ("x/y at (1,0)", div, 1.0, 0.0, (INF, INF, -INF)),
    ("x/y at (0,0)", div, 0.0, 0.0, (NAN, INF, NAN)),
    ("x/y at (1,-0.0)", div, 1.0, -0.0, (-INF, -INF, -INF)),
]


@pytest.mark.parametrize(("case", "f", "x", "y", "torch"), SECTION_2, ids=[r[0] for r in SECTION_2])
def test_numerics_section_2_partials_forward_and_reverse(
    case: str, f: Callable[[Scalar, Scalar], Scalar], x: float, y: float, torch: tuple[float, ...]
) -> None:
    # A partial derivative in forward mode: the other input is a node with no
    # tangent (a symbolic zero). An explicit 0.0 tangent would be a real zero,
    # and 0 * inf = nan, as in PyTorch's and JAX's forward mode.
    value, dx = ag.jvp(lambda a: f(a, ag.Leaf(y)), (x,), (1.0,))
    _, dy = ag.jvp(lambda b: f(ag.Leaf(x), b), (y,), (1.0,))
    assert same(value, torch[0]), case
    assert same(dx, torch[1]), (case, "jvp d/dx", dx)
    assert same(dy, torch[2]), (case, "jvp d/dy", dy)
    gx, gy = ag.grad(f, argnums=(0, 1))(x, y)
    assert (same(gx, torch[1]), same(gy, torch[2])) == (True, True), (case, gx, gy)


def test_absent_tangent_is_a_symbolic_zero() -> None:
    # a constant factor has no tangent: no `0 * inf` term makes the result nan
    assert ag.jvp(lambda x: x * 2.0, (INF,), (1.0,))[1] == 2.0
    assert ag.grad(lambda x: x * 2.0)(INF) == 2.0
    # an explicit zero tangent of an input is a real zero, as in PyTorch and JAX
    assert math.isnan(ag.jvp(lambda x, y: x * y, (2.0, INF), (0.0, 1.0))[1])


def test_jvp_is_linear_in_the_tangent_and_matches_the_directional_derivative() -> None:
    def f(x: Scalar, y: Scalar) -> Scalar:
        return ag.tanh(x * y) + ag.exp(x) * y

    x, y = 0.3, -0.7
    _, t1 = ag.jvp(f, (x, y), (1.0, 0.0))
    _, t2 = ag.jvp(f, (x, y), (0.0, 1.0))
    _, t3 = ag.jvp(f, (x, y), (2.0, -3.0))
    assert t3 == pytest.approx(2.0 * t1 - 3.0 * t2, rel=1e-14)
    eps = 1e-6
    fd = (f(x + 2 * eps, y - 3 * eps) - f(x - 2 * eps, y + 3 * eps)) / (2 * eps)
    assert isinstance(fd, float)
    assert t3 == pytest.approx(fd, rel=1e-8)


class Point(NamedTuple):
    x: Scalar
    y: Scalar


@attrs.frozen
class Layer:
    w: list[Scalar]
    b: Scalar


def test_jvp_over_pytrees_keeps_the_output_structure() -> None:
    def f(p: Point, layer: Layer, extra: None) -> dict[str, Scalar | list[Scalar]]:
        z = layer.w[0] * p.x + layer.w[1] * p.y + layer.b
        return {"z": z, "both": [p.x * p.y, 3.0]}

    primals = (Point(1.0, 2.0), Layer([0.5, -1.0], 0.25), None)
    tangents = (Point(1.0, 0.0), Layer([0.0, 0.0], 1.0), None)
    value, tangent = ag.jvp(f, primals, tangents)
    assert value == {"z": -1.25, "both": [2.0, 3.0]}
    assert tangent == {"z": 1.5, "both": [2.0, 0.0]}


def test_forward_rules_give_the_same_bits_on_floats_and_on_nodes() -> None:
    def f(x: Scalar) -> Scalar:
        return ag.sigmoid(x * 1.7) * ag.tanh(x) + ag.log(x * x + 1.3) ** 1.5 + x**-0.5

    seen: list[float] = []

    def capture(x: Node) -> Scalar:
        _, t = ag.jvp(f, (x,), (1.0,))
        built: object = t  # statically a float: types describe the top-level call
        assert isinstance(built, Node)  # under grad, the tangent is a graph
        seen.append(built.value)
        return t

    for x0 in [0.3, 1.1, 2.7]:
        ag.grad(capture)(x0)
        assert seen[-1] == ag.jvp(f, (x0,), (1.0,))[1]  # bit for bit


def test_forward_mode_nests_both_ways() -> None:
    def f(x: Scalar) -> Scalar:
        return x**4.0

    assert ag.jvp(ag.grad(f), (2.0,), (1.0,)) == (32.0, 48.0)  # forward over reverse

    def df(x: Scalar) -> Scalar:
        return ag.jvp(f, (x,), (1.0,))[1]

    assert ag.grad(df)(2.0) == 48.0  # reverse over forward
    assert ag.jvp(df, (2.0,), (1.0,))[1] == 48.0  # forward over forward
    assert ag.grad(ag.grad(df))(2.0) == 48.0  # 4th derivative path: 24 * x = 48


def test_vjp_is_recallable_linear_and_one_sweep_per_call() -> None:
    def f(x: Scalar, y: Scalar) -> list[Scalar]:
        return [x * y, ag.exp(x), x * y]  # the same node value twice

    value, pullback = ag.vjp(f, 0.5, 3.0)
    assert value == [1.5, math.exp(0.5), 1.5]
    assert pullback([1.0, 0.0, 0.0]) == (3.0, 0.5)
    assert pullback([0.0, 1.0, 0.0]) == (math.exp(0.5), 0.0)
    assert pullback([1.0, 0.0, 1.0]) == (6.0, 1.0)
    assert pullback([2.0, 0.0, 0.0]) == (6.0, 1.0)
    assert pullback([1.0, 0.0, 0.0]) == (3.0, 0.5)  # the graph survives calls


def test_vjp_with_a_scalar_output_is_grad_bit_for_bit() -> None:
    def f(p: Mapping[str, Scalar], x: Scalar) -> Scalar:
        return ag.tanh(p["w"] * x + p["b"]) ** 2.0

    params = {"w": 0.3, "b": -0.1}
    value, pullback = ag.vjp(f, params, 2.0)
    assert value == f(params, 2.0)
    assert pullback(1.0) == ag.grad(f, argnums=(0, 1))(params, 2.0)


def test_vjp_and_jvp_of_constant_outputs_are_zero() -> None:
    _, pullback = ag.vjp(lambda x: [1.0, x * 0.0 + 2.0], 3.0)
    assert pullback([5.0, 1.0]) == (0.0,)
    assert ag.jvp(lambda x: 7.0, (1.0,), (1.0,)) == (7.0, 0.0)


def test_errors_name_the_path() -> None:
    with pytest.raises(TypeError, match=r"tangents\[0\] does not have the structure"):
        ag.jvp(lambda x: x[0], ([1.0, 2.0],), ([1.0],))
    with pytest.raises(TypeError, match=r"primals\[0\]\['a'\] is a str"):
        ag.jvp(lambda p: p["a"], ({"a": "1"},), ({"a": 1.0},))
    with pytest.raises(TypeError, match=r"primals must be a tuple or list"):
        ag.jvp(lambda x: x, 1.0, 1.0)  # type: ignore[call-overload]  # the misuse under test
    with pytest.raises(TypeError, match=r"1 primals but 2 tangents"):
        ag.jvp(lambda x: x, (1.0,), (1.0, 2.0))
    with pytest.raises(TypeError, match=r"output.*is a str"):
        ag.jvp(lambda x: "no", (1.0,), (1.0,))
    _, pullback = ag.vjp(lambda x: [x, x], 1.0)
    with pytest.raises(TypeError, match=r"structure of the function's output"):
        pullback(1.0)

    def two_outputs(x: Node) -> list[Scalar]:
        return [x, x]

    with pytest.raises(TypeError, match=r"hessian\(\) needs the function to return a scalar"):
        ag.hessian(two_outputs)(1.0)  # type: ignore[arg-type]  # the misuse under test
    with pytest.raises(TypeError, match=r"jacobian\(\) needs a function"):
        ag.jacobian(3.0)  # type: ignore[call-overload]  # the misuse under test


UNARY_OPS: list[tuple[str, Callable[[Scalar], Scalar]]] = [
    *FUNCTIONS.items(),  # every one-input op, from the definitions
    ("square", lambda x: x**2.0),
    ("cube", lambda x: x**3.0),
    ("sqrt", lambda x: x**0.5),
    ("rsqrt", lambda x: x**-0.5),
    ("reciprocal", lambda x: x**-1.0),
    ("pow 1.7", lambda x: x**1.7),
]


@pytest.mark.parametrize(("name", "op"), UNARY_OPS, ids=[u[0] for u in UNARY_OPS])
@settings(derandomize=True, max_examples=40, deadline=None)
@given(x=st.floats(-50.0, 50.0) | st.sampled_from([0.0, -0.0, INF, -INF, NAN]))
def test_jvp_rule_equals_vjp_rule_bit_for_bit(
    name: str, op: Callable[[Scalar], Scalar], x: float
) -> None:
    # one op: forward computes dx * partial, reverse g * partial, with dx = g = 1
    assert same(ag.jvp(op, (x,), (1.0,))[1], ag.grad(op)(x)), name
    # second order: forward over reverse and reverse over reverse multiply in
    # different orders, so they agree to rounding (and on nan, inf, zero)
    fwd, rev = ag.jvp(ag.grad(op), (x,), (1.0,))[1], ag.grad(ag.grad(op))(x)
    if math.isfinite(rev) and rev != 0.0:
        assert fwd == pytest.approx(rev, rel=1e-13), name
    elif rev == 0.0 and abs(fwd) <= 4 * 5e-324:
        pass  # a product underflowing in one order only: arcsin''(5e-324) is 0.0 reversed (as
        # PyTorch's double backward), 5e-324 forward, where (x*x)' is c*x + c*x or (t*x + x*t)*c
    else:
        assert same(abs(fwd), abs(rev)), name


def pow_node(x: Scalar, y: Scalar) -> Scalar:
    return x**y


BINARY_OPS: list[tuple[str, Callable[[Scalar, Scalar], Scalar]]] = [
    ("add", lambda x, y: x + y),
    ("mul", lambda x, y: x * y),
    ("pow", pow_node),
    ("div", lambda x, y: x / y),
]


@pytest.mark.parametrize(("name", "op"), BINARY_OPS, ids=[b[0] for b in BINARY_OPS])
@settings(derandomize=True, max_examples=40, deadline=None)
@given(x=st.floats(-20.0, 20.0), y=st.floats(-4.0, 4.0))
def test_binary_partials_forward_equal_reverse(
    name: str, op: Callable[[Scalar, Scalar], Scalar], x: float, y: float
) -> None:
    gx, gy = ag.grad(op, argnums=(0, 1))(x, y)
    assert same(ag.jvp(lambda a: op(a, ag.Leaf(y)), (x,), (1.0,))[1], gx), name
    assert same(ag.jvp(lambda b: op(ag.Leaf(x), b), (y,), (1.0,))[1], gy), name


@pytest.mark.parametrize(("name", "op"), UNARY_OPS, ids=[u[0] for u in UNARY_OPS])
def test_rules_against_central_differences_to_order_2(
    name: str, op: Callable[[Scalar], Scalar]
) -> None:
    for x in (0.35, 1.3, 2.9):
        if name != "relu" or x > 0:
            ag.check_grads(op, (x,), order=2, rtol=1e-4, atol=1e-5)


def test_long_chains_need_no_recursion() -> None:
    def chain(x: Scalar) -> list[Scalar]:
        outs: list[Scalar] = []
        for i in range(4_000):  # 8000 nodes deep: beyond the default recursion limit
            x = x * 1.0 + 0.0
            if i % 1_000 == 0:
                outs.append(x)
        return outs

    assert ag.jvp(chain, (0.5,), (1.0,))[1] == [1.0, 1.0, 1.0, 1.0]
    _, pullback = ag.vjp(chain, 0.5)
    assert pullback([1.0, 1.0, 1.0, 1.0]) == (4.0,)

    def last_times_x(x: Scalar) -> Scalar:
        return chain(x)[-1] * x

    assert ag.hessian(last_times_x)(0.5) == 2.0


def test_has_aux_everywhere() -> None:
    def f(x: Node) -> tuple[Scalar, dict[str, Scalar]]:
        y = x * x
        return y * x, {"square": y}

    assert ag.jvp(f, (2.0,), (1.0,), has_aux=True) == (8.0, 12.0, {"square": 4.0})
    value, pullback, aux = ag.vjp(f, 2.0, has_aux=True)
    assert (value, pullback(1.0), aux) == (8.0, (12.0,), {"square": 4.0})
    assert ag.hessian(f, has_aux=True)(2.0) == (12.0, {"square": 4.0})

    def g(x: Node) -> tuple[list[Scalar], str]:
        return [x * x, x], "aux"

    assert ag.jacobian(g, has_aux=True)(3.0) == ([6.0, 1.0], "aux")
    with pytest.raises(TypeError, match=r"has_aux=True\) needs the function to return a pair"):
        ag.jvp(ag.exp, (1.0,), (1.0,), has_aux=True)  # type: ignore[call-overload]  # misuse


def test_vjp_nests_inside_grad_and_its_pullback_is_differentiable() -> None:
    def f(x: Scalar) -> Scalar:
        return x**3.0

    def slope(x: Node) -> Scalar:
        _, pullback = ag.vjp(f, x)
        return pullback(1.0)[0]  # 3x**2, built as a graph under grad

    assert ag.grad(slope)(2.0) == 12.0

    def pulled(c: Node) -> Scalar:
        _, pullback = ag.vjp(f, 2.0)  # traced at top level, pulled back with a node
        # vjp_fn is typed for a top-level call (float in); under grad it takes a node
        return pullback(cast(float, c))[0] * c  # 12 c**2

    assert ag.grad(pulled)(1.5) == 36.0
