"""The vocabulary a derivative rule is written in: one rule, three kinds of scalar.

A rule given to `autograd.define_op` runs on floats (the first-order sweep),
on nodes (so its derivative differentiates again) and on `jit`'s code
generator (so it is compiled). It computes with the operators ``+ - *`` and
the functions below, all generic in the scalar ``S``; a choice on values is a
`where` over a comparison, never a Python ``if`` (which cannot be compiled or
differentiated). Division and powers go through `divide` and `power`, which
give IEEE results (``1 / 0`` is ``inf``) on floats where Python raises.

>>> from autograd import rules
>>> rules.where(rules.lt(-2.0, 0.0), 0.5, 1.0), rules.divide(1.0, 0.0)
(0.5, inf)
>>> import autograd as ag
>>> rules.apply(ag.Tanh, 0.0), rules.apply(ag.Exp, ag.Leaf(0.0))
(0.0, Exp(value=1.0))
"""

from __future__ import annotations

from autograd.core.base import S as S
from autograd.core.nodes import Cond as Cond
from autograd.core.nodes import apply as apply
from autograd.core.nodes import both as both
from autograd.core.nodes import divide as divide
from autograd.core.nodes import eq as eq
from autograd.core.nodes import le as le
from autograd.core.nodes import lt as lt
from autograd.core.nodes import ne as ne
from autograd.core.nodes import power as power
from autograd.core.nodes import where as where

__all__ = [
    "Cond",
    "S",
    "apply",
    "both",
    "divide",
    "eq",
    "ge",
    "gt",
    "le",
    "lt",
    "ne",
    "power",
    "where",
]


def gt(x: S, y: S | float) -> Cond:
    """``x > y`` in a rule: decided at once on floats and constants, a test in code."""
    return lt(y, x)


def ge(x: S, y: S | float) -> Cond:
    """``x >= y`` in a rule: decided at once on floats and constants, a test in code."""
    return le(y, x)
