"""Drawings of graphs: Graphviz DOT text, rendered by the ``dot`` program when installed."""

from __future__ import annotations

import shutil
import subprocess
from collections import deque
from collections.abc import Mapping
from pathlib import Path

from autograd.core.nodes import COMPARE_SYMBOLS, Compare, Const, Leaf, Node, Op, _Arith, parents

MAX_NODES = 500
"""`to_dot`'s default node budget: Graphviz lays out a few hundred nodes readably."""

FORMATS = ("svg", "png", "pdf")
"""The file types `render` asks ``dot`` for (besides writing ``.dot`` text itself)."""


def op_label(node: Node) -> str:
    """The short name of a node's operation: ``+``, ``*``, ``tanh``, a leaf's name."""
    match node:
        case Leaf():
            return node.name if node.name is not None else "leaf"
        case Const():
            return "const"
        case Compare():
            return COMPARE_SYMBOLS[node.op]
        case Op():
            return node.label  # the op's definition names it
        case _:
            return type(node).__name__  # a node class outside the package's (no label)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _number(x: float) -> str:
    return format(x, ".6g")


def to_dot(
    node: Node, grads: Mapping[Node, float] | None = None, *, max_nodes: int = MAX_NODES
) -> str:
    r"""Graphviz DOT text for the graph behind ``node``, inputs on the left.

    Each node is a box with its operation, its value and, when ``grads`` has
    it, its gradient (numbers to 6 significant digits). An edge runs from
    each input to its user, once per use (``x * x`` has two). The walk is
    iterative, so any graph can be drawn; above ``max_nodes`` only the nodes
    nearest the output are shown, and a box ``... N more nodes`` stands for
    the rest (a ``// summarised`` comment says so too).

    Args:
        node: the output of the graph.
        grads: gradients to show, e.g. ``autograd.gradients(node)``.
        max_nodes: the node budget (at least 1).

    Returns:
        The DOT source, one statement per line.

    >>> import autograd as ag
    >>> x = ag.Leaf(3.0, name="x")
    >>> y = x * x
    >>> print(ag.to_dot(y, ag.gradients(y)))
    digraph autograd {
      rankdir=LR;
      node [shape=box, fontname="monospace"];
      n0 [label="*\nvalue 9\ngrad 1"];
      n1 [label="x\nvalue 3\ngrad 6"];
      n1 -> n0;
      n1 -> n0;
    }
    """
    if not isinstance(node, _Arith):
        raise TypeError(f"to_dot() needs a Node, got {type(node).__name__}")
    if max_nodes < 1:
        raise ValueError(f"to_dot() needs max_nodes >= 1, got {max_nodes}")
    ids: dict[Node, str] = {node: "n0"}
    order = [node]
    queue = deque(order)
    while queue and len(ids) < max_nodes:  # breadth first: the nodes nearest the output
        for p in parents(queue.popleft()):
            if p not in ids and len(ids) < max_nodes:
                ids[p] = f"n{len(ids)}"
                order.append(p)
                queue.append(p)
    lines = ["digraph autograd {", "  rankdir=LR;", '  node [shape=box, fontname="monospace"];']
    edges: list[str] = []
    cut = False
    for n in order:
        label = f"{op_label(n)}\nvalue {_number(n.value)}"
        if grads is not None and n in grads:
            label += f"\ngrad {_number(grads[n])}"
        lines.append(f"  {ids[n]} [label={_quote(label)}];")
        for p in parents(n):
            if p in ids:
                edges.append(f"  {ids[p]} -> {ids[n]};")
            else:
                cut = True
                edges.append(f"  more -> {ids[n]};")
    if cut:
        hidden = _count(node) - len(ids)
        lines.insert(1, f"  // summarised: {len(ids)} of {len(ids) + hidden} nodes shown")
        lines.append(f"  more [label={_quote(f'... {hidden} more nodes')}, style=dashed];")
    return "\n".join([*lines, *edges, "}"])


def _count(root: Node) -> int:
    """The number of distinct nodes behind ``root`` (iterative)."""
    seen = {root}
    stack = [root]
    while stack:
        for p in parents(stack.pop()):
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return len(seen)


class GraphvizNotFoundError(RuntimeError):
    """The ``dot`` program, needed to render DOT to a picture, is not installed."""


def render(source: str, path: str | Path) -> Path:
    """Write DOT ``source`` to ``path``: as text for ``.dot``, else rendered by ``dot``.

    Args:
        source: DOT text, e.g. from `to_dot`.
        path: the output file; its suffix (``.dot``, ``.svg``, ``.png``, ``.pdf``)
            picks the format.

    Returns:
        The path written.

    Raises:
        ValueError: for another suffix.
        GraphvizNotFoundError: if a picture is asked for and ``dot`` is not installed.
        RuntimeError: if ``dot`` fails.
    """
    out = Path(path)
    fmt = out.suffix.lower().lstrip(".")
    if fmt in ("dot", "gv"):
        out.write_text(source + "\n", encoding="utf-8")
        return out
    if fmt not in FORMATS:
        raise ValueError(f"cannot draw to {out.name!r}: use a .dot, .svg, .png or .pdf file")
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizNotFoundError(
            f"drawing {out.name} needs Graphviz's `dot` program, which is not installed "
            "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz); "
            "or write the DOT text with a .dot file name"
        )
    done = subprocess.run(  # a fixed program; no shell parses the arguments
        [exe, f"-T{fmt}", "-o", str(out)],
        input=source.encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"dot failed: {message[0] if message else done.returncode}")
    return out
