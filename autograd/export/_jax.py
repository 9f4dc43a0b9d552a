"""The JAX dialect: each float helper's ``jax.numpy`` twin, and `run`, which emits equations.

A third dialect beside Python floats (`autograd.core.floats`) and NumPy
(`autograd.compiler.arrays`): an op's forward is its float helper (``impl``)
or its operator (``infix``), and `twins` maps each helper, by object, to a
function on JAX arrays that gives its IEEE results (bit for bit where XLA's
function is correctly rounded, within the ulp distances docs/jax.md measures
where it is not). `Compare` and `Where`, which a rule's choice builds and
which have no float helper, become ``jnp.where``; `Pow` with a constant
exponent takes PyTorch's scalar-exponent path, as its float forward does.

JAX differentiates what `run` emits with its own rules; no rule of ours is
needed. The twins of ops with a kink (``relu``, ``abs``, ``sign``) are
selects whose other side is ``stop_gradient``, so that JAX's derivative takes
PyTorch's convention there (``relu'(0) == 0``, ``abs'(0) == 0``); the
``x ** 0.0`` twin is a constant one, as PyTorch's pow masks it. Where a
derivative would need a rule (pow's masks at a zero base, arctan2 at the
origin), JAX's own stands, and docs/jax.md lists the difference.

JAX is an extra: it is imported on first use (`load`), with ``jax_enable_x64``
turned on, since the engine computes in float64.
"""

from __future__ import annotations

import importlib
import math
import operator
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, TypeAlias

import attrs

from autograd.core import floats as fl
from autograd.core.nodes import Compare, Op, Where
from autograd.core.rules import _COMPARISONS
from autograd.export._equations import Equation, Equations, Literal

INSTALL = "pip install 'typed-autograd[jax]'"

Value: TypeAlias = Any
"""A JAX array or tracer, or a Python float (a constant): JAX's types are an extra's."""


@attrs.frozen
class Jax:
    """The JAX modules the dialect calls, loaded once."""

    jax: ModuleType
    jnp: ModuleType
    lax: ModuleType
    twins: dict[Callable[..., float], Callable[..., Value]]


_loaded: list[Jax] = []


def load() -> Jax:
    """JAX, imported on first use with ``jax_enable_x64`` on, and the twins.

    Raises:
        ImportError: naming the extra to install, when JAX is not installed.
    """
    if not _loaded:
        try:
            jax = importlib.import_module("jax")
        except ImportError as e:
            raise ImportError(
                f"autograd.export.to_jax needs JAX, which is not installed ({e}): {INSTALL}"
            ) from None
        jax.config.update("jax_enable_x64", True)  # the engine's float64, everywhere
        jnp, lax = importlib.import_module("jax.numpy"), importlib.import_module("jax.lax")
        _loaded.append(Jax(jax, jnp, lax, twins(jax, jnp, lax)))
    return _loaded[0]


def twins(jax: ModuleType, jnp: ModuleType, lax: ModuleType) -> dict[Callable[..., float], Value]:
    """Each float helper's JAX twin, keyed by the helper (an op's ``impl``)."""
    stop, where = lax.stop_gradient, jnp.where

    def relu(x: Value) -> Value:
        # the value of relu_float; the derivative 0 where the output is <= 0, as its rule
        return where(x <= 0.0, stop(where(x < 0.0, 0.0, x)), x)

    def abs_(x: Value) -> Value:
        # fabs, with derivative sgn(x): 0 at zero and at nan, as PyTorch's
        return where(x > 0.0, x, where(x < 0.0, -x, stop(jnp.abs(x))))

    def sign(x: Value) -> Value:
        return where(x > 0.0, 1.0, where(x < 0.0, -1.0, 0.0))  # sign(nan) == 0.0, as torch

    def pow_scalar(x: Value, c: Value) -> Value:
        if not isinstance(c, float):  # an exponent that varies: C's pow, as the float path
            return jnp.power(x, c)
        return _scalar_power(jnp, x, c)

    return {
        fl.div_float: jnp.divide,
        fl.sqrt_float: jnp.sqrt,
        fl.pow_float: jnp.power,
        fl.pow_scalar_float: pow_scalar,
        fl.exp_float: jnp.exp,
        fl.log_float: jnp.log,
        math.tanh: jnp.tanh,
        fl.sigmoid_float: jax.nn.sigmoid,
        fl.relu_float: relu,
        fl.abs_float: abs_,
        fl.sin_float: jnp.sin,
        fl.cos_float: jnp.cos,
        fl.tan_float: jnp.tan,
        fl.sinh_float: jnp.sinh,
        fl.cosh_float: jnp.cosh,
        fl.arcsin_float: jnp.arcsin,
        fl.arccos_float: jnp.arccos,
        fl.arctan_float: jnp.arctan,
        fl.arctan2_float: jnp.arctan2,
        fl.hypot_float: jnp.hypot,
        fl.log1p_float: jnp.log1p,
        fl.expm1_float: jnp.expm1,
        fl.log2_float: jnp.log2,
        fl.log10_float: jnp.log10,
        fl.exp2_float: jnp.exp2,
        fl.sign_float: sign,
        fl.maximum_float: jnp.maximum,
        fl.minimum_float: jnp.minimum,
    }


def _scalar_power(jnp: ModuleType, x: Value, c: float) -> Value:
    """`floats.pow_scalar_float` for a constant exponent: PyTorch's cheaper paths."""
    if c == 2.0:
        return x * x
    if c == 3.0:
        return x * x * x
    if c == 1.0:
        return x
    if c == 0.0:  # 1 everywhere (nan and 0 included); derivative 0, as PyTorch's mask
        return jnp.ones_like(x)
    if c == 0.5:
        return jnp.sqrt(x)
    if c == -1.0:
        return 1.0 / x
    if c == -2.0:
        return 1.0 / (x * x)
    if c == -0.5:
        return 1.0 / jnp.sqrt(x)
    return jnp.power(x, c)


_INFIX: dict[str, Callable[[Value, Value], Value]] = {
    "+": operator.add,
    "*": operator.mul,
    "-": operator.sub,
    "/": operator.truediv,
}
"""An infix op's operator on arrays, by its symbol."""


class NoTwinError(TypeError):
    """An op whose float helper has no JAX twin (a user's op, `define_op`)."""


def emitter(j: Jax, eq: Equation) -> Callable[[Sequence[Value]], Value]:
    """What computes ``eq`` on JAX values: its op's forward in the JAX dialect.

    Raises:
        NoTwinError: naming the op, if its forward has no twin.
    """
    cls: type[Op] = eq.op
    params = dict(eq.params)
    if cls is Compare:
        test = _COMPARISONS[str(params["op"])][1]  # the op's own comparison: on arrays too
        return lambda xs: j.jnp.where(test(xs[0], xs[1]), 1.0, 0.0)
    if cls is Where:
        return lambda xs: j.jnp.where(xs[0] != 0.0, xs[1], xs[2])  # nan is true, as in Python
    if cls.infix is not None:
        infix = _INFIX[cls.infix]
        return lambda xs: infix(xs[0], xs[1])
    impl = cls.__dict__.get("impl")
    if params.get("const") is True:  # the op's constant forward (`Pow`: a `Const` exponent)
        impl = fl.pow_scalar_float if impl is fl.pow_float else impl
    twin = j.twins.get(impl) if impl is not None else None
    if twin is None:
        raise NoTwinError(
            f"to_jax: the op {cls.name!r} ({cls.__module__}.{cls.__qualname__}) has no JAX twin "
            "of its float forward; the JAX dialect knows the package's ops (autograd.export._jax."
            "twins), not ops defined with define_op"
        )
    return lambda xs: twin(*xs)


def compile_run(j: Jax, program: Equations) -> Callable[[Sequence[Value]], list[Value]]:
    """``program`` as a function of its inputs' values, returning its outputs' values.

    Each equation's emitter is found once, so a missing twin is an error before any call.
    """
    steps = [(emitter(j, eq), eq.ins) for eq in program.body]
    outputs = program.outputs

    def run(inputs: Sequence[Value]) -> list[Value]:
        env: list[Value] = list(inputs)
        for emit, ins in steps:
            env.append(emit([env[a] if isinstance(a, int) else a.value for a in ins]))
        return [env[a] if isinstance(a, int) else _constant(j, a) for a in outputs]

    return run


def _constant(j: Jax, a: Literal) -> Value:
    return j.jnp.asarray(a.value, dtype=j.jnp.float64)
