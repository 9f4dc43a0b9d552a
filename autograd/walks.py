"""Graph walks and sweeps, iterative (never recursive): one loop each.

`toposort` orders a graph, inputs before users; `sweep` runs each node's
``vjp`` rule once in reverse order (reverse mode); `forward` runs each node's
``jvp`` rule once in order (forward mode: a tangent that is absent is a
symbolic zero, as in JAX and PyTorch). Each is generic over what it carries:
floats (`float_view`, a first-order result) or nodes (`node_view`, a result
that is differentiated again).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Mapping, Sequence
from operator import attrgetter
from typing import cast

from autograd.core.context import debug_sites
from autograd.core.holders import ONE_HOLDER, refcount
from autograd.core.nodes import PARENTS, SHARED, Const, Leaf, Node, Scalar, V, parents
from autograd.debug import sweep_checked, tangent_nan


def toposort(
    root: Node, stop: Container[Node] = (), seen: set[Node] | None = None
) -> list[tuple[Node, tuple[Node, ...]]]:
    """Every node ``root`` depends on, with its inputs, inputs before users.

    An iterative depth-first post-order: its result depends only on the graph
    (inputs visited in field order), never on memory addresses. Nodes in
    ``stop`` are taken as inputs: the walk does not enter them. ``seen``, if
    given, holds nodes left out (neither entered nor listed) and gets every
    node listed: walks from several roots sharing it list each node once.
    """
    order: list[tuple[Node, tuple[Node, ...]]] = []
    emit = order.append
    if seen is None:
        seen = set()
    enter = seen.add
    # a node to enter, or (node, inputs) pushed under its inputs: emitted when popped
    stack: list[object] = [root]
    push, pop, extend = stack.append, stack.pop, stack.extend
    table = PARENTS
    while stack:
        node = pop()
        if type(node) is tuple:  # its inputs are all emitted
            emit(node)
            continue
        if node in seen:  # an input of several users: emitted after the first
            continue
        enter(node)  # type: ignore[arg-type]  # not a tuple: a node
        if node in stop:
            emit((node, ()))  # type: ignore[arg-type]  # not a tuple: a node
            continue
        try:
            ins = table[type(node)](node)  # type: ignore[arg-type]  # a node
        except KeyError:  # the first node of its class
            ins = parents(node)  # type: ignore[arg-type]  # a node
        if ins:
            push((node, ins))
            extend(reversed(ins))
        else:
            emit((node, ins))  # type: ignore[arg-type]  # a node
    return order


def postorder(root: Node, stop: Collection[Node] = ()) -> list[Node]:
    """`toposort`'s order as a list of nodes, for a sweep: leaves and constants at every use.

    The nodes of `toposort`, in its order, but a `Leaf` or `Const` comes again
    before each later user (keeping the first of each gives `toposort`'s
    nodes): having no inputs, it needs no lookup in the set of nodes seen, and
    a sweep that meets it twice does nothing the second time.

    What a sweep walks. On a large graph `toposort`'s pairs are two tuples a
    node that live as long as the sweep, each one more object for Python's
    cyclic collector to walk in its full collections; a list of nodes adds
    none. The sweep reads each node's inputs again instead.
    """
    return _postorder([root], stop, inputs=True)


def _postorder(stack: list[object], stop: Collection[Node], inputs: bool) -> list[Node]:
    """`postorder` from each node of ``stack``, its last first; leaves and constants if ``inputs``.

    With several nodes, each is walked as far as the ones before it did not go. The
    walk's own stack, as it goes: a node to enter, or `_EXIT` above a node to emit.
    """
    order: list[Node] = []
    emit = order.append
    seen: set[object] = set()
    enter = seen.add
    push, pop, extend = stack.append, stack.pop, stack.extend
    table = PARENTS
    while stack:
        node = pop()
        if node is _EXIT:  # the node under the mark has all its inputs emitted
            emit(pop())  # type: ignore[arg-type]  # pushed under the mark: a node
            continue
        cls = type(node)
        if cls is Const or cls is Leaf:  # no inputs (in stop or not): at every use
            if inputs:
                emit(node)  # type: ignore[arg-type]  # a node
            continue
        if refcount(node) > ONE_HOLDER:  # held by two users, or also elsewhere
            if node in seen:
                continue
            enter(node)
        # else its one user is the only path to it: never met again, so not in the set
        if node in stop:
            emit(node)  # type: ignore[arg-type]  # not the mark: a node
            continue
        try:
            ins = table[cls](node)  # type: ignore[arg-type]  # a node
        except KeyError:  # the first node of its class
            ins = parents(node)  # type: ignore[arg-type]  # a node
        if ins:
            push(node)
            push(_EXIT)
            extend(reversed(ins))
            ins = ()  # holds no input: its reference would count as a second holder
        else:
            emit(node)  # type: ignore[arg-type]  # a node
    return order


_EXIT = object()
"""`postorder`'s mark on its stack: the node under it is emitted when it is popped."""


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
    if debug_sites.get() is not None:  # debug_nans(): the one check a sweep pays
        return sweep_checked(toposort(root, stop), {root: seed}, primal, keep)
    cotangents = {root: seed}
    get, pop = cotangents.get, cotangents.pop
    floats = primal is float_view
    table = PARENTS
    for node in reversed(postorder(root, stop)):  # `sweep`'s loop over the order's nodes
        g = get(node) if keep is None or node in keep else pop(node, None)
        if g is None:  # a node only a comparison reads, or a leaf or constant met again
            continue
        cls = type(node)
        if cls is Const or cls is Leaf or node in stop:  # an input
            continue
        try:
            ins = table[cls](node)
        except KeyError:  # its class was forgotten meanwhile (`undefine`)
            ins = parents(node)
        if not ins:
            continue
        rule = node.vjp_float(g) if floats else node.vjp(g, primal)  # type: ignore[arg-type]  # floats: V is float
        # a compiled float rule's length was checked when its op was defined: strict is slow
        for x, gx in zip(ins, rule) if floats else zip(ins, rule, strict=True):  # noqa: B905
            if gx is not None:
                prev = get(x)
                cotangents[x] = gx if prev is None else prev + gx
    return cotangents


def backward_leaves(root: Node) -> dict[Node, float]:
    """`backward` on floats, seeded with 1.0, keeping the cotangent of every `Leaf`.

    The same rules (each op's float rule, as ``vjp_push`` and ``vjp_accumulate``)
    run in the same order, so every sum is the same. While each node it meets is
    held by one user only (a tree of ops over shared leaves and constants), the
    reverse topological order is the order in which nodes come off a stack,
    inputs pushed in field order, each with its cotangent: no walk, and no dict
    but the leaves'. At the first node that may have a second user it walks
    what is left (`_sweep_rest`). A constant's cotangent is not kept (under
    `debug_nans`, every node's is).
    """
    if debug_sites.get() is not None:  # debug_nans(): the one check a sweep pays
        return sweep_checked(toposort(root), {root: 1.0}, float_view, None)
    if type(root) is Leaf:
        return {root: 1.0}
    cotangents: dict[Node, float] = {}
    stack: list[object] = []  # a node, then its cotangent (or SHARED), in turn
    push, pop = stack.append, stack.pop
    root.vjp_push(1.0, cotangents, push)
    while stack:
        g = pop()
        node = pop()
        if g is SHARED:  # maybe a second user not swept yet: walk first
            push(node)
            push(g)
            return _sweep_rest(stack, cotangents)
        node.vjp_push(g, cotangents, push)  # type: ignore[attr-defined]  # pushed by a rule: a node, then a float
    return cotangents


def _sweep_rest(stack: list[object], cotangents: dict[Node, float]) -> dict[Node, float]:
    """`backward_leaves` from the nodes of ``stack`` on: a walk of them, then the sweep.

    The reverse topological order of what is left is the `postorder` of the
    stack's nodes, the first pushed first, reversed.
    """
    pending = stack[-2::-2]  # the nodes, the last pushed first: `_postorder` pops from the end
    for node, carried in zip(pending, stack[-1::-2], strict=True):
        if carried is not SHARED:  # carried on the stack: the walk's order will meet it
            cotangents[node] = carried  # type: ignore[index, assignment]  # a node and its cotangent
    stack.clear()
    take = cotangents.pop
    for node in reversed(_postorder(pending, (), inputs=False)):
        g = take(node, None)
        if g is not None:
            node.vjp_accumulate(g, cotangents)
    return cotangents


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
        # a compiled float rule's length was checked when its op was defined: strict is slow
        for x, gx in zip(ins, rule) if floats else zip(ins, rule, strict=True):  # noqa: B905
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
