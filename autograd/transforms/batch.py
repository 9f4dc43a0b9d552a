"""The machinery of `vmap`: split batched arguments into examples, stack the outputs.

A batch is a struct of arrays: the example's pytree with each leaf a list over
the batch. `Arg` walks an argument beside its ``in_axes`` prefix (iteratively)
to find those lists and the example's shape; `stack_outputs` checks that every
example's output has one structure and applies ``out_axes``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias, cast

import attrs

from autograd.core.batching import TracedArray
from autograd.core.context import TraceState, trace_state
from autograd.core.convert import NotANumber, to_float
from autograd.core.nodes import Const, Node, _Arith, number_in_eager, parents, plain_in_eager
from autograd.core.rulegen import RAW_VALUE
from autograd.pytree import Kind, TreeDef, flatten_any, unflatten

# ---- in_axes and out_axes ------------------------------------------------------

Axis: TypeAlias = Literal[0] | None
LEAF_AXES = TreeDef(Kind.LEAF)  # an axes tree that is just 0: map everything below


def in_spec(in_axes: object) -> TreeDef | tuple[TreeDef, ...]:
    """``in_axes`` as one axes tree for every argument, or one per argument."""
    if type(in_axes) in (list, tuple):  # not a NamedTuple: that would be one argument's prefix
        entries: Sequence[object] = in_axes  # type: ignore[assignment]  # a list or tuple, as tested
        trees = tuple(axes_tree(e, f"in_axes[{i}]") for i, e in enumerate(entries))
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
    tree = axes_tree(in_axes, "in_axes")
    if tree.kind is not Kind.LEAF:
        raise TypeError(
            f"vmap(): in_axes must be 0 or a tuple (or list) with one entry per positional "
            f"argument, got {describe(in_axes)}; for one argument's pytree prefix write (prefix,)"
        )
    return tree


def axes_tree(axes: object, root: str) -> TreeDef:
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
            raise TypeError(f"vmap(): {path} is a {describe(x)}: an axis is 0 or None")
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
    if not _same_node(axes, tree, by_key=True):
        raise ValueError(
            f"vmap: {axes_path} is {_shape(axes)} but {path} is {_shape(tree)}: an axes "
            "entry must be a prefix of its argument's pytree (0 or None where it stops)"
        )
    return _DESCEND


# ---- splitting arguments into examples -------------------------------------------


class _Column:
    """One mapped leaf: its value in every example, and its path for messages.

    ``values`` are floats and nodes, or a native float64 NumPy array (`vmap`
    converts what it is given, `to_float`); ``items`` reads them one example
    at a time as Python floats (an array's elements as ``float``, not NumPy's
    scalars, so that ``fn`` sees what the compiled program computes on).
    """

    __slots__ = ("_items", "path", "values")

    def __init__(self, values: Sequence[object], path: str) -> None:
        self.values = values
        self.path = path
        self._items: Sequence[object] | None = None

    @property
    def items(self) -> Sequence[object]:
        if self._items is None:  # on first use: `jit` reads the array whole, never this
            values = self.values
            self._items = values.tolist() if is_float_array(values) else values  # type: ignore[attr-defined]  # an array
        return self._items


class Arg:
    """One positional argument: passed whole, or rebuilt per example from its slots.

    A slot is a `_Column` (indexed per example) or a broadcast leaf (the same
    object in every example).
    """

    def __init__(
        self,
        arg: object,
        axes: TreeDef,
        root: str,
        axes_root: str,
        who: str = "vmap: ",
        convert: bool = True,
    ) -> None:
        self.whole = arg
        self.tree: TreeDef | None = None
        self.slots: list[object] = []
        if axes.kind is not Kind.NONE:  # None passes the argument itself, untouched
            leaves, tree = flatten_any(arg)
            self.tree, self.slots = _split(tree, leaves, axes, root, axes_root, who, convert)
        self.columns = [s for s in self.slots if isinstance(s, _Column)]

    def example(self, i: int) -> object:
        """The argument of example ``i``."""
        if self.tree is None:
            return self.whole
        return unflatten(
            self.tree, [s.items[i] if isinstance(s, _Column) else s for s in self.slots]
        )


_Task: TypeAlias = tuple[TreeDef, TreeDef | Axis, str] | TreeDef


def _split(
    tree: TreeDef,
    leaves: list[object],
    axes: TreeDef,
    root: str,
    axes_root: str,
    who: str,
    convert: bool,
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
                subs = zip(t.children, _children_of(axis, t), _suffixes(t, suffix), strict=True)
                stack.extend(reversed(list(subs)))
                continue
            axis = resolved
        if axis is None:
            slots.extend(leaves[at : at + t.num_leaves])
            at += t.num_leaves
            done.append(t)
            continue
        column = _column(t, leaves, at, root + suffix, who, convert)
        if column is not None:
            slots.append(column)
            at += t.num_leaves
            done.append(LEAF_AXES)
        elif t.kind is Kind.NONE:
            done.append(t)
        else:
            stack.append(t)
            stack.extend(
                reversed([(c, 0, s) for c, s in zip(t.children, _suffixes(t, suffix), strict=True)])
            )
    return done[0], slots


def _column(
    t: TreeDef, leaves: list[object], at: int, path: str, who: str, convert: bool
) -> _Column | None:
    """The batch at ``t`` if it is one (a list of numbers), None for a container of batches.

    With ``convert`` (`vmap`'s arguments), numbers become floats by `to_float`,
    the one rule of the engine, so the loop and `jit`'s batched program compute
    on the same floats; a NumPy array of any real dtype and byte order becomes
    a native float64 array by the same rule.

    Raises:
        TypeError: naming the path of a number that is not in a list, or of a
            list element that is not a number.
        ValueError: naming the path of a number float64 does not hold exactly.
    """
    if t.kind in (Kind.LIST, Kind.TUPLE) and (
        not t.children
        or (
            any(c.kind is Kind.LEAF for c in t.children)
            and not (_is_ndarray(leaves[at]) if convert else is_float_array(leaves[at]))
            and type(leaves[at]) is not TracedArray
        )  # a list of arrays: a container of batches
    ):
        for k, c in enumerate(t.children):
            if c.kind is not Kind.LEAF:
                raise TypeError(
                    f"{who}{path}[{k}] is {_shape(c)} in a list of numbers: a mapped leaf is "
                    "a list of numbers, one per example"
                )
        values: Sequence[object] = leaves[at : at + len(t.children)]
    elif t.kind is Kind.LEAF:
        x = leaves[at]
        if is_float_array(x):
            return _Column(x, path)  # type: ignore[arg-type]  # a 1-d float64 ndarray: a sequence
        if convert and _is_ndarray(x):
            return _Column(_array_column(x, path, who), path)
        if not isinstance(x, Sequence) or isinstance(x, str | bytes | bytearray):
            raise TypeError(
                f"{who}{path} is a {describe(x)}, not a batch: each leaf of a mapped "
                "argument is a list of numbers, one per example"
                + (
                    " (give it the axis None in in_axes to pass it whole to every example)"
                    if who.startswith("vmap")
                    else ""
                )
            )
        values = x
    else:
        return None
    if all(type(v) is float for v in values):  # the common case, checked at C speed
        return _Column(values, path)
    if convert:
        converted = [
            v if type(v) is float or isinstance(v, _Arith) else _number(v, f"{path}[{k}]", who)
            for k, v in enumerate(values)
        ]  # an array in a `jit` trace stays one (its variables are nodes)
        return _Column(TracedArray(converted) if type(values) is TracedArray else converted, path)
    for k, v in enumerate(values):
        if not _is_number(v):
            raise TypeError(
                f"{who}{path}[{k}] is a {describe(v)}: a batch holds numbers "
                "(float, int or a node), one per example"
            )
    return _Column(values, path)


_HOLDS_NUMBERS = "a batch holds numbers (float, int or a node), one per example"


def _number(v: object, path: str, who: str, what: str = _HOLDS_NUMBERS) -> float:
    """``v`` as a float by `to_float`; errors name ``path``, say ``what`` and why.

    Raises:
        TypeError: for what is not a real number (a bool, a string, a complex, ...).
        ValueError: for a real number float64 does not hold exactly.
    """
    try:
        return to_float(v)
    except NotANumber:
        raise TypeError(f"{who}{path} is a {describe(v)}: {what}") from None
    except TypeError as e:
        raise TypeError(f"{who}{path} is a {describe(v)}: {what} ({e})") from None
    except ValueError as e:
        raise ValueError(f"{who}{path} is a {describe(v)}: {e}") from None


def _array_column(x: object, path: str, who: str) -> Sequence[object]:
    """A NumPy array that is not native float64, as one (by `to_float`, element by element).

    Raises:
        TypeError: for an array that is not 1-d, or an element that is not a real number.
        ValueError: naming an element float64 does not hold exactly.
    """
    numpy = sys.modules["numpy"]  # loaded: ``x`` is one of its arrays
    ndim = getattr(x, "ndim", None)
    if ndim != 1:
        raise TypeError(
            f"{who}{path} is a {ndim}-d NumPy array of shape {getattr(x, 'shape', None)}, "
            "not a batch: a mapped array "
            "is 1-d, one number per example (a batch of vectors is a list of 1-d arrays, "
            "one per feature)"
        )
    array = cast("Sequence[object]", x)  # a 1-d ndarray: indexed and iterated as one
    dtype = x.dtype  # type: ignore[attr-defined]  # an ndarray
    if dtype.kind == "f" and dtype.itemsize <= 8:  # float16/32/64 in any byte order: exact
        return cast("Sequence[object]", x.astype(numpy.float64))  # type: ignore[attr-defined]  # an ndarray
    floats = [_number(v, f"{path}[{k}]", who) for k, v in enumerate(array)]
    return cast("Sequence[object]", numpy.array(floats, dtype=numpy.float64))


def batch_size(columns: Sequence[_Column], who: str, allow_empty: bool = False) -> int:
    """The common length of ``columns``.

    Raises:
        ValueError: for no column, ragged columns, or (unless ``allow_empty``) length 0.
    """
    if not columns:
        raise ValueError(
            f"{who}nothing to map over: no mapped argument holds a batch (a list of numbers)"
        )
    first = columns[0]
    for c in columns[1:]:
        if len(c.values) != len(first.values):
            raise ValueError(
                f"{who}{first.path} has {len(first.values)} examples but {c.path} "
                f"has {len(c.values)}"
            )
    if not len(first.values) and not allow_empty:
        raise ValueError(
            f"{who}the batch is empty ({first.path} has 0 examples): the output's structure "
            "is only known by calling the function on an example; skip empty batches"
        )
    return len(first.values)


class Batch:
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
            Arg(a, s, names[i] if i < len(names) else f"args[{i}]", axes_roots[i])
            for i, (a, s) in enumerate(zip(args, specs, strict=True))
        ]
        self.columns = [c for a in self.args for c in a.columns]
        self.size = batch_size(self.columns, "vmap: ")
        self.arrays = any(is_float_array(c.values) for c in self.columns)
        """A mapped leaf is a NumPy array: outputs of numbers are arrays too."""
        self.traced_arrays = any(type(c.values) is TracedArray for c in self.columns)
        """A mapped leaf is an array in a `jit` trace: outputs of numbers are `TracedArray`s."""
        self.clean: set[Node] = set()  # nodes known not to depend on a mapped node
        self.mapped: set[Node] | None = None  # the nodes in the columns, once needed

    def converted(self) -> tuple[object, ...]:
        """The arguments with each mapped leaf as `vmap` reads it: floats, or a float64 array.

        What `jit` traces when it runs the loop: the same numbers, in types it
        takes (a big-endian or float32 array, ints, NumPy scalars become these).
        """
        return tuple(
            a.whole
            if a.tree is None
            else unflatten(a.tree, [s.values if isinstance(s, _Column) else s for s in a.slots])
            for a in self.args
        )

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
        if self.mapped is None:
            # In a `jit` trace, a variable that stands for a plain number of the eager
            # call is no node there: only the others (differentiated) count.
            self.mapped = {
                v
                for c in self.columns
                for v in c.values
                if isinstance(v, _Arith) and not plain_in_eager(v)
            }
        mapped = self.mapped
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


def stack_outputs(outs: list[object], axes: TreeDef, batch: Batch) -> object:
    """The outputs of every example as one pytree, each leaf per its axis.

    Numbers become floats (`to_float`), as `jit`'s batched program returns
    them; a 1-d NumPy array in an output (an inner `vmap`'s batch) is a list
    of numbers.
    """
    columns, tree = columns_of(outs, "fn(example {i})", "vmap: ", convert=True)
    leaves: list[object] = []
    for column, (path, axis) in zip(columns, _leaf_axes(axes, tree), strict=True):
        if axis != 0:
            leaves.append(_unbatched(column, path, batch))
        elif batch.arrays and not any(isinstance(x, _Arith) for x in column):
            numpy = sys.modules["numpy"]  # loaded: an argument is one of its arrays
            leaves.append(numpy.array(column, dtype="float64"))
        elif batch.traced_arrays and numbers_in_eager(column):  # an array there
            leaves.append(TracedArray(column))
        else:
            leaves.append(column)
    return unflatten(tree, leaves)


def arrays_at(result: object, axes: TreeDef) -> object:
    """A result of `vmap` with each batched leaf (a list of numbers) as a float64 array.

    What eager `vmap` returns when a mapped leaf is an array, from what a
    `jit` program computed as lists.
    """
    arg = Arg(result, axes, "output", "out_axes", "vmap: ", convert=False)
    if arg.tree is None:
        return result
    numpy = sys.modules["numpy"]  # loaded: an argument is one of its arrays
    return unflatten(
        arg.tree,
        [
            numpy.array(s.values, dtype="float64") if isinstance(s, _Column) else s
            for s in arg.slots
        ],
    )


def numbers_in_eager(column: Sequence[object]) -> bool:
    """Whether the eager call `jit` is tracing holds ``column``'s values as numbers."""
    state = trace_state.get()
    return state is not None and all(
        not isinstance(x, _Arith) or number_in_eager(x, state) for x in column
    )


def example_output(out: object) -> tuple[list[object], TreeDef]:
    """One example's output as `vmap` checks it: numbers as floats, anything else raises.

    Its leaves and structure (`columns_of` of the one example).
    """
    columns, tree = columns_of([out], "fn(example {i})", "vmap: ", convert=True)
    return [c[0] for c in columns], tree


def columns_of(
    trees: Sequence[object], root: str, who: str, convert: bool = False
) -> tuple[list[list[object]], TreeDef]:
    """Leaf ``k`` of every tree, for each ``k``, and the trees' one structure.

    With ``convert``, each number becomes a float by `to_float` and a 1-d
    NumPy array is a list of numbers.

    Raises:
        TypeError: naming the path (``root`` formatted with the tree's index)
            of a leaf that is not a number.
        ValueError: naming the first path where a tree's structure differs
            from the first tree's; with ``convert``, naming a number float64
            does not hold exactly.
    """
    first_leaves, first = _flatten(trees[0], convert)
    columns: list[list[object]] = [[] for _ in first_leaves]
    for i, x in enumerate(trees):
        leaves, tree = (first_leaves, first) if i == 0 else _flatten(x, convert)
        if tree != first:
            suffix, a, b = _first_difference(tree, first)
            raise ValueError(
                f"{who}{root.format(i=i)}{suffix} is {_shape(a)} but {root.format(i=0)}{suffix} "
                f"is {_shape(b)}: every example must have the same structure"
            )
        if convert and not all(type(v) is float or isinstance(v, _Arith) for v in leaves):
            paths = _leaf_paths(tree, root.format(i=i))
            leaves = [
                v
                if type(v) is float or isinstance(v, _Arith)
                else _number(v, paths[k], who, "leaves must be numbers")
                for k, v in enumerate(leaves)
            ]
        for column, v in zip(columns, leaves, strict=True):
            column.append(v)
        bad = next((k for k, v in enumerate(leaves) if not _is_number(v)), None)
        if bad is not None:
            path = _leaf_paths(tree, root.format(i=i))[bad]
            raise TypeError(f"{who}{path} is a {describe(leaves[bad])}: leaves must be numbers")
    return columns, first


def _flatten(x: object, arrays_as_lists: bool) -> tuple[list[object], TreeDef]:
    """`flatten_any` of ``x``; with ``arrays_as_lists``, each 1-d NumPy array a list."""
    leaves, tree = flatten_any(x)
    if arrays_as_lists and any(map(_one_d, leaves)):
        return flatten_any(
            unflatten(tree, [list(v) if _one_d(v) else v for v in leaves])  # type: ignore[call-overload]  # an array iterates
        )
    return leaves, tree


def _one_d(v: object) -> bool:
    """A 1-d NumPy array, or one that `jit` traces (`TracedArray`)."""
    return (_is_ndarray(v) and getattr(v, "ndim", 0) == 1) or type(v) is TracedArray


def _leaf_axes(axes: TreeDef, tree: TreeDef) -> list[tuple[str, Axis]]:
    """The path and axis of every leaf of the output ``tree``, in leaf order."""
    out: list[tuple[str, Axis]] = []
    stack: list[tuple[TreeDef, TreeDef, str]] = [(tree, axes, "")]
    while stack:
        t, a, suffix = stack.pop()
        axis = _resolve(a, t, "out_axes" + suffix, "the output" + suffix)
        if axis == _DESCEND:
            subs = zip(t.children, _children_of(a, t), _suffixes(t, suffix), strict=True)
            stack.extend(reversed(list(subs)))
        else:
            out.extend((p, axis) for p in _leaf_paths(t, "output" + suffix))
    return out


def _unbatched(column: list[object], path: str, batch: Batch) -> object:
    """The one value of an ``out_axes=None`` leaf, checked to be the same in every example.

    Raises:
        ValueError: if it depends on a mapped argument or differs between examples.
    """
    if any(isinstance(x, _Arith) and batch.depends(x) for x in column):
        raise ValueError(
            f"vmap: {path} depends on a mapped argument, but its out_axes is None; "
            "use out_axes=0 to get one value per example"
        )
    state = trace_state.get()
    if state is not None and any(isinstance(x, _Arith) for x in column):
        values = [getattr(x, RAW_VALUE) if isinstance(x, _Arith) else x for x in column]
    else:
        values = [x.value if isinstance(x, _Arith) else x for x in column]
    for i, v in enumerate(values):
        if not _same_value(v, values[0]):
            raise ValueError(
                f"vmap: {path} is {v!r} in example {i} but {values[0]!r} in example 0; "
                "out_axes=None needs the same value in every example (use out_axes=0)"
            )
    if state is not None:
        _guard_same(column, values[0], state)
    return column[0]


def _guard_same(column: list[object], value: object, state: TraceState) -> None:
    """In a `jit` trace: the compiled code checks that every example still gives one value.

    The eager call compares the values (`_unbatched`); a trace saw them once,
    so each comparison becomes a guard (`TraceState.guards`): a later call
    whose examples differ fails it, and `jit` traces again, which raises
    `_unbatched`'s error for that call. Bit for bit: nans alike, and a zero's
    sign compared through its reciprocal (``1/-0.0`` is ``-inf``).
    """
    nodes = [x if isinstance(x, _Arith) else Const(x) for x in column]  # type: ignore[arg-type]  # a number
    first = nodes[0]
    for x in nodes:
        if value != value:
            state.guards.append(("ne", x, x, True))
        elif x is not first:
            state.guards.append(("eq", x, first, True))
            if value == 0.0:
                state.guards.append(("eq", 1.0 / x, 1.0 / first, True))


# ---- small helpers -----------------------------------------------------------------


def is_float_array(x: object) -> bool:
    """A one-dimensional NumPy float64 array (NumPy is never imported here)."""
    t = type(x)
    return (
        t.__name__ == "ndarray"
        and t.__module__ == "numpy"
        and getattr(x, "ndim", None) == 1
        and str(getattr(x, "dtype", "")) == "float64"
    )


def _is_ndarray(x: object) -> bool:
    """A NumPy array of any dtype and shape (NumPy is never imported here)."""
    t = type(x)
    return t.__name__ == "ndarray" and t.__module__ == "numpy"


def _is_number(x: object) -> bool:
    return isinstance(x, _Arith) or (type(x) is not bool and isinstance(x, int | float))


def _same_value(a: object, b: object) -> bool:
    """Equal as float64 bits would be, except that every nan equals every nan."""
    if a != a:
        return b != b
    return a == b and (a != 0 or math.copysign(1.0, a) == math.copysign(1.0, b))  # type: ignore[arg-type]  # numbers


def describe(x: object) -> str:
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


def _same_node(a: TreeDef, b: TreeDef, by_key: bool = False) -> bool:
    """Same container at the top: kind, class, keys and number of children.

    With ``by_key``, dict keys may come in another order (an axes prefix is
    matched by key, as in JAX).
    """
    if by_key and a.kind is Kind.DICT and b.kind is Kind.DICT:
        return (a.meta, len(a.keys)) == (b.meta, len(b.keys)) and set(a.keys) == set(b.keys)
    return (a.kind, a.meta, a.keys, len(a.children)) == (b.kind, b.meta, b.keys, len(b.children))


def _children_of(axes: TreeDef, tree: TreeDef) -> tuple[TreeDef, ...]:
    """The children of an axes prefix in the order of ``tree``'s (dicts: by key)."""
    if axes.kind is Kind.DICT and axes.keys != tree.keys:
        by_key = dict(zip(axes.keys, axes.children, strict=True))
        return tuple(by_key[k] for k in tree.keys)
    return axes.children


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
