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

    def __init__(self, node: Node, size: int) -> None:
        super().__init__([_EXAMPLE] * size)
        self.node = node


BatchHook = Callable[[Callable[..., object], object, object], object]
"""``hook(fn, batch, out_axes)``: `vmap`'s call as one batch, or ``NotImplemented``."""

hook: ContextVar[BatchHook | None] = ContextVar("autograd_batch_hook", default=None)
"""Set while `jit` traces a function that may run `vmap` as one batch."""
