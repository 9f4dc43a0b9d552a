"""`to_jax`: a typed scalar function as a JAX function on arrays, traced once per structure."""

from __future__ import annotations

import contextlib
import functools
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar, overload

import attrs

from autograd.compiler.keys import name_of
from autograd.core.convert import to_float
from autograd.core.nodes import Scalar
from autograd.export._equations import Statics, Traced, attrs_classes, static_key, trace
from autograd.export._jax import Jax, Value, compile_run, load
from autograd.pytree import TreeDef, flatten_any, paths, unflatten

if TYPE_CHECKING:
    from jax import Array

T = TypeVar("T")

CACHE_SIZE = 128
"""Traces each exported function keeps, least recently used dropped first (as `jit`)."""


@overload
def to_jax(
    fn: Callable[..., Scalar],
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
) -> Callable[..., Array]: ...
@overload
def to_jax(
    fn: Callable[..., tuple[Scalar, ...]],
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
) -> Callable[..., tuple[Array, ...]]: ...
@overload
def to_jax(
    fn: Callable[..., object],
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
) -> Callable[..., object]: ...
def to_jax(
    fn: Callable[..., object],
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
) -> Callable[..., object]:
    """``fn`` as a JAX function: traced once per argument structure, its ops emitted as ``jnp``.

    The first call with a new structure (container types, lengths, dict keys
    in order) or new static arguments calls ``fn`` on fresh variables, as
    `autograd.jit` does, and writes each op node of the graph as its JAX twin
    (``jnp.exp`` for `Exp`, ``jnp.where`` for a rule's choice); every call
    then runs those on the arguments' arrays. The result composes with
    ``jax.jit``, ``jax.vmap``, ``jax.grad`` and sharding: JAX differentiates
    it with its own rules (docs/jax.md lists where they differ from ours).

    Each leaf of a traced argument is a float64 array of any shape (the
    function applies element by element; under ``jax.vmap`` each example's
    leaf is a scalar), or a Python number. JAX runs in float64: importing
    JAX here turns ``jax_enable_x64`` on. The attrs classes of the arguments
    and result are registered as JAX pytrees (`to_arrays` does it for
    parameters before JAX first sees them).

    Args:
        fn: a function of pytrees of numbers, returning a pytree of numbers:
            what `autograd.grad` or `autograd.jit` accept.
        static_argnums: positional arguments that are not traced but part of
            the trace's key (hashable; floats by bits), as in `autograd.jit`;
            under ``jax.jit`` mark them static there too.
        static_argnames: parameter names that are static; keyword arguments
            are always static, as in `autograd.jit`.

    Returns:
        A function with ``fn``'s arguments taking arrays where ``fn`` takes
        numbers, and returning ``fn``'s result with float64 arrays for numbers.

    Raises:
        ImportError: if JAX is not installed (the ``jax`` extra).
        TypeError: if ``fn`` is not callable. When called: for a leaf that is
            not a float64 array or a number, or an unhashable static argument
            (naming its path); if ``fn`` reads ``.value`` of a traced node,
            uses a node it was not given, or uses an op with no JAX twin (a
            ``define_op`` op: its name is said).

    >>> import autograd as ag
    >>> import jax, jax.numpy as jnp
    >>> f = to_jax(lambda p: ag.tanh(p["w"] * p["x"]) + ag.relu(p["x"]))
    >>> p = {"w": jnp.float64(0.5), "x": jnp.float64(2.0)}
    >>> float(f(p)) == ag.tanh(0.5 * 2.0) + 2.0
    True
    >>> g = jax.grad(f)(p)
    >>> float(g["w"]) == ag.grad(lambda p: ag.tanh(p["w"] * p["x"]) + ag.relu(p["x"]))(
    ...     {"w": 0.5, "x": 2.0})["w"]
    True
    """
    if not callable(fn):
        raise TypeError(f"to_jax() needs a function, got {type(fn).__name__} {fn!r:.60}")
    j = load()
    name = name_of(fn)
    statics = Statics(fn, static_argnums, static_argnames)
    cache: OrderedDict[object, tuple[Traced, Callable[[Sequence[Value]], list[Value]]]]
    cache = OrderedDict()

    @functools.wraps(fn)
    def exported(*args: object, **kwargs: object) -> object:
        static = statics.resolve(len(args))
        flat: list[Value] = []
        key: list[object] = []
        for i, a in enumerate(args):
            root = f"to_jax({name}): args[{i}]"
            if i in static:
                key.append(static_key(a, root))
                continue
            leaves, tree = flatten_any(a, root)
            key.append(tree)
            flat.extend(_values(j, leaves, tree, root))
        key.append(tuple((k, static_key(v, f"to_jax({name}): {k}=")) for k, v in kwargs.items()))
        at = tuple(key)
        entry = cache.get(at)
        if entry is None:
            traced = _traced(fn, args, static, kwargs, name)
            register(j, attrs_classes([*traced.trees, traced.result]))
            entry = cache[at] = (traced, compile_run(j, traced.program))
            if len(cache) > CACHE_SIZE:
                cache.popitem(last=False)
        else:
            cache.move_to_end(at)
        return unflatten(entry[0].result, entry[1](flat))

    return exported


def _traced(
    fn: Callable[..., object],
    args: tuple[object, ...],
    static: frozenset[int],
    kwargs: dict[str, object],
    name: str,
) -> Traced:
    try:
        return trace(fn, args, static, kwargs)
    except TypeError as e:
        raise TypeError(f"to_jax({name}): {e}") from e


def _values(j: Jax, leaves: list[object], tree: TreeDef, root: str) -> list[Value]:
    """Each leaf as a float64 JAX value (`_value`); a message names a refused leaf's path."""
    try:
        return [_value(j, x, root) for x in leaves]
    except TypeError:
        return [_value(j, x, path) for x, path in zip(leaves, paths(tree, root), strict=True)]


def _value(j: Jax, x: object, path: str) -> Value:
    """A leaf as a float64 JAX value: a float64 array as it is, a number converted.

    ``path`` names the leaf in messages (``to_jax(f): args[0]['w']``).
    """
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        try:
            return j.jnp.asarray(to_float(x), dtype=j.jnp.float64)
        except (TypeError, ValueError) as e:
            raise TypeError(f"{path} is a {type(x).__name__}: {e}") from None
    if dtype != j.jnp.float64:
        raise TypeError(
            f"{path} is an array of {dtype}, not float64: the exported function "
            "computes in float64 as the engine does (convert it: x.astype(jnp.float64), exact "
            "for float32 data)"
        )
    return x if isinstance(x, j.jax.Array) else j.jnp.asarray(x)


_registered: set[type] = set()


def register(j: Jax, classes: Iterable[type]) -> None:
    """Register each attrs class as a JAX pytree node (its init fields, in order), once."""
    for cls in classes:
        if cls in _registered:
            continue
        fields = tuple(f for f in attrs.fields(cls) if f.init)
        names = tuple(f.name for f in fields)
        aliases = tuple(f.alias for f in fields)

        def flatten(x: object, names: tuple[str, ...] = names) -> tuple[list[object], None]:
            return [getattr(x, n) for n in names], None

        def build(
            _: None, children: Iterable[object], cls: type = cls, aliases: tuple[str, ...] = aliases
        ) -> object:
            return cls(**dict(zip(aliases, children, strict=True)))

        with contextlib.suppress(ValueError):  # the user registered it already: theirs stands
            j.jax.tree_util.register_pytree_node(cls, flatten, build)
        _registered.add(cls)


def to_arrays(tree: T) -> T:
    """``tree`` with each number a float64 JAX array (0-d), its attrs classes JAX pytrees.

    What parameters need before ``jax.jit``, ``jax.grad`` or ``jax.device_put``
    first see them: JAX knows lists, tuples, dicts and NamedTuples, and learns
    an attrs class (`autograd.nn.MLP`) here.

    Raises:
        ImportError: if JAX is not installed (the ``jax`` extra).
        TypeError: naming the path of a leaf that is not a number.

    >>> from autograd import nn
    >>> params = to_arrays(nn.init_mlp((2, 3, 1), seed=0))
    >>> type(params).__name__, params.layers[0].b[0].dtype
    ('MLP', dtype('float64'))
    """
    j = load()
    leaves, shape = flatten_any(tree, "tree")
    register(j, attrs_classes([shape]))
    return unflatten(shape, _values(j, leaves, shape, "to_arrays(): tree"))  # type: ignore[return-value]  # the same structure, arrays for numbers
