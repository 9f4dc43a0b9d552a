"""Statements of generated code: what `codegen` writes and `reroll`, `orders` and `pack` rework.

A statement is ``(target, expression, uses)``: the name it sets, its Python
expression, and the names that expression reads, each a generated name
(`NAME`). Statements are pure: any order that computes every operand before
its use computes the same values.
"""

from __future__ import annotations

import re

Stmt = tuple[str, str, tuple[str, ...]]  # target name, expression, names it reads

NAME = re.compile(r"\b[avegklp][0-9]+\b")
"""The names generated code uses: inputs ``a``, values ``v``, cotangents and sums ``g``,
items of a loop's list of cotangents ``e`` (`Program.elements`), constants ``k``, loop
results ``l``, packs of a batch ``p`` (`compiler.pack`)."""
