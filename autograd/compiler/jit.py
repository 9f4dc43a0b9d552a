"""`jit`: trace a function once per argument structure, compile its graph, cache it.

Tracing calls the function on fresh `Leaf` variables, so its graph is the
eager graph; `codegen` turns it into Python, repeated code rolled into loops
(`reroll`). A traced function must not read ``.value`` of a node that
depends on its inputs: a Python ``if`` on that value would be frozen into
the compiled code. While a trace runs, such reads raise `TypeError` at
once (`compiler.guard`).

The cache of each jitted function is keyed by the structure of the traced
arguments and by the static and keyword arguments (`compiler.keys`); it
keeps the `CACHE_SIZE` most recently used traces. A call with the structure
of the call before it runs one generated function (`compiler.dispatch`).
"""

from __future__ import annotations

import collections
import functools
import inspect
import operator
import threading
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Sequence
from contextvars import ContextVar
from itertools import repeat
from typing import ParamSpec, Protocol, TypeVar, cast

from autograd.compiler import collector, equations
from autograd.compiler.arrays import HAVE_NUMPY, as_batch, column, dialect, packs, quiet
from autograd.compiler.batched import BatchTrace
from autograd.compiler.codegen import (
    Chunk,
    Dialect,
    ExternalNodeError,
    GraphTooBigError,
    GuardFailed,
    NotBatchable,
    Program,
)
from autograd.compiler.dispatch import MISS, Fast, fast_path, fusable
from autograd.compiler.guard import call_guarded
from autograd.compiler.keys import (
    HoldsNode,
    Slow,
    arrays_as_lists,
    call_key,
    expand,
    fast_shape,
    flatten_arg,
    name_of,
    shape_of,
    slow_shape,
)
from autograd.compiler.options import DEFAULT, Options
from autograd.compiler.periods import Unrolled
from autograd.compiler.statics import StaticArgs
from autograd.core.batching import BatchedList, BatchEscape, Example
from autograd.core.batching import hook as batch_hook
from autograd.core.context import TraceState, debug_sites, nesting
from autograd.core.convert import to_float
from autograd.core.nodes import Leaf, Node, _Arith
from autograd.pytree import (
    Kind,
    TreeDef,
    builder,
    flatten_any,
    pair_builder,
    unflatten,
)
from autograd.transforms.arguments import Arguments, result_leaves
from autograd.transforms.batch import LEAF_AXES, Batch, arrays_at, stack_outputs
from autograd.transforms.grad import scalar_output, transform_of
from autograd.transforms.vmap import Mapped, vmap_of
from autograd.walks import toposort_many

P = ParamSpec("P")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

FALLBACKS: collections.Counter[str] = collections.Counter()
"""Each deliberate fallback taken, by name (docs/jit.md, "Fallbacks"): a compiler error is
a bug and raises; these are the cases it is known not to serve, counted so tests see them."""

CACHE_SIZE = 128
"""Traces each jitted function keeps, least recently used dropped first (as
``functools.lru_cache``'s default)."""


_nesting = nesting.get
_debugging = debug_sites.get
"""The context variables a call reads first, as bound methods: a call's fixed cost
(looking both ``.get`` up took 70 ns of the 230 ns the wrapper itself cost)."""


def jit(
    fn: Callable[P, T],
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
    *,
    options: Options | None = None,
) -> Jitted[P, T]:
    """``fn`` compiled: traced once per argument structure, then compiled code.

    The first call with a new structure (container types, lengths, dict keys
    in order) or new static arguments traces ``fn`` and compiles its graph;
    later calls run the compiled code, giving bit-identical results to ``fn``
    run on nodes. On ``jit(grad(f))`` and ``jit(value_and_grad(f))`` the
    backward pass is compiled too; ``grad(jit(f))`` works as well (it runs
    ``f`` eagerly, as does any call under another transform or with a node
    among its arguments). Inside `debug_nans` calls run ``f`` eagerly on fresh
    variables, so every op is checked. Each jitted function keeps its
    `CACHE_SIZE` most recently used traces.

    Args:
        fn: a function of pytrees of floats (lists, tuples, dicts, ...),
            returning a pytree of nodes, numbers and strings.
        static_argnums: positional arguments that are not traced but part of the
            cache key (hashable: sizes, flags, names), compared by type and
            bits (``0.0`` and ``-0.0``, ``1`` and ``True`` differ). Negative
            indices count from the end of each call's positional arguments.
            An index whose argument is passed by keyword, or left to its
            default, is static as every keyword argument is.
        static_argnames: parameter names that are static, passed by keyword
            or by position (as JAX infers one list from the other). Keyword
            arguments are always static: a name adds the position it stands at.
        options: the compiler's thresholds (`compiler.options.Options`: budgets,
            chunk sizes, when loops are looked for); the defaults by default.

    Returns:
        A function with ``fn``'s signature; its ``lower(*args)`` traces and
        compiles for those arguments and returns a `Lowered`, which shows the
        program of equations (`Lowered.as_text`) and the generated Python.

    Warns:
        RuntimeWarning: once per trace whose graph is too big to compile even
            with its repeated code rolled into loops (over ``options.budget``
            statements): calls with those argument shapes run eagerly.

    Raises:
        TypeError: if ``fn`` is not callable or is a generator or coroutine
            function, or ``static_argnums`` is not ints (``static_argnames``
            not strings). When called: for a negative static index
            out of range, a traced argument that is not a pytree
            of numbers, an unhashable static one, a result holding an unknown
            object (a set, a dataclass), and (when tracing) if ``fn`` reads
            ``.value`` of a node that depends on a traced argument, such as
            ``if x.value > 0``: mark the argument static or branch without jit.
        ValueError: if a static argument is one that ``grad`` differentiates,
            or ``static_argnames`` names no parameter of ``fn``.

    >>> import autograd as ag
    >>> f = ag.jit(ag.value_and_grad(lambda p: ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5))
    >>> f({"w1": 2.0, "w2": 3.0})
    (2.5, {'w1': 1.0, 'w2': -2.0})
    """
    _check_function(fn)
    if options is None:
        options = DEFAULT
    elif not isinstance(options, Options):
        raise TypeError(f"jit: options must be an Options, got {type(options).__name__}")
    vg = transform_of(fn)
    spec = StaticArgs(fn, static_argnums, static_argnames, vg, name_of(fn))
    cache = _Cache()
    mapped = vmap_of(fn)
    batched = mapped is not None and HAVE_NUMPY and not spec.argnums
    no_static = not spec.argnums  # then `spec.resolve` is always the empty set
    entries = cache.entries
    each = _EachExample(cast(Mapped, mapped), options) if batched else None

    @functools.wraps(fn)
    def jitted(*args: P.args, **kwargs: P.kwargs) -> T:
        if _nesting() > 0:  # under another transform: the result must be a graph
            return fn(*args, **kwargs)
        last = cache.last  # the last call's structure: one function checks it and runs its code
        as_arrays: TreeDef | None = None  # out_axes of a vmap given arrays, run by the loop
        if last is not None and not kwargs and _debugging() is None:
            try:
                out = last[0](args)
            except GuardFailed:
                out = MISS  # the general path below traces again
            if out is not MISS:
                return out  # type: ignore[return-value]  # the trace's result type
        if batched and not kwargs:
            batch = Batch(args, cast(Mapped, mapped).in_spec, cast(Mapped, mapped).names)
            if _debugging() is None:
                if batch.size < options.batch_from and each is not None:  # a few: jit of one
                    return cast(T, each.call(batch))
                out = _batched_call(cast(Mapped, mapped), batch, cache, options)
                if out is not _NOT_BATCHED:
                    return cast(T, out)
            args = batch.converted()  # type: ignore[assignment]  # vmap's arguments, as it reads them
            if batch.arrays:  # the loop's compiled program returns lists where vmap gives arrays
                as_arrays = cast(Mapped, mapped).out_axes
        static = _NO_STATIC if no_static else spec.resolve(len(args))
        try:
            if no_static and not kwargs:  # `call_key`'s common case, inline: a call's fixed cost
                flat: list[float] = []
                shapes: tuple[object, ...] | None = tuple(map(shape_of, args, repeat(flat)))
                key: object = (shapes, ())
            elif not kwargs:  # static arguments: keyed by type and bits among the shapes
                shapes, flat = fast_shape(args, static, fn)
                key = (shapes, ())
            else:
                shapes = None
                key, flat = call_key(args, static, kwargs, fn, vg)
        except Slow:  # only the inline case gets here: `call_key` takes the general flatten itself
            shapes = None
            try:
                shape, flat = slow_shape(args, static, fn, vg)
            except HoldsNode:  # an outer graph among the arguments: eager, never cached
                return fn(*args, **kwargs)
            key = (shape, ())  # as `call_key` keys it
        except HoldsNode:
            return fn(*args, **kwargs)
        if _debugging() is not None:  # inside debug_nans(): every op checked
            if as_arrays is not None:
                return cast(T, arrays_at(_checked_call(fn, vg, args, static, kwargs), as_arrays))
            return cast(T, _checked_call(fn, vg, args, static, kwargs))
        entry = entries.get(key)  # `cache.get`, inline
        if entry is not None and len(entries) > 1:
            try:  # noqa: SIM105  # as in `_Cache.get`
                entries.move_to_end(key)
            except KeyError:
                pass
        if entry is None:
            entry = _trace(fn, vg, args, static, kwargs, options)
            cache.put(key, entry)
        if entry.program is None:
            return fn(*args, **kwargs)
        try:
            out = entry.program(expand(flat) if entry.expand else flat)
        except GuardFailed:  # a choice the trace made on a plain argument goes the other way
            loop = entry.batched  # examples of a batched vmap disagree on a choice: loop
            entry = _trace(fn, vg, args, static, kwargs, options, loop=loop)
            cache.put(key, entry)
            if entry.program is None:
                return fn(*args, **kwargs)
            try:
                out = entry.program(expand(flat) if entry.expand else flat)
            except GuardFailed:  # only a batched trace can fail on the call it traced
                entry = _trace(fn, vg, args, static, kwargs, options, loop=True)
                cache.put(key, entry)
                if entry.program is None:
                    return fn(*args, **kwargs)
                out = entry.program(expand(flat) if entry.expand else flat)
        if shapes is not None and not batched:
            cache.remember(shapes, entry, static)
        if as_arrays is not None:
            return cast(T, arrays_at(entry.finish(out, _same), as_arrays))
        return entry.finish(out, _same)  # type: ignore[return-value]  # the trace's result type (no cast(): a call less)

    def lower(*args: P.args, **kwargs: P.kwargs) -> Lowered:
        static = spec.resolve(len(args))
        token = _recording.set(record := _Record())
        try:
            entry = _trace(fn, vg, args, static, kwargs, options)
        finally:
            _recording.reset(token)
        return Lowered(name_of(fn), record.program, record.sources, entry.program is not None)

    jitted.lower = lower  # type: ignore[attr-defined]  # the function is the `Jitted`: a call stays a plain call
    _caches[jitted] = cache
    return cast(Jitted[P, T], jitted)


class Lowered:
    """What `jit` compiles for one call's arguments: equations, then Python source.

    >>> import autograd as ag
    >>> def f(x: float) -> float:
    ...     return ag.exp(x * x)
    >>> print(ag.jit(ag.grad(f)).lower(0.5).as_text())
    { lambda a0:var. let
        v1:var = mul a0 a0
        v2:var = exp v1
      backward (the cotangent of the output starts at 1.0)
        g0 = vjp[exp, 0] v2
        g1 = vjp[mul, 0] (g0 * a0)
        g2 = vjp[mul, 1] (g0 * a0)
        g3 = add_any g1 g2
      gradients g3
      in (v2) }
    """

    def __init__(
        self, name: str, program: equations.Program | None, sources: Sequence[str], compiled: bool
    ) -> None:
        self.name = name
        self.program = program
        """The traced program of equations (None if the graph could not be made one)."""
        self.compiled = compiled
        """False when calls with these arguments run eagerly (a graph over budget, say)."""
        self.source = "\n\n".join(sources)
        """The generated Python: its functions (chunks and loops), as compiled."""

    def as_text(self) -> str:
        """The equations, one a line: inputs, forward, guards, backward, outputs."""
        if self.program is None:
            return f"# jit({self.name}): runs eagerly, no program of equations"
        return self.program.as_text()


class Jitted(Protocol[P, T_co]):
    """What `jit` returns: ``fn``'s signature, and `lower` for a look at what is compiled."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T_co: ...

    def lower(self, *args: P.args, **kwargs: P.kwargs) -> Lowered:
        """Trace and compile for these arguments, without running; a call traces again."""
        ...


class _Record:
    """What a `Jitted.lower` trace compiled: its equations and generated source."""

    def __init__(self) -> None:
        self.program: equations.Program | None = None
        self.sources: list[str] = []


_recording: ContextVar[_Record | None] = ContextVar("autograd_jit_lowering", default=None)
"""Inside `Jitted.lower`: where the trace's compile records what it made."""


def _record(
    program: Program,
    outputs: Sequence[Node],
    root: Node | None,
    wrt: Sequence[Node],
    state: TraceState,
) -> None:
    """Under `Jitted.lower`, record ``program``'s equations (its trace's) and sources."""
    record = _recording.get()
    if record is None:
        return
    record.sources = list(program.sources)
    inputs = program.input_nodes
    roots = [root] if root is not None else []
    compared = [x for _, a, b, _ in state.guards for x in (a, b)]
    sizes = {x: program.sizes[b - 1] for x, b in program.batch_of.items()}
    vars_, eqns, names = equations.forward(
        inputs, list(program.plain_inputs), [*roots, *outputs, *compared], sizes
    )
    guards = [
        equations.Guard(op, equations.atom(x, names), equations.atom(y, names), outcome)
        for op, x, y, outcome in state.guards
    ]
    backward: list[equations.Eqn] = []
    gradients: list[equations.Atom] = []
    if root is not None:
        graph = toposort_many([root], stop=wrt)
        backward, gradients = equations.backward(graph, names, eqns, root, wrt)
    elif wrt:
        gradients = [equations.Lit(0.0)] * len(wrt)
    outs = [equations.atom(x, names) for x in [*roots, *outputs]]
    record.program = equations.Program(
        tuple(vars_), tuple(eqns), tuple(outs), tuple(guards), tuple(backward), tuple(gradients)
    )


def _check_function(fn: object) -> None:
    """Refuse what jit cannot trace before anything is built."""
    if not callable(fn):
        hint = (
            "; apply jit to the function, then wrap the result in classmethod/staticmethod"
            if isinstance(fn, classmethod | staticmethod)
            else ""
        )
        raise TypeError(f"jit() needs a function, got {type(fn).__name__} {fn!r:.60}{hint}")
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        kind = "a generator function"
    elif inspect.iscoroutinefunction(fn):
        kind = "a coroutine function"
    else:
        return
    raise TypeError(
        f"jit({name_of(fn)}): {kind} cannot be traced: its body runs after jit has returned, "
        "on trace-time variables; jit a plain function that computes each value instead"
    )


# ---- the cache key ----------------------------------------------------------


_NO_STATIC: frozenset[int] = frozenset()


class _Cache:
    """The entries of one jitted function, least recently used first, at most `CACHE_SIZE`."""

    def __init__(self) -> None:
        self.entries: OrderedDict[object, _Entry] = OrderedDict()
        self.lock = threading.RLock()  # reentrant: a static argument's __eq__ may call jit
        self.last: tuple[Fast, _Entry] | None = None
        """The last call's entry, and a function (`dispatch.fast_path`) that checks the
        arguments have its structure and runs its program: a call with that structure
        skips the key and the lookup. One tuple, set at once."""

    def remember(
        self, shapes: tuple[object, ...], entry: _Entry, static: Collection[int] = _NO_STATIC
    ) -> None:
        """Make ``entry`` the last one called, for arguments of structure ``shapes``.

        The arguments at ``static`` are static: their shapes are their keys (`static_key`).
        """
        last = self.last
        if (last is not None and last[1] is entry) or entry.program is None or entry.expand:
            return
        if not entry.checked:
            finish = None if entry.finish is _flat else entry.finish
            entry.fast = fast_path(shapes, entry.program, finish, entry.chunk, static)
            entry.checked, entry.chunk = True, None  # compiled: its statements are not needed again
        if entry.fast is not None:
            self.last = (entry.fast, entry)

    def get(self, key: object) -> _Entry | None:
        # No lock (a call's fixed cost): each OrderedDict operation is atomic, and an entry
        # another thread dropped in between is still a good entry for this call.
        entry = self.entries.get(key)
        if entry is not None:
            try:  # noqa: SIM105  # contextlib.suppress is two Python calls more per call
                self.entries.move_to_end(key)
            except KeyError:
                pass
        return entry

    def put(self, key: object, entry: _Entry) -> None:
        with self.lock:
            self.entries[key] = entry
            self.entries.move_to_end(key)
            while len(self.entries) > CACHE_SIZE:
                self.entries.popitem(last=False)


_caches: weakref.WeakKeyDictionary[Callable[..., object], _Cache] = weakref.WeakKeyDictionary()
"""The cache behind each jitted function, for `cache_size`."""


def cache_size(jitted: Callable[..., object]) -> int:
    """How many traces ``jitted`` (a function `jit` returned) holds."""
    return len(_caches[jitted].entries)


# ---- a vmapped function: one trace, run over the whole batch -----------------


_NOT_BATCHED = object()


class _EachExample:
    """``jit(vmap(fn))`` of a few examples: ``vmap(jit(fn))``, run as eager `vmap` runs.

    Under `Options.batch_from` examples a NumPy call costs more than the
    examples' float arithmetic, so each example runs ``jit(fn)``'s compiled
    code: eager's bits, by `vmap`'s own loop, and ``fn``'s own compiled form
    (``jit(grad(f))`` compiles the sweep; traced inside a loop, it would be
    a graph of nodes).
    """

    __slots__ = ("jitted", "mapped", "options")

    def __init__(self, mapped: Mapped, options: Options) -> None:
        self.mapped = mapped
        self.options = options
        self.jitted: Callable[..., object] | None = None  # made at the first small batch

    def call(self, batch: Batch) -> object:
        if self.jitted is None:
            self.jitted = jit(self.mapped.fn, options=self.options)
        outs = [batch.call(self.jitted, i) for i in range(batch.size)]
        return stack_outputs(outs, self.mapped.out_axes, batch)


"""`_batched_call`'s answer when one batched program cannot run the call."""


def _batched_call(mapped: Mapped, batch: Batch, cache: _Cache, options: Options) -> object:
    """``jit(vmap(fn))(*args)``: ``fn`` traced on one example, its code run on NumPy arrays.

    Statements that depend on a mapped leaf operate on float64 arrays, one
    element per example; the rest on floats. Returns `_NOT_BATCHED` for what
    one batched program cannot do (``jit`` then traces the loop over the
    examples, as without NumPy): a node among the arguments, an ``out_axes``
    other than 0, a choice on a plain number that differs between examples
    (a failed guard), an output that is not a number, a graph over budget.
    """
    if mapped.out_axes != LEAF_AXES:
        return _NOT_BATCHED
    fn = mapped.fn
    vg = transform_of(fn)
    examples, varying, columns = _first_example(batch, fn, vg)  # traced: the first example
    try:
        key, flat = call_key(tuple(examples), (), {}, fn, vg)
    except HoldsNode:  # an outer graph among the arguments: the loop builds on it
        return _NOT_BATCHED
    size, arrays = batch.size, batch.arrays
    packed = packs(size)  # small batches: parallel statements as 2-d operations
    key = ("vmap", key, tuple(varying), packed)
    inputs: list[object] = list(flat)
    for k, c in zip(varying, columns, strict=True):
        inputs[k] = column(c.values)  # type: ignore[attr-defined]  # a _Column

    def lift(v: object) -> object:  # a number the trace returned as it is
        try:
            number = to_float(v)  # as eager `vmap` converts its outputs
        except (TypeError, ValueError):
            raise _NotNumber from None  # the traced loop gives vmap's message
        return as_batch(number, size, arrays)

    for attempt in range(2):
        entry = cache.get(key) if attempt == 0 else None
        if entry is None:
            entry = _trace(
                fn, vg, tuple(examples), (), {}, options, dialect(varying, options, packed=packed)
            )
            cache.put(key, entry)
        if entry.program is None:
            return _NOT_BATCHED
        try:
            with quiet():
                out = entry.program(inputs)  # type: ignore[arg-type]  # floats and arrays
        except GuardFailed:  # traced on another example's choice, or examples disagree
            continue
        try:
            seen = _array_ids(inputs)
            batches = cast(
                "tuple[float, ...]", tuple(as_batch(_owned(v, seen), size, arrays) for v in out)
            )
            return entry.finish(batches, lift)  # finish only places them in the result's tree
        except _NotNumber:
            break
    return _NOT_BATCHED  # examples disagree on a choice made on plain numbers


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


# ---- tracing and compiling --------------------------------------------------


_Program = Callable[[list[float]], tuple[float, ...]]
"""Compiled code: the flat inputs to the flat outputs."""

_Finish = Callable[..., object]
"""The flat outputs (and how to lift a constant one, `_same` by default) to the result."""


class _Entry:
    """A compiled trace: ``finish(program(flat_inputs))`` is the function's result.

    It holds no node of the trace: a dropped graph is freed at once.
    """

    def __init__(
        self,
        program: _Program | None,
        finish: _Finish,
        batched: bool = False,
        chunk: Chunk | None = None,
    ) -> None:
        self.program = program
        self.finish = finish
        self.batched = batched  # a vmap inside ran as one batch
        self.expand = False  # arrays among the arguments are passed as their floats
        self.chunk = fusable(chunk)  # ``program`` as data, if one short generated function
        self.fast: Fast | None = None  # `_Cache.remember`'s checked call of the structure
        self.checked = False  # whether `fast` was written (None: `dispatch` cannot)


def _eager(expand: bool = False) -> _Entry:
    entry = _Entry(None, lambda out, lift: out)
    entry.expand = expand
    return entry


def _same(v: object) -> object:
    return v


def _flat(flat_out: tuple[float, ...], lift: Callable[[object], object] = _same) -> object:
    """The finish of a result that is the program's outputs as they are."""
    return flat_out


class _NotNumber(Exception):
    """A vmapped function returned something that is not a number."""


def _trace(
    fn: Callable[..., object],
    vg: Arguments | None,
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
    options: Options,
    batch: Dialect | None = None,
    loop: bool = False,
) -> _Entry:
    """Call ``fn`` (or the function under ``vg``) on fresh variables and compile its graph.

    With ``batch``, some inputs will hold arrays when the code runs (`_batched_call`).
    Otherwise, with NumPy, `vmap` calls inside ``fn`` run as one batch
    (`compiler.batched`) unless ``loop``; whatever one batched program cannot
    do makes this trace again with ``loop``.
    """
    wrt_nums = vg.resolve(len(args)) if vg is not None else ()  # errors before any work
    spans = _array_spans(args, static, fn)  # where NumPy arrays sit among the inputs
    given = tuple(a if i in static or not spans else arrays_as_lists(a) for i, a in enumerate(args))
    inputs, trees, new_args = _fresh_variables(given, static, fn, vg)
    wrt = _differentiated(wrt_nums, inputs, trees, len(args))
    differentiated = set(wrt)  # the rest are plain floats in the eager call
    state = TraceState({x for x in inputs if x not in differentiated})
    in_arrays = {
        x: (k, i) for k, (at, n) in enumerate(spans) for i, x in enumerate(inputs[at : at + n])
    }
    if differentiated & in_arrays.keys():  # a differentiated array: eager refuses it, so do we
        return _eager(expand=True)  # every call runs eagerly and raises eager's TypeError
    bt = None
    if HAVE_NUMPY and batch is None and not loop:
        bt = BatchTrace(inputs, state, in_arrays, [n for _, n in spans])
    token = batch_hook.set(bt)
    try:
        result = call_guarded(vg.fn if vg is not None else fn, inputs, new_args, kwargs, state)
    except BatchEscape:  # a batched result used one example at a time: the loop serves it
        if bt is None or not bt.used:
            raise
        FALLBACKS["batch escaped"] += 1
        return _trace(fn, vg, args, static, kwargs, options, loop=True)
    finally:
        batch_hook.reset(token)
    plain = [x for x in inputs if x not in differentiated]
    columns: set[Node] = set()
    if bt is not None and bt.used:
        inputs, plain, batch = _with_batch(inputs, plain, in_arrays, bt, options)
    try:
        if batch is not None and bt is not None:
            result, columns = _columns(result)
        with collector.paused():  # millions of objects, none in a cycle (`compiler.collector`)
            try:
                program = Program(inputs, options, floats=plain, batch=batch)
                entry = _compile(program, vg, wrt_nums, result, fn, wrt, trees, columns, state)
            except Unrolled:  # a run the forward pass rolled that the sweep cannot: none rolled
                FALLBACKS["unrolled"] += 1
                program = Program(inputs, options, floats=plain, batch=batch, rolls=False)
                entry = _compile(program, vg, wrt_nums, result, fn, wrt, trees, columns, state)
    except (ExternalNodeError, GraphTooBigError) as e:  # an outside node, or too big: eager
        if bt is not None and bt.used:  # perhaps an array's elements used outside vmap
            FALLBACKS["batch too big or external"] += 1
            return _trace(fn, vg, args, static, kwargs, options, loop=True)
        FALLBACKS["too big" if isinstance(e, GraphTooBigError) else "external node"] += 1
        if isinstance(e, GraphTooBigError):  # a cliff in speed: said, once per trace
            _warn_too_big(fn, e)
        return _eager(expand=bool(spans))
    except NotBatchable:  # a batch's values reach an output: only the loop gives them
        FALLBACKS["not batchable"] += 1
        return _trace(fn, vg, args, static, kwargs, options, loop=True)
    if bt is not None and bt.used and entry.program is not None:
        return _with_columns(entry, bt)
    entry.expand = bool(spans)
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


def _warn_too_big(fn: Callable[..., object], e: GraphTooBigError) -> None:
    warnings.warn(
        f"jit({name_of(fn)}): the traced graph is too big to compile ({e}, after "
        "rolling repeated code into loops); calls with these argument shapes run "
        "eagerly, with the same results",
        RuntimeWarning,
        stacklevel=4,  # the user's call of the jitted function
    )


def _compile(
    program: Program,
    vg: Arguments | None,
    nums: tuple[int, ...],
    result: object,
    fn: Callable[..., object],
    wrt: list[Node],
    trees: dict[int, TreeDef],
    columns: set[Node],
    state: TraceState,
) -> _Entry:
    program.guards(state.guards)
    if vg is None:
        return _compile_plain(program, result, fn, columns, state)
    return _compile_grad(program, vg, nums, result, wrt, trees, columns, state)


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


def _columns(result: object) -> tuple[object, set[Node]]:
    """``result`` with each batched `vmap` result replaced by its node, and those nodes."""
    leaves, tree = flatten_any(result)
    if any(isinstance(x, Example) for x in leaves):  # one example, taken out of a batch
        raise NotBatchable(result)
    nodes = {x.node for x in leaves if type(x) is BatchedList}
    if not nodes:
        return result, set()
    return unflatten(tree, [x.node if type(x) is BatchedList else x for x in leaves]), nodes


def _with_columns(entry: _Entry, bt: BatchTrace) -> _Entry:
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

    return _Entry(program, entry.finish, batched=True)


Shape = tuple[int, bool]
"""An output's batch: its number of examples (0: one number) and whether it is an array."""


def _outputs(program: Program, nodes: Sequence[Node], columns: set[Node]) -> list[Shape]:
    """Per output node, its batch if it is a batched `vmap` result, else ``(0, False)``.

    A batch whose mapped leaves include a NumPy array gives an array, as eager `vmap` does.

    Raises:
        NotBatchable: if another output varies over a batch (an inner transform
            differentiated through a batch sum, say): only the loop computes it.
    """
    shapes = []
    for x in nodes:
        b = program.batch_of.get(x, 0)
        if b and x not in columns:
            raise NotBatchable(x)
        shapes.append((program.sizes[b - 1], b in program.array_batches) if b else (0, False))
    return shapes


def _as_lists(
    run: Callable[[list[float]], tuple[float, ...]], shapes: list[Shape]
) -> Callable[[list[float]], tuple[float, ...]]:
    """``run`` with its batched outputs as one value per example (a list, or an array)."""
    batched = [(i, n, a) for i, (n, a) in enumerate(shapes) if n]
    if not batched:
        return run

    def lists(inputs: list[float]) -> tuple[float, ...]:
        out = list(run(inputs))
        seen = _array_ids(inputs)
        for i, n, a in batched:
            out[i] = as_batch(_owned(out[i], seen), n, a)  # type: ignore[call-overload]  # a batch
        return tuple(out)

    return lists


def _array_ids(values: Sequence[object]) -> set[int]:
    """The ids of the arrays among ``values`` (the rest are floats)."""
    return {id(x) for x in values if type(x) is not float}


def _owned(v: object, seen: set[int]) -> object:
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


def _gather(positions: list[int]) -> Callable[[list[float]], object]:
    """The column of a jitted function's arguments at ``positions``, as an array."""
    pick = operator.itemgetter(*positions)
    if len(positions) == 1:
        return lambda flat: column([pick(flat)])
    return lambda flat: column(pick(flat))


def _checked_call(
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
    leaves, tree = _result_leaves(result, "output", fn)
    return unflatten(tree, [x.value if isinstance(x, _Arith) else x for x in leaves])


def _result_leaves(
    result: object, root: str, fn: Callable[..., object]
) -> tuple[list[object], TreeDef]:
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
) -> _Entry:
    leaves, tree = _result_leaves(result, "output", fn)
    nodes: list[Node] = [x for x in leaves if isinstance(x, _Arith)]
    program.forward(nodes)
    sizes = _outputs(program, nodes, columns)
    linked = program.link([program.names[x] for x in nodes])
    _record(program, nodes, None, (), state)
    run = _as_lists(linked, sizes)
    fixed = [_OUT if isinstance(x, _Arith) else x for x in leaves]  # keeps no node of the trace

    def finish(out: tuple[float, ...], lift: Callable[[object], object] = _same) -> object:
        it = iter(out)
        return unflatten(tree, [next(it) if x is _OUT else lift(x) for x in fixed])

    return _Entry(run, finish, chunk=program.lone if run is linked else None)


def _compile_grad(
    program: Program,
    vg: Arguments,
    nums: tuple[int, ...],
    result: object,
    wrt: list[Node],
    trees: dict[int, TreeDef],
    columns: set[Node],
    state: TraceState,
) -> _Entry:
    out, aux = scalar_output(vg, result)
    aux_leaves, aux_tree = _result_leaves(aux, "aux", vg.fn)
    aux_nodes: list[Node] = [x for x in aux_leaves if isinstance(x, _Arith)]
    aux_fixed = [_OUT if isinstance(x, _Arith) else x for x in aux_leaves]
    root = out if isinstance(out, _Arith) else None
    roots = [root] if root is not None else []
    program.forward([*roots, *aux_nodes])
    _outputs(program, roots, set())  # the value is one number (a batch's: the loop's error)
    sizes = [(0, False)] * (len(roots) + len(wrt)) + _outputs(program, aux_nodes, columns)
    grads = program.backward(root, wrt) if root is not None else ["0.0"] * len(wrt)
    value = [program.names[root]] if root is not None else []
    names = [*value, *grads, *(program.names[x] for x in aux_nodes)]
    linked = program.link(names)
    _record(program, aux_nodes, root, wrt, state)
    run = _as_lists(linked, sizes)
    chunk = program.lone if run is linked else None
    computed = root is not None  # the closure below must not keep the trace's root alive
    const_value = float(out) if not isinstance(out, _Arith) else 0.0

    pair = vg.name == "value_and_grad"
    if vg.single and computed and not vg.has_aux:  # one gradient, no aux: the common case
        return _Entry(run, _finish_one(trees[nums[0]], pair), chunk=chunk)

    def finish(flat_out: tuple[float, ...], lift: Callable[[object], object] = _same) -> object:
        it = iter(flat_out)
        v = next(it) if computed else lift(const_value)
        gtrees = [unflatten(trees[i], [next(it) for _ in range(trees[i].num_leaves)]) for i in nums]
        g = gtrees[0] if vg.single else tuple(gtrees)
        if vg.has_aux:
            a = unflatten(aux_tree, [next(it) if x is _OUT else lift(x) for x in aux_fixed])
            return ((v, a), g) if vg.name == "value_and_grad" else (g, a)
        return (v, g) if vg.name == "value_and_grad" else g

    return _Entry(run, finish, chunk=chunk)


def _finish_one(tree: TreeDef, pair: bool) -> Callable[..., object]:
    """`finish` of a `grad` or `value_and_grad` of one argument: the value, then its leaves."""
    if pair and tree.kind is Kind.LEAF:  # the program's (value, gradient) is the result
        return _flat
    if pair:
        both = pair_builder(tree)
        return lambda flat_out, lift=_same: both(flat_out)
    rebuild = builder(tree)
    return lambda flat_out, lift=_same: rebuild(flat_out[1:])


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
