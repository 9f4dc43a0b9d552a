"""Graph walks (iterative, never recursive) and the state of nested transforms."""

from __future__ import annotations

from collections.abc import Callable, Collection, MutableMapping
from contextvars import ContextVar
from operator import attrgetter
from typing import cast

from ._nodes import Node, V, _inputs

nesting: ContextVar[int] = ContextVar("autograd_nesting", default=0)
"""How many transforms are tracing their function in this context. Non-zero means
a result may be differentiated again, so sweeps must build nodes, not floats."""

tracing: ContextVar[bool] = ContextVar("autograd_jit_tracing", default=False)
"""True while `jit` traces a function in this context (its `.value` reads are guarded)."""

debug_sites: ContextVar[MutableMapping[Node, tuple[str, int]] | None] = ContextVar(
    "autograd_debug_nans", default=None
)
"""Inside `debug_nans()`: where each node was built (weakly keyed); else None."""


def parents(node: Node) -> tuple[Node, ...]:
    """The inputs of ``node``, in field order."""
    return cast("tuple[Node, ...]", _inputs(node))


def toposort(root: Node, stop: Collection[Node] = ()) -> list[tuple[Node, tuple[Node, ...]]]:
    """Every node ``root`` depends on, with its inputs, inputs before users.

    An iterative depth-first post-order: its result depends only on the graph
    (inputs visited in field order), never on memory addresses. Nodes in
    ``stop`` are taken as inputs: the walk does not enter them.
    """
    order: list[tuple[Node, tuple[Node, ...]]] = []
    emit = order.append
    entered: dict[Node, tuple[Node, ...] | None] = {}  # None once emitted
    stack = [root]
    push, pop, extend = stack.append, stack.pop, stack.extend
    while stack:
        node = pop()
        ins = entered.get(node, _NEW)
        if ins is _NEW:
            ins = () if node in stop else parents(node)
            entered[node] = ins
            push(node)  # come back to emit it after its inputs
            extend(reversed(ins))  # an input already entered is skipped when popped
        elif ins is not None:  # second visit: every input is emitted
            emit((node, ins))
            entered[node] = None
    return order


_NEW = cast("tuple[Node, ...]", object())  # marks a node not yet entered, by identity


def backward(
    root: Node,
    seed: V,
    primal: Callable[[Node], V],
    stop: Collection[Node] = (),
    keep: Collection[Node] | None = None,
) -> dict[Node, V]:
    """The reverse sweep: the cotangent of ``root`` with respect to each node.

    One pass over the reverse topological order; each node's ``vjp`` rule
    runs once, and cotangents from several users add up in an order fixed
    by the graph. ``primal`` is `float_view` for a first-order sweep, or
    `node_view` for one that is differentiated again. With ``keep``, only
    those nodes' cotangents are returned, and others are freed as it goes.
    """
    return sweep(toposort(root, stop), {root: seed}, primal, keep)


def sweep(
    order: list[tuple[Node, tuple[Node, ...]]],
    cotangents: dict[Node, V],
    primal: Callable[[Node], V],
    keep: Collection[Node] | None,
) -> dict[Node, V]:
    """Run each rule of ``order`` (a topological order) in reverse, from the seeded cotangents."""
    if debug_sites.get() is not None:  # debug_nans(): the one check a sweep pays
        from ._debug import sweep_checked  # lazy: _debug imports this module

        return sweep_checked(order, cotangents, primal, keep)
    get, pop = cotangents.get, cotangents.pop
    floats = primal is float_view
    for node, ins in reversed(order):
        g = get(node) if keep is None or node in keep else pop(node, None)
        if not ins or g is None:  # an input, or a node only a comparison reads
            continue
        rule = node.vjp_float(g) if floats else node.vjp(g, primal)  # type: ignore[arg-type]  # floats: V is float
        for x, gx in zip(ins, rule, strict=True):
            if gx is not None:
                prev = get(x)
                cotangents[x] = gx if prev is None else prev + gx
    return cotangents


float_view = cast("Callable[[Node], float]", attrgetter("value"))
"""A node's primal in a first-order sweep: its value (a C-level getter: the sweep's
hottest call)."""


def node_view(node: Node) -> Node:
    """A node's primal in a sweep that is differentiated again: the node itself."""
    return node
