"""`vmap`: map a function of one example over a batch; `stack`/`unstack` convert layouts.

A batch is stored as a struct of arrays, JAX's layout: the example's pytree
with every leaf replaced by a list holding that leaf's value in each example
(``{"x": [1.0, 2.0], "y": [3.0, 4.0]}`` is two examples). `in_axes` says per
positional argument which parts are batched (``0``) and which are passed
whole to every example (``None``), as a pytree prefix of the argument.

For now the function is called once per example, in order, so `vmap`
composes with every transform by construction: under an outer transform the
loop simply builds the graph.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, Protocol, TypeAlias, TypeVar, overload

import attrs

from ._nodes import Node, Scalar, _Arith
from ._pytree import Kind, TreeDef, flatten_any, unflatten
from ._trace import parents
from ._transforms import _positional_names

X = TypeVar("X", bound=Scalar)
X1 = TypeVar("X1", bound=Scalar)
X2 = TypeVar("X2", bound=Scalar)
R = TypeVar("R", bound=Scalar)
R1 = TypeVar("R1", bound=Scalar)
R2 = TypeVar("R2", bound=Scalar)
A = TypeVar("A")
K = TypeVar("K")
T_co = TypeVar("T_co", covariant=True)

InAxes: TypeAlias = Literal[0] | tuple[object, ...] | list[object]
"""``0``, or one entry per positional argument: ``0``, ``None`` or a pytree prefix of them."""
OutAxes: TypeAlias = Literal[0] | tuple[object, ...] | list[object] | Mapping[object, object] | None
"""``0``, ``None``, or a pytree prefix of the output whose leaves are ``0`` or ``None``."""


# ---- the typed surface ---------------------------------------------------------
# First match wins. Scalar examples keep their types (an `X` mapped is a
# `Sequence[X]`); other example pytrees cannot be spelled leaf by leaf, so
# their arguments are unchecked (`...`) and the result is typed by `fn`'s output.


class Batched(Protocol[T_co]):
    """What `vmap` returns when it cannot spell the argument types.

    Positional arguments of any type (checked at run time); the result is
    typed by ``fn``'s output.
    """

    def __call__(self, *args: object) -> T_co: ...


@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[X], R], in_axes: Literal[0] = 0, out_axes: Literal[0] = 0
) -> Callable[[Sequence[X]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Sequence[X]], R], in_axes: Literal[0] = 0, out_axes: Literal[0] = 0
) -> Callable[[Sequence[Sequence[X]]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Sequence[X]], Sequence[R]], in_axes: Literal[0] = 0, out_axes: Literal[0] = 0
) -> Callable[[Sequence[Sequence[X]]], list[list[R]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Mapping[K, X]], R], in_axes: Literal[0] = 0, out_axes: Literal[0] = 0
) -> Callable[[Mapping[K, Sequence[X]]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[X1, X2], R], in_axes: Literal[0] = 0, out_axes: Literal[0] = 0
) -> Callable[[Sequence[X1], Sequence[X2]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], R], in_axes: tuple[None, Literal[0]], out_axes: Literal[0] = 0
) -> Callable[[A, Sequence[X]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], R],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], list[R]]: ...
@overload
def vmap(
    fn: Callable[..., R], in_axes: InAxes = 0, out_axes: Literal[0] = 0
) -> Batched[list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[..., tuple[R1, R2]], in_axes: InAxes = 0, out_axes: Literal[0] = 0
) -> Batched[tuple[list[R1], list[R2]]]: ...
@overload
def vmap(
    fn: Callable[..., Mapping[K, R]], in_axes: InAxes = 0, out_axes: Literal[0] = 0
) -> Batched[dict[K, list[R]]]: ...
@overload
def vmap(
    fn: Callable[..., Sequence[R]], in_axes: InAxes = 0, out_axes: Literal[0] = 0
) -> Batched[list[list[R]]]: ...
@overload
def vmap(fn: Callable[..., R], in_axes: InAxes, out_axes: None) -> Batched[R]: ...
@overload
def vmap(
    fn: Callable[..., object], in_axes: InAxes = 0, out_axes: OutAxes = 0
) -> Batched[object]: ...
def vmap(
    fn: Callable[..., object], in_axes: InAxes = 0, out_axes: OutAxes = 0
) -> Callable[..., object]:
    """``fn`` of one example, mapped over a batch: one result per example.

    A mapped argument is a pytree whose leaves are equal-length lists (or
    tuples) of numbers, one per example: the example's pytree with each leaf
    replaced by its batch (`stack` builds it from a list of examples). The
    result has ``fn``'s output structure with each leaf a list over the
    batch. ``fn`` is called once per example, in order, so under an outer
    transform (``grad`` of a batch mean) the result is a graph.

    Args:
        fn: a function of one example, called with positional arguments.
        in_axes: ``0`` maps every positional argument; or a tuple (or list)
            with one entry per positional argument: ``0`` (mapped), ``None``
            (passed whole to every example: shared parameters), or a pytree
            prefix of the argument with ``0``/``None`` leaves.
        out_axes: ``0`` stacks each output leaf into a list over the batch;
            ``None`` returns it once, and checks that every example gave the
            same value without depending on a mapped argument; or a pytree
            prefix of the output with ``0``/``None`` leaves.

    Returns:
        A function taking the batched arguments (positionally).

    Raises:
        TypeError: (here) for a bad ``in_axes``/``out_axes`` type; (when
            called) for keyword arguments, or naming the path of a mapped leaf
            that is not a list of numbers.
        ValueError: (here) for an axis other than ``0``/``None`` or no mapped
            argument; (when called) for ragged batches (naming both paths and
            lengths), an empty batch, an ``in_axes`` that does not match the
            arguments, outputs of different structures, or an ``out_axes=None``
            output that differs between examples.

    >>> import autograd as ag
    >>> ag.vmap(lambda w, x: w * x, in_axes=(None, 0))(2.0, [1.0, 2.0, 3.0])
    [2.0, 4.0, 6.0]
    >>> ag.vmap(lambda e: {"sum": e["x"] + e["y"]})({"x": [1.0, 2.0], "y": [10.0, 20.0]})
    {'sum': [11.0, 22.0]}
    """
    if not callable(fn):
        raise TypeError(f"vmap() needs a function, got {_describe(fn)}")
    in_spec = _in_spec(in_axes)
    out_spec = _axes_tree(out_axes, "out_axes")
    names = _positional_names(fn)

    @functools.wraps(fn)
    def mapped(*args: object, **kwargs: object) -> object:
        if kwargs:
            raise TypeError(
                f"vmap: keyword arguments ({', '.join(kwargs)}) are not mapped; pass them "
                "positionally with an in_axes entry, or bind them with functools.partial"
            )
        batch = _Batch(args, in_spec, names)
        outs = [batch.call(fn, i) for i in range(batch.size)]
        return _stack_outputs(outs, out_spec, batch)

    return mapped


@overload
def stack(examples: Sequence[X]) -> list[X]: ...
@overload
def stack(examples: Sequence[Mapping[K, X]]) -> dict[K, list[X]]: ...
@overload
def stack(examples: Sequence[Sequence[X]]) -> list[list[X]]: ...
@overload
def stack(examples: Sequence[object]) -> object: ...
def stack(examples: Sequence[object]) -> object:
    """A list of example pytrees as one batch: each leaf becomes a list over the examples.

    The layout `vmap` maps over (a struct of arrays). The inverse of `unstack`.

    Args:
        examples: pytrees of numbers, all of the same structure (dict keys in
            the same order).

    Returns:
        The examples' structure with each leaf a list, one value per example.

    Raises:
        TypeError: if ``examples`` is not a list or tuple, or naming the path
            of a leaf that is not a number.
        ValueError: for no example, or naming the first path where an
            example's structure differs from the first one's.

    >>> import autograd as ag
    >>> ag.stack([{"x": 1.0, "y": 4.0}, {"x": 2.0, "y": 5.0}])
    {'x': [1.0, 2.0], 'y': [4.0, 5.0]}
    """
    if type(examples) not in (list, tuple):
        raise TypeError(f"stack() takes a list or tuple of examples, got {_describe(examples)}")
    if not examples:
        raise ValueError(
            "stack() needs at least one example: the batch's structure comes from them"
        )
    columns = _columns(examples, "examples[{i}]", "stack(): ")
    return unflatten(flatten_any(examples[0])[1], columns)


@overload
def unstack(batch: Sequence[X]) -> list[X]: ...
@overload
def unstack(batch: Mapping[K, Sequence[X]]) -> list[dict[K, X]]: ...
@overload
def unstack(batch: object) -> list[object]: ...
def unstack(batch: object) -> Sequence[object]:
    """A batch (leaves that are equal-length lists) as a list of example pytrees.

    The inverse of `stack`; also turns `vmap`'s results into one result per example.

    Args:
        batch: a pytree whose leaves are equal-length lists (or tuples) of numbers.

    Returns:
        One pytree per example, in order (an empty list for a batch of 0).

    Raises:
        TypeError: naming the path of a leaf that is not a list of numbers.
        ValueError: for ragged lists (naming both paths and lengths), or a
            batch with no list at all.

    >>> import autograd as ag
    >>> ag.unstack({"x": [1.0, 2.0], "y": [4.0, 5.0]})
    [{'x': 1.0, 'y': 4.0}, {'x': 2.0, 'y': 5.0}]
    """
    arg = _Arg(batch, _LEAF, "batch", "")
    size = _batch_size(arg.columns, "unstack(): ", allow_empty=True)
    return [arg.example(i) for i in range(size)]


# ---- in_axes and out_axes ------------------------------------------------------

Axis: TypeAlias = Literal[0] | None
_LEAF = TreeDef(Kind.LEAF)  # an axes tree that is just 0: map everything below


def _in_spec(in_axes: object) -> TreeDef | tuple[TreeDef, ...]:
    """``in_axes`` as one axes tree for every argument, or one per argument."""
    if type(in_axes) in (list, tuple):  # not a NamedTuple: that would be one argument's prefix
        entries: Sequence[object] = in_axes  # type: ignore[assignment]  # a list or tuple, as tested
        trees = tuple(_axes_tree(e, f"in_axes[{i}]") for i, e in enumerate(entries))
        if not any(t.num_leaves for t in trees):
            raise ValueError(
                f"vmap(): in_axes={in_axes!r} maps no argument; at least one entry must "
                "be 0 or hold a 0 (as in JAX)"
            )
        return trees
    if in_axes is None:
        raise ValueError(
            "vmap(): in_axes=None maps no argument; use 0 to map every argument, or a "
            "tuple such as (None, 0) with one entry per positional argument"
        )
    tree = _axes_tree(in_axes, "in_axes")
    if tree.kind is not Kind.LEAF:
        raise TypeError(
            f"vmap(): in_axes must be 0 or a tuple (or list) with one entry per positional "
            f"argument, got {_describe(in_axes)}; for one argument's pytree prefix write (prefix,)"
        )
    return tree


def _axes_tree(axes: object, root: str) -> TreeDef:
    """The shape of an axes pytree whose leaves are all ``0`` (``None`` is a `NONE` subtree)."""
    leaves, tree = flatten_any(axes)
    for x, path in zip(leaves, _leaf_paths(tree, root), strict=True):
        if type(x) is int:
            if x != 0:
                raise ValueError(
                    f"vmap(): {path} is {x}: a batch here has one axis, so an axis is 0 "
                    "(mapped) or None (passed whole to every example)"
                )
        else:
            raise TypeError(f"vmap(): {path} is a {_describe(x)}: an axis is 0 or None")
    return tree


_DESCEND: Literal["descend"] = "descend"


def _resolve(axes: TreeDef, tree: TreeDef, axes_path: str, path: str) -> Axis | Literal["descend"]:
    """The axis ``axes`` gives all of ``tree``, or `_DESCEND` into a matching container.

    Raises:
        ValueError: if ``axes`` is a container that ``tree`` does not match.
    """
    if axes.kind is Kind.LEAF:
        return 0
    if axes.kind is Kind.NONE:
        return None
    if not _same_node(axes, tree):
        raise ValueError(
            f"vmap: {axes_path} is {_shape(axes)} but {path} is {_shape(tree)}: an axes "
            "entry must be a prefix of its argument's pytree (0 or None where it stops)"
        )
    return _DESCEND


# ---- splitting arguments into examples -------------------------------------------


@attrs.frozen
class _Column:
    """One mapped leaf: its value in every example, and its path for messages."""

    values: Sequence[object]
    path: str


class _Arg:
    """One positional argument: passed whole, or rebuilt per example from its slots.

    A slot is a `_Column` (indexed per example) or a broadcast leaf (the same
    object in every example).
    """

    def __init__(self, arg: object, axes: TreeDef, root: str, axes_root: str) -> None:
        self.whole = arg
        self.tree: TreeDef | None = None
        self.slots: list[object] = []
        if axes.kind is not Kind.NONE:  # None passes the argument itself, untouched
            leaves, tree = flatten_any(arg)
            self.tree, self.slots = _split(tree, leaves, axes, root, axes_root)
        self.columns = [s for s in self.slots if isinstance(s, _Column)]

    def example(self, i: int) -> object:
        """The argument of example ``i``."""
        if self.tree is None:
            return self.whole
        return unflatten(
            self.tree, [s.values[i] if isinstance(s, _Column) else s for s in self.slots]
        )


_Task: TypeAlias = tuple[TreeDef, TreeDef | Axis, str] | TreeDef


def _split(
    tree: TreeDef, leaves: list[object], axes: TreeDef, root: str, axes_root: str
) -> tuple[TreeDef, list[object]]:
    """The example's shape (each mapped list a leaf) and its slots, in leaf order.

    An iterative pre-order walk of ``tree`` beside its axes prefix; a bare
    `TreeDef` on the stack rebuilds that container from its children's shapes.
    """
    slots: list[object] = []
    done: list[TreeDef] = []
    at = 0  # leaves before the current subtree
    stack: list[_Task] = [(tree, axes, "")]
    while stack:
        task = stack.pop()
        if isinstance(task, TreeDef):  # all its children are done
            n = len(task.children)
            kids = tuple(done[len(done) - n :])
            del done[len(done) - n :]
            done.append(attrs.evolve(task, children=kids))
            continue
        t, axis, suffix = task
        if isinstance(axis, TreeDef):
            resolved = _resolve(axis, t, axes_root + suffix, root + suffix)
            if resolved == _DESCEND:
                stack.append(t)
                subs = zip(t.children, axis.children, _suffixes(t, suffix), strict=True)
                stack.extend(reversed(list(subs)))
                continue
            axis = resolved
        if axis is None:
            slots.extend(leaves[at : at + t.num_leaves])
            at += t.num_leaves
            done.append(t)
            continue
        column = _column(t, leaves, at, root + suffix)
        if column is not None:
            slots.append(column)
            at += t.num_leaves
            done.append(_LEAF)
        elif t.kind is Kind.NONE:
            done.append(t)
        else:
            stack.append(t)
            stack.extend(
                reversed([(c, 0, s) for c, s in zip(t.children, _suffixes(t, suffix), strict=True)])
            )
    return done[0], slots


def _column(t: TreeDef, leaves: list[object], at: int, path: str) -> _Column | None:
    """The batch at ``t`` if it is one (a list of numbers), None for a container of batches.

    Raises:
        TypeError: naming the path of a number that is not in a list, or of a
            list element that is not a number.
    """
    if t.kind in (Kind.LIST, Kind.TUPLE) and (
        not t.children or any(c.kind is Kind.LEAF for c in t.children)
    ):
        for k, c in enumerate(t.children):
            if c.kind is not Kind.LEAF:
                raise TypeError(
                    f"vmap: {path}[{k}] is {_shape(c)} in a list of numbers: a mapped leaf is "
                    "a list of numbers, one per example"
                )
        values: Sequence[object] = leaves[at : at + len(t.children)]
    elif t.kind is Kind.LEAF:
        x = leaves[at]
        if not isinstance(x, Sequence) or isinstance(x, str | bytes | bytearray):
            raise TypeError(
                f"vmap: {path} is a {_describe(x)}, not a batch: each leaf of a mapped "
                "argument is a list of numbers, one per example (give it the axis None in "
                "in_axes to pass it whole to every example)"
            )
        values = x
    else:
        return None
    for k, v in enumerate(values):
        if not _is_number(v):
            raise TypeError(
                f"vmap: {path}[{k}] is a {_describe(v)}: a batch holds numbers "
                "(float, int or a node), one per example"
            )
    return _Column(values, path)


def _batch_size(columns: Sequence[_Column], who: str, allow_empty: bool = False) -> int:
    """The common length of ``columns``.

    Raises:
        ValueError: for no column, ragged columns, or (unless ``allow_empty``) length 0.
    """
    if not columns:
        raise ValueError(
            f"{who}no mapped argument holds a batch (a list of numbers): there is "
            "nothing to map over"
        )
    first = columns[0]
    for c in columns[1:]:
        if len(c.values) != len(first.values):
            raise ValueError(
                f"{who}{first.path} has {len(first.values)} examples but {c.path} "
                f"has {len(c.values)}"
            )
    if not first.values and not allow_empty:
        raise ValueError(
            f"{who}the batch is empty ({first.path} has 0 examples): the output's structure "
            "is only known by calling the function on an example; skip empty batches"
        )
    return len(first.values)


class _Batch:
    """The positional arguments of one call, split into examples."""

    def __init__(
        self, args: tuple[object, ...], spec: TreeDef | tuple[TreeDef, ...], names: list[str]
    ) -> None:
        if isinstance(spec, tuple) and len(spec) != len(args):
            raise ValueError(
                f"vmap: in_axes has {len(spec)} entries but the function was called with "
                f"{len(args)} positional argument(s)"
            )
        specs = spec if isinstance(spec, tuple) else (spec,) * len(args)
        axes_roots = [
            f"in_axes[{i}]" if isinstance(spec, tuple) else "in_axes" for i in range(len(args))
        ]
        self.args = [
            _Arg(a, s, names[i] if i < len(names) else f"args[{i}]", axes_roots[i])
            for i, (a, s) in enumerate(zip(args, specs, strict=True))
        ]
        self.columns = [c for a in self.args for c in a.columns]
        self.size = _batch_size(self.columns, "vmap: ")
        self.clean: set[Node] = set()  # nodes known not to depend on a mapped node

    def call(self, fn: Callable[..., object], i: int) -> object:
        """``fn`` on example ``i``; an exception says which example raised it."""
        example = [a.example(i) for a in self.args]
        try:
            return fn(*example)
        except Exception as e:
            e.add_note(f"(raised by vmap's call on example {i} of {self.size})")
            raise

    def depends(self, x: Node) -> bool:
        """Whether ``x``'s graph reaches a node of a mapped argument (an iterative walk)."""
        mapped = {v for c in self.columns for v in c.values if isinstance(v, _Arith)}
        seen: set[Node] = set()
        stack = [x]
        while stack:
            node = stack.pop()
            if node in mapped:
                return True
            if node not in seen and node not in self.clean:
                seen.add(node)
                stack.extend(parents(node))
        self.clean |= seen
        return False


# ---- stacking outputs ------------------------------------------------------------


def _stack_outputs(outs: list[object], axes: TreeDef, batch: _Batch) -> object:
    """The outputs of every example as one pytree, each leaf per its axis."""
    tree = flatten_any(outs[0])[1]
    columns = _columns(outs, "fn(example {i})", "vmap: ")
    leaves: list[object] = []
    for column, (path, axis) in zip(columns, _leaf_axes(axes, tree), strict=True):
        leaves.append(column if axis == 0 else _unbatched(column, path, batch))
    return unflatten(tree, leaves)


def _columns(trees: Sequence[object], root: str, who: str) -> list[list[object]]:
    """Leaf ``k`` of every tree, for each ``k``; the trees must have one structure.

    Raises:
        TypeError: naming the path (``root`` formatted with the tree's index)
            of a leaf that is not a number.
        ValueError: naming the first path where a tree's structure differs
            from the first tree's.
    """
    first_leaves, first = flatten_any(trees[0])
    columns: list[list[object]] = [[] for _ in first_leaves]
    for i, x in enumerate(trees):
        leaves, tree = (first_leaves, first) if i == 0 else flatten_any(x)
        if tree != first:
            suffix, a, b = _first_difference(tree, first)
            raise ValueError(
                f"{who}{root.format(i=i)}{suffix} is {_shape(a)} but {root.format(i=0)}{suffix} "
                f"is {_shape(b)}: every example must have the same structure"
            )
        for column, v in zip(columns, leaves, strict=True):
            column.append(v)
        bad = next((k for k, v in enumerate(leaves) if not _is_number(v)), None)
        if bad is not None:
            path = _leaf_paths(tree, root.format(i=i))[bad]
            raise TypeError(f"{who}{path} is a {_describe(leaves[bad])}: leaves must be numbers")
    return columns


def _leaf_axes(axes: TreeDef, tree: TreeDef) -> list[tuple[str, Axis]]:
    """The path and axis of every leaf of the output ``tree``, in leaf order."""
    out: list[tuple[str, Axis]] = []
    stack: list[tuple[TreeDef, TreeDef, str]] = [(tree, axes, "")]
    while stack:
        t, a, suffix = stack.pop()
        axis = _resolve(a, t, "out_axes" + suffix, "the output" + suffix)
        if axis == _DESCEND:
            subs = zip(t.children, a.children, _suffixes(t, suffix), strict=True)
            stack.extend(reversed(list(subs)))
        else:
            out.extend((p, axis) for p in _leaf_paths(t, "output" + suffix))
    return out


def _unbatched(column: list[object], path: str, batch: _Batch) -> object:
    """The one value of an ``out_axes=None`` leaf, checked to be the same in every example.

    Raises:
        ValueError: if it depends on a mapped argument or differs between examples.
    """
    if any(isinstance(x, _Arith) and batch.depends(x) for x in column):  # type: ignore[arg-type]  # every _Arith is a Node
        raise ValueError(
            f"vmap: {path} depends on a mapped argument, but its out_axes is None; "
            "use out_axes=0 to get one value per example"
        )
    first = column[0]
    try:
        values = [x.value if isinstance(x, _Arith) else x for x in column]  # type: ignore[attr-defined]  # every _Arith has a value
    except TypeError:
        # jit's trace refuses `.value` reads (and so any branch on a mapped
        # value): the outputs then depend on broadcast arguments only, as checked.
        return first
    for i, v in enumerate(values):
        if not _same_value(v, values[0]):
            raise ValueError(
                f"vmap: {path} is {v!r} in example {i} but {values[0]!r} in example 0; "
                "out_axes=None needs the same value in every example (use out_axes=0)"
            )
    return first


# ---- small helpers -----------------------------------------------------------------


def _is_number(x: object) -> bool:
    return isinstance(x, _Arith) or (type(x) is not bool and isinstance(x, int | float))


def _same_value(a: object, b: object) -> bool:
    """Equal as float64 bits would be, except that every nan equals every nan."""
    if a != a:
        return b != b
    return a == b and (a != 0 or math.copysign(1.0, a) == math.copysign(1.0, b))  # type: ignore[arg-type]  # numbers


def _describe(x: object) -> str:
    return f"{type(x).__name__} ({x!r:.60})"


def _suffixes(t: TreeDef, suffix: str) -> list[str]:
    """The path suffix of each child of ``t``: ``[0]``, ``['w']`` or ``.name``."""
    if t.kind in (Kind.NAMEDTUPLE, Kind.ATTRS):
        return [f"{suffix}.{k}" for k in t.keys]
    if t.kind is Kind.DICT:
        return [f"{suffix}[{k!r}]" for k in t.keys]
    return [f"{suffix}[{i}]" for i in range(len(t.children))]


def _leaf_paths(tree: TreeDef, root: str) -> list[str]:
    """The path of every leaf of ``tree``, in leaf order (an iterative walk)."""
    out: list[str] = []
    stack = [(tree, root)]
    while stack:
        t, path = stack.pop()
        if t.kind is Kind.LEAF:
            out.append(path)
        else:
            stack.extend(reversed(list(zip(t.children, _suffixes(t, path), strict=True))))
    return out


def _same_node(a: TreeDef, b: TreeDef) -> bool:
    """Same container at the top: kind, class, keys and number of children."""
    return (a.kind, a.meta, a.keys, len(a.children)) == (b.kind, b.meta, b.keys, len(b.children))


def _first_difference(a: TreeDef, b: TreeDef) -> tuple[str, TreeDef, TreeDef]:
    """The first path (in leaf order) where two different shapes differ, and both subtrees."""
    stack = [(a, b, "")]
    while stack:
        x, y, suffix = stack.pop()
        if not _same_node(x, y):
            return suffix, x, y
        stack.extend(reversed(list(zip(x.children, y.children, _suffixes(x, suffix), strict=True))))
    return "", a, b  # equal shapes: not reached for a != b


def _shape(t: TreeDef) -> str:
    """``a list of 3``, ``a dict with keys ['w', 'b']``: one level of a shape, for messages."""
    match t.kind:
        case Kind.LEAF:
            return "a leaf"
        case Kind.NONE:
            return "None"
        case Kind.LIST | Kind.TUPLE:
            return f"a {t.kind.name.lower()} of {len(t.children)}"
        case Kind.DICT:
            return f"a dict with keys {list(t.keys)}"
        case Kind.NAMEDTUPLE | Kind.ATTRS:
            return f"a {getattr(t.meta[0], '__name__', t.meta[0])}"
