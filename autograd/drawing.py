"""Random expressions from any source of choices: a seeded `random.Random` or hypothesis.

One definition of what a random program looks like serves two callers: the
hypothesis strategies of `autograd.testing` (which shrink a failure to a
minimal program) and `autograd.programs.random_program` (plain, seeded and
reproducible, for ``autograd corpus``; no hypothesis needed). Each asks a
`Choices` for its decisions, so the same builder draws with either.

Ties and masks are drawn on purpose, as they are where engines differ: a
two-input op often gets the same operand twice (``maximum(t, t)``), and a
``where`` often guards a subexpression of one of its own branches against a
boundary constant (``where(lt(t, 0.0), log(t), t)``), so the branch not taken
is often nan or infinite.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeAlias, assert_never, cast

from autograd.expr import (
    BINARY_FUNCTIONS,
    COMPARISONS,
    FUNCTIONS,
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
    postorder,
)

Op: TypeAlias = str
"""An op name: ``+ - * / **``, ``neg``, a one- or two-input op's name, ``where``, or a
comparison (``lt le gt ge eq ne``: which comparisons ``where`` may test)."""

ALL_OPS: Final[tuple[Op, ...]] = (
    "+",
    "-",
    "*",
    "/",
    "**",
    "neg",
    *FUNCTIONS,
    *BINARY_FUNCTIONS,
    WHERE,
    *COMPARISONS,
)
"""Every op of the grammar, the one- and two-input ops read from their definitions."""

_TINY = sys.float_info.min  # the smallest normal float
SPECIAL_VALUES: Final[tuple[float, ...]] = (
    0.0,
    -0.0,
    1.0,
    -1.0,
    2.0,
    -2.0,
    0.5,
    -0.5,
    3.0,
    -3.0,
    math.inf,
    -math.inf,
    math.nan,
    1e200,
    -1e200,
    sys.float_info.max,
    -sys.float_info.max,
    _TINY,
    -_TINY,
    5e-324,
    -5e-324,
    1e-310,
    709.0,
    710.0,
    -745.0,
    20.0,
    40.0,
    -40.0,
    1 / 3,
)
"""Zeros of both signs, ±1, infinities, nan, huge, tiny, subnormal, and the points
where exp overflows and the squashing functions saturate (the rows of the numerics table)."""

EXPONENTS: Final[tuple[float, ...]] = (2.0, 3.0, 0.5, -1.0, -2.0, -0.5, 0.0, 1.0, 1.5, -3.0, 1 / 3)
"""Constant exponents with special paths or values (``x ** 0.5`` is ``sqrt``)."""

GUARDS: Final[tuple[float, ...]] = (0.0, -0.0, 1.0, -1.0)
"""The constants a drawn ``where`` compares a subexpression with: the boundaries of the
ops' domains (log, sqrt and pow at 0, arcsin at ±1), where a branch not taken breaks."""


class Choices(Protocol):
    """The decisions a random expression needs; each shrinks toward its first option."""

    def integer(self, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high``, both included."""
        ...

    def variable(self) -> str:
        """A variable's name."""
        ...

    def constant(self) -> float:
        """A number used as an operand."""
        ...

    def exponent(self) -> float:
        """A constant exponent of ``**``."""
        ...


def check_ops(ops: Sequence[Op]) -> None:
    """Refuse op names outside `ALL_OPS`, or a list with nothing to draw.

    Raises:
        ValueError: naming the problem.
    """
    if not ops or any(op not in ALL_OPS for op in ops):
        raise ValueError(f"ops must be a non-empty subset of {ALL_OPS}, got {ops!r}")
    if all(op in COMPARISONS for op in ops):
        raise ValueError("comparisons only choose what where() tests: add 'where' or other ops")


def build_expression(
    c: Choices,
    ops: Sequence[Op],
    *,
    max_nodes: int,
    max_depth: int,
    sharing: bool,
    node_exponents: bool,
    max_chain: int,
    root: Op | None = None,
    grow: bool = False,
) -> Expr:
    """A random expression of ``ops`` (see `autograd.testing.expressions` for the options).

    ``root``, if given, is the op of the last node drawn (the root, before any
    chain), so that a set of programs can be made to hold every op. With
    ``grow``, a node's first operand is the node drawn before it three times
    in four, so that most nodes drawn end up in the expression (a shrinker wants
    the opposite: small expressions are its aim).
    """
    check_ops(ops)
    if root is not None and (root not in ops or root in COMPARISONS):
        raise ValueError(f"root must be one of ops, and not a comparison, got {root!r}")
    drawn = [op for op in ops if op not in COMPARISONS]
    tests: list[CompareName] = [op for op in ops if op in COMPARISONS]
    tests = tests or list(COMPARISONS)
    pool: list[tuple[Expr, int]] = []  # earlier nodes and their depth

    def operand(limit: int) -> tuple[Expr, int]:
        usable = [i for i, (_, d) in enumerate(pool) if d < limit]
        kind = c.integer(0, 2 if usable else 1)  # shrinks toward a variable
        if kind == 0:
            return Var(c.variable()), 0
        if kind == 1:
            return Num(c.constant()), 0
        index = usable[c.integer(0, len(usable) - 1)]
        # without sharing a node has one user; by index, as == on trees is structural
        return pool[index] if sharing else pool.pop(index)

    def again(e: Expr) -> Expr:
        """``e`` used a second time: itself when sharing, else an equal copy."""
        return e if sharing else copy(e)

    top: tuple[Expr, int] = (Var(c.variable()), 0)
    count = c.integer(0, max_nodes)
    if root is not None:
        count = max(count, 1)
    for i in range(count):
        op = root if root is not None and i == count - 1 else drawn[c.integer(0, len(drawn) - 1)]
        if grow and pool and pool[-1][1] < max_depth and c.integer(0, 3):
            x, dx = pool[-1] if sharing else pool.pop()
        else:
            x, dx = operand(max_depth)
        if op == "neg" or op in FUNCTIONS:
            top = (Neg(x) if op == "neg" else Call(op, x)), dx + 1
        elif op == "**" and not (node_exponents and c.integer(0, 1)):
            top = Binary("**", x, Num(c.exponent())), dx + 1
        elif op in BINARY_FUNCTIONS:
            y, dy = (again(x), dx) if c.integer(0, 3) == 3 else operand(max_depth)  # a tie
            top = Call2(op, x, y), max(dx, dy) + 1
        elif op == WHERE:
            top = _where(c, tests, (x, dx), operand(max_depth), lambda: operand(max_depth), again)
        else:
            y, dy = operand(max_depth)
            top = Binary(cast(BinaryOp, op), x, y), max(dx, dy) + 1
        pool.append(top)
    return _chain(c, top[0], ops, max_chain)


def _where(
    c: Choices,
    tests: Sequence[CompareName],
    first: tuple[Expr, int],
    second: tuple[Expr, int],
    operand: Callable[[], tuple[Expr, int]],
    again: Callable[[Expr], Expr],
) -> tuple[Expr, int]:
    """``where(cmp(a, b), x, y)``: a free test, a tie, or a guard of a branch's subexpression."""
    (x, dx), (y, dy) = first, second
    cmp = tests[c.integer(0, len(tests) - 1)]
    kind = c.integer(0, 2)
    if kind == 0:  # two operands of their own
        (a, da), (b, db) = operand(), operand()
    elif kind == 1:  # a tie: the test sits on its boundary
        a, da = operand()
        b, db = again(a), da
    else:  # a guard: a subexpression of a branch against a domain boundary
        parts = postorder(x if c.integer(0, 1) == 0 else y)
        a, da = again(parts[c.integer(0, len(parts) - 1)]), max(dx, dy)
        b, db = Num(GUARDS[c.integer(0, len(GUARDS) - 1)]), 0
        if c.integer(0, 1):
            (a, da), (b, db) = (b, db), (a, da)
    return Where(cmp, a, b, x, y), max(da, db, dx, dy) + 1


def _chain(c: Choices, expr: Expr, ops: Sequence[Op], max_chain: int) -> Expr:
    """Extend ``expr`` by a drawn number of ``e op leaf`` links, for graphs deeper than any tree."""
    length = c.integer(0, max_chain) if max_chain > 0 else 0
    if length == 0:
        return expr
    binary: list[BinaryOp] = [op for op in ("+", "-", "*") if op in ops]
    leaf: Expr = Var(c.variable()) if c.integer(0, 1) else Num(c.constant())
    for _ in range(length):
        if binary:
            expr = Binary(binary[0], expr, leaf)
        else:
            expr = Neg(expr) if "neg" in ops else Call(next(iter(FUNCTIONS)), expr)
    return expr


def copy(expr: Expr) -> Expr:
    """An equal expression made of new objects (sharing inside ``expr`` is kept).

    >>> from autograd.expr import parse
    >>> e = parse("tanh(x) * 2")
    >>> copy(e) == e, copy(e) is e
    (True, False)
    """
    made: dict[int, Expr] = {}
    for e in postorder(expr):
        match e:
            case Num(value=v):
                new: Expr = Num(v)
            case Var(name=name):
                new = Var(name)
            case Neg(x=x):
                new = Neg(made[id(x)])
            case Call(fn=fn, x=x):
                new = Call(fn, made[id(x)])
            case Binary(op=op, x=x, y=y):
                new = Binary(op, made[id(x)], made[id(y)])
            case Call2(fn=fn, x=x, y=y):
                new = Call2(fn, made[id(x)], made[id(y)])
            case Where(cmp=cmp, a=a, b=b, x=x, y=y):
                new = Where(cmp, made[id(a)], made[id(b)], made[id(x)], made[id(y)])
            case _:
                assert_never(e)
        made[id(e)] = new
    return made[id(expr)]
