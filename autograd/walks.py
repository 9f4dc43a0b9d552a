"""Graph walks and sweeps, iterative (never recursive): one loop each.

`toposort` orders a graph, inputs before users; `sweep` runs each node's
``vjp`` rule once in reverse order (reverse mode); `forward` runs each node's
``jvp`` rule once in order (forward mode: a tangent that is absent is a
symbolic zero, as in JAX and PyTorch). Each is generic over what it carries:
floats (`float_view`, a first-order result) or nodes (`node_view`, a result
that is differentiated again).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from operator import attrgetter
from typing import cast

from autograd.core.context import debug_sites
from autograd.core.nodes import Node, Scalar, V, parents
from autograd.debug import sweep_checked, tangent_nan


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


ONE: Scalar = 1.0  # a seed typed as Scalar, so a sweep's V follows its primal view

Order = list[tuple[Node, tuple[Node, ...]]]


def toposort_many(roots: Sequence[Node], stop: Collection[Node] = ()) -> Order:
    """`toposort` of several roots at once: each node once, inputs before users."""
    order: Order = []
    seen: set[Node] = set()
    barrier = set(stop)  # nodes already emitted are not entered again
    for root in roots:
        start = len(order)
        for node, ins in toposort(root, barrier):
            if node not in seen:
                seen.add(node)
                order.append((node, ins))
        barrier.update(node for node, _ in order[start:])  # linear overall, not per root
    return order


def forward(
    roots: Sequence[Node],
    seeds: Mapping[Node, V],
    primal: Callable[[Node], V],
    stop: Collection[Node] = (),
) -> dict[Node, V]:
    """The forward sweep: the tangent of every node ``roots`` depend on.

    ``seeds`` maps variables to their tangents; the walk stops at them and at
    ``stop`` (variables with a zero tangent). Nodes whose tangent is zero are
    absent from the result.
    """
    tangents: dict[Node, V] = dict(seeds)
    checked = debug_sites.get() is not None  # debug_nans(): one read per sweep
    for node, _ in toposort_many(roots, {*seeds, *stop}):
        if node in seeds:
            continue
        t = node.jvp(tangents, primal)
        if t is not None:
            if checked:
                tangent_nan(node, t, tangents)
            tangents[node] = t
    return tangents


def backward_many(
    seeds: Sequence[tuple[Node, V]],
    primal: Callable[[Node], V],
    stop: Collection[Node],
    keep: Collection[Node],
) -> dict[Node, V]:
    """One reverse sweep from several outputs, each with its cotangent.

    The outputs' cotangents are summed first (an output may appear twice), so
    every rule still runs once; only ``keep``'s cotangents are kept.
    """
    cotangents: dict[Node, V] = {}
    for node, g in seeds:
        prev = cotangents.get(node)
        cotangents[node] = g if prev is None else prev + g
    return sweep(toposort_many([node for node, _ in seeds], stop), cotangents, primal, keep)


def views(nested: bool) -> Callable[[Node], Scalar]:
    """The primal view of a sweep: nodes when the result is differentiated again."""
    return node_view if nested else float_view
