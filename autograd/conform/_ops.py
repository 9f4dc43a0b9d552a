"""The ops ``conform`` draws programs for, read from the grammar and the op definitions."""

from __future__ import annotations

from typing import Final, TypeAlias

from autograd.expr import FUNCTIONS

Op: TypeAlias = str
"""An operator of the grammar (``+ - * / **``, ``neg``) or an op's name (``tanh``)."""

ARITHMETIC: Final[tuple[Op, ...]] = ("+", "-", "*", "/", "**")
UNARY: Final[tuple[Op, ...]] = ("neg", *FUNCTIONS)
OPS: Final[tuple[Op, ...]] = (*ARITHMETIC, *UNARY)
"""Every op a program can hold, as `autograd.testing.ALL_OPS` names them."""
