"""Sweeps over several roots: forward (tangent) propagation and multi-seed reverse.

`forward` is forward mode: a topological order of the graph the function
built, then each node's ``jvp`` rule once, inputs before users. Like the
reverse sweep it is generic over the scalar type (`float_view` for a
first-order result, `node_view` for one that is differentiated again) and a
tangent that is absent is a symbolic zero, as in JAX and PyTorch: a node
none of whose inputs carries a tangent is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from ._nodes import S, Node, Scalar
from ._pytree import TreeDef, flatten, unflatten
from ._trace import debug_sites, float_view, nesting, node_view, toposort

Order = list[tuple[Node, tuple[Node, ...]]]


def toposort_many(roots: Sequence[Node], stop: Collection[Node] = ()) -> Order:
    """`toposort` of several roots at once: each node once, inputs before users."""
    order: Order = []
    seen: set[Node] = set()
    barrier = set(stop)  # nodes already emitted are not entered again
    for root in roots:
        for node, ins in toposort(root, barrier):
            if node not in seen:
                seen.add(node)
                order.append((node, ins))
        barrier.update(seen)
    return order


def forward(
    roots: Sequence[Node], seeds: Mapping[Node, S], primal: Callable[[Node], S]
) -> dict[Node, S]:
    """The forward sweep: the tangent of every node ``roots`` depend on.

    ``seeds`` maps variables to their tangents; the walk stops at them. Nodes
    whose tangent is zero are absent from the result.
    """
    tangents: dict[Node, S] = dict(seeds)
    checked = debug_sites.get() is not None  # debug_nans(): one read per sweep
    for node, _ in toposort_many(roots, seeds.keys()):
        if node in seeds:
            continue
        t = node.jvp(tangents, primal)
        if t is not None:
            if checked:
                from ._debug import tangent_nan  # lazy: _debug imports _trace

                tangent_nan(node, t, tangents)
            tangents[node] = t
    return tangents


def backward_many(
    seeds: Sequence[tuple[Node, S]],
    primal: Callable[[Node], S],
    stop: Collection[Node],
    keep: Collection[Node],
) -> dict[Node, S]:
    """One reverse sweep from several outputs, each with its cotangent.

    The outputs' cotangents are summed first (an output may appear twice), so
    every rule still runs once; only ``keep``'s cotangents are kept.
    """
    cotangents: dict[Node, S] = {}
    for node, g in seeds:
        prev = cotangents.get(node)
        cotangents[node] = g if prev is None else prev + g
    order = toposort_many([node for node, _ in seeds], stop)
    if debug_sites.get() is not None:
        from ._debug import sweep_checked  # lazy: _debug imports _trace

        return sweep_checked(order, cotangents, primal, keep)
    for node, ins in reversed(order):
        g = cotangents[node] if node in keep else cotangents.pop(node)
        if not ins:
            continue
        for x, gx in zip(ins, node.vjp(g, primal), strict=True):
            prev = cotangents.get(x)
            cotangents[x] = gx if prev is None else prev + gx
    return cotangents


def views(nested: bool) -> Callable[[Node], Scalar]:
    """The primal view of a sweep: nodes when the result is differentiated again."""
    return node_view if nested else float_view


def output_leaves(out: object, name: str) -> tuple[list[Scalar], TreeDef]:
    """The scalar leaves of a function's output, or a `TypeError` naming the path."""
    try:
        return flatten(out, "output")
    except TypeError as e:
        raise TypeError(f"{name}() needs the function to return a pytree of scalars: {e}") from e


def as_values(leaves: Sequence[Scalar], nested: bool) -> list[Scalar]:
    """Leaves as they are under an outer transform, else as floats."""
    if nested:
        return list(leaves)
    return [x if isinstance(x, float) else x.value for x in leaves]


def run_nested(fn: Callable[..., object], args: Sequence[object], kwargs: dict[str, object]) -> object:
    """Call ``fn`` one transform deeper (so inner transforms build nodes)."""
    token = nesting.set(nesting.get() + 1)
    try:
        return fn(*args, **kwargs)
    finally:
        nesting.reset(token)


def rebuild(tree: TreeDef, leaves: Sequence[object]) -> object:
    """`unflatten`, named for what the transforms do with it."""
    return unflatten(tree, leaves)
