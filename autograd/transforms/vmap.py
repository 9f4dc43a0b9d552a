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
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, ParamSpec, Protocol, TypeAlias, TypeVar, overload

import attrs

if TYPE_CHECKING:  # a stub-only module: how a checker without attrs' plugin sees an attrs class
    from _typeshed import DataclassInstance

from autograd.core.batching import hook
from autograd.core.nodes import Scalar
from autograd.pytree import TreeDef, unflatten
from autograd.transforms.arguments import positional_names
from autograd.transforms.batch import (
    LEAF_AXES,
    Arg,
    Batch,
    axes_tree,
    batch_size,
    columns_of,
    describe,
    in_spec,
    stack_outputs,
)

X = TypeVar("X", bound=Scalar)
X1 = TypeVar("X1", bound=Scalar)
X2 = TypeVar("X2", bound=Scalar)
R = TypeVar("R", bound=Scalar)
R1 = TypeVar("R1", bound=Scalar)
R2 = TypeVar("R2", bound=Scalar)
A = TypeVar("A")
K = TypeVar("K")
T = TypeVar("T")
P = ParamSpec("P")
T_co = TypeVar("T_co", covariant=True)
C = TypeVar("C", bound="AttrsLike | DataclassInstance | NamedTupleLike")
C_co = TypeVar("C_co", bound="AttrsLike | DataclassInstance | NamedTupleLike", covariant=True)

InAxes: TypeAlias = Literal[0] | tuple[object, ...] | list[object]
"""``0``, or one entry per positional argument: ``0``, ``None`` or a pytree prefix of them."""
OutAxes: TypeAlias = Literal[0] | tuple[object, ...] | list[object] | Mapping[object, object] | None
"""``0``, ``None``, or a pytree prefix of the output whose leaves are ``0`` or ``None``."""


# ---- the typed surface ---------------------------------------------------------
# First match wins. Scalar examples keep their types (an `X` mapped is a
# `Sequence[X]`); other example pytrees cannot be spelled leaf by leaf, so
# their arguments are unchecked (`Batched`) and the result is typed by `fn`'s
# output. Outputs: a scalar `R` becomes `list[R]`, a mapping or a sequence of
# scalars keeps its keys with `list` leaves, an attrs class or a NamedTuple `C`
# becomes `Stacked[C]`, and a pair (`value_and_grad`) maps each half. The
# fallbacks take `Callable[P, ...]`, never `Callable[..., ...]`: inferred in
# that context, an inner generic call (`vmap(grad(loss))`) gets `Any` for its
# type variables from the `...`, and the result would be `list[Any]`.


class NamedTupleLike(Protocol):
    """Any ``NamedTuple`` (it has ``_asdict``): with the two below, what `Stacked` types."""

    def _asdict(self) -> dict[str, object]: ...


class AttrsLike(Protocol):
    """An attrs class as mypy sees it: its plugin declares ``__attrs_attrs__``.

    Not ``attrs.AttrsInstance``: for checkers without the plugin (pyright) attrs
    makes that an empty protocol, which every type matches, a ``dict`` or a tuple
    output included, and `Stacked` would take the overloads meant for them. Those
    checkers see an attrs class as a dataclass (``dataclass_transform``), so the
    bound of `Stacked` also takes typeshed's ``DataclassInstance``.
    """

    @property
    def __attrs_attrs__(self) -> object: ...  # read-only: any type of the class's tuple


class Stacked(Protocol[C_co]):
    """An attrs class or ``NamedTuple`` ``C`` of one example, over a batch: every field a list.

    ``vmap(grad(loss), in_axes=(None, 0, 0))`` of a loss of ``Params(w, b)``
    returns a ``Params`` whose ``w`` and ``b`` are lists of per-example
    gradients: typed ``Stacked[Params]``, ``g.w`` is a ``list[float]``. Exact
    for classes whose fields are scalars (parameter classes); a field that is a
    container holds that container of lists at run time (docs/typing.md). A
    NamedTuple's fields are read by name (``g[0]`` is a type error).
    """

    def __getattr__(self, name: str) -> list[float]: ...
    def __eq__(self, other: object, /) -> bool: ...  # comparable with a ``C`` (it is one)


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
# shared parameters, mapped scalars: per-example gradients `vmap(grad(loss), (None, 0, 0))`
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], R],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], C],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], Stacked[C]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], tuple[R1, R2]],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], tuple[list[R1], list[R2]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], tuple[R1, Mapping[K, R2]]],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], tuple[list[R1], dict[K, list[R2]]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], tuple[R1, C]],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], tuple[list[R1], Stacked[C]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], tuple[R1, Sequence[R2]]],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], tuple[list[R1], list[list[R2]]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], Mapping[K, R]],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], dict[K, list[R]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X], Sequence[R]],
    in_axes: tuple[None, Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X]], list[list[R]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], R],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], list[R]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], C],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], Stacked[C]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], tuple[R1, R2]],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], tuple[list[R1], list[R2]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], tuple[R1, Mapping[K, R2]]],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], tuple[list[R1], dict[K, list[R2]]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], tuple[R1, C]],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], tuple[list[R1], Stacked[C]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], tuple[R1, Sequence[R2]]],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], tuple[list[R1], list[list[R2]]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], Mapping[K, R]],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], dict[K, list[R]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[A, X1, X2], Sequence[R]],
    in_axes: tuple[None, Literal[0], Literal[0]],
    out_axes: Literal[0] = 0,
) -> Callable[[A, Sequence[X1], Sequence[X2]], list[list[R]]]: ...
# other arguments: unchecked, the result typed by fn's output
@overload
def vmap(
    fn: Callable[P, R],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[list[R]]: ...
@overload
def vmap(
    fn: Callable[P, C],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[Stacked[C]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[P, tuple[R1, R2]],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[tuple[list[R1], list[R2]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[P, tuple[R1, Mapping[K, R2]]],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[tuple[list[R1], dict[K, list[R2]]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[P, tuple[R1, C]],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[tuple[list[R1], Stacked[C]]]: ...
@overload
def vmap(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[P, tuple[R1, Sequence[R2]]],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[tuple[list[R1], list[list[R2]]]]: ...
@overload
def vmap(
    fn: Callable[P, Mapping[K, R]],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[dict[K, list[R]]]: ...
@overload
def vmap(
    fn: Callable[P, Sequence[R]],
    in_axes: InAxes = 0,
    out_axes: Literal[0] = 0,
) -> Batched[list[list[R]]]: ...
@overload
def vmap(fn: Callable[P, T], in_axes: InAxes, out_axes: None) -> Batched[T]: ...
@overload
def vmap(
    fn: Callable[P, object], in_axes: InAxes = 0, out_axes: OutAxes = 0
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
        raise TypeError(f"vmap() needs a function, got {describe(fn)}")
    ins = in_spec(in_axes)
    outs_axes = axes_tree(out_axes, "out_axes")
    names = positional_names(fn)

    @functools.wraps(fn)
    def mapped(*args: object, **kwargs: object) -> object:
        if kwargs:
            raise TypeError(
                f"vmap: keyword arguments ({', '.join(kwargs)}) are not mapped; pass them "
                "positionally with an in_axes entry, or bind them with functools.partial"
            )
        batch = Batch(args, ins, names)
        batched = hook.get()  # inside a jit trace: the whole batch at once, if it can be
        if batched is not None:
            out = batched(fn, batch, outs_axes)
            if out is not NotImplemented:
                return out
        outs = [batch.call(fn, i) for i in range(batch.size)]
        return stack_outputs(outs, outs_axes, batch)

    _made_by[mapped] = Mapped(fn, ins, outs_axes, names)
    return mapped


@attrs.frozen
class Mapped:
    """What a function `vmap` returned maps: for `jit`, which runs it as one batch."""

    fn: Callable[..., object]
    in_spec: TreeDef | tuple[TreeDef, ...]
    out_axes: TreeDef
    names: list[str]


_made_by: weakref.WeakKeyDictionary[Callable[..., object], Mapped] = weakref.WeakKeyDictionary()


def vmap_of(fn: Callable[..., object]) -> Mapped | None:
    """What ``fn`` maps, if `vmap` made it."""
    try:
        return _made_by.get(fn)
    except TypeError:  # not weak-referenceable: not one of ours
        return None


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
        raise TypeError(f"stack() takes a list or tuple of examples, got {describe(examples)}")
    if not examples:
        raise ValueError(
            "stack() needs at least one example: the batch's structure comes from them"
        )
    columns, tree = columns_of(examples, "examples[{i}]", "stack(): ")
    return unflatten(tree, columns)


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
    arg = Arg(batch, LEAF_AXES, "batch", "", "unstack(): ", convert=False)
    size = batch_size(arg.columns, "unstack(): ", allow_empty=True)
    return [arg.example(i) for i in range(size)]
