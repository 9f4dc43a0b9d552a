"""Hypothesis strategies for random expression programs and the special values of float64."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Final, TypeAlias

from hypothesis import strategies as st

from autograd.expr import FUNCTIONS, Binary, BinaryOp, Call, Expr, Neg, Num, Var, names
from autograd.programs import Program, reference

Op: TypeAlias = str
"""An operator of the grammar (``+ - * / **``, ``neg``) or a one-input op's name."""
ALL_OPS: Final[tuple[Op, ...]] = ("+", "-", "*", "/", "**", "neg", *FUNCTIONS)
"""Every op of the grammar, the one-input ops read from their definitions."""

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


def floats(
    *, special: bool = True, finite: bool = False, bound: float | None = None
) -> st.SearchStrategy[float]:
    """Float64 values: the `SPECIAL_VALUES` (often) and any other float.

    Args:
        special: include `SPECIAL_VALUES` (those allowed by ``finite`` and ``bound``).
        finite: exclude infinities and nan.
        bound: only values with ``abs(v) <= bound`` (implies ``finite``).

    >>> from hypothesis import find
    >>> find(floats(finite=True, bound=10.0), lambda v: v > 1.0)
    2.0
    """
    finite = finite or bound is not None
    limit = math.inf if bound is None else bound
    any_float = st.floats(
        allow_nan=not finite,
        allow_infinity=not finite,
        min_value=None if bound is None else -bound,
        max_value=bound,
    )
    specials = [v for v in SPECIAL_VALUES if math.isfinite(v) or not finite]
    specials = [v for v in specials if math.isnan(v) or abs(v) <= limit]
    return st.one_of(st.sampled_from(specials), any_float) if special and specials else any_float


def expressions(
    *,
    ops: Sequence[Op] = ALL_OPS,
    variables: Sequence[str] = ("x", "y", "z"),
    max_nodes: int = 10,
    max_depth: int = 6,
    sharing: bool = True,
    constants: st.SearchStrategy[float] | None = None,
    exponents: st.SearchStrategy[float] | None = None,
    node_exponents: bool = True,
    max_chain: int = 0,
) -> st.SearchStrategy[Expr]:
    """Random expressions built from ``ops``, shrinking toward fewer, simpler nodes.

    Args:
        ops: the operations to use (`ALL_OPS` by default); restrict them for
            an engine that lacks some.
        variables: the names of the inputs.
        max_nodes: the most operations before any chain (the root is the last).
        max_depth: the longest path from the root to a leaf, chain excluded.
        sharing: reuse earlier subexpressions as operands (a DAG, like
            ``t = tanh(x); t * t``); without it every node has one user.
        constants: numbers used as operands (default: `floats`).
        exponents: constant exponents of ``**`` (default: `EXPONENTS` or a
            float in [-4, 4]).
        node_exponents: allow ``**`` with a non-constant exponent.
        max_chain: also draw a chain length up to this: the expression is
            then extended by that many ``e = e op leaf`` steps (for deep graphs).

    >>> from hypothesis import find
    >>> from autograd.expr import to_source
    >>> to_source(find(expressions(), lambda e: "tanh(x)" in to_source(e)))
    'tanh(x)'
    """
    if not ops or any(op not in ALL_OPS for op in ops):
        raise ValueError(f"ops must be a non-empty subset of {ALL_OPS}, got {ops!r}")
    if not variables:
        raise ValueError("at least one variable name is needed")
    consts = floats() if constants is None else constants
    exps = (
        st.one_of(st.sampled_from(EXPONENTS), st.floats(-4.0, 4.0))
        if exponents is None
        else exponents
    )
    vars_ = st.sampled_from(list(variables))
    return st.composite(_build)(
        tuple(ops), vars_, consts, exps, max_nodes, max_depth, sharing, node_exponents, max_chain
    )


def _build(
    draw: st.DrawFn,
    ops: tuple[Op, ...],
    vars_: st.SearchStrategy[str],
    consts: st.SearchStrategy[float],
    exps: st.SearchStrategy[float],
    max_nodes: int,
    max_depth: int,
    sharing: bool,
    node_exponents: bool,
    max_chain: int,
) -> Expr:
    pool: list[tuple[Expr, int]] = []  # earlier nodes and their depth

    def operand(limit: int) -> tuple[Expr, int]:
        usable = [i for i, (_, d) in enumerate(pool) if d < limit]
        kind = draw(st.integers(0, 2 if usable else 1))  # shrinks toward a variable
        if kind == 0:
            return Var(draw(vars_)), 0
        if kind == 1:
            return Num(draw(consts)), 0
        index = usable[draw(st.integers(0, len(usable) - 1))]
        # without sharing a node has one user; by index, as == on trees is structural
        return pool[index] if sharing else pool.pop(index)

    root: tuple[Expr, int] = (Var(draw(vars_)), 0)
    for _ in range(draw(st.integers(0, max_nodes))):
        op = draw(st.sampled_from(ops))
        x, dx = operand(max_depth)
        if op == "neg" or op in FUNCTIONS:
            root = (Neg(x) if op == "neg" else Call(op, x)), dx + 1
        elif op == "**" and not (node_exponents and draw(st.booleans())):
            root = Binary("**", x, Num(draw(exps))), dx + 1
        else:
            y, dy = operand(max_depth)
            root = Binary(op, x, y), max(dx, dy) + 1  # type: ignore[arg-type]  # a binary op here
        pool.append(root)
    return _chain(draw, root[0], ops, vars_, consts, max_chain)


def _chain(
    draw: st.DrawFn,
    expr: Expr,
    ops: tuple[Op, ...],
    vars_: st.SearchStrategy[str],
    consts: st.SearchStrategy[float],
    max_chain: int,
) -> Expr:
    """Extend ``expr`` by a drawn number of ``e op leaf`` links, for graphs deeper than any tree."""
    length = draw(st.integers(0, max_chain)) if max_chain > 0 else 0
    if length == 0:
        return expr
    binary: list[BinaryOp] = [op for op in ("+", "-", "*") if op in ops]
    leaf: Expr = Var(draw(vars_)) if draw(st.booleans()) else Num(draw(consts))
    for _ in range(length):
        if binary:
            expr = Binary(binary[0], expr, leaf)
        else:
            expr = Neg(expr) if "neg" in ops else Call(next(iter(FUNCTIONS)), expr)
    return expr


def programs(
    *,
    values: st.SearchStrategy[float] | None = None,
    ops: Sequence[Op] = ALL_OPS,
    variables: Sequence[str] = ("x", "y", "z"),
    max_nodes: int = 10,
    max_depth: int = 6,
    sharing: bool = True,
    constants: st.SearchStrategy[float] | None = None,
    exponents: st.SearchStrategy[float] | None = None,
    node_exponents: bool = True,
    max_chain: int = 0,
) -> st.SearchStrategy[Program]:
    """Random programs: an expression from `expressions`, input values, reference results.

    Args:
        values: the inputs' values (default: `floats`, special values included).
        ops: see `expressions`, like the other arguments.
        variables: see `expressions`.
        max_nodes: see `expressions`.
        max_depth: see `expressions`.
        sharing: see `expressions`.
        constants: see `expressions`.
        exponents: see `expressions`.
        node_exponents: see `expressions`.
        max_chain: see `expressions`.

    >>> from hypothesis import find
    >>> from autograd.expr import to_source
    >>> p = find(programs(ops=["tanh"]), lambda p: "tanh(x)" in to_source(p.expr))
    >>> to_source(p.expr), list(p.inputs), list(p.gradients)
    ('tanh(x)', ['x'], ['x'])
    """
    vals = floats() if values is None else values
    exprs = expressions(
        ops=ops,
        variables=variables,
        max_nodes=max_nodes,
        max_depth=max_depth,
        sharing=sharing,
        constants=constants,
        exponents=exponents,
        node_exponents=node_exponents,
        max_chain=max_chain,
    )

    @st.composite
    def build(draw: st.DrawFn) -> Program:
        expr = draw(exprs)
        inputs = {name: draw(vals) for name in names(expr)}
        return reference(expr, inputs)

    return build()
