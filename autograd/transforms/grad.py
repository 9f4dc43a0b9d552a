"""Transforms: functions in, functions out. `grad`, `value_and_grad`, `gradients`.

A transform calls the user's function on fresh variables (one `Leaf` per
float leaf of each differentiated argument), sweeps the output once in
reverse topological order and rebuilds the gradients in the argument's
shape. Nothing is stored on nodes; all state is local or in `contextvars`.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, Literal, ParamSpec, Protocol, TypeVar, TypeVarTuple, overload

from autograd.core.context import nesting
from autograd.core.floats import int_to_float
from autograd.core.nodes import Const, Node, Scalar, _Arith, floats_in_eager, plain_in_eager
from autograd.pytree import flatten_any, unflatten
from autograd.transforms.arguments import Arguments, as_floats, as_node, aux_values, describe
from autograd.walks import backward, backward_leaves, float_view, node_view

P = ParamSpec("P")
T = TypeVar("T")
K = TypeVar("K")
A = TypeVar("A")
B = TypeVar("B")
T1 = TypeVar("T1")
T2 = TypeVar("T2")
T3 = TypeVar("T3")
R_co = TypeVar("R_co", covariant=True)
S = TypeVar("S", bound=Scalar)
Ts = TypeVarTuple("Ts")


class Fn(Protocol[P, R_co]):
    """A function a transform returns, ``Fn[[Params, float], Params]`` for example.

    That one takes a ``Params`` and a float and returns a ``Params`` (of floats).

    A protocol rather than a ``Callable`` so that where mypy cannot infer the types
    (a lambda) the result is ``Fn[Any, Any]``, which may be called under ``--strict``.
    """

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


class Positional(Protocol[*Ts, R_co]):
    """A function of positional arguments only: what `grad` of ``argnums=-1`` returns.

    ``Positional[float, list[float], list[float]]`` takes a float and a list of
    floats and returns a list of floats (the gradient of the last argument).
    A ``ParamSpec`` can only be extended at the front (``Concatenate``), so the
    last parameter is matched with a ``TypeVarTuple`` instead, which cannot
    carry keyword arguments: the function is called positionally.
    """

    def __call__(self, *args: *Ts) -> R_co: ...


class PartialGradFn(Protocol):
    """`grad` of a ``functools.partial``: the gradient has the first argument's type.

    mypy sees a partial object as ``(*Any, **Any) -> R``, so the parameter types
    are lost; the gradient with respect to argument 0 is still of that argument's type.
    """

    def __call__(self, x: T, /, *args: object, **kwargs: object) -> T: ...


class PartialValueAndGradFn(Protocol):
    """`value_and_grad` of a ``functools.partial``, typed like `PartialGradFn`."""

    def __call__(self, x: T, /, *args: object, **kwargs: object) -> tuple[float, T]: ...


class GradFn(Protocol[P]):
    """`grad` of a function of a scalar: called on a float, it returns a float.

    Called on a node (a user's `Leaf`, or under an outer transform) it returns a
    node linked to its graph, so ``grad(grad(f))`` and ``x * grad(f)(x)`` inside
    a loss type-check, and the result can be differentiated again.
    """

    @overload
    def __call__(self, x: float, /, *args: P.args, **kwargs: P.kwargs) -> float: ...
    @overload
    def __call__(self, x: Node, /, *args: P.args, **kwargs: P.kwargs) -> Node: ...


class ValueAndGradFn(Protocol[P]):
    """`value_and_grad` of a function of a scalar, typed like `GradFn`."""

    @overload
    def __call__(self, x: float, /, *args: P.args, **kwargs: P.kwargs) -> tuple[float, float]: ...
    @overload
    def __call__(self, x: Node, /, *args: P.args, **kwargs: P.kwargs) -> tuple[Node, Node]: ...


# ---- the typed surface ------------------------------------------------------
# First match wins. A parameter typed `Node` (or `Scalar`) is called with a float
# and gives a float; `Sequence[Node]` and `Mapping[K, Node]` give float leaves;
# any other parameter type T comes back as T: code typed in floats (the
# recommended style, see docs/typing.md) gets gradients of floats.


@overload
def grad(  # type: ignore[overload-overlap]  # first match wins: a partial is (*Any) -> R
    fn: functools.partial[S], argnums: Literal[0] = 0, has_aux: Literal[False] = False
) -> PartialGradFn: ...
@overload
def grad(  # type: ignore[overload-overlap]  # first match wins, as in typeshed
    fn: Callable[Concatenate[Node, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> GradFn[P]: ...
@overload
def grad(
    fn: Callable[Concatenate[Sequence[Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[Sequence[float], P], Sequence[float]]: ...
@overload
def grad(
    fn: Callable[Concatenate[Mapping[K, Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[Mapping[K, float], P], dict[K, float]]: ...
@overload
def grad(
    fn: Callable[Concatenate[T, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, P], T]: ...
@overload
def grad(
    fn: Callable[Concatenate[Node, P], tuple[Scalar, A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> Fn[Concatenate[float, P], tuple[float, A]]: ...
@overload
def grad(
    fn: Callable[Concatenate[T, P], tuple[Scalar, A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> Fn[Concatenate[T, P], tuple[T, A]]: ...
@overload
def grad(
    fn: Callable[Concatenate[Node, Node, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[float, float, P], tuple[float, float]]: ...
@overload
def grad(
    fn: Callable[Concatenate[T1, T2, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, T2, P], tuple[T1, T2]]: ...
@overload
def grad(
    fn: Callable[Concatenate[A, Node, P], Scalar],
    argnums: Literal[1],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, float, P], float]: ...
@overload
def grad(
    fn: Callable[Concatenate[A, T1, P], Scalar],
    argnums: Literal[1],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, T1, P], T1]: ...
@overload
def grad(
    fn: Callable[Concatenate[A, B, Node, P], Scalar],
    argnums: Literal[2],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, B, float, P], float]: ...
@overload
def grad(
    fn: Callable[Concatenate[A, B, T1, P], Scalar],
    argnums: Literal[2],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, B, T1, P], T1]: ...
@overload
def grad(
    fn: Callable[Concatenate[T1, A, T2, P], Scalar],
    argnums: tuple[Literal[0], Literal[2]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, A, T2, P], tuple[T1, T2]]: ...
@overload
def grad(
    fn: Callable[Concatenate[A, T1, T2, P], Scalar],
    argnums: tuple[Literal[1], Literal[2]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, T1, T2, P], tuple[T1, T2]]: ...
@overload
def grad(
    fn: Callable[Concatenate[T1, T2, T3, P], Scalar],
    argnums: tuple[Literal[0], Literal[1], Literal[2]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, T2, T3, P], tuple[T1, T2, T3]]: ...
@overload
def grad(
    fn: Callable[Concatenate[T, T1, T2, T3, P], Scalar],
    argnums: tuple[Literal[0], Literal[1], Literal[2], Literal[3]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, T1, T2, T3, P], tuple[T, T1, T2, T3]]: ...
@overload
def grad(  # type: ignore[overload-overlap]  # first match wins: -1 is also an int
    fn: Callable[[*Ts, Node], Scalar],
    argnums: Literal[-1],
    has_aux: Literal[False] = False,
) -> Positional[*Ts, float, float]: ...
@overload
def grad(  # type: ignore[overload-overlap]  # first match wins: -1 is also an int
    fn: Callable[[*Ts, T], Scalar],
    argnums: Literal[-1],
    has_aux: Literal[False] = False,
) -> Positional[*Ts, T, T]: ...
@overload
def grad(  # type: ignore[overload-overlap]  # first match wins: a tuple of ints too
    fn: Callable[[T1, *Ts, T2], Scalar],
    argnums: tuple[Literal[0], Literal[-1]],
    has_aux: Literal[False] = False,
) -> Positional[T1, *Ts, T2, tuple[T1, T2]]: ...
@overload
def grad(
    fn: Callable[P, Scalar], argnums: int, has_aux: Literal[False] = False
) -> Fn[P, object]: ...
@overload
def grad(
    fn: Callable[P, Scalar], argnums: tuple[int, ...], has_aux: Literal[False] = False
) -> Fn[P, tuple[object, ...]]: ...
def grad(
    fn: Callable[..., object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., object]:
    """The gradient of a scalar function, as a function with ``fn``'s arguments.

    Args:
        fn: returns a scalar (a `Node` or a float); with ``has_aux``, a pair
            ``(scalar, aux)``.
        argnums: which positional argument to differentiate, or a tuple of
            them (giving a tuple of gradients). Each is a pytree of floats.
            Negative indices count from the end of each call's positional
            arguments (``-1`` is the last), as in JAX.
        has_aux: return ``(gradient, aux)``, ``aux`` with nodes made floats.

    Returns:
        A function returning gradients shaped like the differentiated
        arguments (same containers, dict order kept; every leaf a float).

    Raises:
        TypeError: if ``fn`` is not callable or ``argnums`` is not an int or a
            non-empty tuple of ints; when called, for an index out of range of
            the call's positional arguments, naming the path of a non-numeric
            leaf or unknown container, or if ``fn`` does not return a scalar.
        ValueError: if ``argnums`` names an argument twice (when made, or
            after resolving negatives against a call).

    >>> import autograd as ag
    >>> ag.grad(lambda p: ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5)({"w1": 2.0, "w2": 3.0})
    {'w1': 1.0, 'w2': -2.0}
    """
    spec = Arguments(fn, argnums, "grad", has_aux, returns="scalar")

    @functools.wraps(fn)
    def grad_fn(*args: object, **kwargs: object) -> object:
        value, grads = _value_and_grad(spec, args, kwargs)
        return (grads, value[1]) if has_aux else grads  # type: ignore[index]  # (out, aux)

    _made_by[grad_fn] = spec
    return grad_fn


@overload
def value_and_grad(  # type: ignore[overload-overlap]  # first match wins: a partial is (*Any) -> R
    fn: functools.partial[S], argnums: Literal[0] = 0, has_aux: Literal[False] = False
) -> PartialValueAndGradFn: ...
@overload
def value_and_grad(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> ValueAndGradFn[P]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[Sequence[Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[Sequence[float], P], tuple[float, Sequence[float]]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[Mapping[K, Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[Mapping[K, float], P], tuple[float, dict[K, float]]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[T, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, P], tuple[float, T]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[Node, P], tuple[Scalar, A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> Fn[Concatenate[float, P], tuple[tuple[float, A], float]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[T, P], tuple[Scalar, A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> Fn[Concatenate[T, P], tuple[tuple[float, A], T]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[Node, Node, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[float, float, P], tuple[float, tuple[float, float]]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[T1, T2, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, T2, P], tuple[float, tuple[T1, T2]]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[A, T1, P], Scalar],
    argnums: Literal[1],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, T1, P], tuple[float, T1]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[A, B, T1, P], Scalar],
    argnums: Literal[2],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[A, B, T1, P], tuple[float, T1]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[T1, A, T2, P], Scalar],
    argnums: tuple[Literal[0], Literal[2]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, A, T2, P], tuple[float, tuple[T1, T2]]]: ...
@overload
def value_and_grad(
    fn: Callable[Concatenate[T, T1, T2, T3, P], Scalar],
    argnums: tuple[Literal[0], Literal[1], Literal[2], Literal[3]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, T1, T2, T3, P], tuple[float, tuple[T, T1, T2, T3]]]: ...
@overload
def value_and_grad(  # type: ignore[overload-overlap]  # first match wins: -1 is also an int
    fn: Callable[[*Ts, Node], Scalar],
    argnums: Literal[-1],
    has_aux: Literal[False] = False,
) -> Positional[*Ts, float, tuple[float, float]]: ...
@overload
def value_and_grad(  # type: ignore[overload-overlap]  # first match wins: -1 is also an int
    fn: Callable[[*Ts, T], Scalar],
    argnums: Literal[-1],
    has_aux: Literal[False] = False,
) -> Positional[*Ts, T, tuple[float, T]]: ...
@overload
def value_and_grad(  # type: ignore[overload-overlap]  # first match wins: a tuple of ints too
    fn: Callable[[T1, *Ts, T2], Scalar],
    argnums: tuple[Literal[0], Literal[-1]],
    has_aux: Literal[False] = False,
) -> Positional[T1, *Ts, T2, tuple[float, tuple[T1, T2]]]: ...
@overload
def value_and_grad(
    fn: Callable[P, Scalar], argnums: int, has_aux: Literal[False] = False
) -> Fn[P, tuple[float, object]]: ...
@overload
def value_and_grad(
    fn: Callable[P, Scalar], argnums: tuple[int, ...], has_aux: Literal[False] = False
) -> Fn[P, tuple[float, tuple[object, ...]]]: ...
def value_and_grad(
    fn: Callable[..., object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., object]:
    """Like `grad`, but the function returns ``(value, gradient)``.

    With ``has_aux`` it returns ``((value, aux), gradient)``. One forward
    pass and one sweep compute both.

    >>> import autograd as ag
    >>> ag.value_and_grad(lambda x: x * x + 1.0)(3.0)
    (10.0, 6.0)
    """
    spec = Arguments(fn, argnums, "value_and_grad", has_aux, returns="scalar")

    @functools.wraps(fn)
    def value_and_grad_fn(*args: object, **kwargs: object) -> object:
        return _value_and_grad(spec, args, kwargs)

    _made_by[value_and_grad_fn] = spec
    return value_and_grad_fn


# ---- the machinery ----------------------------------------------------------

_made_by: weakref.WeakKeyDictionary[Callable[..., object], Arguments] = weakref.WeakKeyDictionary()
"""The argument specification behind each function `grad` and `value_and_grad` return,
so `jit` can compile the function's backward pass instead of tracing the sweep."""


def transform_of(fn: Callable[..., object]) -> Arguments | None:
    """The `Arguments` that ``fn`` differentiates, if `grad` or `value_and_grad` made it."""
    try:
        return _made_by.get(fn)
    except TypeError:  # not weak-referenceable: not one of ours
        return None


def _value_and_grad(
    spec: Arguments, args: tuple[object, ...], kwargs: dict[str, object]
) -> tuple[object, object]:
    """``(value, gradients)`` of one call (``((value, aux), gradients)`` with ``has_aux``)."""
    vs = spec.variables(args)  # errors before any work
    level = nesting.get()
    nested = level > 0 or vs.linked  # results may be differentiated again: build nodes
    token = nesting.set(level + 1)
    try:
        result = spec.fn(*vs.args, **kwargs)
    finally:
        nesting.reset(token)

    out, aux = scalar_output(spec, result)
    grads = _sweep(out, vs.all, nested, vs.linked)
    get = grads.get
    if vs.linked:  # a node in, a node out: zeros and a constant value are nodes too
        out = as_node(out)
        g = vs.shape([as_node(get(v, 0.0)) for v in vs.all], spec.single)
    else:
        g = vs.shape([get(v, 0.0) for v in vs.all], spec.single)
    value: object = out if nested or not isinstance(out, _Arith) else out.value
    if level and floats_in_eager(level, vs.all):  # in a `jit` trace: floats in the eager call
        value, g, aux = as_floats(value), as_floats(g), as_floats(aux, "aux")
    if spec.has_aux:
        value = (value, aux if nested else aux_values(aux))
    return value, g


def scalar_output(spec: Arguments, result: object) -> tuple[Scalar, object]:
    """``(scalar, aux)`` of what a `grad`'s function returned; a number becomes a float.

    Raises:
        TypeError: if it is not a pair with ``has_aux``, or the output is not a scalar.
    """
    out, aux = spec.split(result) if spec.has_aux else (result, None)
    if isinstance(out, _Arith):
        return out, aux
    if isinstance(out, float):
        return float(out), aux  # numpy.float64 and other subclasses: a plain float
    if type(out) is not bool and isinstance(out, int):
        return int_to_float(out), aux  # float(10**400) would raise OverflowError
    raise TypeError(
        f"{spec.name}() needs the function to return a scalar (a float or a Node), "
        f"got {describe(out)}; for several outputs use jacobian()"
    )


def _sweep(out: Scalar, variables: list[Node], nested: bool, linked: bool) -> Mapping[Node, Scalar]:
    if not isinstance(out, _Arith) or not variables:
        return {}
    if not nested and not linked:  # every variable a fresh leaf
        return backward_leaves(out)
    wanted = set(variables)
    stop = wanted if linked else ()  # fresh leaves have no inputs: nothing to stop at
    if nested:
        return backward(out, 1.0, node_view, stop=stop, keep=wanted)
    return backward(out, 1.0, float_view, stop=stop, keep=wanted)


def gradients(out: Node) -> Mapping[Node, float]:
    """The gradient of ``out`` with respect to every node it depends on.

    The per-node map of one float sweep, keyed by node identity (``out``
    itself maps to 1.0), for tools such as `to_dot`.

    >>> import autograd as ag
    >>> a, b = ag.Leaf(2.0), ag.Leaf(3.0)
    >>> g = ag.gradients(a * b + a)
    >>> g[a], g[b]
    (4.0, 2.0)
    """
    if not isinstance(out, _Arith):
        raise TypeError(f"gradients() needs a Node, got {describe(out)}")
    return backward(out, 1.0, float_view)


def stop_gradient(tree: T) -> T:
    """``tree`` with every node replaced by a constant: derivatives through it are 0.

    Works on any pytree; floats and other leaves are returned as they are.

    >>> import autograd as ag
    >>> ag.grad(lambda x: x * ag.stop_gradient(x))(3.0)
    3.0
    """
    leaves, shape = flatten_any(tree)
    if not any(isinstance(x, _Arith) for x in leaves):
        return tree
    # in a `jit` trace, a number of the eager call (a node here) is returned as it is, as a
    # float is; a node the eager call differentiates is refused by the trace's `.value` guard
    return unflatten(  # type: ignore[return-value]  # same shape as tree
        shape,
        [Const(x.value) if isinstance(x, _Arith) and not plain_in_eager(x) else x for x in leaves],
    )
