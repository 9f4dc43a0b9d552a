"""Small programs focused on one op, drawn from a seeded `random.Random` (no hypothesis).

Each program has the op at its root, and operands that are mostly variables,
sometimes constants and sometimes one other op over variables (so the op also
receives a cotangent other than 1 and operands other than inputs). Input
values come often from a list of special values (zeros of both signs,
infinities, nan, the points where functions overflow or saturate) and equal
each other often (ties of ``maximum``, ``x / x``), so what the per-op table
says about an op is mostly about that op.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Sequence
from typing import Final

from autograd.conform._ops import ARITHMETIC, TWO_INPUT, UNARY, Op
from autograd.expr import (
    COMPARISONS,
    WHERE,
    Binary,
    BinaryOp,
    Call,
    Call2,
    CompareName,
    Expr,
    Neg,
    Num,
    Var,
    Where,
    names,
)

VALUES: Final[tuple[float, ...]] = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    -2.0,
    0.5,
    -0.5,
    3.0,
    math.inf,
    -math.inf,
    math.nan,
    1e200,
    -1e200,
    sys.float_info.max,
    sys.float_info.min,
    5e-324,
    -5e-324,
    709.0,
    710.0,
    -745.0,
    20.0,
    -40.0,
    math.pi / 2,
)
"""Inputs where ops have edge cases (the rows of the numerics table)."""

EXPONENTS: Final[tuple[float, ...]] = (2.0, 3.0, 0.5, -1.0, -2.0, -0.5, 0.0, 1.0, 1.5, 1 / 3)
_NAMES: Final = ("x", "y", "z")


Program = tuple[Expr, dict[str, float]]


def draw(rng: random.Random, op: Op, ops: Sequence[Op], node_exponents: bool) -> Program:
    """A program with ``op`` at its root, its operands drawn from ``ops``.

    Returns:
        The expression and a value for each of its variables.
    """
    expr = _root(rng, op, ops, node_exponents)
    inputs: dict[str, float] = {}
    for name in names(expr):
        tie = inputs and rng.random() < 0.2  # equal inputs: ties, x / y at x == y
        inputs[name] = next(reversed(inputs.values())) if tie else value(rng)
    return expr, inputs


def _root(rng: random.Random, op: Op, ops: Sequence[Op], node_exponents: bool) -> Expr:
    x = _operand(rng, ops, "x")
    if op == "neg":
        return Neg(x)
    if op in UNARY:
        return Call(op, x)
    if op == WHERE:
        return _where(rng, ops, x)
    if op in TWO_INPUT:  # ties often: maximum(x, x) splits its gradient
        return Call2(op, x, x if rng.random() < 0.25 else _operand(rng, ops, "y"))
    assert op in ARITHMETIC, f"no way to draw {op!r}"
    binary: BinaryOp = op  # type: ignore[assignment]  # checked just above
    if op == "**" and not (node_exponents and rng.random() < 0.5):
        return Binary("**", x, Num(_exponent(rng)))
    same = rng.random() < 0.25  # x op x: one variable on both sides
    return Binary(binary, x, x if same else _operand(rng, ops, "y"))


def _where(rng: random.Random, ops: Sequence[Op], x: Expr) -> Expr:
    """``where(cmp(x, b), p, q)``: often a mask at a boundary, a branch that is nan or inf there."""
    cmp: CompareName = rng.choice(list(COMPARISONS))
    b = Num(rng.choice((0.0, 0.0, 1.0, -1.0))) if rng.random() < 0.6 else _operand(rng, ops, "y")
    guarded = [o for o in ("log", "sqrt", "/", "arcsin") if o in ops]
    if guarded and rng.random() < 0.5:  # the branch a mask protects, as users write it
        g = rng.choice(guarded)
        risky: Expr = Binary("/", Num(1.0), x) if g == "/" else Call(g, x)
        branches = [risky, _operand(rng, ops, "x")]
        rng.shuffle(branches)
        return Where(cmp, x, b, branches[0], branches[1])
    return Where(cmp, x, b, _operand(rng, ops, "x"), _operand(rng, ops, "y"))


def _operand(rng: random.Random, ops: Sequence[Op], name: str) -> Expr:
    r = rng.random()
    if r < 0.6:
        return Var(name)
    if r < 0.8:
        return Num(value(rng))
    inner = rng.choice([o for o in ops if o != WHERE])
    other: Expr = Var(rng.choice(_NAMES)) if rng.random() < 0.7 else Num(value(rng))
    if inner in TWO_INPUT:
        return Call2(inner, Var(name), other)
    if inner == "neg":
        return Neg(Var(name))
    if inner in UNARY:
        return Call(inner, Var(name))
    if inner == "**":
        return Binary("**", Var(name), Num(_exponent(rng)))
    return Binary(inner, Var(name), other)  # type: ignore[arg-type]  # an arithmetic op here


def _exponent(rng: random.Random) -> float:
    return rng.choice(EXPONENTS) if rng.random() < 0.7 else round(rng.uniform(-4.0, 4.0), 3)


def value(rng: random.Random) -> float:
    """An input: a special value, a moderate number (small halves often), or any magnitude."""
    r = rng.random()
    if r < 0.1:  # zeros of both signs: where masks, ties and signed-zero rules meet
        return rng.choice((0.0, -0.0))
    if r < 0.4:
        return rng.choice(VALUES)
    sign = rng.choice((-1.0, 1.0))
    if r < 0.55:
        return sign * rng.randint(0, 8) / 2
    if r < 0.9:
        return sign * 10 ** rng.uniform(-3.0, 3.0)
    return sign * 10 ** rng.uniform(-300.0, 300.0)
