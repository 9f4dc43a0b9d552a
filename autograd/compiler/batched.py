"""`vmap` inside a `jit` trace, as one batch: the per-example graph stands for every example.

While `jit` traces a function, `BatchTrace` is `vmap`'s hook
(`core.batching.hook`). For a call whose mapped leaves are data (numbers, or
arguments of the jitted function that are not differentiated), it calls the
per-example function once, on fresh variables (`Leaf`) that stand for a whole
column: in the compiled program each is a NumPy array, one element per
example, and every statement that depends on one runs over the batch. The
results are `BatchedList`s; `autograd.sum`/`autograd.mean` reduce them with
one `batch_sum` node, which the program computes as the balanced sum over the
batch, and whose gradient is the per-example gradients summed the same way.

A node's *batch* is 0 if it is one number, else the vmap call whose examples
it varies over (`Program.batch_of` keeps it). Values mean one example at trace
time, so a choice the trace makes on them is guarded like any choice on a
plain number: examples that disagree make the program raise `GuardFailed`,
and `jit` traces again with `vmap` looping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from autograd.compiler.arrays import column
from autograd.core.batching import BatchedList, TracedArray
from autograd.core.context import TraceState, nesting
from autograd.core.nodes import Leaf, Node, _Arith, reaches
from autograd.pytree import flatten_any, unflatten
from autograd.transforms.batch import (
    LEAF_AXES,
    Batch,
    example_output,
    is_float_array,
    numbers_in_eager,
)

Source = tuple[str, object]
"""Where a column's array comes from at run time: ``("data", array)`` (numbers the
trace saw), ``("inputs", positions)`` (float arguments of the jitted function) or
``("array", k)`` (its ``k``-th NumPy array argument, passed as it is)."""


class BatchTrace:
    """`vmap`'s hook while one `jit` trace runs: batched calls, and what they made."""

    def __init__(
        self,
        inputs: Sequence[Node],
        state: TraceState,
        in_arrays: dict[Node, tuple[int, int]],
        array_sizes: Sequence[int],
    ) -> None:
        self.in_arrays = in_arrays  # variables of a NumPy array argument: (which, index)
        self.array_sizes = array_sizes
        self.inputs = inputs
        self._position: dict[Node, int] | None = None  # made when a vmap is first called
        self.state = state  # its floats: the traced arguments that are plain numbers
        self.level = nesting.get() + 1  # the traced function's own level
        self.leaves: list[Leaf] = []  # every column's variable, in order
        self.sources: list[Source] = []
        self.batch: dict[Node, int] = {}  # a column variable's vmap call (1, 2, ...)
        self.sizes: list[int] = []  # examples of each vmap call
        self.arrays: set[int] = set()  # the calls given a NumPy array: their results are arrays
        self.busy = False
        self._varies: dict[Node, bool] = {}

    @property
    def used(self) -> bool:
        """Whether a `vmap` call ran as one batch."""
        return bool(self.sizes)

    def __call__(self, fn: Callable[..., object], batch_obj: object, out_axes: object) -> object:
        batch = batch_obj  # typed loosely in the hook: core cannot name transforms' Batch
        assert isinstance(batch, Batch)
        if self.busy or nesting.get() != self.level or out_axes != LEAF_AXES:
            return NotImplemented  # nested batches, calls inside an inner transform: the loop
        sources = [self._source(c.values) for c in batch.columns]
        if any(s is None for s in sources):
            return NotImplemented
        for a in batch.args:
            mapped = {id(c) for c in a.columns}
            shared = [a.whole] if a.tree is None else [s for s in a.slots if id(s) not in mapped]
            if any(self._varies_in(v) for x in shared for v in flatten_any(x)[0]):
                return NotImplemented  # another batch's values passed whole: the loop
        which = len(self.sizes) + 1
        self.sizes.append(batch.size)
        if batch.arrays or any(s[0] == "array" for s in sources if s is not None):
            self.arrays.add(which)
        stand_ins = iter(self._variables(batch.columns, sources, which))
        examples = []
        for a in batch.args:
            if a.tree is None:
                examples.append(a.whole)
                continue
            mapped = {id(c) for c in a.columns}
            slots = [next(stand_ins) if id(s) in mapped else s for s in a.slots]
            examples.append(unflatten(a.tree, slots))
        self.busy = True
        try:
            out = fn(*examples)
        finally:
            self.busy = False
        leaves, tree = example_output(out)  # numbers as floats, as eager `vmap` has them
        results: list[object] = []
        for x in leaves:
            if isinstance(x, _Arith) and self._varies_in(x):
                results.append(BatchedList(x, batch.size))
            elif which in self.arrays and numbers_in_eager([x]):  # eagerly an array of it
                results.append(TracedArray([x] * batch.size))
            else:  # the same value in every example, as the loop gives it
                results.append([x] * batch.size)
        return unflatten(tree, results)

    def _variables(
        self, columns: Sequence[object], sources: list[Source | None], which: int
    ) -> list[Leaf]:
        """A fresh variable per column, holding its first example's value in the trace."""
        out = []
        for c, source in zip(columns, sources, strict=True):
            first = c.values[0]  # type: ignore[attr-defined]  # a _Column
            v = Leaf(float(first.value if isinstance(first, Leaf) else first))
            out.append(v)
            self.leaves.append(v)
            self.sources.append(source)  # type: ignore[arg-type]  # not None, as checked
            self.batch[v] = which
            self.state.floats.add(v)  # a plain number of the eager call: choices on it are guarded
        return out

    def _source(self, values: Sequence[object]) -> Source | None:
        """Where a mapped leaf's values come from at run time; None if the loop must run."""
        if is_float_array(values) or all(type(v) is float or (type(v) is int) for v in values):
            return ("data", column(values))
        whole = self._whole_array(values)
        if whole is not None:
            return ("array", whole)
        positions = []
        position = self.position
        for v in values:
            if type(v) is not Leaf or v not in self.state.floats or v not in position:
                return None  # a node of the graph (differentiated, or computed): the loop
            positions.append(position[v])
        return ("inputs", positions)

    @property
    def position(self) -> dict[Node, int]:
        """Each traced float's place among the program's inputs (not an array's variable).

        Made on first use: most jitted functions call no `vmap`, and a wide one
        has 200,000 inputs.
        """
        if self._position is None:
            arrays = self.in_arrays
            kept = (x for x in self.inputs if x not in arrays)
            self._position = {x: i for i, x in enumerate(kept)}
        return self._position

    def _whole_array(self, values: Sequence[object]) -> int | None:
        """Which array argument ``values`` are the variables of, all of it in order; else None."""
        where = cast("dict[object, tuple[int, int]]", self.in_arrays)  # any object: a miss
        first = where.get(values[0])
        if first is None or first[1] != 0:
            return None
        k = first[0]
        for i, v in enumerate(values):
            if where.get(v) != (k, i):
                return None
        return k if len(values) == self.array_sizes[k] else None

    def _varies_in(self, x: object) -> bool:
        """Whether ``x`` is a node whose graph reaches a column variable (memoised)."""
        return isinstance(x, _Arith) and reaches(x, self.batch, self._varies)
