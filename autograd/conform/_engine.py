"""An engine under test: its adapters, the ops it has, and the conventions it documents."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal, TypeAlias

import attrs

from autograd.conform._ops import OPS, Op
from autograd.conform._protocol import Adapter, Conventions, HessianAdapter
from autograd.expr import Expr

Order: TypeAlias = Literal[1, 2]
Outcome: TypeAlias = Literal["agree", "known", "differ", "raise"]


class EngineUnavailable(RuntimeError):
    """The engine cannot run here: its package is missing, or its worker failed to start."""


@attrs.frozen
class Mismatch:
    """One number on which the engines disagree.

    Attributes:
        quantity: ``value``, ``d/dx`` or ``d2/dxdy``.
        ours: this engine's number.
        theirs: what the other engine returned (any object; ``"(missing)"`` if nothing).
    """

    quantity: str
    ours: float
    theirs: object

    @property
    def order(self) -> int:
        """0 for the value, 1 for a gradient, 2 for a second derivative."""
        return 0 if self.quantity == "value" else 2 if self.quantity.startswith("d2/") else 1

    @property
    def kind(self) -> str:
        """``ulps``, ``sign of zero``, ``nan``, ``inf`` or ``not a float``."""
        theirs = float(self.theirs) if type(self.theirs) is int else self.theirs
        if not isinstance(theirs, float):
            return "not a float"
        if math.isnan(self.ours) or math.isnan(theirs):
            return "nan"
        if math.isinf(self.ours) or math.isinf(theirs):
            return "inf"
        return "sign of zero" if self.ours == theirs else "ulps"

    @property
    def ulps(self) -> int | None:
        """How many floats lie between the two numbers (for two different finite numbers)."""
        if self.kind != "ulps":
            return None
        assert isinstance(self.theirs, float | int), "kind checked it"
        return abs(_ordinal(self.ours) - _ordinal(float(self.theirs)))


def _ordinal(v: float) -> int:
    """The position of ``v`` among all floats, counting from 0.0 (negative below it)."""
    bits: int = struct.unpack("<q", struct.pack("<d", v))[0]
    return bits if bits >= 0 else -(bits & 0x7FFF_FFFF_FFFF_FFFF)


@attrs.frozen
class Site:
    """An op node of a program and the values of its operands (ours)."""

    op: Op
    operands: tuple[float, ...]


@attrs.frozen
class Case:
    """A program on which the engines disagree: what a `Known` convention inspects.

    Attributes:
        expr: the program's expression.
        inputs: its input values.
        sites: every op node of the program, with its operands' values.
        mismatches: the numbers that differ (empty if the engine raised).
        error: ``"TypeName: message"`` if the engine raised.
    """

    expr: Expr
    inputs: Mapping[str, float]
    sites: tuple[Site, ...]
    mismatches: tuple[Mismatch, ...]
    error: str | None


@attrs.frozen
class Known:
    """A documented difference between an engine and this one: a convention, not a bug.

    Attributes:
        name: a short label (``relu'(nan)``).
        text: what the engine does, and what this one does.
        source: where the engine (or the difference) is documented: a URL or a doc reference.
        applies: whether a disagreement is this one.
    """

    name: str
    text: str
    source: str
    applies: Callable[[Case], bool]


def at(
    op: Op,
    when: Callable[[Sequence[float]], bool] = lambda _: True,
    *,
    orders: Sequence[int] = (0, 1, 2),
    raises: bool = False,
) -> Callable[[Case], bool]:
    """A `Known.applies`: some ``op`` node has operands passing ``when``, and the rest is allowed.

    Args:
        op: the op whose convention it is.
        when: a test of that node's operand values (ours).
        orders: which orders of mismatch the convention explains (0 value,
            1 gradient, 2 second derivative): a program differing elsewhere is
            not explained by it.
        raises: the convention is an exception the engine raises there.
    """

    def applies(case: Case) -> bool:
        if (case.error is not None) != raises:
            return False
        if any(m.order not in orders for m in case.mismatches):
            return False
        return any(s.op == op and when(s.operands) for s in case.sites)

    return applies


def nonfinite_inside(orders: Sequence[int] = (2,)) -> Callable[[Case], bool]:
    """A `Known.applies`: a value inside the program is inf or nan; mismatches only of ``orders``.

    Where a value is not finite, ``0 * inf`` inside a backward formula is nan;
    engines differ in how they arrange such products.
    """

    def applies(case: Case) -> bool:
        if case.error is not None or any(m.order not in orders for m in case.mismatches):
            return False
        values = [*case.inputs.values(), *(v for s in case.sites for v in s.operands)]
        return any(not math.isfinite(v) for v in values)

    return applies


@attrs.frozen
class Engine:
    """An engine to check: how to run a program on it, and what it has.

    Attributes:
        name: what the report calls it (``torch``).
        version: the engine's version, as the report records it.
        first: its value and gradient of a program.
        second: its second derivatives, if it has them.
        ops: the ops it has (the others are not drawn).
        node_exponents: whether ``x ** y`` may have a non-constant exponent.
        known: its documented conventions, listed apart from disagreements.
        conventions: its default agreement rule (the command line's options override it).
        notes: what the report should say about the adapter (a dtype, an op built from others).
        close: called when the run ends (a worker process exits).
    """

    name: str
    version: str
    first: Adapter
    second: HessianAdapter | None = None
    ops: tuple[Op, ...] = OPS
    node_exponents: bool = True
    known: tuple[Known, ...] = ()
    conventions: Conventions = attrs.Factory(Conventions)
    notes: tuple[str, ...] = ()
    close: Callable[[], None] = lambda: None


ZERO: Final = (0.0, -0.0)


def is_zero(v: float) -> bool:
    """``v == 0`` for either sign (for `at` tests)."""
    return v == 0.0


Loader: TypeAlias = Callable[[], Engine]
"""Builds an engine, importing it (raises `EngineUnavailable` with what to install)."""


def sources(known: Sequence[Known]) -> Mapping[str, str]:
    """Each convention's source by name (for reports)."""
    return {k.name: k.source for k in known}
