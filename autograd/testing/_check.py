"""`check_engine`: run random programs through another engine, shrink the first disagreement."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs
from hypothesis import HealthCheck, Verbosity, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from autograd.expr import Expr, to_source
from autograd.programs import Program, expr_to_tree
from autograd.testing._strategies import ALL_OPS, Op, programs

_SHOWN_CHARS = 400


class Adapter(Protocol):
    """Evaluates an expression with another engine.

    Called with the expression and a value for each of its variables, it
    returns the value and the partial derivative for each variable (a missing
    name counts as a mismatch). Exceptions it raises count as failures and are
    reported, so an adapter should not catch the engine's errors.
    """

    def __call__(
        self, expr: Expr, inputs: Mapping[str, float]
    ) -> tuple[float, Mapping[str, float]]: ...


@attrs.frozen
class Conventions:
    """What counts as agreement between two float64 results.

    The defaults follow ``docs/numerics.md`` (PyTorch float64): nan only
    matches nan, infinities must have the same sign, ``-0.0`` differs from
    ``0.0``, and other numbers agree within ``ulps`` units in the last place
    (or ``abs_tol``, for engines that round intermediate results differently).

    Attributes:
        ulps: how many units in the last place two finite numbers may differ.
        abs_tol: an absolute difference that is always accepted.
        signed_zeros: whether ``-0.0`` and ``0.0`` must match.
    """

    ulps: int = 4
    abs_tol: float = 0.0
    signed_zeros: bool = True

    def agree(self, expected: float, actual: object) -> bool:
        """Whether ``actual`` (any object an engine returned) agrees with ``expected``.

        >>> Conventions().agree(0.0, -0.0), Conventions(signed_zeros=False).agree(0.0, -0.0)
        (False, True)
        >>> Conventions().agree(math.nan, math.nan), Conventions().agree(1.0, 1.0 + 2**-52)
        (True, True)
        """
        if type(actual) is int:  # engines that start gradients at the int 0
            actual = float(actual)
        if not isinstance(actual, float):
            return False
        if math.isnan(expected) or math.isnan(actual):
            return math.isnan(expected) and math.isnan(actual)
        if expected == actual:
            same_sign = math.copysign(1.0, expected) == math.copysign(1.0, actual)
            return same_sign or not self.signed_zeros
        if math.isinf(expected) or math.isinf(actual):
            return False
        diff = abs(expected - actual)
        return diff <= self.abs_tol or diff <= self.ulps * math.ulp(max(abs(expected), abs(actual)))


class EngineMismatch(AssertionError):
    """The other engine disagrees with the reference (or fails) on a program.

    Attributes:
        program: the (shrunk) program, with the reference results.
        value: the other engine's value (``None`` if it raised).
        gradients: the other engine's gradients (``None`` if it raised).
        error: what the other engine raised, if it did.
    """

    def __init__(
        self,
        message: str,
        program: Program,
        value: object,
        gradients: Mapping[str, object] | None,
        error: BaseException | None,
    ) -> None:
        super().__init__(message)
        self.program = program
        self.value = value
        self.gradients = gradients
        self.error = error


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
        return _compare(adapter, p, conv) is not None

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
    problem = _compare(adapter, minimal, conv)
    assert problem is not None, "the failure did not reproduce: is the engine deterministic?"
    raise problem


def _compare(adapter: Adapter, p: Program, conv: Conventions) -> EngineMismatch | None:
    try:
        value, returned = adapter(p.expr, dict(p.inputs))
        grads = dict(returned)  # a non-mapping is the adapter's failure, reported like one
    except Exception as e:  # any exception from the engine is a finding
        return EngineMismatch(
            _report(p, None, None, e, conv), p, None, None, e.with_traceback(None)
        )
    bad = not conv.agree(p.value, value)
    bad = bad or any(not conv.agree(g, grads.get(k)) for k, g in p.gradients.items())
    return (
        EngineMismatch(_report(p, value, grads, None, conv), p, value, grads, None) if bad else None
    )


def _report(
    p: Program,
    value: object,
    grads: Mapping[str, object] | None,
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
    if error is not None:
        text = str(error)[:_SHOWN_CHARS]
        lines.append(f"    it raised {type(error).__name__}: {text}")
        lines.append(f"    reference value {p.value!r}, gradients {dict(p.gradients)!r}")
        return "\n".join(lines)
    rows = [("value", p.value, value)]
    rows += [(f"d/d{k}", g, (grads or {}).get(k, "(missing)")) for k, g in p.gradients.items()]
    lines.append(f"    {'':10}{'reference':>26}  {'engine':>26}")
    for name, ref, got in rows:
        mark = "" if conv.agree(ref, got) else "  <- differs"
        lines.append(f"    {name:10}{ref!r:>26}  {got!r:>26}{mark}")
    return "\n".join(lines)
