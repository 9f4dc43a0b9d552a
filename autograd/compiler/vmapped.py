"""``jit(vmap(fn))``: a few examples each through ``jit(fn)``, more as one batched program.

With NumPy, a call of a jitted `vmap` does not loop over its examples.
Under `Options.batch_from` examples each runs ``jit(fn)``'s compiled code, in
`vmap`'s own loop; from there, `batched_call` traces ``fn`` on the first
example and runs its code on float64 arrays, one element per example. What one
batched program cannot do goes back to `jit`, which traces the loop over the
examples as it would without NumPy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from autograd.compiler.arrays import as_batch, column, dialect, packs, quiet
from autograd.compiler.cache import Cache
from autograd.compiler.codegen import GuardFailed
from autograd.compiler.entries import array_ids, owned
from autograd.compiler.keys import HoldsNode, arrays_as_lists, call_key, flatten_arg
from autograd.compiler.options import Options
from autograd.compiler.tracing import trace
from autograd.core.context import debug_sites
from autograd.core.convert import to_float
from autograd.core.nodes import _Arith
from autograd.pytree import TreeDef, unflatten
from autograd.transforms.arguments import Arguments
from autograd.transforms.batch import LEAF_AXES, Batch, stack_outputs
from autograd.transforms.grad import transform_of
from autograd.transforms.vmap import Mapped

NOT_BATCHED = object()
"""`batched_call`'s answer when one batched program cannot run the call."""

LOOPED = object()
"""`batched_call`'s answer when the examples' own compiled code is predicted faster."""

CALL_STATEMENTS = 430
"""What a call of the per-example code costs in `vmap`'s loop, in its statements' worth."""


class Vmapped:
    """How a call of ``jit(vmap(fn))`` runs: a few examples, one batch, or `jit`'s loop."""

    __slots__ = ("cache", "jit_one", "jitted_one", "mapped", "options")

    def __init__(
        self,
        mapped: Mapped,
        options: Options,
        cache: Cache,
        jit_one: Callable[[], Callable[..., object]],
    ) -> None:
        self.mapped = mapped
        self.options = options
        self.cache = cache  # the jitted vmap's: batched traces are keyed apart (`batched_call`)
        self.jit_one = jit_one  # makes ``jit(fn)``
        self.jitted_one: Callable[..., object] | None = None  # made at the first small batch

    def call(self, args: tuple[object, ...]) -> tuple[object, tuple[object, ...], TreeDef | None]:
        """The call's result; or `NOT_BATCHED`, and what `jit`'s loop over the examples takes.

        That is vmap's arguments as it reads them, and if NumPy arrays were
        given, the ``out_axes`` where the loop's lists of numbers become arrays.
        """
        mapped = self.mapped
        batch = Batch(args, mapped.in_spec, mapped.names)
        if debug_sites.get() is None:  # inside debug_nans(): the loop, every op checked
            if batch.size < self.options.batch_from:
                return self._each(batch), args, None
            out = batched_call(mapped, batch, self.cache, self.options)
            if out is LOOPED:
                return self._each(batch), args, None
            if out is not NOT_BATCHED:
                return out, args, None
        return NOT_BATCHED, batch.converted(), mapped.out_axes if batch.arrays else None

    def _each(self, batch: Batch) -> object:
        """A few examples: ``vmap(jit(fn))``, run as eager `vmap` runs.

        Under `Options.batch_from` examples a NumPy call costs more than the
        examples' float arithmetic, so each example runs ``jit(fn)``'s compiled
        code: eager's bits, by `vmap`'s own loop, and ``fn``'s own compiled form
        (``jit(grad(f))`` compiles the sweep; traced inside a loop, it would be
        a graph of nodes).
        """
        if self.jitted_one is None:
            self.jitted_one = self.jit_one()
        outs = [batch.call(self.jitted_one, i) for i in range(batch.size)]
        return stack_outputs(outs, self.mapped.out_axes, batch)


class _NotNumber(Exception):
    """A vmapped function returned something that is not a number."""


def batched_call(mapped: Mapped, batch: Batch, cache: Cache, options: Options) -> object:
    """``jit(vmap(fn))(*args)``: ``fn`` traced on one example, its code run on NumPy arrays.

    Statements that depend on a mapped leaf operate on float64 arrays, one
    element per example; the rest on floats. Returns `NOT_BATCHED` for what
    one batched program cannot do (``jit`` then traces the loop over the
    examples, as without NumPy): a node among the arguments, an ``out_axes``
    other than 0, a choice on a plain number that differs between examples
    (a failed guard), an output that is not a number, a graph over budget.
    """
    if mapped.out_axes != LEAF_AXES:
        return NOT_BATCHED
    fn = mapped.fn
    vg = transform_of(fn)
    examples, varying, columns = _first_example(batch, fn, vg)  # traced: the first example
    try:
        _, key, flat = call_key(tuple(examples), (), {}, fn, vg)
    except HoldsNode:  # an outer graph among the arguments: the loop builds on it
        return NOT_BATCHED
    size, arrays = batch.size, batch.arrays
    packed = packs(size)  # small batches: parallel statements as 2-d operations
    key = ("vmap", key, tuple(varying), packed)
    inputs = _with_columns(flat, varying, columns)
    if inputs is None:  # a node in a later example: the loop builds on it
        return NOT_BATCHED

    def lift(v: object) -> object:  # a number the trace returned as it is
        try:
            number = to_float(v)  # as eager `vmap` converts its outputs
        except (TypeError, ValueError):
            raise _NotNumber from None  # the traced loop gives vmap's message
        return as_batch(number, size, arrays)

    for attempt in range(2):
        entry = cache.get(key) if attempt == 0 else None
        if entry is None:
            entry = trace(
                fn, vg, tuple(examples), (), {}, options, dialect(varying, options, packed=packed)
            )
            cache.put(key, entry)
        if entry.program is None:
            return NOT_BATCHED
        if size < break_even(entry.calls, options):
            return LOOPED
        try:
            with quiet():
                out = entry.program(inputs)  # type: ignore[arg-type]  # floats and arrays
        except GuardFailed:  # traced on another example's choice, or examples disagree
            continue
        try:
            seen = array_ids(inputs)
            batches = cast(
                "tuple[float, ...]", tuple(as_batch(owned(v, seen), size, arrays) for v in out)
            )
            return entry.finish(batches, lift)  # finish only places them in the result's tree
        except _NotNumber:
            break
    return NOT_BATCHED  # examples disagree on a choice made on plain numbers


def break_even(calls: tuple[int, int], options: Options) -> float:
    """The examples from which a batched program is predicted faster than the loop.

    ``calls``: its NumPy calls a run, and the statements of the per-example
    code (`Writer.calls`). The batch costs `Options.numpy_call` statements a
    NumPy call, whatever the examples; the loop, each example's statements and
    a call of its code (`CALL_STATEMENTS`). Measured crossovers of
    ``jit(vmap(grad(f)))``: a 1,000-step chain near 100 examples, a layer of 16
    neurons near 8 (docs/vmap.md).

    >>> round(break_even((5000, 5000), Options())), round(break_even((43, 95), Options()))
    (92, 8)
    """
    numpy_calls, statements = calls
    return options.numpy_call * numpy_calls / (statements + CALL_STATEMENTS)


def _with_columns(
    flat: Sequence[object], varying: list[int], columns: list[object]
) -> list[object] | None:
    """The traced floats with each mapped leaf's column as an array; None if one holds a node."""
    inputs = list(flat)
    try:
        for k, c in zip(varying, columns, strict=True):
            inputs[k] = column(c.values)  # type: ignore[attr-defined]  # a _Column
    except TypeError:
        return None
    return inputs


def _first_example(
    batch: Batch, fn: Callable[..., object], vg: Arguments | None
) -> tuple[list[object], list[int], list[object]]:
    """The batch's first example as the arguments a trace takes.

    Also where each mapped leaf's variable sits among the traced floats, and
    its column. What is passed whole (in_axes None) is the same in every
    example: a NumPy array there is traced as the list of its floats.
    """
    examples: list[object] = []
    varying: list[int] = []
    columns: list[object] = []
    at = 0
    for i, a in enumerate(batch.args):
        if a.tree is None:
            whole = arrays_as_lists(a.whole)
            examples.append(whole)
            at += len(flatten_arg(whole, i, fn, vg)[0])  # as many leaves as jit's flatten finds
            continue
        mapped_slots = {id(c) for c in a.columns}
        slots: list[object] = []
        for slot in a.slots:
            if id(slot) in mapped_slots:
                varying.append(at)
                columns.append(slot)
                first = slot.values[0]  # type: ignore[attr-defined]  # a _Column
                slots.append(first if isinstance(first, float | _Arith) else float(first))
                at += 1
            else:
                shared = arrays_as_lists(slot)
                slots.append(shared)
                at += len(shared) if shared is not slot else 1  # type: ignore[arg-type]  # a list
        examples.append(unflatten(a.tree, slots))
    return examples, varying, columns
