"""The ops ``conform`` draws programs for, read from the grammar and the op definitions."""

from __future__ import annotations

from typing import Final, TypeAlias

from autograd.expr import BINARY_FUNCTIONS, FUNCTIONS, WHERE

Op: TypeAlias = str
"""An operator of the grammar (``+ - * / **``, ``neg``) or an op's name (``tanh``)."""

ARITHMETIC: Final[tuple[Op, ...]] = ("+", "-", "*", "/", "**")
UNARY: Final[tuple[Op, ...]] = ("neg", *FUNCTIONS)
TWO_INPUT: Final[tuple[Op, ...]] = tuple(BINARY_FUNCTIONS)
OPS: Final[tuple[Op, ...]] = (*ARITHMETIC, *UNARY, *TWO_INPUT, WHERE)
"""Every op that gets a row, as `autograd.testing.ALL_OPS` names them (``where`` draws
every comparison, so the comparisons have no rows of their own)."""
