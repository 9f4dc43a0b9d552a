"""`check_engine`: run random programs through another engine, shrink the first disagreement.

First derivatives always; second derivatives when the engine has them (`HessianAdapter`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from hypothesis import HealthCheck, Verbosity, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from autograd.conform._protocol import Adapter as Adapter
from autograd.conform._protocol import Conventions as Conventions
from autograd.conform._protocol import HessianAdapter as HessianAdapter
from autograd.conform._protocol import reference_hessian as reference_hessian
from autograd.expr import to_source
from autograd.programs import Program, expr_to_tree
from autograd.testing._strategies import ALL_OPS, Op, programs

_SHOWN_CHARS = 400


class EngineMismatch(AssertionError):
    """The other engine disagrees with the reference (or fails) on a program.

    Attributes:
        program: the (shrunk) program, with the reference results.
        value: the other engine's value (``None`` if it raised).
        gradients: the other engine's gradients (``None`` if it raised).
        error: what the other engine raised, if it did.
        hessian: the other engine's second derivatives (``None`` if not
            compared, or if it raised).
    """

    def __init__(
        self,
        message: str,
        program: Program,
        value: object,
        gradients: Mapping[str, object] | None,
        error: BaseException | None,
        hessian: Mapping[str, Mapping[str, object]] | None = None,
    ) -> None:
        super().__init__(message)
        self.program = program
        self.value = value
        self.gradients = gradients
        self.error = error
        self.hessian = hessian


def check_engine(
    adapter: Adapter,
    n: int = 200,
    *,
    ops: Sequence[Op] = ALL_OPS,
    node_exponents: bool = True,
    max_nodes: int = 10,
    max_depth: int = 6,
    max_chain: int = 0,
    sharing: bool = True,
    values: st.SearchStrategy[float] | None = None,
    conventions: Conventions | None = None,
    seed: int = 0,
    hessian: HessianAdapter | None = None,
) -> None:
    """Check an engine against this one on ``n`` random programs.

    Programs come from `programs`; on the first disagreement hypothesis
    shrinks the program to a minimal one that still fails, and the error shows
    it with both engines' numbers.

    Args:
        adapter: runs a program with the other engine (see `Adapter`).
        n: how many programs to try.
        ops: the operations the other engine supports.
        node_exponents: whether it supports ``x ** y`` with a non-constant ``y``.
        max_nodes: the most operations per program.
        max_depth: the longest path from root to leaf.
        max_chain: also try chains up to this long (deep graphs).
        sharing: reuse subexpressions (tests gradient accumulation).
        values: input values (default: special values and any float).
        conventions: what counts as agreement (default `Conventions()`).
        seed: the random seed; the same seed runs the same programs.
        hessian: the engine's second derivatives (see `HessianAdapter`): when
            given, they are compared with ours too.

    Raises:
        EngineMismatch: an `AssertionError` showing the minimal failing program.

    >>> from autograd.programs import reference
    >>> def ours(expr, inputs):
    ...     p = reference(expr, inputs)
    ...     return p.value, p.gradients
    >>> check_engine(ours, n=50)
    """
    conv = Conventions() if conventions is None else conventions
    strategy = programs(
        values=values,
        ops=ops,
        node_exponents=node_exponents,
        max_nodes=max_nodes,
        max_depth=max_depth,
        max_chain=max_chain,
        sharing=sharing,
    )

    def fails(p: Program) -> bool:
        return _compare(adapter, p, conv, hessian) is not None

    config = settings(
        max_examples=n,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,  # find() would pretty-print deep programs recursively
    )
    try:
        minimal = find(strategy, fails, settings=config, random=random.Random(seed))
    except NoSuchExample:
        return
    problem = _compare(adapter, minimal, conv, hessian)
    assert problem is not None, "the failure did not reproduce: is the engine deterministic?"
    raise problem


def _compare(
    adapter: Adapter, p: Program, conv: Conventions, second: HessianAdapter | None = None
) -> EngineMismatch | None:
    ours = None if second is None else reference_hessian(p.expr, p.inputs)
    try:
        value, returned = adapter(p.expr, dict(p.inputs))
        grads = dict(returned)  # a non-mapping is the adapter's failure, reported like one
        h = None if second is None else second(p.expr, dict(p.inputs))
        theirs = None if h is None else {k: dict(r) for k, r in h.items()}
    except Exception as e:  # any exception from the engine is a finding
        return EngineMismatch(_report(p, None, e, conv), p, None, None, e.with_traceback(None))
    rows = _rows(p, value, grads, ours, theirs)
    if all(conv.agree(ref, got) for _, ref, got in rows):
        return None
    return EngineMismatch(_report(p, rows, None, conv), p, value, grads, None, theirs)


def _rows(
    p: Program,
    value: object,
    grads: Mapping[str, object],
    ours: Mapping[str, Mapping[str, float]] | None,
    theirs: Mapping[str, Mapping[str, object]] | None,
) -> list[tuple[str, float, object]]:
    """(quantity, reference, engine) for the value, each gradient and each second derivative."""
    rows: list[tuple[str, float, object]] = [("value", p.value, value)]
    rows += [(f"d/d{k}", g, grads.get(k, "(missing)")) for k, g in p.gradients.items()]
    if ours is not None:
        got = {} if theirs is None else theirs
        rows += [
            (f"d2/d{a}d{b}", h, got.get(a, {}).get(b, "(missing)"))
            for a, row in ours.items()
            for b, h in row.items()
        ]
    return rows


def _report(
    p: Program,
    rows: Sequence[tuple[str, float, object]] | None,
    error: BaseException | None,
    conv: Conventions,
) -> str:
    source = to_source(p.expr)
    if len(source) > _SHOWN_CHARS:
        source = f"{source[:_SHOWN_CHARS]}... ({len(source)} characters)"
    size = len(expr_to_tree(p.expr))
    lines = [
        "the engine disagrees with the reference on:",
        f"    expression: {source}",
        f"    ({size} distinct nodes)" if size > 12 else "",
        "    inputs:     " + ", ".join(f"{k} = {v!r}" for k, v in p.inputs.items()),
    ]
    lines = [line for line in lines if line]
    if error is not None or rows is None:
        text = str(error)[:_SHOWN_CHARS]
        lines.append(f"    it raised {type(error).__name__}: {text}")
        lines.append(f"    reference value {p.value!r}, gradients {dict(p.gradients)!r}")
        return "\n".join(lines)
    lines.append(f"    {'':10}{'reference':>26}  {'engine':>26}")
    for name, ref, got in rows:
        mark = "" if conv.agree(ref, got) else "  <- differs"
        lines.append(f"    {name:10}{ref!r:>26}  {got!r:>26}{mark}")
    return "\n".join(lines)
