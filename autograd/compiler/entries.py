"""A traced graph compiled into an `Entry`: its program, and how the outputs become the result.

`compile_traced` writes a traced graph's statements (`codegen.Program`): the forward
pass of a plain function, and for a top-level `grad` or `value_and_grad` the
backward pass too. The `Entry` runs the linked program on the call's floats
and rebuilds the function's result from its flat outputs (`finish`); it keeps
no node of the trace, so a dropped graph is freed at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autograd.compiler.arrays import as_batch, column
from autograd.compiler.codegen import Chunk, NotBatchable, Program
from autograd.compiler.dispatch import Fast, fusable
from autograd.compiler.keys import Groups, groups, name_of, regroup
from autograd.compiler.lowering import record
from autograd.core.batching import TracedArray
from autograd.core.context import TraceState
from autograd.core.nodes import Node, _Arith, number_in_eager
from autograd.pytree import Kind, TreeDef, builder, flatten_any, pair_builder, unflatten
from autograd.transforms.arguments import Arguments, result_leaves
from autograd.transforms.grad import scalar_output

Run = Callable[[list[float]], tuple[float, ...]]
"""Compiled code: the flat inputs to the flat outputs."""

Finish = Callable[..., object]
"""The flat outputs (and how to lift a constant one, `same` by default) to the result."""


class Entry:
    """A compiled trace: ``finish(program(flat_inputs))`` is the function's result.

    It holds no node of the trace: a dropped graph is freed at once.
    """

    def __init__(
        self,
        program: Run | None,
        finish: Finish,
        batched: bool = False,
        chunk: Chunk | None = None,
    ) -> None:
        self.program = program
        self.finish = finish
        self.batched = batched  # a vmap inside ran as one batch
        self.expand = False  # arrays among the arguments are passed as their floats
        self.chunk = fusable(chunk)  # ``program`` as data, if one short generated function
        self.fast: Fast | None = None  # `Cache.remember`'s checked call of the structure
        self.checked = False  # whether `fast` was written (None: `dispatch` cannot)
        self.calls = (0, 0)  # a batched program's: its NumPy calls, the per-example statements


def eager(expand: bool = False) -> Entry:
    """The entry of a trace that is not compiled: its calls run the function eagerly."""
    entry = Entry(None, lambda out, lift: out)
    entry.expand = expand
    return entry


def same(v: object) -> object:
    return v


def flat_outputs(flat_out: tuple[float, ...], lift: Callable[[object], object] = same) -> object:
    """The finish of a result that is the program's outputs as they are."""
    return flat_out


def compile_traced(
    program: Program,
    vg: Arguments | None,
    nums: tuple[int, ...],
    result: object,
    fn: Callable[..., object],
    wrt: list[Node],
    trees: dict[int, TreeDef],
    columns: set[Node],
    state: TraceState,
) -> Entry:
    """The traced ``result`` of ``fn`` (or of ``vg``'s function, differentiated) compiled.

    ``columns`` are the nodes of batched `vmap` results among it; ``trees`` the
    traced arguments' trees, ``wrt`` the variables of those at ``nums``.
    """
    if vg is None:
        return _compile_plain(program, result, fn, columns, state)
    return _compile_grad(program, vg, nums, result, wrt, trees, columns, state)


def named_result_leaves(
    result: object, root: str, fn: Callable[..., object]
) -> tuple[list[object], TreeDef]:
    """`result_leaves`, its error naming the jitted function."""
    try:
        return result_leaves(result, root)
    except TypeError as e:
        raise TypeError(f"jit({name_of(fn)}): {e}") from None


_OUT = object()
"""Marks, in a result's leaves, one the compiled program computes."""


def _compile_plain(
    program: Program,
    result: object,
    fn: Callable[..., object],
    columns: set[Node],
    state: TraceState,
) -> Entry:
    result, arrays = _arrays_out(result)
    leaves, tree = named_result_leaves(result, "output", fn)
    nodes: list[Node] = [x for x in leaves if isinstance(x, _Arith)]
    program.forward(nodes, state.guards, stacked=True)  # no sweep: runs read later roll too
    sizes = _outputs(program, nodes, columns, state)
    linked = program.link([program.names[x] for x in nodes])
    record(program, leaves, None, (), state)
    run = _as_lists(linked, sizes)
    fixed = [_OUT if isinstance(x, _Arith) else x for x in leaves]  # keeps no node of the trace

    def finish(out: tuple[float, ...], lift: Callable[[object], object] = same) -> object:
        it = iter(out)
        got = unflatten(tree, [next(it) if x is _OUT else lift(x) for x in fixed])
        return got if arrays is None else regroup(arrays, got, column)

    return Entry(run, finish, chunk=program.lone if run is linked else None)


def _arrays_out(result: object) -> tuple[object, Groups | None]:
    """``result`` with each `TracedArray` in it a list, and where they were (`keys.groups`).

    An array argument (or a `vmap` result over one) returned is a float64 array.
    """
    arrays = groups(result, lambda x: type(x) is TracedArray)
    if arrays is None:
        return result, None
    leaves, tree = flatten_any(result)
    return unflatten(tree, [list(x) if type(x) is TracedArray else x for x in leaves]), arrays


def _compile_grad(
    program: Program,
    vg: Arguments,
    nums: tuple[int, ...],
    result: object,
    wrt: list[Node],
    trees: dict[int, TreeDef],
    columns: set[Node],
    state: TraceState,
) -> Entry:
    out, aux = scalar_output(vg, result)  # an array in aux is refused, as eagerly
    aux_leaves, aux_tree = named_result_leaves(aux, "aux", vg.fn)
    aux_nodes: list[Node] = [x for x in aux_leaves if isinstance(x, _Arith)]
    aux_fixed = [_OUT if isinstance(x, _Arith) else x for x in aux_leaves]
    root = out if isinstance(out, _Arith) else None
    roots = [root] if root is not None else []
    program.forward([*roots, *aux_nodes], state.guards)
    _outputs(program, roots, set(), state)  # the value is one number (a batch's: the loop's error)
    sizes = [(0, False)] * (len(roots) + len(wrt)) + _outputs(program, aux_nodes, columns, state)
    grads = program.backward(root, wrt) if root is not None else ["0.0"] * len(wrt)
    value = [program.names[root]] if root is not None else []
    names = [*value, *grads, *(program.names[x] for x in aux_nodes)]
    linked = program.link(names)
    record(program, [out, *aux_leaves], root, wrt, state)
    run = _as_lists(linked, sizes)
    chunk = program.lone if run is linked else None
    computed = root is not None  # the closure below must not keep the trace's root alive
    const_value = float(out) if not isinstance(out, _Arith) else 0.0

    pair = vg.name == "value_and_grad"
    if vg.single and computed and not vg.has_aux:  # one gradient, no aux: the common case
        return Entry(run, _finish_one(trees[nums[0]], pair), chunk=chunk)

    def finish(flat_out: tuple[float, ...], lift: Callable[[object], object] = same) -> object:
        it = iter(flat_out)
        v = next(it) if computed else lift(const_value)
        gtrees = [unflatten(trees[i], [next(it) for _ in range(trees[i].num_leaves)]) for i in nums]
        g = gtrees[0] if vg.single else tuple(gtrees)
        if vg.has_aux:
            a = unflatten(aux_tree, [next(it) if x is _OUT else lift(x) for x in aux_fixed])
            return ((v, a), g) if vg.name == "value_and_grad" else (g, a)
        return (v, g) if vg.name == "value_and_grad" else g

    return Entry(run, finish, chunk=chunk)


def _finish_one(tree: TreeDef, pair: bool) -> Callable[..., object]:
    """`finish` of a `grad` or `value_and_grad` of one argument: the value, then its leaves."""
    if pair and tree.kind is Kind.LEAF:  # the program's (value, gradient) is the result
        return flat_outputs
    if pair:
        both = pair_builder(tree)
        return lambda flat_out, lift=same: both(flat_out)
    rebuild = builder(tree)
    return lambda flat_out, lift=same: rebuild(flat_out[1:])


Shape = tuple[int, bool]
"""An output's batch: its number of examples (0: one number) and whether it is an array."""


def _outputs(
    program: Program, nodes: Sequence[Node], columns: set[Node], state: TraceState
) -> list[Shape]:
    """Per output node, its batch if it is a batched `vmap` result, else ``(0, False)``.

    A batch whose mapped leaves include a NumPy array gives an array, as eager
    `vmap` does where its outputs are numbers (not nodes of the differentiated
    arguments: `number_in_eager`).

    Raises:
        NotBatchable: if another output varies over a batch (an inner transform
            differentiated through a batch sum, say): only the loop computes it.
    """
    shapes = []
    for x in nodes:
        b = program.batch_of.get(x, 0)
        if b and x not in columns:
            raise NotBatchable(x)
        array = b in program.array_batches and number_in_eager(x, state)
        shapes.append((program.sizes[b - 1], array) if b else (0, False))
    return shapes


def _as_lists(run: Run, shapes: list[Shape]) -> Run:
    """``run`` with its batched outputs as one value per example (a list, or an array)."""
    batched = [(i, n, a) for i, (n, a) in enumerate(shapes) if n]
    if not batched:
        return run

    def lists(inputs: list[float]) -> tuple[float, ...]:
        out = list(run(inputs))
        seen = array_ids(inputs)
        for i, n, a in batched:
            out[i] = as_batch(owned(out[i], seen), n, a)  # type: ignore[call-overload]  # a batch
        return tuple(out)

    return lists


def array_ids(values: Sequence[object]) -> set[int]:
    """The ids of the arrays among ``values`` (the rest are floats)."""
    return {id(x) for x in values if type(x) is not float}


def owned(v: object, seen: set[int]) -> object:
    """``v``, copied if it is an argument's array or an output already returned.

    Generated code passes an identity on as the same object (``lambda x: x``),
    and a caller may write into a result: it must not write into its argument.
    Records ``v``'s id in ``seen``.
    """
    if type(v) is float:  # immutable: shared freely
        return v
    if id(v) in seen:
        v = v.copy()  # type: ignore[attr-defined]  # an array (or a NumPy scalar)
    seen.add(id(v))
    return v
