"""Fake engines for tests/test_conform.py: this engine's own ops, each with one planted defect.

Each fake runs a program through `autograd.conform`'s interpreter with our
ops (so it agrees bit for bit), except for one entry of its table: a wrong
derivative of ``tanh``, a lost ``-0.0``, a wrong second derivative of
``exp``, or an exception from ``log`` at 0. Importable as ``conform_fakes``
(tests/ is on the path), so ``module:function`` on the command line finds them.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping

import autograd as ag
from autograd import Const, Node, Scalar
from autograd.conform import Engine
from autograd.conform._interpret import Kit, Value, interpret
from autograd.expr import BINARY_FUNCTIONS, COMPARISONS, FUNCTIONS, CompareName, Expr

OPS = ("+", "-", "*", "/", "**", "neg", "exp", "log", "tanh", "sin", "maximum", "where")


def _where(cmp: CompareName, a: Value, b: Value, x: Value, y: Value) -> Value:
    return ag.where(COMPARISONS[cmp](a, b), x, y)


def _kit(**swap: Callable[[Value], Value]) -> Kit:
    return Kit(
        lift=Const,
        unary={"neg": operator.neg, **FUNCTIONS, **swap},
        binary={
            "+": operator.add,
            "-": operator.sub,
            "*": operator.mul,
            "/": operator.truediv,
            "**": operator.pow,
            **BINARY_FUNCTIONS,
        },
        is_value=lambda v: isinstance(v, Node),
        where=_where,
    )


def _fn(kit: Kit, expr: Expr) -> Callable[[Mapping[str, Node]], Scalar]:
    def fn(variables: Mapping[str, Node]) -> Scalar:
        out: Scalar = interpret(kit, expr, variables)
        return out

    return fn


def engine(
    name: str,
    kit: Kit,
    *,
    zeros: bool = True,
    ops: tuple[str, ...] = OPS,
    second_kit: Kit | None = None,
) -> Engine:
    """An engine running ``kit`` (``second_kit`` for Hessians, if given).

    ``zeros=False`` loses ``-0.0`` in gradients, as starting them at ``0 +`` does.
    """
    hessian_kit = kit if second_kit is None else second_kit

    def first(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        value, grads = ag.value_and_grad(_fn(kit, expr))(dict(inputs))
        return value, {k: g if zeros else 0.0 + g for k, g in grads.items()}

    def second(expr: Expr, inputs: Mapping[str, float]) -> dict[str, dict[str, float]]:
        # grad of grad, as the reference (and PyTorch's double backward) computes it
        rows = ag.jacobian(ag.grad(_fn(hessian_kit, expr)))(dict(inputs))
        return {k: dict(row) for k, row in rows.items()}

    return Engine(name=name, version="test", first=first, second=second, ops=ops)


def _tanh_off(x: Value) -> Value:
    # the right value (its sign too), the derivative off by tanh(x) / 2 where x is finite
    off = ag.tanh(x) * (1.0 + (x - ag.stop_gradient(x)) * 0.5)  # nan at inf: inf - inf
    return ag.where(ag.lt(ag.abs(x), math.inf), off, ag.tanh(x))


def _exp_flat(x: Value) -> Value:
    s = ag.stop_gradient(x)
    return ag.exp(s) * (1.0 + (x - s))  # right derivative, second derivative 0 (nan at inf)


def _log_raising(x: Value) -> Value:
    if x.value == 0.0:
        raise ZeroDivisionError("log of zero")
    return ag.log(x)


EXACT = engine("exact", _kit())
WRONG_TANH = engine("wrong-tanh", _kit(tanh=_tanh_off))
LOST_ZERO = engine("lost-zero", _kit(), zeros=False)
WRONG_EXP2 = engine("wrong-exp2", _kit(), second_kit=_kit(exp=_exp_flat))
RAISING_LOG = engine("raising-log", _kit(log=_log_raising))


def exact_adapter(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
    """A plain first-order `Adapter` (no `Engine`): this engine itself."""
    return EXACT.first(expr, inputs)  # type: ignore[return-value]  # the fake returns dicts
