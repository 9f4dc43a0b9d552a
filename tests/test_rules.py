"""One table of ops: each rule's value and derivatives, orders 1 and 2, against two oracles.

For every row, on random arguments from the row's domain:
- the value on floats equals the node's value bit for bit, and matches mpmath;
- the gradient (the ``vjp`` rules, through `grad`) matches mpmath's exact derivative
  and central differences of the float forward pass;
- the second derivatives (``grad(grad(f))``, the rules differentiating themselves)
  match mpmath and central differences of the first derivative.

Random compositions of the ops get the same first-order treatment.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import attrs
import mpmath
import pytest
from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st
from strategies import (
    MP,
    Expr,
    Unsuitable,
    away_from_zero,
    central_difference,
    close,
    evaluate,
    evaluate_mp,
    expressions,
    fd_atol,
    floats,
    mp_derivative,
    mp_value,
)

import autograd as ag
from autograd import Leaf, Scalar


@attrs.frozen
class Rule:
    """One op: the engine's function of ``xs``, mpmath's, and where to test them."""

    name: str
    fn: Callable[[Sequence[Scalar]], Scalar]
    mp: Callable[..., MP]
    args: st.SearchStrategy[list[float]]
    atol: float = 0.0  # absolute slack against mpmath, for ops whose derivative is
    # computed from a rounded output (tanh, sigmoid: NUMERICS.md section 5)
    python_float_op: bool = False  # on floats `fn` is Python's own `/` or `**`, which may
    # differ from the node's (x * y**-1, PyTorch's scalar pow) by an ulp
    terms: Callable[[Sequence[float]], float] | None = None  # a summation: the size of its
    # terms, which its rounding error is relative to (cancellation makes the sum small)


def args(*elements: st.SearchStrategy[float]) -> st.SearchStrategy[list[float]]:
    return st.tuples(*elements).map(list)


def vector(
    elements: st.SearchStrategy[float], even: bool = False
) -> st.SearchStrategy[list[float]]:
    if even:
        return st.integers(1, 2).flatmap(
            lambda n: st.lists(elements, min_size=2 * n, max_size=2 * n)
        )
    return st.lists(elements, min_size=1, max_size=4)


def half_dot(v: Sequence[Scalar]) -> Scalar:
    n = len(v) // 2
    return ag.dot(v[:n], v[n:])


def sum_terms(v: Sequence[float]) -> float:
    return math.fsum(abs(x) for x in v)


def dot_terms(v: Sequence[float]) -> float:
    n = len(v) // 2
    return math.fsum(abs(a * b) for a, b in zip(v[:n], v[n:], strict=True))


def mp_dot(*v: MP) -> MP:
    n = len(v) // 2
    return mpmath.fsum(a * b for a, b in zip(v[:n], v[n:], strict=True))


WIDE = floats(-1e3, 1e3)
UNIT = floats(-3.0, 3.0)
POSITIVE = floats(1e-2, 1e2)
NONZERO = away_from_zero(1e-2, 1e2)
SATURATING = 1e-15  # a few ulps of 1.0: tanh' and sigmoid' are exactly 0 once saturated

RULES = [
    Rule("add", lambda v: v[0] + v[1], lambda x, y: x + y, args(WIDE, WIDE)),
    Rule("add_float_left", lambda v: 2.5 + v[0], lambda x: 2.5 + x, args(WIDE)),
    Rule("add_int_right", lambda v: v[0] + 3, lambda x: x + 3, args(WIDE)),
    Rule("sub", lambda v: v[0] - v[1], lambda x, y: x - y, args(WIDE, WIDE)),
    Rule("sub_float_left", lambda v: 2.5 - v[0], lambda x: 2.5 - x, args(WIDE)),
    Rule("mul", lambda v: v[0] * v[1], lambda x, y: x * y, args(WIDE, WIDE)),
    Rule("mul_int_left", lambda v: 3 * v[0], lambda x: 3 * x, args(WIDE)),
    Rule(
        "div", lambda v: v[0] / v[1], lambda x, y: x / y, args(WIDE, NONZERO), python_float_op=True
    ),
    Rule("div_by_float", lambda v: v[0] / 3.0, lambda x: x / 3, args(WIDE), python_float_op=True),
    Rule(
        "div_float_by", lambda v: 3.0 / v[0], lambda x: 3 / x, args(NONZERO), python_float_op=True
    ),
    Rule("neg", lambda v: -v[0], lambda x: -x, args(WIDE)),
    Rule("pow_0", lambda v: v[0] ** 0, lambda x: x**0, args(WIDE), python_float_op=True),
    Rule("pow_1", lambda v: v[0] ** 1, lambda x: x, args(WIDE), python_float_op=True),
    Rule("pow_2", lambda v: v[0] ** 2, lambda x: x**2, args(WIDE), python_float_op=True),
    Rule("pow_3", lambda v: v[0] ** 3.0, lambda x: x**3, args(WIDE), python_float_op=True),
    Rule("pow_5", lambda v: v[0] ** 5, lambda x: x**5, args(UNIT), python_float_op=True),
    Rule("pow_half", lambda v: v[0] ** 0.5, mpmath.sqrt, args(POSITIVE), python_float_op=True),
    Rule(
        "pow_minus_half",
        lambda v: v[0] ** -0.5,
        lambda x: x**-0.5,
        args(POSITIVE),
        python_float_op=True,
    ),
    Rule("pow_minus_1", lambda v: v[0] ** -1, lambda x: 1 / x, args(NONZERO), python_float_op=True),
    Rule(
        "pow_minus_2", lambda v: v[0] ** -2.0, lambda x: x**-2, args(NONZERO), python_float_op=True
    ),
    Rule(
        "pow_1_7",
        lambda v: v[0] ** 1.7,
        lambda x: x ** mpmath.mpf(1.7),
        args(POSITIVE),
        python_float_op=True,
    ),
    Rule(
        "pow_node",
        lambda v: v[0] ** v[1],
        lambda x, y: x**y,
        args(floats(0.1, 10), UNIT),
        python_float_op=True,
    ),
    Rule(
        "pow_node_float_base",
        lambda v: 2.0 ** v[0],
        lambda x: 2**x,
        args(floats(-20, 20)),
        python_float_op=True,
    ),
    Rule("exp", lambda v: ag.exp(v[0]), mpmath.exp, args(floats(-30, 30))),
    Rule("log", lambda v: ag.log(v[0]), mpmath.log, args(floats(1e-3, 1e3))),
    Rule("tanh", lambda v: ag.tanh(v[0]), mpmath.tanh, args(floats(-25, 25)), SATURATING),
    Rule("relu", lambda v: ag.relu(v[0]), lambda x: mpmath.mpf(max(x, 0)), args(NONZERO)),
    Rule(
        "sigmoid",
        lambda v: ag.sigmoid(v[0]),
        lambda x: 1 / (1 + mpmath.exp(-x)),
        args(floats(-50, 50)),
        SATURATING,
    ),
    Rule("sum", lambda v: ag.sum(v), lambda *v: mpmath.fsum(v), vector(WIDE), terms=sum_terms),
    Rule(
        "mean",
        lambda v: ag.mean(v),
        lambda *v: mpmath.fsum(v) / len(v),
        vector(WIDE),
        terms=lambda v: sum_terms(v) / len(v),
    ),
    Rule("dot", half_dot, mp_dot, vector(WIDE, even=True), terms=dot_terms),
]

by_name = pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])

MP_RTOL = 1e-12  # a handful of float64 roundings: every rule is a few correctly rounded steps
MP_ATOL = 1e-30  # mpmath.diff's own error is absolute (tiny): mind it only for tiny derivatives
FD_RTOL = 1e-5  # central differences with a relative step of 1e-6


def unit(n: int, *hot: int) -> list[int]:
    """Derivative orders: one for each index in ``hot`` (repeats add up)."""
    return [hot.count(i) for i in range(n)]


@by_name
@given(data=st.data())
def test_rule_value_on_floats_is_the_node_value_and_matches_mpmath(
    rule: Rule, data: st.DataObject
) -> None:
    xs = data.draw(rule.args)
    on_floats = rule.fn(xs)
    on_nodes = rule.fn([Leaf(x) for x in xs])
    assert isinstance(on_floats, float)
    assert isinstance(on_nodes, ag.Node)
    if rule.python_float_op:
        assert abs(on_floats - on_nodes.value) <= math.ulp(on_floats)
    else:
        assert on_floats.hex() == on_nodes.value.hex()  # bit for bit, sign of zero included
    assert matches_mpmath(rule, xs, on_floats)


def matches_mpmath(rule: Rule, xs: Sequence[float], got: float) -> bool:
    """``got`` is ``rule`` at ``xs`` to `MP_RTOL` of mpmath's value; a summation's, to
    `MP_RTOL` of the size of its terms (its float additions round at their size)."""
    expected = mp_value(rule.mp, xs)
    size = rule.terms(xs) if rule.terms is not None else 0.0
    return close(got, expected, MP_RTOL, 1e-12 + MP_RTOL * size)


@pytest.mark.parametrize(
    ("name", "xs"),
    [
        ("dot", [33.0, 497.0, 497.0, -32.999999999999886]),  # 16,401 - 16,401: 5.8e-11
        ("sum", [1e16, 1.0, -1e16]),  # 1.0 lost to the first addition
        ("mean", [3e15, 0.25, -3e15, 0.5]),
    ],
)
def test_a_summation_that_cancels_is_held_to_its_terms_size(name: str, xs: list[float]) -> None:
    """Found by hypothesis on ``dot``: the float sum of a few products that cancel is off
    the exact one by a fraction of an ulp of the products, far more than 1e-12 of a result
    of 5.8e-11; held to the terms' size, it passes, and an error of 1e-10 of it does not."""
    (rule,) = [r for r in RULES if r.name == name]
    got = rule.fn(xs)
    assert isinstance(got, float)
    assert not close(got, mp_value(rule.mp, xs), MP_RTOL, 1e-12)  # relative to the result
    assert matches_mpmath(rule, xs, got)
    assert rule.terms is not None
    assert not matches_mpmath(rule, xs, got + 1e-10 * rule.terms(xs))


@by_name
@given(data=st.data())
def test_rule_gradient_matches_mpmath_and_central_differences(
    rule: Rule, data: st.DataObject
) -> None:
    xs = data.draw(rule.args)
    grads = ag.grad(rule.fn)(xs)
    assert len(grads) == len(xs)

    def on_floats(v: Sequence[float]) -> float:
        out = rule.fn(v)
        assert isinstance(out, float)
        return out

    for i, g in enumerate(grads):
        exact = mp_derivative(rule.mp, xs, unit(len(xs), i))
        assert close(g, exact, MP_RTOL, rule.atol + MP_ATOL), f"d/dx{i}: {g} vs mpmath {exact}"
        numeric = central_difference(on_floats, xs, i)
        atol = fd_atol(on_floats(xs))
        assert close(g, numeric, FD_RTOL, atol), f"d/dx{i}: {g} vs differences {numeric}"


def partial(
    fn: Callable[[Sequence[Scalar]], Scalar], i: int
) -> Callable[[Sequence[Scalar]], Scalar]:
    """``∂fn/∂x_i`` as a function that can be differentiated again."""
    # Under an outer transform `grad` takes and returns nodes: its static type
    # describes the top-level call only (API.md).
    first: Callable[[Sequence[Scalar]], Sequence[Scalar]] = ag.grad(fn)  # type: ignore[assignment]
    return lambda v: first(v)[i]


@by_name
@given(data=st.data())
def test_rule_second_derivatives_match_mpmath_and_central_differences(
    rule: Rule, data: st.DataObject
) -> None:
    xs = data.draw(rule.args)
    if rule.name == "pow_node":
        # PyTorch's pow_backward masks ∂/∂x to a constant 0 where y == 0, so its
        # derivative in y is 0 there, not x**-1 (test_pow_mixed_partial_at_zero_exponent)
        assume(xs[1] != 0.0)
    for i in range(len(xs)):
        first = partial(rule.fn, i)
        second = ag.grad(first)(xs)

        def first_on_floats(v: Sequence[float], first: Callable[..., Scalar] = first) -> float:
            out = first(v)
            assert isinstance(out, float)
            return out

        for j, h in enumerate(second):
            exact = mp_derivative(rule.mp, xs, unit(len(xs), i, j))
            assert close(h, exact, 1e-10, rule.atol + MP_ATOL), f"d2/dx{i}dx{j}: {h} vs {exact}"
            numeric = central_difference(first_on_floats, xs, j)
            atol = fd_atol(first_on_floats(xs))
            assert close(h, numeric, FD_RTOL, atol), f"d2/dx{i}dx{j}: {h} vs {numeric}"


@settings(max_examples=150)
@given(expr=expressions(3), xs=st.lists(floats(-2.0, 2.0), min_size=3, max_size=3))
def test_random_composition_gradient_matches_mpmath_and_central_differences(
    expr: Expr, xs: list[float]
) -> None:
    def on_floats(v: Sequence[float]) -> float:
        out = evaluate(expr, v)
        assert isinstance(out, float)
        return out

    def on_nodes(v: Sequence[Scalar]) -> Scalar:
        return evaluate(expr, v)

    def on_mp(*v: MP) -> MP:
        return evaluate_mp(expr, v)

    try:
        on_floats(xs)
        grads = ag.grad(on_nodes)(xs)
        numeric = [central_difference(on_floats, xs, i) for i in range(3)]
    except Unsuitable:  # a log or division too close to its pole, or a huge value
        reject()
    for i, g in enumerate(grads):
        exact = mp_derivative(on_mp, xs, unit(3, i))
        assert close(g, exact, 1e-9, 1e-9 + MP_ATOL), f"d/dx{i}: {g} vs mpmath {exact}"
        atol = 10 * fd_atol(on_floats(xs))
        assert close(g, numeric[i], 1e-4, atol), f"d/dx{i}: {g} vs differences {numeric[i]}"


def test_pow_mixed_partial_at_zero_exponent_follows_pytorch_mask() -> None:
    # ∂/∂x x**y is masked to 0.0 where y == 0 (torch pow_backward_self's `where`),
    # so its derivative in y there is 0.0, where the mathematical value is x**-1.
    def d_dx(v: Sequence[Scalar]) -> Scalar:
        return partial(lambda w: w[0] ** w[1], 0)(v)

    assert ag.grad(d_dx)([2.0, 0.0]) == [0.0, 0.0]
    assert ag.grad(d_dx)([2.0, 1e-300])[1] == pytest.approx(0.5)
