"""Hypothesis strategies for random expression programs and the special values of float64."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs
from hypothesis import strategies as st

from autograd.drawing import ALL_OPS as ALL_OPS
from autograd.drawing import EXPONENTS as EXPONENTS
from autograd.drawing import SPECIAL_VALUES as SPECIAL_VALUES
from autograd.drawing import Op as Op
from autograd.drawing import build_expression, check_ops
from autograd.expr import Expr, names
from autograd.programs import Program, reference


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
    >>> to_source(find(expressions(ops=["tanh"]), lambda e: "tanh(x)" in to_source(e)))
    'tanh(x)'
    """
    check_ops(ops)
    if not variables:
        raise ValueError("at least one variable name is needed")
    consts = floats() if constants is None else constants
    exps = (
        st.one_of(st.sampled_from(EXPONENTS), st.floats(-4.0, 4.0))
        if exponents is None
        else exponents
    )
    vars_ = st.sampled_from(list(variables))

    @st.composite
    def build(draw: st.DrawFn) -> Expr:
        return build_expression(
            _Draws(draw, vars_, consts, exps),
            tuple(ops),
            max_nodes=max_nodes,
            max_depth=max_depth,
            sharing=sharing,
            node_exponents=node_exponents,
            max_chain=max_chain,
        )

    return build()


@attrs.frozen
class _Draws:
    """hypothesis' draws as the `autograd.drawing.Choices` the expression builder asks."""

    draw: st.DrawFn
    vars_: st.SearchStrategy[str]
    consts: st.SearchStrategy[float]
    exps: st.SearchStrategy[float]

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def variable(self) -> str:
        return self.draw(self.vars_)

    def constant(self) -> float:
        return self.draw(self.consts)

    def exponent(self) -> float:
        return self.draw(self.exps)


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
    hessian: bool = False,
) -> st.SearchStrategy[Program]:
    """Random programs: an expression from `expressions`, input values, reference results.

    An input often takes the value of an earlier one, so that ``maximum(x, y)``
    and ``lt(x, y)`` meet ties between variables too.

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
        hessian: also compute the reference Hessian (`Program.hessian`).

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
        inputs: dict[str, float] = {}
        for name in names(expr):
            earlier = list(inputs.values())
            tie = earlier and draw(st.integers(0, 3)) == 3  # shrinks toward a value of its own
            inputs[name] = earlier[draw(st.integers(0, len(earlier) - 1))] if tie else draw(vals)
        return reference(expr, inputs, hessian=hessian)

    return build()
