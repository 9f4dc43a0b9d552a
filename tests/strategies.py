"""Shared Hypothesis strategies and the two oracles: central differences and mpmath.

Oracles never use the engine's own derivatives: central differences run the
engine's *forward* pass on plain floats, and mpmath differentiates a separate
high-precision implementation of the same function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import attrs
import mpmath
from hypothesis import strategies as st

import autograd as ag
from autograd import Node, Scalar

MP: TypeAlias = Any  # an mpmath number: mpmath ships no types
MP_DPS = 40  # decimal digits for mpmath: far beyond float64's 16, so its derivatives are exact


def floats(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Finite floats in ``[lo, hi]`` (no nan, no inf)."""
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def away_from_zero(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Finite floats with ``lo <= |x| <= hi``, either sign."""
    return st.builds(lambda m, neg: -m if neg else m, floats(lo, hi), st.booleans())


def central_difference(f: Callable[[Sequence[float]], float], xs: Sequence[float], i: int) -> float:
    """``∂f/∂x_i`` by a central difference, with a step scaled to ``x_i``."""
    h = 1e-6 * max(1.0, abs(xs[i]))
    up, down = [*xs], [*xs]
    up[i] += h
    down[i] -= h
    return (f(up) - f(down)) / (up[i] - down[i])  # the step actually taken, after rounding


def fd_atol(f_value: float) -> float:
    """Absolute slack for `central_difference`: its rounding error is about
    ``eps * |f| / h``, up to ``2.2e-10 * |f|`` with the relative step of 1e-6."""
    return 1e-6 + 1e-9 * abs(f_value)


def mp_derivative(f: Callable[..., MP], xs: Sequence[float], orders: Sequence[int]) -> float:
    """The partial derivative of ``f`` (written with mpmath) of ``orders`` at ``xs``."""
    with mpmath.workdps(MP_DPS):
        point = tuple(mpmath.mpf(x) for x in xs)  # exact: every float is an mpf
        return float(mpmath.diff(f, point, tuple(orders)))


def mp_value(f: Callable[..., MP], xs: Sequence[float]) -> float:
    """``f`` (written with mpmath) at ``xs``, correctly rounded to a float."""
    with mpmath.workdps(MP_DPS):
        return float(f(*(mpmath.mpf(x) for x in xs)))


def close(actual: float, expected: float, rtol: float, atol: float) -> bool:
    """``math.isclose`` with both tolerances; equal infinities are close."""
    return actual == expected or math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol)


def as_node(x: object) -> Node:
    """Narrow an inner transform's result (a node under an outer transform) for mypy."""
    assert isinstance(x, Node), f"expected a node, got {x!r}"
    return x


# --- random compositions of ops -----------------------------------------------


@attrs.frozen
class Var:
    """The variable ``xs[i]``."""

    i: int


@attrs.frozen
class Num:
    """A constant."""

    c: float


@attrs.frozen
class Unary:
    """``name(x)``, a key of `UNARY`."""

    name: str
    x: Expr


@attrs.frozen
class Binary:
    """``name(x, y)``, a key of `BINARY`."""

    name: str
    x: Expr
    y: Expr


Expr: TypeAlias = Var | Num | Unary | Binary


class Unsuitable(Exception):
    """A composition left the region where both oracles are reliable."""


MIN_ARG = 1e-2  # log, sqrt, 1/x, division and pow bases stay this far above 0
MAX_ABS = 1e6  # every intermediate value stays this small


def _value(v: Scalar) -> float:
    return v.value if isinstance(v, Node) else v


def _arg(v: Scalar) -> Scalar:
    if not _value(v) >= MIN_ARG:
        raise Unsuitable
    return v


def _off_kink(v: Scalar) -> Scalar:
    if not abs(_value(v)) >= MIN_ARG:  # abs: no derivative at 0, nor a difference across it
        raise Unsuitable
    return v


def _new_ops() -> dict[str, tuple[Callable[[Scalar], Scalar], Callable[[MP], MP]]]:
    """sqrt, abs, sin and cos, once autograd has them (they are joining the op set).

    The mpmath column is this file's own: the op definitions cannot supply an
    independent oracle. The engine column could come from them.
    """
    if not hasattr(ag, "sqrt"):
        return {}
    # looked up by name so this file type-checks before the ops land; then: ag.sqrt, ...
    sqrt, abs_, sin, cos = (_public(name) for name in ("sqrt", "abs", "sin", "cos"))
    return {
        "sqrt_call": (lambda v: sqrt(_arg(v)), mpmath.sqrt),
        "abs": (lambda v: abs_(_off_kink(v)), mpmath.fabs),
        "sin": (sin, mpmath.sin),
        "cos": (cos, mpmath.cos),
    }


def _public(name: str) -> Callable[[Scalar], Scalar]:
    fn: Callable[[Scalar], Scalar] = getattr(ag, name)
    return fn


def _off_poles(v: Scalar) -> Scalar:
    if not abs(math.cos(_value(v))) >= 0.1:  # tan: its derivative blows up at the poles
        raise Unsuitable
    return v


def _inside_unit(v: Scalar) -> Scalar:
    if not abs(_value(v)) <= 1.0 - MIN_ARG:  # arcsin, arccos: infinite slope at ±1
        raise Unsuitable
    return v


def _above_minus_one(v: Scalar) -> Scalar:
    if not _value(v) >= MIN_ARG - 1.0:  # log1p: -inf at -1
        raise Unsuitable
    return v


def _off_origin_and_cut(u: Scalar, v: Scalar) -> tuple[Scalar, Scalar]:
    a, b = _value(u), _value(v)
    if not math.hypot(a, b) >= MIN_ARG:  # arctan2, hypot: no derivative at the origin
        raise Unsuitable
    if b < 0.0 and not abs(a) >= MIN_ARG:  # arctan2 jumps by 2 pi across the negative axis
        raise Unsuitable
    return u, v


def _apart(u: Scalar, v: Scalar) -> tuple[Scalar, Scalar]:
    if not abs(_value(u) - _value(v)) >= MIN_ARG:  # maximum, minimum: a kink at ties
        raise Unsuitable
    return u, v


UNARY_14: dict[str, tuple[Callable[[Scalar], Scalar], Callable[[MP], MP]]] = {
    "tan": (lambda v: ag.tan(_off_poles(v)), mpmath.tan),
    "sinh": (ag.sinh, mpmath.sinh),
    "cosh": (ag.cosh, mpmath.cosh),
    "arcsin": (lambda v: ag.arcsin(_inside_unit(v)), mpmath.asin),
    "arccos": (lambda v: ag.arccos(_inside_unit(v)), mpmath.acos),
    "arctan": (ag.arctan, mpmath.atan),
    "log1p": (lambda v: ag.log1p(_above_minus_one(v)), mpmath.log1p),
    "expm1": (ag.expm1, mpmath.expm1),
    "log2": (lambda v: ag.log2(_arg(v)), lambda v: mpmath.log(v, 2)),
    "log10": (lambda v: ag.log10(_arg(v)), mpmath.log10),
    "exp2": (ag.exp2, lambda v: mpmath.power(2, v)),
    "sign": (lambda v: ag.sign(_off_kink(v)), mpmath.sign),
}
"""Issue 14's one-input ops, each kept where both oracles are reliable."""

BINARY_14: dict[str, tuple[Callable[[Scalar, Scalar], Scalar], Callable[[MP, MP], MP]]] = {
    "arctan2": (lambda u, v: ag.arctan2(*_off_origin_and_cut(u, v)), mpmath.atan2),
    "hypot": (lambda u, v: ag.hypot(*_off_origin_and_cut(u, v)), mpmath.hypot),
    "maximum": (lambda u, v: ag.maximum(*_apart(u, v)), lambda u, v: max(u, v)),
    "minimum": (lambda u, v: ag.minimum(*_apart(u, v)), lambda u, v: min(u, v)),
}
"""Issue 14's two-input ops (not in the expression grammar: Python functions only)."""


UNARY: dict[str, tuple[Callable[[Scalar], Scalar], Callable[[MP], MP]]] = {
    "exp": (ag.exp, mpmath.exp),
    "log": (lambda v: ag.log(_arg(v)), mpmath.log),
    "tanh": (ag.tanh, mpmath.tanh),
    "sigmoid": (ag.sigmoid, lambda v: 1 / (1 + mpmath.exp(-v))),
    "neg": (lambda v: -v, lambda v: -v),
    "square": (lambda v: v**2, lambda v: v**2),
    "cube": (lambda v: v**3, lambda v: v**3),
    "sqrt": (lambda v: _arg(v) ** 0.5, mpmath.sqrt),
    "recip": (lambda v: 1.0 / _arg(v), lambda v: 1 / v),
    **_new_ops(),
    **UNARY_14,
}
"""Each unary op: the engine's version (refusing bad arguments) and mpmath's."""

BINARY: dict[str, tuple[Callable[[Scalar, Scalar], Scalar], Callable[[MP, MP], MP]]] = {
    "add": (lambda u, v: u + v, lambda u, v: u + v),
    "sub": (lambda u, v: u - v, lambda u, v: u - v),
    "mul": (lambda u, v: u * v, lambda u, v: u * v),
    "div": (lambda u, v: u / _arg(v), lambda u, v: u / v),
    "pow": (lambda u, v: _arg(u) ** v, lambda u, v: u**v),
    **BINARY_14,
}
"""Each binary op: the engine's version and mpmath's."""


def expressions(num_vars: int) -> st.SearchStrategy[Expr]:
    """Random expression trees over ``xs[0..num_vars-1]`` and small constants."""
    leaves: st.SearchStrategy[Expr] = st.one_of(
        st.builds(Var, st.integers(0, num_vars - 1)), st.builds(Num, floats(-3.0, 3.0))
    )

    def extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
        return st.one_of(
            st.builds(Unary, st.sampled_from(sorted(UNARY)), children),
            st.builds(Binary, st.sampled_from(sorted(BINARY)), children, children),
        )

    return st.recursive(leaves, extend, max_leaves=8)


def evaluate(expr: Expr, xs: Sequence[Scalar]) -> Scalar:
    """``expr`` with the engine's ops; `Unsuitable` if it leaves the safe region."""
    match expr:
        case Var(i):
            return xs[i]
        case Num(c):
            return c
        case Unary(name, x):
            return _bounded(UNARY[name][0](evaluate(x, xs)))
        case Binary(name, x, y):
            u, v = evaluate(x, xs), evaluate(y, xs)
            try:
                return _bounded(BINARY[name][0](u, v))
            except OverflowError:  # two plain constants: Python's float ** raises past 1e308
                raise Unsuitable from None


def _bounded(v: Scalar) -> Scalar:
    if not abs(_value(v)) <= MAX_ABS:
        raise Unsuitable
    return v


def evaluate_mp(expr: Expr, xs: Sequence[MP]) -> MP:
    """``expr`` with mpmath's functions, at mpmath's working precision."""
    match expr:
        case Var(i):
            return xs[i]
        case Num(c):
            return mpmath.mpf(c)
        case Unary(name, x):
            return UNARY[name][1](evaluate_mp(x, xs))
        case Binary(name, x, y):
            return BINARY[name][1](evaluate_mp(x, xs), evaluate_mp(y, xs))
