"""Tracing one call of a jitted function and compiling its graph into an `Entry`.

`trace` calls the function (or the function under a `grad`) on a fresh `Leaf`
per float of the traced arguments, with the read guard on (`compiler.guard`),
and compiles the graph it built (`compiler.entries`). With NumPy, a `vmap`
called inside runs as one batch (`compiler.batched`): its columns become
inputs of the program, which runs on arrays. What one batched program cannot
do makes the trace start again with `vmap` looping; what no program can do
(a graph over budget, a node from outside the trace) gives an entry whose
calls run eagerly. Each such fallback is counted in `FALLBACKS`.

`checked_call` is a call inside `debug_nans`: the function on fresh variables,
run eagerly so every op is checked.
"""

from __future__ import annotations

import collections
import operator
import sys
import warnings
from collections.abc import Callable, Collection
from typing import cast

from autograd.compiler import collector
from autograd.compiler.arrays import HAVE_NUMPY, column, dialect, quiet
from autograd.compiler.batched import BatchTrace
from autograd.compiler.codegen import (
    Dialect,
    ExternalNodeError,
    GraphTooBigError,
    NotBatchable,
    Program,
)
from autograd.compiler.entries import Entry, compile_traced, eager, named_result_leaves
from autograd.compiler.guard import call_guarded
from autograd.compiler.keys import (
    HoldsNode,
    Slow,
    arrays_as_lists,
    fast_shape,
    flatten_arg,
    groups,
    name_of,
    regroup,
    slow_shape,
)
from autograd.compiler.options import Options
from autograd.core.batching import BatchedList, BatchEscape, Example, TracedArray
from autograd.core.batching import hook as batch_hook
from autograd.core.context import TraceState
from autograd.core.nodes import Leaf, Node, _Arith
from autograd.pytree import TreeDef, flatten_any, unflatten
from autograd.transforms.arguments import Arguments
from autograd.transforms.batch import example_output, is_float_array

FALLBACKS: collections.Counter[str] = collections.Counter()
"""Each deliberate fallback taken, by name (docs/jit.md, "Fallbacks"): a compiler error is
a bug and raises; these are the cases it is known not to serve, counted so tests see them."""


class _Loop(Exception):
    """What one batched program cannot do: the trace starts again with `vmap` looping."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason  # its name in `FALLBACKS`


def trace(
    fn: Callable[..., object],
    vg: Arguments | None,
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
    options: Options,
    batch: Dialect | None = None,
    loop: bool = False,
) -> Entry:
    """Call ``fn`` (or the function under ``vg``) on fresh variables and compile its graph.

    With ``batch``, some inputs will hold arrays when the code runs (`vmapped.batched_call`).
    Otherwise, with NumPy, `vmap` calls inside ``fn`` run as one batch
    (`compiler.batched`) unless ``loop``; whatever one batched program cannot
    do makes this trace again with ``loop``.
    """
    try:
        return _traced(fn, vg, args, static, kwargs, options, batch, loop)
    except _Loop as e:
        reason = e.reason  # out of the handler: the first trace's graph is freed before the next
    FALLBACKS[reason] += 1
    return _traced(fn, vg, args, static, kwargs, options, None, True)


def _traced(
    fn: Callable[..., object],
    vg: Arguments | None,
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
    options: Options,
    batch: Dialect | None,
    loop: bool,
) -> Entry:
    """`trace`, once: raises `_Loop` for what one batched program cannot do."""
    wrt_nums = vg.resolve(len(args)) if vg is not None else ()  # errors before any work
    spans = _array_spans(args, static, fn)  # where NumPy arrays sit among the inputs
    given = tuple(a if i in static or not spans else arrays_as_lists(a) for i, a in enumerate(args))
    inputs, trees, new_args = _fresh_variables(given, static, fn, vg)
    for i, a in enumerate(args):  # an array is traced as its variables, without list arithmetic
        shape = groups(a, is_float_array) if spans and i not in static else None
        if shape is not None:
            new_args[i] = regroup(shape, new_args[i], TracedArray)
    wrt = _differentiated(wrt_nums, inputs, trees, len(args))
    differentiated = set(wrt)  # the rest are plain floats in the eager call
    floats = {x for x in inputs if x not in differentiated}
    state = TraceState(floats, differentiated, top=vg is None)  # grad's function: under grad
    in_arrays = {
        x: (k, i) for k, (at, n) in enumerate(spans) for i, x in enumerate(inputs[at : at + n])
    }
    if differentiated & in_arrays.keys():  # a differentiated array: eager refuses it, so do we
        return eager(expand=True)  # every call runs eagerly and raises eager's TypeError
    bt = None
    if HAVE_NUMPY and batch is None and not loop:
        bt = BatchTrace(inputs, state, in_arrays, [n for _, n in spans])
    result = _call_batched(vg.fn if vg is not None else fn, inputs, new_args, kwargs, state, bt)
    if batch is not None and vg is None:  # `jit(vmap(f))`: f's output as eager `vmap` checks it
        outs, out_tree = example_output(result)
        result = unflatten(out_tree, outs)
    plain = [x for x in inputs if x not in differentiated]
    columns: set[Node] = set()
    if bt is not None and bt.used:
        inputs, plain, batch = _with_batch(inputs, plain, in_arrays, bt, options)
    try:
        if batch is not None and bt is not None:
            result, columns = _columns(result)

        def compile_(program: Program) -> Entry:
            return compile_traced(program, vg, wrt_nums, result, fn, wrt, trees, columns, state)

        entry = _compiled(inputs, plain, batch, options, compile_)
    except (ExternalNodeError, GraphTooBigError) as e:  # an outside node, or too big: eager
        if bt is not None and bt.used:  # perhaps an array's elements used outside vmap
            raise _Loop("batch too big or external") from None
        FALLBACKS["too big" if isinstance(e, GraphTooBigError) else "external node"] += 1
        if isinstance(e, GraphTooBigError):  # a cliff in speed: said, once per trace
            _warn_too_big(fn, e)
        return eager(expand=bool(spans))
    except NotBatchable:  # a batch's values reach an output: only the loop gives them
        raise _Loop("not batchable") from None
    if bt is not None and bt.used and entry.program is not None:
        return _with_columns(entry, bt)
    entry.expand = bool(spans)
    return entry


def _call_batched(
    fn: Callable[..., object],
    inputs: list[Node],
    args: list[object],
    kwargs: dict[str, object],
    state: TraceState,
    bt: BatchTrace | None,
) -> object:
    """`call_guarded`, with ``bt`` (if any) running each `vmap` inside as one batch."""
    token = batch_hook.set(bt)
    try:
        return call_guarded(fn, inputs, args, kwargs, state)
    except BatchEscape:  # a batched result used one example at a time: the loop serves it
        if bt is None or not bt.used:
            raise
        raise _Loop("batch escaped") from None
    finally:
        batch_hook.reset(token)


def _compiled(
    inputs: list[Node],
    plain: list[Node],
    batch: Dialect | None,
    options: Options,
    compile_: Callable[[Program], Entry],
) -> Entry:
    """``compile_`` of the program on ``inputs``."""
    with collector.paused():  # millions of objects, none in a cycle (`compiler.collector`)
        program = Program(inputs, options, floats=plain, batch=batch)
        entry = compile_(program)
    entry.calls = program.calls  # a batch's cost, for `vmapped.break_even`
    return entry


def _fresh_variables(
    given: tuple[object, ...],
    static: Collection[int],
    fn: Callable[..., object],
    vg: Arguments | None,
) -> tuple[list[Node], dict[int, TreeDef], list[object]]:
    """A fresh `Leaf` per float of each traced argument.

    Returns the variables, each argument's tree, and the arguments rebuilt on
    the variables (static ones as given).
    """
    inputs: list[Node] = []
    trees: dict[int, TreeDef] = {}
    new_args = list(given)
    for i, a in enumerate(given):
        if i not in static:
            leaves, trees[i] = flatten_arg(a, i, fn, vg)
            variables = [Leaf(x) for x in leaves]  # type: ignore[arg-type]  # floats, checked
            inputs.extend(variables)
            new_args[i] = unflatten(trees[i], variables)
    return inputs, trees, new_args


def _differentiated(
    nums: tuple[int, ...], inputs: list[Node], trees: dict[int, TreeDef], n: int
) -> list[Node]:
    """The variables of the differentiated arguments ``nums`` (resolved), in that order."""
    offsets = _offsets(trees, n)
    return [x for i in nums for x in inputs[offsets[i] : offsets[i] + trees[i].num_leaves]]


def _offsets(trees: dict[int, TreeDef], n: int) -> dict[int, int]:
    offsets, at = {}, 0
    for i in range(n):
        if i in trees:
            offsets[i] = at
            at += trees[i].num_leaves
    return offsets


def _array_spans(
    args: tuple[object, ...], static: Collection[int], fn: Callable[..., object]
) -> list[tuple[int, int]]:
    """``(first input, length)`` of each NumPy array among the traced arguments, in order."""
    try:
        _, flat = fast_shape(args, static, fn)
    except Slow:
        try:
            _, flat = slow_shape(args, static, fn, None)
        except HoldsNode:
            return []
    spans, at = [], 0
    for x in flat:
        n = 1 if type(x) is float else len(x)  # type: ignore[arg-type]  # an array
        if n != 1 or type(x) is not float:
            spans.append((at, n))
        at += n
    return spans


_HERE = "autograd.compiler."
"""The modules whose frames lie between the user's call and a trace's warning."""


def _warn_too_big(fn: Callable[..., object], e: GraphTooBigError) -> None:
    level, frame = 2, sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith(_HERE):
        level, frame = level + 1, frame.f_back  # to the user's call of the jitted function
    warnings.warn(
        f"jit({name_of(fn)}): the traced graph is too big to compile ({e}, after "
        "rolling repeated code into loops); calls with these argument shapes run "
        "eagerly, with the same results",
        RuntimeWarning,
        stacklevel=level,
    )


def _with_batch(
    inputs: list[Node],
    plain: list[Node],
    in_arrays: dict[Node, tuple[int, int]],
    bt: BatchTrace,
    options: Options,
) -> tuple[list[Node], list[Node], Dialect]:
    """The program's inputs once a `vmap` ran as one batch: its columns after the rest.

    An array argument reaches the program whole, as a column, not as its elements.
    """
    inputs = [x for x in inputs if x not in in_arrays]
    plain = [x for x in plain if x not in in_arrays]
    n = len(inputs)
    varying = range(n, n + len(bt.leaves))
    batch = dialect(varying, options, dict(bt.batch), tuple(bt.sizes), frozenset(bt.arrays))
    return [*inputs, *bt.leaves], [*plain, *bt.leaves], batch


def _columns(result: object) -> tuple[object, set[Node]]:
    """``result`` with each batched `vmap` result replaced by its node, and those nodes."""
    leaves, tree = flatten_any(result)
    if any(isinstance(x, Example) for x in leaves):  # one example, taken out of a batch
        raise NotBatchable(result)
    nodes = {x.node for x in leaves if type(x) is BatchedList}
    if not nodes:
        return result, set()
    return unflatten(tree, [x.node if type(x) is BatchedList else x for x in leaves]), nodes


def _with_columns(entry: Entry, bt: BatchTrace) -> Entry:
    """``entry`` running on the arrays of ``bt``'s columns, its batched outputs as lists."""
    run = entry.program
    assert run is not None
    data: list[object] = []
    gathers: list[tuple[int, Callable[[list[float]], object]]] = []
    given: list[tuple[int, int]] = []  # (column, which array argument)
    for i, (kind, what) in enumerate(bt.sources):
        data.append(what)
        if kind == "inputs":
            gathers.append((i, _gather(cast("list[int]", what))))
        elif kind == "array":
            given.append((i, cast(int, what)))

    def program(flat: list[float]) -> tuple[float, ...]:
        scalars = flat
        arrays = list(data)
        if given:  # the arguments' arrays are columns as they are; the rest are floats
            scalars = [x for x in flat if type(x) is float]
            passed = [x for x in flat if type(x) is not float]
            for i, k in given:
                arrays[i] = passed[k]
        for i, gather in gathers:
            arrays[i] = gather(scalars)
        with quiet():
            return run([*scalars, *arrays])  # type: ignore[list-item]  # floats, then arrays

    return Entry(program, entry.finish, batched=True)


def _gather(positions: list[int]) -> Callable[[list[float]], object]:
    """The column of a jitted function's arguments at ``positions``, as an array."""
    pick = operator.itemgetter(*positions)
    if len(positions) == 1:
        return lambda flat: column([pick(flat)])
    return lambda flat: column(pick(flat))


def checked_call(
    fn: Callable[..., object],
    vg: Arguments | None,
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
) -> object:
    """Inside `debug_nans`: ``fn`` on fresh variables, every op checked; floats out, as compiled.

    On plain floats ``x * y`` would be Python's unchecked float arithmetic.
    """
    if vg is not None:  # grad and value_and_grad make their own variables, and return floats
        return fn(*args, **kwargs)
    inputs: list[Node] = []
    new_args = list(args)
    for i, a in enumerate(args):
        if i not in static:  # an array's elements: a variable each, as a trace that loops has
            leaves, tree = flatten_arg(arrays_as_lists(a), i, fn, vg)
            variables = [Leaf(x) for x in leaves]  # type: ignore[arg-type]  # floats, checked
            inputs.extend(variables)
            new_args[i] = unflatten(tree, variables)
    result = call_guarded(fn, inputs, new_args, kwargs)
    leaves, tree = named_result_leaves(result, "output", fn)
    return unflatten(tree, [x.value if isinstance(x, _Arith) else x for x in leaves])
