"""Statements of generated code: what `codegen` writes and `reroll`, `orders` and `pack` rework.

A statement is ``(target, template, uses)``: the name it sets, its Python
expression as a `str.format_map` template whose fields are the names it
reads (``"tanh(({v3} * {k0}))"``), and those names, each once. A pass that
renames (registers, a loop's locals, a shape's roles) formats the template
with a mapping; none parses code. Generated names: inputs ``a``, values
``v``, cotangents and sums ``g``, items of a loop's list of cotangents ``e``
(`Program.elements`), constants ``k``, loop results ``l``, packs of a batch
``p`` (`compiler.pack`). Statements are pure: any order that computes every
operand before its use computes the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from string import Formatter

Stmt = tuple[str, str, tuple[str, ...]]  # target name, template, names it reads

_PARSE = Formatter().parse


def ref(name: str) -> str:
    """The template field reading ``name``."""
    return "{" + name + "}"


class Fields(dict[str, str]):
    """A template's fields filled by a function of the name: ``template.format_map(Fields(f))``.

    Every pass that rewrites a statement's names (registers aside, a plain dict)
    is one of these: a loop's locals, a shape's roles, a form's numbers.
    """

    def __init__(self, fill: Callable[[str], str]) -> None:
        super().__init__()
        self.fill = fill

    def __missing__(self, name: str) -> str:
        return self.fill(name)


SAME = Fields(str)
"""Every name as itself: a template formatted with it is its code."""


def code(template: str) -> str:
    """The Python expression a template stands for."""
    return template.format_map(SAME)


def fields(template: str) -> list[str]:
    """The names a template reads, in order, as often as it reads them."""
    return [name for _, name, _, _ in _PARSE(template) if name]


def named(template: str) -> str | None:
    """The name a template is, if it is one field alone (``"{v3}"``), else None."""
    if template[:1] == "{" and template[-1:] == "}" and "{" not in template[1:]:
        return template[1:-1]
    return None


def reads(templates: list[str]) -> tuple[str, ...]:
    """The names some templates read, each once, in order."""
    return tuple(dict.fromkeys(name for t in templates for name in fields(t)))
