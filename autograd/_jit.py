"""`jit`: trace a function once per argument structure, compile its graph, cache it.

Tracing calls the function on fresh `Leaf` variables, so its graph is the
eager graph; `_codegen` turns it into straight-line Python. A traced function
must not read ``.value`` of a node that depends on its inputs: a Python
``if`` on that value would be frozen into the compiled code. While a trace
runs, such reads raise `TypeError` at once (see `_read_guard`), except in the
forward rules of the node classes themselves, whose float arithmetic is
exactly what the compiled code repeats.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import ParamSpec, TypeVar, cast, get_args

from ._codegen import ExternalNodeError, GraphTooBigError, Program
from ._nodes import Leaf, Node, _Arith, int_to_float
from ._pytree import TreeDef, flatten, flatten_any, unflatten
from ._trace import debug_sites, nesting
from ._transforms import _ValueAndGrad, transform_of

P = ParamSpec("P")
T = TypeVar("T")

BUDGET = 400_000
"""Statements above which a graph is not compiled: calls then run eagerly
(CPython compiles about 10 us per statement)."""


def jit(fn: Callable[P, T], static_argnums: int | Sequence[int] = ()) -> Callable[P, T]:
    """``fn`` compiled: traced once per argument structure, then straight-line code.

    The first call with a new structure (container types, lengths, dict keys
    in order) or new static arguments traces ``fn`` and compiles its graph;
    later calls run the compiled code, giving bit-identical results to ``fn``
    run on nodes. On ``jit(grad(f))`` and ``jit(value_and_grad(f))`` the
    backward pass is compiled too; ``grad(jit(f))`` works as well (it runs
    ``f`` eagerly, as does any call under another transform). Inside
    `debug_nans` calls run eagerly too, so every op is checked.

    Args:
        fn: a function of pytrees of floats (lists, tuples, dicts, ...).
        static_argnums: positional arguments that are not traced but part of the
            cache key (hashable: sizes, flags, names). Keyword arguments are
            always static.

    Returns:
        A function with ``fn``'s signature.

    Raises:
        TypeError: (when tracing) if ``fn`` reads ``.value`` of a node that
            depends on a traced argument, such as ``if x.value > 0``: mark the
            argument static or branch without jit. Also for a traced argument
            that is not a pytree of numbers, or an unhashable static one.

    >>> import autograd as ag
    >>> f = ag.jit(ag.value_and_grad(lambda p: ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5))
    >>> f({"w1": 2.0, "w2": 3.0})
    (2.5, {'w1': 1.0, 'w2': -2.0})
    """
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if not all(type(i) is int and i >= 0 for i in static):
        raise TypeError(f"jit(): static_argnums must be non-negative ints, got {static_argnums!r}")
    vg = transform_of(fn)
    cache: dict[object, _Entry] = {}

    @functools.wraps(fn)
    def jitted(*args: P.args, **kwargs: P.kwargs) -> T:
        if nesting.get() > 0:  # under another transform: the result must be a graph
            return fn(*args, **kwargs)
        if debug_sites.get() is not None:  # inside debug_nans(): eager, so every op is checked
            return fn(*args, **kwargs)
        try:
            key, flat = _fast_key(args, static, kwargs)
        except _Slow:
            key, flat = _slow_key(args, static, kwargs, fn, vg)
            if key is None:  # a node among the arguments: an outer graph
                return fn(*args, **kwargs)
        try:
            entry = cache.get(key)
        except TypeError as e:  # an unhashable static or keyword argument
            raise TypeError(
                f"jit: static arguments (static_argnums={static}) and keyword arguments "
                f"are part of the cache key and must be hashable: {e}"
            ) from None
        if entry is None:
            entry = cache[key] = _trace(fn, vg, args, static, kwargs)
        if entry.program is None:
            return fn(*args, **kwargs)
        return cast(T, entry.finish(entry.program(flat)))  # the trace's result type

    return jitted


class _Slow(Exception):
    """The arguments need the general pytree flatten."""


def _fast_key(
    args: tuple[object, ...], static: tuple[int, ...], kwargs: dict[str, object]
) -> tuple[object, list[float]]:
    """The cache key and flat inputs for lists, tuples, dicts and floats (the common case)."""
    flat: list[float] = []
    shape = tuple(("static", a) if i in static else _shape(a, flat) for i, a in enumerate(args))
    return (shape, tuple(kwargs.items())), flat


_FAST_DEPTH = 100
"""Deeper (or cyclic) arguments take the iterative pytree flatten: no recursion limit."""


def _shape(x: object, out: list[float], depth: int = 0) -> object:
    if depth > _FAST_DEPTH:
        raise _Slow
    t = type(x)
    if t is float:
        out.append(x)  # type: ignore[arg-type]  # mypy does not narrow on `type(x) is`
        return float
    if t is list or t is tuple:
        return (t, *[_shape(v, out, depth + 1) for v in cast("Sequence[object]", x)])
    if t is dict:
        d = cast("dict[object, object]", x)
        return (t, tuple(d), *[_shape(v, out, depth + 1) for v in d.values()])
    if t is int:
        out.append(int_to_float(cast(int, x)))
        return float
    raise _Slow


def _slow_key(
    args: tuple[object, ...],
    static: tuple[int, ...],
    kwargs: dict[str, object],
    fn: Callable[..., object],
    vg: _ValueAndGrad | None,
) -> tuple[object | None, list[float]]:
    """Any pytree; None as the key when an argument holds a node (from an outer graph)."""
    flat: list[float] = []
    shape: list[object] = []
    for i, a in enumerate(args):
        if i in static:
            shape.append(("static", a))
            continue
        leaves, tree = _flatten_arg(a, i, fn, vg)
        if any(isinstance(x, _Arith) for x in leaves):
            return None, []
        flat.extend(leaves)  # type: ignore[arg-type]  # floats: nodes were ruled out
        shape.append(tree)
    return (tuple(shape), tuple(kwargs.items())), flat


def _flatten_arg(
    a: object, i: int, fn: Callable[..., object], vg: _ValueAndGrad | None
) -> tuple[list[object], TreeDef]:
    root = vg._root(i) if vg is not None else f"args[{i}]"
    try:
        leaves, tree = flatten(a, root)
    except TypeError as e:
        raise TypeError(
            f"jit({getattr(fn, '__name__', 'fn')}): {e}; "
            f"mark argument {i} static (static_argnums=({i},)) if it is not data"
        ) from None
    return list(leaves), tree


class _Entry:
    """A compiled trace: ``finish(program(flat_inputs))`` is the function's result."""

    def __init__(
        self,
        program: Callable[[list[float]], tuple[float, ...]] | None,
        finish: Callable[[tuple[float, ...]], object],
    ) -> None:
        self.program = program
        self.finish = finish


def _eager() -> _Entry:
    return _Entry(None, lambda out: out)


def _trace(
    fn: Callable[..., object],
    vg: _ValueAndGrad | None,
    args: tuple[object, ...],
    static: tuple[int, ...],
    kwargs: dict[str, object],
) -> _Entry:
    """Call ``fn`` (or the function under ``vg``) on fresh variables and compile its graph."""
    if vg is not None:
        vg.check_positional(args)
    inputs: list[Node] = []
    trees: dict[int, TreeDef] = {}
    new_args = list(args)
    for i, a in enumerate(args):
        if i not in static:
            leaves, trees[i] = _flatten_arg(a, i, fn, vg)
            variables = [Leaf(x) for x in leaves]  # type: ignore[arg-type]  # floats, checked
            inputs.extend(variables)
            new_args[i] = unflatten(trees[i], variables)
    token = nesting.set(nesting.get() + 1)  # inner transforms build graphs we can compile
    try:
        with _read_guard():
            result = (vg.fn if vg is not None else fn)(*new_args, **kwargs)
    finally:
        nesting.reset(token)
    program = Program(inputs, BUDGET)
    try:
        if vg is None:
            return _compile_plain(program, result)
        return _compile_grad(program, vg, result, inputs, trees, args)
    except (ExternalNodeError, GraphTooBigError):  # an outside node, or too big: stay eager
        return _eager()


def _compile_plain(program: Program, result: object) -> _Entry:
    leaves, tree = flatten_any(result)
    nodes = [x for x in leaves if isinstance(x, _Arith)]
    program.forward(nodes)  # type: ignore[arg-type]  # every _Arith is a Node
    names = [program.names[x] for x in nodes]  # type: ignore[index]
    run = program.link(names)

    def finish(out: tuple[float, ...]) -> object:
        it = iter(out)
        return unflatten(tree, [next(it) if isinstance(x, _Arith) else x for x in leaves])

    return _Entry(run, finish)


def _compile_grad(
    program: Program,
    vg: _ValueAndGrad,
    result: object,
    inputs: list[Node],
    trees: dict[int, TreeDef],
    args: tuple[object, ...],
) -> _Entry:
    out, aux = vg._split(result)
    aux_leaves, aux_tree = flatten_any(aux)
    aux_nodes: list[Node] = [x for x in aux_leaves if isinstance(x, _Arith)]  # type: ignore[misc]
    wrt: list[Node] = []
    offsets = _offsets(trees, len(args))
    for i in vg.argnums:
        wrt.extend(inputs[offsets[i] : offsets[i] + trees[i].num_leaves])
    root = out if isinstance(out, _Arith) else None
    program.forward([*([root] if root is not None else []), *aux_nodes])
    grads = program.backward(root, wrt) if root is not None else ["0.0"] * len(wrt)
    value = [program.names[root]] if root is not None else []
    run = program.link([*value, *grads, *(program.names[x] for x in aux_nodes)])
    const_value = float(out) if not isinstance(out, _Arith) else 0.0

    def finish(flat_out: tuple[float, ...]) -> object:
        it = iter(flat_out)
        v = next(it) if root is not None else const_value
        gtrees = [
            unflatten(trees[i], [next(it) for _ in range(trees[i].num_leaves)]) for i in vg.argnums
        ]
        g = gtrees[0] if vg.single else tuple(gtrees)
        if vg.has_aux:
            a = unflatten(aux_tree, [next(it) if isinstance(x, _Arith) else x for x in aux_leaves])
            return ((v, a), g) if vg.name == "value_and_grad" else (g, a)
        return (v, g) if vg.name == "value_and_grad" else g

    return _Entry(run, finish)


def _offsets(trees: dict[int, TreeDef], n: int) -> dict[int, int]:
    offsets, at = {}, 0
    for i in range(n):
        if i in trees:
            offsets[i] = at
            at += trees[i].num_leaves
    return offsets


# ---- catching value-dependent Python while tracing ----------------------------

_tracing: ContextVar[bool] = ContextVar("autograd_jit_tracing", default=False)
_lock = threading.Lock()
_active = 0
_TRUSTED_MODULES = frozenset({"autograd._nodes", "autograd._ops", "autograd._codegen"})
_RULES = frozenset({"vjp", "jvp"})  # derivative rules decide on values: never trusted


class _GuardedValue:
    """Stands in for a node class's ``value`` slot while a trace runs anywhere.

    Reads from outside the forward rules, in a context that is tracing, raise;
    every other read (other threads, other contexts) gets the value as usual.
    """

    __slots__ = ("slot",)

    def __init__(self, slot: object) -> None:
        self.slot = slot

    def __get__(self, node: object, owner: type | None = None) -> object:
        if node is None:
            return self
        value = self.slot.__get__(node, owner)  # type: ignore[attr-defined]
        if _tracing.get():
            frame = sys._getframe(1)
            module = frame.f_globals.get("__name__")
            if module not in _TRUSTED_MODULES or frame.f_code.co_name in _RULES:
                raise TypeError(
                    f"jit: the traced function reads `.value` of {node!r:.40} "
                    f"({frame.f_code.co_filename}:{frame.f_lineno}), a node that depends on a "
                    "traced argument; a Python branch on it would be frozen into the compiled "
                    "code. Mark the argument static (static_argnums), compute without `.value` "
                    "(relu, ...), or call the function without jit."
                )
        return value

    def __set__(self, node: object, value: object) -> None:
        self.slot.__set__(node, value)  # type: ignore[attr-defined]


@contextlib.contextmanager
def _read_guard() -> Iterator[None]:
    global _active
    with _lock:
        if _active == 0:
            for cls in get_args(Node):
                cls.value = _GuardedValue(cls.__dict__["value"])
        _active += 1
    token = _tracing.set(True)
    try:
        yield
    finally:
        _tracing.reset(token)
        with _lock:
            _active -= 1
            if _active == 0:
                for cls in get_args(Node):
                    cls.value = cls.__dict__["value"].slot
