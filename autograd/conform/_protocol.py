"""What another engine provides (`Adapter`, `HessianAdapter`) and what agreement means.

This module needs nothing beyond the engine (no hypothesis): both
`autograd.testing.check_engine` and the ``autograd conform`` command use it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Protocol

import attrs

from autograd.expr import Expr
from autograd.programs import reference


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


class HessianAdapter(Protocol):
    """Second derivatives of an expression from another engine (optional, beside an `Adapter`).

    Called like an `Adapter`, it returns the matrix of second partial
    derivatives as ``h[a][b] = d2f / (da db)`` for every pair of names of
    ``inputs`` (a missing entry counts as a mismatch). Engines without higher
    derivatives simply have none; `check_engine` then compares first order only.
    """

    def __call__(
        self, expr: Expr, inputs: Mapping[str, float]
    ) -> Mapping[str, Mapping[str, float]]: ...


def reference_hessian(expr: Expr, inputs: Mapping[str, float]) -> dict[str, dict[str, float]]:
    """This engine's second partial derivatives of ``expr`` at ``inputs`` (``grad`` of ``grad``).

    The reference's own (`autograd.programs.reference`), keyed by name.

    >>> from autograd.expr import parse
    >>> reference_hessian(parse("x * x * y"), {"x": 3.0, "y": 2.0})
    {'x': {'x': 4.0, 'y': 6.0}, 'y': {'x': 6.0, 'y': 0.0}}
    """
    env = {name: float(v) for name, v in inputs.items()}
    rows = reference(expr, env, hessian=True).hessian or ()
    return {a: dict(zip(env, row, strict=True)) for a, row in zip(env, rows, strict=True)}


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
