"""JAX (``pip install jax jaxlib``): float64 (x64), ``jax.value_and_grad`` and ``jax.hessian``.

A variable is a float64 scalar argument; a constant operand a Python float (a
weakly typed float64 under x64), so ``x ** 2.0`` is ``jnp.power`` of an array
and a float, as users write it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping
from types import ModuleType

from autograd.conform._engine import Engine, Known, at
from autograd.conform._interpret import Kit, Value, interpret
from autograd.conform._lazy import require
from autograd.expr import BINARY_FUNCTIONS, FUNCTIONS, CompareName, Expr

INSTALL = "pip install jax jaxlib (or: pip install 'typed-autograd[conform]')"

_NN = ("relu", "sigmoid")  # in jax.nn; the others are jax.numpy's, under NumPy's names
_COMPARE = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_COMPARE |= {"eq": "equal", "ne": "not_equal"}

KNOWN: tuple[Known, ...] = (
    Known(
        "relu'(nan)",
        "jax.nn.relu'(nan) is 0 (its custom JVP selects with x > 0); "
        "ours passes the gradient through nan, as PyTorch does (1)",
        "https://docs.jax.dev/en/latest/_autosummary/jax.nn.relu.html",
        at("relu", lambda o: o[0] != o[0], orders=(1, 2)),
    ),
    Known(
        "abs'(0)",
        "jnp.abs'(0) is 1 (the JVP is sign-of-x times t with sign(0) taken as 1 via select); "
        "ours is 0, as PyTorch's sgn",
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.abs.html",
        at("abs", lambda o: o[0] == 0.0, orders=(1, 2)),
    ),
    Known(
        "relu(-0.0)",
        "jax.nn.relu(-0.0) is 0.0 (a max with 0); ours keeps the sign, -0.0, as PyTorch",
        "docs/numerics.md, the table of one-input ops (relu(-0.0))",
        at("relu", lambda o: o[0] == 0.0 and math.copysign(1.0, o[0]) < 0, orders=(0,)),
    ),
    Known(
        "pow at a zero base",
        "JAX differentiates x ** y at x == 0 without PyTorch's masks: y * x ** (y - 1) "
        "and log(x) * x ** y meet 0 * inf, so x ** 0.0 and x ** x at 0 have nan derivatives; "
        "ours follow PyTorch's masks (0)",
        "docs/numerics.md, the table of one-input ops (x**0.0 at x=0)",
        at("**", lambda o: o[0] == 0.0, orders=(1, 2)),
    ),
    Known(
        "sigmoid'' near 0",
        "sigmoid'' computed as s(1 - s)(1 - 2s) cancels near 0 (0.0 below 1e-16); "
        "ours is exact to a few ulps",
        "docs/reference-testing.md, Differential testing against PyTorch",
        at("sigmoid", lambda o: 0.0 < abs(o[0]) < 0.5, orders=(2,)),
    ),
)


def load() -> Engine:
    """The JAX engine, x64 enabled (raises `EngineUnavailable` if jax is not installed)."""
    jax = require("jax", INSTALL)
    jax.config.update("jax_enable_x64", True)
    jnp = require("jax.numpy", INSTALL)
    kit = _kit(jax, jnp)

    def fn(expr: Expr, names: list[str]) -> object:
        def f(*xs: Value) -> Value:
            return jnp.asarray(interpret(kit, expr, dict(zip(names, xs, strict=True))), jnp.float64)

        return f

    def first(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        names = list(inputs)
        f = fn(expr, names)
        if not names:
            return float(f()), {}  # type: ignore[operator]  # f is the function above
        argnums = tuple(range(len(names)))
        value, grads = jax.value_and_grad(f, argnums=argnums)(*map(jnp.float64, inputs.values()))
        return float(value), {a: float(g) for a, g in zip(names, grads, strict=True)}

    def second(expr: Expr, inputs: Mapping[str, float]) -> dict[str, dict[str, float]]:
        names = list(inputs)
        if not names:
            return {}
        argnums = tuple(range(len(names)))
        h = jax.hessian(fn(expr, names), argnums=argnums)(*map(jnp.float64, inputs.values()))
        return {a: {b: float(h[i][j]) for j, b in enumerate(names)} for i, a in enumerate(names)}

    return Engine(
        name="jax",
        version=f"{jax.__version__} (jaxlib {require('jaxlib', INSTALL).__version__})",
        first=first,
        second=second,
        known=KNOWN,
        notes=("x64 enabled: float64 throughout; relu and sigmoid are jax.nn's",),
    )


def _kit(jax: ModuleType, jnp: ModuleType) -> Kit:
    def lift(v: float) -> Value:
        return jnp.float64(v)

    def where(cmp: CompareName, a: Value, b: Value, x: Value, y: Value) -> Value:
        return jnp.where(getattr(jnp, _COMPARE[cmp])(a, b), x, y)

    unary = {fn: getattr(jax.nn if fn in _NN else jnp, fn) for fn in FUNCTIONS}
    two = {fn: getattr(jnp, fn) for fn in BINARY_FUNCTIONS}
    arithmetic = {
        "+": operator.add,
        "-": operator.sub,
        "*": operator.mul,
        "/": operator.truediv,
        "**": operator.pow,
    }
    return Kit(
        lift=lift,
        unary={"neg": jnp.negative, **unary},
        binary={**arithmetic, **two},
        is_value=lambda v: not isinstance(v, float),
        where=where,
    )
