"""A griffe extension for the docs site: doctest examples in docstrings become code blocks.

The docstrings put their ``>>>`` examples inline (Google style, outside an
``Examples:`` section), where Markdown would read ``>>>`` as nested quotes.
This wraps each run of example lines, with its expected output, in a
``pycon`` fence before mkdocstrings renders the docstring. Used by
``mkdocs.yml``; nothing imports it at run time.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with every doctest example (prompts and output) inside a fence."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        stripped = lines[i].lstrip()
        if not stripped.startswith(">>>"):
            out.append(lines[i])
            i += 1
            continue
        indent = lines[i][: len(lines[i]) - len(stripped)]
        out.append(f"{indent}```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i])
            i += 1
        out.append(f"{indent}```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest examples of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring in place, if it has one."""
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
