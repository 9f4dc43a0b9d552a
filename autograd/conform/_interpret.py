"""Run an `Expr` on another engine's values, given a table of that engine's functions.

The shipped adapters for array engines (PyTorch, JAX, tinygrad) differ only
in their table (`Kit`) and in how they take derivatives; the walk over the
program is this one, iterative, building each shared subexpression once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, assert_never

import attrs

from autograd.expr import Binary, Call, Call2, CompareName, Expr, Neg, Num, Var, Where, postorder

Value: TypeAlias = Any  # the engines are optional, so their types are unknown to mypy here
"""A value of the other engine (a tensor, a tracer), or a Python float for a constant."""


@attrs.frozen
class Kit:
    """How one engine computes each op on its own values.

    A constant stays a Python float where it is an operand of ``+ - * / **``
    (so ``x ** 2.0`` takes the engine's scalar-exponent path, as our constant
    exponent does); it is made the engine's value (``lift``) where a function
    needs one, or where both operands are constants.

    Attributes:
        lift: a float as the engine's value (a float64 constant, no gradient).
        unary: ``neg`` and the one-input ops by name.
        binary: ``+ - * / **`` and the two-input ops by name.
        is_value: whether an object is the engine's value rather than a float.
        where: ``where(cmp(a, b), x, y)``, given the comparison's name (None: the
            engine has no ``where``).
    """

    lift: Callable[[float], Value]
    unary: Mapping[str, Callable[[Value], Value]]
    binary: Mapping[str, Callable[[Value, Value], Value]]
    is_value: Callable[[Value], bool] = lambda v: not isinstance(v, float)
    where: Callable[[CompareName, Value, Value, Value, Value], Value] | None = None


def interpret(kit: Kit, expr: Expr, env: Mapping[str, Value]) -> Value:
    """The engine's result of ``expr`` with ``env`` for its variables.

    Raises:
        KeyError: for an op missing from the kit (the engine lacks it).
    """
    memo: dict[int, Value] = {}
    for e in postorder(expr):
        memo[id(e)] = _one(kit, e, memo, env)
    return memo[id(expr)]


def _one(kit: Kit, e: Expr, memo: Mapping[int, Value], env: Mapping[str, Value]) -> Value:
    match e:
        case Num(value=v):
            return v
        case Var(name=name):
            return env[name]
        case Neg(x=x):
            return kit.unary["neg"](_value(kit, memo[id(x)]))
        case Call(fn=fn, x=x):
            return kit.unary[fn](_value(kit, memo[id(x)]))
        case Binary(op=op, x=x, y=y) | Call2(fn=op, x=x, y=y):
            a, b = memo[id(x)], memo[id(y)]
            if not kit.is_value(a) and not kit.is_value(b):
                a = _value(kit, a)
            return kit.binary[op](a, b)
        case Where(cmp=cmp, a=a, b=b, x=x, y=y):
            if kit.where is None:
                raise KeyError("where")
            # every operand as the engine's value: where() and comparisons want tensors
            a_, b_, x_, y_ = (_value(kit, memo[id(v)]) for v in (a, b, x, y))
            return kit.where(cmp, a_, b_, x_, y_)
        case _:
            assert_never(e)


def _value(kit: Kit, v: Value) -> Value:
    return v if kit.is_value(v) or not isinstance(v, float) else kit.lift(v)
