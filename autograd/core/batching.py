"""What `vmap` returns inside a batched `jit` trace, and the one node that reduces it.

When `jit` traces a function that calls `vmap` (and NumPy is installed),
`vmap` does not loop: it calls the per-example function once, on fresh
variables that stand for a whole column of examples (their compiled code runs
on NumPy arrays). Its results are `BatchedList`s: lists of the batch's length
whose one graph node holds every example. `autograd.sum` and `autograd.mean`
reduce one with a single node, `batch_sum`, which compiled code evaluates as
the balanced sum over the batch (the order `autograd.sum` adds a list in).

Anything else done to the examples of a `BatchedList` (indexing, Python's
``sum``, arithmetic on an element) raises `BatchEscape`, and `jit` traces the
function again with `vmap` looping: the batched trace is an optimisation that
never changes what a program means.

A NumPy array argument is traced as a `TracedArray`: the list of its
elements, whose list operators (which would repeat or concatenate where NumPy
computes elementwise) raise instead.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import NoReturn

from autograd.core.nodes import Const, Mul, Node

BATCH_SUM = Const(1.0)
"""Marks ``Mul(x, BATCH_SUM)``: ``x`` summed over the batch (its value in the trace is
one example's). Multiplying by one keeps every graph walk's meaning for one example."""


def batch_sum(node: Node) -> Node:
    """``node`` (one example of a batch) summed over the batch, as a node of the trace."""
    return Mul(node, BATCH_SUM)


def is_batch_sum(node: Node) -> bool:
    """Whether ``node`` is a `batch_sum`."""
    return type(node) is Mul and node.y is BATCH_SUM


class BatchEscape(TypeError):
    """An example of a batched `vmap` result was used one by one: `jit` loops instead."""


def escape(*_: object) -> NoReturn:
    """Raise `BatchEscape`: what every use of an `Example` does."""
    raise BatchEscape(
        "vmap under jit: one example of a batched result was used on its own; "
        "jit traces the function again with vmap looping over the examples"
    )


class Example:
    """An element of a `BatchedList`: every use of it raises `BatchEscape`."""

    __slots__ = ()
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = escape
    __truediv__ = __rtruediv__ = __pow__ = __rpow__ = __neg__ = __pos__ = escape
    __lt__ = __le__ = __gt__ = __ge__ = __float__ = __bool__ = __abs__ = escape

    def __repr__(self) -> str:
        return "<one example of a batched vmap result>"


_EXAMPLE = Example()


class BatchedList(list[object]):
    """A `vmap` result inside a batched `jit` trace: ``len`` examples, one node for all."""

    # a list's operators and NumPy's: the loop gives them the list's or the array's meaning
    __add__ = __radd__ = __iadd__ = __mul__ = __rmul__ = __imul__ = escape
    __sub__ = __rsub__ = __truediv__ = __rtruediv__ = __pow__ = __rpow__ = escape
    __neg__ = __pos__ = __abs__ = __array__ = escape

    def __init__(self, node: Node, size: int) -> None:
        super().__init__([_EXAMPLE] * size)
        self.node = node


BatchHook = Callable[[Callable[..., object], object, object], object]
"""``hook(fn, batch, out_axes)``: `vmap`'s call as one batch, or ``NotImplemented``."""

hook: ContextVar[BatchHook | None] = ContextVar("autograd_batch_hook", default=None)
"""Set while `jit` traces a function that may run `vmap` as one batch."""


def _refuse(self: TracedArray, *_: object) -> NoReturn:
    raise TypeError(
        "jit: a NumPy array argument (or a vmap result over one) is traced as the list of "
        "its floats, and NumPy's operators and functions on it are not traced (the list's "
        "meaning, repeating or concatenating, would differ from the array's): compute "
        "per example (vmap, a comprehension) or outside jit"
    )


class TracedArray(list[object]):
    """A 1-d NumPy array inside a `jit` trace: the list of its elements, without list arithmetic.

    Indexing, iterating, ``len``, `autograd.sum` and `vmap` mean the same on an
    array and on the list of its floats; Python's list operators and NumPy's
    functions do not (``xs * 2`` repeats a list but doubles an array), so they
    raise a `TypeError` here rather than compute the list's meaning. A slice
    is a `TracedArray` too; `jit` returns one as a float64 array.
    """

    __slots__ = ()
    __add__ = __radd__ = __iadd__ = __mul__ = __rmul__ = __imul__ = _refuse
    __sub__ = __rsub__ = __truediv__ = __rtruediv__ = __pow__ = __rpow__ = _refuse
    __neg__ = __pos__ = __abs__ = _refuse
    # NumPy compares elementwise, a list as a whole
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __array__ = _refuse
    __hash__ = None

    def __getitem__(self, at: object) -> object:  # type: ignore[override]  # any index
        got = list.__getitem__(self, at)  # type: ignore[call-overload]  # an int or a slice
        return TracedArray(got) if type(at) is slice else got

    def copy(self) -> TracedArray:
        """A copy, still an array's elements (`list.copy` would give a plain list)."""
        return TracedArray(self)
