"""`define_op`: a user's op, from a float forward and one rule, through everything.

The worked examples of docs/custom-ops.md: a stable `softplus` and a two-input
`logaddexp`. Values are checked against mpmath, derivatives against central
differences and the exact derivative; `jit` and `vmap` against eager, bit for bit.
"""

from __future__ import annotations

import io
import math
import struct
from collections.abc import Callable, Iterator

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd as ag
from autograd import cli, rules
from autograd.core.nodes import OPS
from autograd.core.sym import HELPERS
from autograd.expr import parse


def softplus_float(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))  # never overflows


def softplus_vjp(g: rules.S, x: rules.S, out: rules.S) -> tuple[rules.S]:
    return (g * rules.apply(ag.Sigmoid, x),)


def logaddexp_float(x: float, y: float) -> float:
    hi = max(x, y)
    if hi == -math.inf or hi != hi:  # both -inf, or a nan: no finite shift
        return x + y if hi != hi else -math.inf
    return hi + math.log1p(math.exp(-abs(x - y)))


def logaddexp_vjp(g: rules.S, x: rules.S, y: rules.S, out: rules.S) -> tuple[rules.S, rules.S]:
    return (g * rules.apply(ag.Exp, x - out), g * rules.apply(ag.Exp, y - out))


@pytest.fixture
def softplus() -> Iterator[ag.Elementwise]:
    fn = ag.define_op("softplus_t", softplus_float, softplus_vjp, label="softplus")
    try:
        yield fn
    finally:
        ag.undefine_op("softplus_t")


@pytest.fixture
def logaddexp() -> Iterator[ag.Binary]:
    fn = ag.define_op("logaddexp_t", logaddexp_float, logaddexp_vjp)
    try:
        yield fn
    finally:
        ag.undefine_op("logaddexp_t")


def bits(v: object) -> object:
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, list | tuple):
        return [bits(x) for x in v]
    return v


def central(f: Callable[[float], ag.Scalar], x: float, h: float = 1e-6) -> float:
    lo, hi = f(x - h), f(x + h)
    assert isinstance(lo, float)
    assert isinstance(hi, float)
    return (hi - lo) / (2 * h)


POINTS = [-30.0, -2.0, -0.5, 0.0, 0.5, 3.0, 40.0]


def test_softplus_values_match_mpmath_and_never_overflow(softplus: ag.Elementwise) -> None:
    for x in [*POINTS, 700.0, -700.0]:
        want = float(mpmath.log1p(mpmath.exp(mpmath.mpf(x))))
        assert math.isclose(softplus(x), want, rel_tol=4e-16, abs_tol=1e-300)
    assert softplus(1000.0) == 1000.0
    assert softplus(-1000.0) == 0.0
    assert softplus(ag.Leaf(1000.0)).value == 1000.0


def test_softplus_through_every_transform(softplus: ag.Elementwise) -> None:
    def f(x: ag.Scalar) -> ag.Scalar:
        return softplus(x) * x

    for x in POINTS:
        s = 1.0 / (1.0 + math.exp(-x))
        assert math.isclose(ag.grad(softplus)(x), s, rel_tol=1e-15)
        assert math.isclose(ag.grad(ag.grad(softplus))(x), s * (1 - s), rel_tol=1e-12)
        assert math.isclose(ag.grad(f)(x), central(f, x), rel_tol=1e-6, abs_tol=1e-6)
        assert ag.jvp(f, (x,), (1.0,))[1] == ag.grad(f)(x)
        assert ag.vjp(f, x)[1](1.0) == (ag.grad(f)(x),)
        assert math.isclose(ag.hessian(f)(x), ag.grad(ag.grad(f))(x), rel_tol=1e-12)
        ag.check_grads(f, (x,), order=2)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_softplus_under_jit_is_eager_bit_for_bit(x: float) -> None:
    fn = ag.define_op("softplus_h", softplus_float, softplus_vjp)
    try:
        for stack in (fn, ag.grad(fn), ag.value_and_grad(fn), ag.grad(ag.grad(fn))):
            assert bits(ag.jit(stack)(x)) == bits(stack(x))
    finally:
        ag.undefine_op("softplus_h")


def test_softplus_under_vmap_and_jit_of_vmap(softplus: ag.Elementwise) -> None:
    np = pytest.importorskip("numpy")
    xs = [-3.0, 0.0, 0.25, 800.0]
    want = [ag.grad(softplus)(x) for x in xs]
    assert bits(list(ag.vmap(ag.grad(softplus))(xs))) == bits(want)
    assert bits([float(v) for v in ag.jit(ag.vmap(ag.grad(softplus)))(np.array(xs))]) == bits(want)


def test_softplus_in_drawings_and_the_grammar(softplus: ag.Elementwise) -> None:
    assert "softplus" in ag.to_dot(softplus(ag.Leaf(1.0)))  # its label
    assert parse("softplus_t(x) * 2") is not None
    out = io.StringIO()
    assert cli.main(["grad", "softplus_t(x)", "x=0"], out=out) == 0
    assert "0.5" in out.getvalue()  # sigmoid(0)


def test_logaddexp_two_inputs(logaddexp: ag.Binary) -> None:
    for x, y in [(0.0, 0.0), (1.0, -2.0), (-1000.0, 3.0), (700.0, 700.0)]:
        want = float(mpmath.log(mpmath.exp(mpmath.mpf(x)) + mpmath.exp(mpmath.mpf(y))))
        assert math.isclose(logaddexp(x, y), want, rel_tol=4e-16)
        gx, gy = ag.grad(logaddexp, argnums=(0, 1))(x, y)
        assert math.isclose(gx + gy, 1.0, rel_tol=1e-12)  # the softmax weights (out rounds at |x|)
        assert bits(ag.jit(ag.grad(logaddexp, argnums=(0, 1)))(x, y)) == bits((gx, gy))
    assert logaddexp(-math.inf, -math.inf) == -math.inf
    ag.check_grads(logaddexp, (0.3, -0.7), order=2)


def test_a_taken_or_bad_name_is_refused() -> None:
    with pytest.raises(ValueError, match=r"define_op\('exp'\): an op of that name exists"):
        ag.define_op("exp", softplus_float, softplus_vjp)
    with pytest.raises(ValueError, match="must be a Python identifier"):
        ag.define_op("soft plus", softplus_float, softplus_vjp)


def test_a_forward_that_raises_is_refused_naming_the_input() -> None:
    def log_float(x: float) -> float:
        return math.log(x)  # ValueError below 0: a forward must say nan

    with pytest.raises(ValueError, match=r"the forward raised ValueError .* at \(-1\.5,\)"):
        ag.define_op("mylog", log_float, softplus_vjp)
    with pytest.raises(TypeError, match="cannot read the forward's signature; wrap it in a def"):
        ag.define_op("mylog", math.log, softplus_vjp)
    assert "mylog" not in OPS


def test_a_forward_that_returns_no_float_is_refused() -> None:
    with pytest.raises(TypeError, match="the forward returned int"):
        ag.define_op("myround", lambda x: 0 if x != x else round(x), softplus_vjp)  # an int at nan


def test_a_rule_of_the_wrong_arity_is_refused() -> None:
    def two(g: rules.S, x: rules.S, out: rules.S) -> tuple[rules.S, rules.S]:
        return (g, g)

    with pytest.raises(TypeError, match=r"must return a tuple of 1 cotangent"):
        ag.define_op("mytwo", softplus_float, two)  # type: ignore[call-overload]  # mypy refuses it too
    assert "mytwo" not in OPS


def test_a_rule_that_fails_on_nodes_is_refused_and_leaves_nothing() -> None:
    def floats_only(g: float, x: float, out: float) -> tuple[float]:
        return (g * math.exp(x) / (1.0 + math.exp(x)),)  # math on a node: refused

    before = dict(HELPERS)
    with pytest.raises(ValueError, match=r"the rule (fails on nodes|does not compile)"):
        ag.define_op("myfloaty", softplus_float, floats_only)  # type: ignore[call-overload]  # mypy too
    assert "myfloaty" not in OPS
    assert "myfloaty" not in ag.core.functions.FUNCTIONS
    assert before == HELPERS
    # the name is free again:
    fn = ag.define_op("myfloaty", softplus_float, softplus_vjp)
    try:
        assert fn(0.0) == math.log(2.0)
    finally:
        ag.undefine_op("myfloaty")


def test_undefine_op_frees_the_name_and_refuses_builtins(softplus: ag.Elementwise) -> None:
    with pytest.raises(KeyError, match="no op of that name was made by define_op"):
        ag.undefine_op("exp")
    with pytest.raises(ValueError, match="exists"):
        ag.define_op("softplus_t", softplus_float, softplus_vjp)
