"""`jit`: trace a function once per argument structure, compile its graph, cache it.

Tracing calls the function on fresh `Leaf` variables, so its graph is the
eager graph; `codegen` turns it into Python, repeated code rolled into loops
(`reroll`). A traced function must not read ``.value`` of a node that
depends on its inputs: a Python ``if`` on that value would be frozen into
the compiled code. While a trace runs, such reads raise `TypeError` at
once (`compiler.guard`).

This module holds `jit` and the call of a jitted function, its hot path. The
rest is beside it: the cache of each jitted function (`compiler.cache`), keyed
by the structure of the traced arguments and by the static and keyword
arguments (`compiler.keys`); a call with the structure of the call before it
runs one generated function (`compiler.dispatch`). A cache miss traces the
call and compiles it (`compiler.tracing`, `compiler.entries`); a jitted
`vmap` runs its examples as one batch (`compiler.vmapped`); `lower` shows
what is compiled (`compiler.lowering`).
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from itertools import repeat
from typing import ParamSpec, Protocol, TypeVar, cast

from autograd.compiler.arrays import HAVE_NUMPY
from autograd.compiler.cache import CACHE_SIZE as CACHE_SIZE
from autograd.compiler.cache import NO_STATIC, Cache
from autograd.compiler.codegen import GuardFailed
from autograd.compiler.dispatch import MISS
from autograd.compiler.entries import Entry, same
from autograd.compiler.keys import (
    HoldsNode,
    Slow,
    call_key,
    expand,
    name_of,
    shape_of,
    slow_shape,
)
from autograd.compiler.lowering import Lowered as Lowered
from autograd.compiler.lowering import Record, recording
from autograd.compiler.options import DEFAULT, Options
from autograd.compiler.statics import StaticArgs
from autograd.compiler.tracing import FALLBACKS as FALLBACKS
from autograd.compiler.tracing import checked_call, trace
from autograd.compiler.vmapped import NOT_BATCHED, Vmapped
from autograd.core.context import debug_sites, nesting
from autograd.pytree import TreeDef
from autograd.transforms.arguments import Arguments
from autograd.transforms.batch import arrays_at
from autograd.transforms.grad import transform_of
from autograd.transforms.vmap import vmap_of

P = ParamSpec("P")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

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
    later calls run the compiled code, bit-identical to ``fn`` run on nodes. On
    ``jit(grad(f))`` and ``jit(value_and_grad(f))`` the backward pass is
    compiled too. A call under another transform (``grad(jit(f))``) or with a
    node among its arguments runs ``f`` eagerly; inside `debug_nans`, on fresh
    variables, every op checked. Each jitted function keeps its `CACHE_SIZE`
    most recently used traces.

    Args:
        fn: a function of pytrees of floats (lists, tuples, dicts, ...),
            returning a pytree of nodes, numbers and strings.
        static_argnums: positional arguments not traced but keyed on (hashable:
            sizes, flags, names), compared by type and bits (``0.0`` and
            ``-0.0``, ``1`` and ``True`` differ); negative ones count from the
            end. Passed by keyword or left to its default, one is static anyway.
        static_argnames: parameter names that are static, passed by keyword
            or by position (as JAX infers one list from the other).
        options: the compiler's thresholds (`compiler.options.Options`: budgets,
            chunk sizes, when loops are looked for); the defaults by default.

    Returns:
        A function with ``fn``'s signature; its ``lower(*args)`` returns what is
        compiled for those arguments (`Lowered`: equations, generated Python).

    Warns:
        RuntimeWarning: once per trace whose graph is too big to compile even
            rolled into loops (``options.budget``): those shapes run eagerly.

    Raises:
        TypeError: if ``fn`` is not callable or is a generator or coroutine
            function, or static_argnums (argnames) are not ints (strings). When
            called: a negative static index out of range, a traced argument
            that is not a pytree of numbers, an unhashable static one, a result
            holding an unknown object (a set), and (when tracing) ``fn`` reading
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
    options = _options(options)
    vg = transform_of(fn)
    spec = StaticArgs(fn, static_argnums, static_argnames, vg, name_of(fn))
    return _jitted(fn, vg, spec, options)


class Jitted(Protocol[P, T_co]):
    """What `jit` returns: ``fn``'s signature, and `lower` for a look at what is compiled."""

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> T_co: ...

    def lower(self, *args: P.args, **kwargs: P.kwargs) -> Lowered:
        """Trace and compile for these arguments, without running; a call traces again."""
        ...


_caches: weakref.WeakKeyDictionary[Callable[..., object], Cache] = weakref.WeakKeyDictionary()
"""The cache behind each jitted function, for `cache_size`."""


def cache_size(jitted: Callable[..., object]) -> int:
    """How many traces ``jitted`` (a function `jit` returned) holds."""
    return len(_caches[jitted].entries)


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


def _options(options: Options | None) -> Options:
    """The options to compile with: the defaults, or ``options`` if it is an `Options`."""
    if options is None:
        return DEFAULT
    if not isinstance(options, Options):
        raise TypeError(f"jit: options must be an Options, got {type(options).__name__}")
    return options


def _jitted(
    fn: Callable[P, T], vg: Arguments | None, spec: StaticArgs, options: Options
) -> Jitted[P, T]:
    """What `jit` returns: ``fn``'s calls, reading a cache of their own, and its `lower`."""
    cache = Cache()
    jitted = _calls(fn, vg, spec, options, cache)
    jitted.lower = _lowering(fn, vg, spec, options)  # type: ignore[attr-defined]  # the function is the `Jitted`: a call stays a plain call
    _caches[jitted] = cache
    return cast(Jitted[P, T], jitted)


def _calls(
    fn: Callable[P, T], vg: Arguments | None, spec: StaticArgs, options: Options, cache: Cache
) -> Callable[P, T]:
    """``fn`` jitted, but for `lower`: each call runs the code compiled for its arguments."""
    vmapped = _vmapped(fn, spec, options, cache)
    no_static = not spec.argnums  # then `spec.resolve` is always the empty set
    entries = cache.entries

    @functools.wraps(fn)
    def jitted(*args: P.args, **kwargs: P.kwargs) -> T:
        if _nesting() > 0:  # under another transform: the result must be a graph
            return fn(*args, **kwargs)
        as_arrays: TreeDef | None = None  # out_axes of a vmap given arrays, run by the loop
        if (last := cache.last) is not None and not kwargs and _debugging() is None:
            try:  # the last call's structure: one function checks it and runs its code
                out = last[0](args)
            except GuardFailed:
                out = MISS  # the general path below traces again
            if out is not MISS:
                return out  # type: ignore[return-value]  # the trace's result type
        if vmapped is not None and not kwargs:  # a few examples, or one batch; else the loop
            out, args, as_arrays = vmapped.call(args)  # type: ignore[assignment]  # vmap's arguments
            if out is not NOT_BATCHED:
                return cast(T, out)
        static = NO_STATIC if no_static else spec.resolve(len(args))
        try:
            try:
                if no_static and not kwargs:  # `call_key`'s common case, inline: a fixed cost
                    flat: list[float] = []
                    shapes: tuple[object, ...] | None = tuple(map(shape_of, args, repeat(flat)))
                    key: object = (shapes, ())
                else:
                    shapes, key, flat = call_key(args, static, kwargs, fn, vg)
            except Slow:  # only the inline case gets here: `call_key` takes the general flatten
                shapes, key, flat = _slow_key(args, static, fn, vg)
        except HoldsNode:  # an outer graph among the arguments: eager, never cached
            return fn(*args, **kwargs)
        if _debugging() is not None:  # inside debug_nans(): every op checked
            return cast(T, _debug_call(fn, vg, args, static, kwargs, as_arrays))
        if (entry := entries.get(key)) is None:  # `cache.get`, inline
            entry = cache.put(key, trace(fn, vg, args, static, kwargs, options))
        elif len(entries) > 1:
            try:  # noqa: SIM105  # as in `Cache.get`
                entries.move_to_end(key)
            except KeyError:
                pass
        if entry.program is None:  # runs eagerly (too big, say)
            return fn(*args, **kwargs)
        try:
            out = entry.program(expand(flat) if entry.expand else flat)
        except GuardFailed:  # a choice the trace made on a plain argument goes the other way
            entry, out = _retry(cache, key, flat, entry, fn, vg, args, static, kwargs, options)
            if entry.program is None:
                return fn(*args, **kwargs)
        if shapes is not None and vmapped is None:
            cache.remember(shapes, entry, static)
        result = entry.finish(out, same)
        return result if as_arrays is None else arrays_at(result, as_arrays)  # type: ignore[return-value]  # the trace's result type (no cast(): a call less)

    return jitted


def _vmapped(
    fn: Callable[..., object], spec: StaticArgs, options: Options, cache: Cache
) -> Vmapped | None:
    """How calls of ``jit(vmap(f))`` run, with NumPy and no static argument; else None."""
    mapped = vmap_of(fn)
    if mapped is None or not HAVE_NUMPY or spec.argnums:
        return None
    return Vmapped(mapped, options, cache, functools.partial(jit, mapped.fn, options=options))


def _slow_key(
    args: tuple[object, ...],
    static: Collection[int],
    fn: Callable[..., object],
    vg: Arguments | None,
) -> tuple[None, object, list[float]]:
    """`call_key` of a call without static or keyword arguments, by the general flatten."""
    shape, flat = slow_shape(args, static, fn, vg)
    return None, (shape, ()), flat


def _debug_call(
    fn: Callable[..., object],
    vg: Arguments | None,
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
    as_arrays: TreeDef | None,
) -> object:
    """A call inside `debug_nans` (`tracing.checked_call`); as eager `vmap`, arrays if given."""
    out = checked_call(fn, vg, args, static, kwargs)
    return out if as_arrays is None else arrays_at(out, as_arrays)


def _retry(
    cache: Cache,
    key: object,
    flat: list[float],
    failed: Entry,
    fn: Callable[..., object],
    vg: Arguments | None,
    args: tuple[object, ...],
    static: Collection[int],
    kwargs: dict[str, object],
    options: Options,
) -> tuple[Entry, tuple[float, ...]]:
    """After ``failed``'s guard failed: the call traced again, its entry and outputs.

    The new entry replaces ``failed`` under ``key``; if it runs eagerly, there are no
    outputs. If the examples of a batched `vmap` disagreed on a choice, it loops over them.
    """
    entry = cache.put(key, trace(fn, vg, args, static, kwargs, options, loop=failed.batched))
    if entry.program is None:
        return entry, ()
    try:
        return entry, entry.program(expand(flat) if entry.expand else flat)
    except GuardFailed:  # only a batched trace can fail on the call it traced
        entry = cache.put(key, trace(fn, vg, args, static, kwargs, options, loop=True))
        if entry.program is None:
            return entry, ()
        return entry, entry.program(expand(flat) if entry.expand else flat)


def _lowering(
    fn: Callable[..., object], vg: Arguments | None, spec: StaticArgs, options: Options
) -> Callable[..., Lowered]:
    """`Jitted.lower` of ``fn``: a trace compiled for the given arguments, recorded."""

    def lower(*args: object, **kwargs: object) -> Lowered:
        static = spec.resolve(len(args))
        token = recording.set(into := Record())
        try:
            entry = trace(fn, vg, args, static, kwargs, options)
        finally:
            recording.reset(token)
        return Lowered(name_of(fn), into.program, into.sources, entry.program is not None)

    return lower
