"""The cache key of a `jit` call: the arguments' structure, and their traced floats.

A call's key is the structure of its traced arguments (containers by exact
type, dict keys, how many floats) and its static and keyword arguments,
numbers by type and bits (`static_key`): ``0.0`` and ``-0.0``, ``1`` and
``1.0`` key apart, and a nan matches itself. The floats come out flat, in
the order the compiled code reads them. Lists, tuples, dicts and floats take
a fast walk (`shape_of`); anything else the pytree flatten (`slow_shape`).
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable, Collection, Sequence
from itertools import repeat
from typing import cast

import attrs

from autograd.compiler.arrays import HAVE_NUMPY
from autograd.core.floats import int_to_float
from autograd.core.nodes import _Arith
from autograd.pytree import TreeDef, flatten, flatten_any, paths, unflatten
from autograd.transforms.arguments import Arguments
from autograd.transforms.batch import is_float_array


def name_of(fn: object) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


class Slow(Exception):
    """The arguments need the general pytree flatten."""


class HoldsNode(Exception):
    """A node among the arguments: the call runs eagerly and its key is never stored."""


def call_key(
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
    fn: Callable[..., object],
    vg: Arguments | None,
) -> tuple[tuple[object, ...] | None, object, list[float]]:
    """The structure of a call's arguments, its cache key and its traced leaves, flat.

    The structure is `fast_shape`'s, which `dispatch` can check a later call
    against; None for a call with keyword arguments or one that needs the
    general flatten.

    Raises:
        HoldsNode: if a traced, static or keyword argument holds a node.
    """
    flat: list[float] = []
    shapes: tuple[object, ...] | None = None
    try:
        if static:  # `fast_shape`, inline: a jitted call's fixed cost
            shapes = tuple(
                static_key(a, f"static argument {i}", fn) if i in static else shape_of(a, flat)
                for i, a in enumerate(args)
            )
        else:  # the common case, every argument traced: no generator, one call less
            shapes = tuple(map(shape_of, args, repeat(flat)))
        shape: object = shapes
    except Slow:
        shape, flat = slow_shape(args, static, fn, vg)
    if not kwargs:
        return shapes, (shape, ()), flat
    kw = tuple((k, static_key(v, f"keyword argument {k!r}", fn)) for k, v in kwargs.items())
    return None, (shape, kw), flat


def fast_shape(
    args: tuple[object, ...], static: Collection[int], fn: Callable[..., object]
) -> tuple[tuple[object, ...], list[float]]:
    """The structure and flat inputs for lists, tuples, dicts and floats, with static arguments."""
    flat: list[float] = []
    shape = tuple(
        static_key(a, f"static argument {i}", fn) if i in static else shape_of(a, flat)
        for i, a in enumerate(args)
    )
    return shape, flat


FAST_DEPTH = 100
"""Deeper (or cyclic) arguments take the iterative pytree flatten: no recursion limit."""


def shape_of(x: object, out: list[float], depth: int = 0) -> object:
    if depth > FAST_DEPTH:
        raise Slow
    t = type(x)
    if t is float:
        out.append(x)  # type: ignore[arg-type]  # mypy does not narrow on `type(x) is`
        return float
    # no cast() below (a call each): a flat container of floats is a call's fixed cost
    if t is dict:
        keys: tuple[object, ...] = tuple(x)  # type: ignore[arg-type]  # a dict
        if list(map(type, keys)).count(str) != len(keys):  # {1: ..} and {True: ..} differ
            keys = tuple([static_key(k, "", None) for k in keys])  # a str is its own key
        values = list(x.values())  # type: ignore[attr-defined]  # a dict
        if list(map(type, values)).count(float) == len(values):
            out += values
            return (t, keys, len(values))  # all floats: their number (no shape is an int)
        return (t, keys, *[shape_of(v, out, depth + 1) for v in values])
    if t is list or t is tuple:
        items: Sequence[object] = x  # type: ignore[assignment]  # a list or tuple
        if list(map(type, items)).count(float) == len(items):
            out += items  # type: ignore[arg-type]  # floats, as tested
            return (t, len(items))
        return (t, *[shape_of(v, out, depth + 1) for v in items])
    if t is int:
        out.append(int_to_float(cast(int, x)))
        return float
    if is_float_array(x):  # a batch for a vmap inside: passed as it is (`expand` for loops)
        out.append(x)  # type: ignore[arg-type]  # an array among the floats
        return (ARRAY, len(x))  # type: ignore[arg-type]  # a 1-d array has a length
    raise Slow


ARRAY = "float64 array"
"""A 1-d NumPy float64 array in a cache key (with its length)."""


def expand(flat: list[float]) -> list[float]:
    """``flat`` with each array replaced by its floats: the inputs of a trace that loops."""
    out: list[float] = []
    for x in flat:
        if type(x) is float:
            out.append(x)
        else:
            out.extend(x.tolist())  # type: ignore[attr-defined]  # an array, as `shape_of` put it
    return out


def arrays_as_lists(x: object) -> object:
    """``x`` with each array (in any container) as a list of floats, for tracing."""
    leaves, tree = flatten_any(x)
    if not any(map(is_float_array, leaves)):
        return x
    return unflatten(tree, [v.tolist() if is_float_array(v) else v for v in leaves])  # type: ignore[attr-defined]  # an array


def groups(shaped: object, grouped: Callable[[object], bool]) -> Groups | None:
    """``shaped``'s tree, and per leaf its length if it is ``grouped`` (an array); None if none is.

    `regroup` rebuilds the tree from the same tree with each group as the
    list of its items (as `arrays_as_lists` makes it), items perhaps replaced.
    It holds no leaf, so a compiled entry may keep it.
    """
    leaves, tree = flatten_any(shaped)
    sizes = [len(x) if grouped(x) else None for x in leaves]  # type: ignore[arg-type]  # a group
    return None if sizes.count(None) == len(sizes) else (tree, sizes)


Groups = tuple[TreeDef, list[int | None]]
"""A tree and, per leaf, its length if it is a group (an array), else None (`groups`)."""


def regroup(shape: Groups, expanded: object, make: Callable[[list[object]], object]) -> object:
    """The tree of `groups` with ``make`` of each group's items, read from ``expanded``."""
    tree, sizes = shape
    items, _ = flatten_any(expanded)
    out: list[object] = []
    at = 0
    for n in sizes:
        out.append(items[at] if n is None else make(items[at : at + n]))
        at += 1 if n is None else n
    return unflatten(tree, out)


def slow_shape(
    args: tuple[object, ...],
    static: Collection[int],
    fn: Callable[..., object],
    vg: Arguments | None,
) -> tuple[object, list[float]]:
    """Any pytree, with dict keys and attribute names by type and bits."""
    flat: list[float] = []
    shape: list[object] = []
    for i, a in enumerate(args):
        if i in static:
            shape.append(static_key(a, f"static argument {i}", fn))
            continue
        leaves, tree = flatten_arg(a, i, fn, vg)
        if any(isinstance(x, _Arith) for x in leaves):
            raise HoldsNode
        flat.extend(leaves)  # type: ignore[arg-type]  # floats and arrays: nodes ruled out
        lengths = tuple(len(x) for x in leaves if type(x) is not float)  # type: ignore[arg-type]  # arrays
        shape.append((tree, tree_keys(tree), lengths))
    return tuple(shape), flat


def tree_keys(tree: TreeDef) -> tuple[object, ...]:
    """Every dict key of ``tree`` by type and bits (`TreeDef` compares them with ``==``)."""
    keys: list[object] = []
    stack = [tree]
    while stack:  # iterative, like every walk of a pytree
        node = stack.pop()
        keys.extend(static_key(k, "", None) for k in node.keys)
        stack.extend(node.children)
    return tuple(keys)


BITS = struct.Struct("<d")


def static_key(x: object, where: str, fn: Callable[..., object] | None) -> object:
    """``x`` as part of a cache key: numbers by type and bits, anything else by type and ``==``.

    So ``0.0`` and ``-0.0``, ``1``, ``1.0`` and ``True`` are different keys, and a
    nan matches itself (``==`` would retrace it on every call). Tuples and
    frozensets are keyed element by element; a dataclass or attrs instance
    by ``==`` and by its compared fields' keys.

    Raises:
        HoldsNode: if ``x`` is or holds a node (keeping it would keep its graph alive).
        TypeError: if ``x`` is unhashable.
    """
    t = type(x)
    if t is str:
        return x
    if isinstance(x, float):
        return (t, BITS.pack(x))
    if isinstance(x, complex):
        return (t, BITS.pack(x.real), BITS.pack(x.imag))
    if isinstance(x, tuple):
        return (t, *[static_key(v, where, fn) for v in x])
    if isinstance(x, frozenset):
        return (t, frozenset([static_key(v, where, fn) for v in x]))
    if holds_node(x):
        raise HoldsNode
    try:
        hash(x)
    except TypeError:
        raise TypeError(
            f"jit({name_of(fn)}): {where} is part of the cache key and must be hashable, but it "
            f"holds a {t.__name__} ({x!r:.60}); pass a tuple or frozenset, or make it traced"
        ) from None
    # ``Config(0.0) == Config(-0.0)``: its fields' bits too, so never coarser than either
    fields = _compared_fields(t)
    if fields:
        return (t, x, *[_field_key(getattr(x, f), f"{where}.{f}", fn) for f in fields])
    return (t, x)


def _field_key(v: object, where: str, fn: Callable[..., object] | None) -> object:
    """A compared field's key; an unhashable field (``hash=False``) is left to ``==``."""
    try:
        return static_key(v, where, fn)
    except TypeError:
        return None


def _compared_fields(t: type) -> list[str]:
    """The fields a dataclass's or an attrs class's ``==`` compares (none for another class)."""
    if attrs.has(t):
        return [a.name for a in attrs.fields(t) if a.eq]
    if dataclasses.is_dataclass(t):
        return [f.name for f in dataclasses.fields(t) if f.compare]
    return []


def holds_node(x: object) -> bool:
    """A node, or an attrs or dataclass instance with a node in a field (one level)."""
    if isinstance(x, _Arith):
        return True
    if attrs.has(type(x)):
        leaves, _ = flatten_any(x)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        leaves, _ = flatten_any([getattr(x, f.name) for f in dataclasses.fields(x)])
    else:
        return False
    return any(isinstance(v, _Arith) for v in leaves)


def flatten_arg(
    a: object, i: int, fn: Callable[..., object], vg: Arguments | None
) -> tuple[list[object], TreeDef]:
    """The leaves of traced argument ``i`` and its shape; a 1-d float64 array is one leaf.

    An array is a batch for a `vmap` inside (as `shape_of` keeps it); every
    other leaf is checked as `flatten` checks it, with its path in errors.
    """
    root = vg.root(i) if vg is not None else f"args[{i}]"
    try:
        try:
            leaves, tree = flatten(a, root)
        except TypeError:
            found = with_arrays(a, root)
            if found is None:
                raise
            return found
    except TypeError as e:
        raise TypeError(
            f"jit({name_of(fn)}): {_other_array(a, root) or e}; "
            f"mark argument {i} static (static_argnums=({i},)) if it is not data"
        ) from None
    return list(leaves), tree


def _other_array(a: object, root: str) -> str | None:
    """What is wrong with the first NumPy array in ``a`` that is not 1-d float64, if any."""
    try:
        leaves, tree = flatten_any(a, root)
    except TypeError:  # a pytree that contains itself: `flatten`'s message says so
        return None
    for path, x in zip(paths(tree, root), leaves, strict=True):
        t = type(x)
        if t.__name__ == "ndarray" and t.__module__ == "numpy" and not is_float_array(x):
            shape, dtype = x.shape, x.dtype  # type: ignore[attr-defined]  # an array
            return (
                f"{path} is a NumPy array of dtype {dtype} and shape {shape}, but jit takes "
                "1-d float64 arrays (a batch for a vmap inside): pass "
                "numpy.asarray(..., dtype=numpy.float64) of a 1-d array"
            )
    return None


def with_arrays(a: object, root: str) -> tuple[list[object], TreeDef] | None:
    """`flatten` of ``a`` with each 1-d float64 array a leaf; None if ``a`` holds none."""
    if not HAVE_NUMPY:
        return None
    anything, tree = flatten_any(a, root)
    if not any(map(is_float_array, anything)):
        return None
    # the other leaves checked by `flatten` itself: each array swapped for an empty list
    rest, _ = flatten(unflatten(tree, [[] if is_float_array(x) else x for x in anything]), root)
    it = iter(rest)
    return [x if is_float_array(x) else next(it) for x in anything], tree
