"""Transforms: functions in, functions out. `grad`, `value_and_grad`, `gradients`.

A transform calls the user's function on fresh variables (one `Leaf` per
float leaf of each differentiated argument), sweeps the output once in
reverse topological order and rebuilds the gradients in the argument's
shape. Nothing is stored on nodes; all state is local or in `contextvars`.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, Literal, ParamSpec, Protocol, TypeVar, overload

from autograd.core.context import nesting
from autograd.core.floats import int_to_float
from autograd.core.nodes import VARIABLE_ONE, Const, Leaf, Mul, Node, Scalar, _Arith
from autograd.pytree import TreeDef, flatten, flatten_any, paths, unflatten
from autograd.walks import backward, float_view, node_view

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


class Fn(Protocol[P, R_co]):
    """A function a transform returns, ``Fn[[Params, float], Params]`` for example.

    That one takes a ``Params`` and a float and returns a ``Params`` (of floats).

    A protocol rather than a ``Callable`` so that where mypy cannot infer the types
    (a lambda) the result is ``Fn[Any, Any]``, which may be called under ``--strict``.
    """

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


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

    Called on a node (under an outer transform) it returns a node or ``0.0``,
    so ``grad(grad(f))`` and ``x * grad(f)(x)`` inside a loss type-check.
    """

    @overload
    def __call__(self, x: float, /, *args: P.args, **kwargs: P.kwargs) -> float: ...
    @overload
    def __call__(self, x: Node, /, *args: P.args, **kwargs: P.kwargs) -> Scalar: ...


class ValueAndGradFn(Protocol[P]):
    """`value_and_grad` of a function of a scalar, typed like `GradFn`."""

    @overload
    def __call__(self, x: float, /, *args: P.args, **kwargs: P.kwargs) -> tuple[float, float]: ...
    @overload
    def __call__(self, x: Node, /, *args: P.args, **kwargs: P.kwargs) -> tuple[Scalar, Scalar]: ...


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
        has_aux: return ``(gradient, aux)``, ``aux`` with nodes made floats.

    Returns:
        A function returning gradients shaped like the differentiated
        arguments (same containers, dict order kept; every leaf a float).

    Raises:
        TypeError: (when called) naming the path of a non-numeric leaf or
            unknown container, or if ``fn`` does not return a scalar.

    >>> import autograd as ag
    >>> ag.grad(lambda p: ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5)({"w1": 2.0, "w2": 3.0})
    {'w1': 1.0, 'w2': -2.0}
    """
    vg = _ValueAndGrad(fn, argnums, has_aux, "grad")

    @functools.wraps(fn)
    def grad_fn(*args: object, **kwargs: object) -> object:
        value, grads = vg(args, kwargs)
        return (grads, value[1]) if has_aux else grads  # type: ignore[index]  # (out, aux)

    _made_by[grad_fn] = vg
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
    vg = _ValueAndGrad(fn, argnums, has_aux, "value_and_grad")

    @functools.wraps(fn)
    def value_and_grad_fn(*args: object, **kwargs: object) -> object:
        return vg(args, kwargs)

    _made_by[value_and_grad_fn] = vg
    return value_and_grad_fn


# ---- the machinery ----------------------------------------------------------

_made_by: weakref.WeakKeyDictionary[Callable[..., object], _ValueAndGrad] = (
    weakref.WeakKeyDictionary()
)
"""The differentiation behind each function `grad` and `value_and_grad` return, so
`jit` can compile the function's backward pass instead of tracing the sweep."""


def transform_of(fn: Callable[..., object]) -> _ValueAndGrad | None:
    """The `_ValueAndGrad` that ``fn`` runs, if `grad` or `value_and_grad` made it."""
    try:
        return _made_by.get(fn)
    except TypeError:  # not weak-referenceable: not one of ours
        return None


class _ValueAndGrad:
    """Differentiate ``fn`` with respect to positional arguments ``argnums``."""

    def __init__(
        self, fn: Callable[..., object], argnums: int | tuple[int, ...], has_aux: bool, name: str
    ) -> None:
        if not callable(fn):
            raise TypeError(f"{name}() needs a function, got {type(fn).__name__} {fn!r:.60}")
        self.fn = fn
        self.argnums = _check_argnums(argnums, name)
        self.single = isinstance(argnums, int)
        self.has_aux = has_aux
        self.name = name
        self.arg_names = _positional_names(fn)

    def __call__(
        self, args: tuple[object, ...], kwargs: dict[str, object]
    ) -> tuple[object, object]:
        self.check_positional(args)
        flat = [flatten(args[i], self._root(i)) for i in self.argnums]  # errors before any work
        variables = [[_variable(x) for x in leaves] for leaves, _ in flat]
        new_args = list(args)
        for i, vs, (_, tree) in zip(self.argnums, variables, flat, strict=True):
            new_args[i] = unflatten(tree, vs)

        nested = nesting.get() > 0  # then results may be differentiated again: build nodes
        token = nesting.set(nesting.get() + 1)
        try:
            result = self.fn(*new_args, **kwargs)
        finally:
            nesting.reset(token)

        out, aux = self._split(result)
        all_vars = [v for vs in variables for v in vs]
        grads = _sweep(out, all_vars, nested)
        trees = [
            unflatten(tree, [grads.get(v, 0.0) for v in vs])
            for vs, (_, tree) in zip(variables, flat, strict=True)
        ]
        value: object = out if nested or not isinstance(out, _Arith) else out.value
        if self.has_aux:
            value = (value, aux if nested else _values(aux))
        return value, trees[0] if self.single else tuple(trees)

    def check_positional(self, args: tuple[object, ...]) -> None:
        """Raise `TypeError` if a differentiated argument is missing."""
        for i in self.argnums:
            if i >= len(args):
                raise TypeError(
                    f"{self.name}(..., argnums={i}): the function was called with "
                    f"{len(args)} positional argument(s); differentiated arguments are positional"
                )

    def _root(self, i: int) -> str:
        return self.arg_names[i] if i < len(self.arg_names) else f"args[{i}]"

    def _split(self, result: object) -> tuple[Scalar, object]:
        aux: object = None
        if self.has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise TypeError(
                    f"{self.name}(..., has_aux=True) needs the function to return a pair "
                    f"(scalar, aux), got {_describe(result)}"
                )
            result, aux = result
        if isinstance(result, _Arith):
            return result, aux  # type: ignore[return-value]  # every _Arith is a Node
        if isinstance(result, float):
            return float(result), aux  # numpy.float64 and other subclasses: a plain float
        if type(result) is not bool and isinstance(result, int):
            return int_to_float(result), aux  # float(10**400) would raise OverflowError
        raise TypeError(
            f"{self.name}() needs the function to return a scalar (a float or a Node), "
            f"got {_describe(result)}; for several outputs use jacobian()"
        )


def _sweep(out: Scalar, variables: list[Node], nested: bool) -> Mapping[Node, Scalar]:
    if not isinstance(out, _Arith) or not variables:
        return {}
    wanted = set(variables)
    if nested:
        return backward(out, 1.0, node_view, stop=wanted, keep=wanted)
    return backward(out, 1.0, float_view, stop=wanted, keep=wanted)


def _variable(x: Scalar) -> Node:
    """A fresh variable for one leaf position.

    A node leaf (from an outer transform) becomes ``x * 1.0``: the same value,
    linked to ``x``, but its own variable even when one node fills two positions.
    """
    return Mul(x, VARIABLE_ONE) if isinstance(x, _Arith) else Leaf(x)


def _values(tree: object, root: str = "aux") -> object:
    """``tree`` with every node replaced by its float value (for aux outputs).

    Raises:
        TypeError: naming the path of a leaf that is an unknown object (see `result_leaves`).
    """
    leaves, shape = result_leaves(tree, root)
    if not any(isinstance(x, _Arith) for x in leaves):
        return tree
    return unflatten(shape, [x.value if isinstance(x, _Arith) else x for x in leaves])  # type: ignore[attr-defined]  # every _Arith has a value


_RESULT_LEAVES = (_Arith, int, float, complex, str, bytes)
"""Leaves of a result or aux: nodes, and immutable values that cannot hold a node."""


def result_leaves(tree: object, root: str) -> tuple[list[object], TreeDef]:
    """The leaves of a function's result (or aux) and its shape, every leaf a node or a number.

    A set, a dataclass or any other object that is not a pytree container
    could hold nodes that would outlive the transform (a node from a `jit`
    trace, a variable of `grad`), so it is refused rather than returned as it is.

    Raises:
        TypeError: naming the path (``aux['stats']``) of the first such leaf.
    """
    leaves, shape = flatten_any(tree)
    for i, x in enumerate(leaves):
        if not isinstance(x, _RESULT_LEAVES):
            raise TypeError(
                f"{paths(shape, root)[i]} is a {type(x).__name__} ({x!r:.60}), which a transform "
                "cannot convert: results and aux are pytrees (lists, tuples, dicts, NamedTuples, "
                "attrs classes, None) of nodes, numbers and strings"
            )
    return leaves, shape


def _check_argnums(argnums: object, name: str) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums or not all(type(i) is int and i >= 0 for i in nums):
        raise TypeError(
            f"{name}(): argnums must be a non-negative int or a non-empty tuple of them, "
            f"got {argnums!r}"
        )
    if len(set(nums)) != len(nums):
        raise ValueError(f"{name}(): argnums {argnums!r} repeats an argument")
    return nums


def _positional_names(fn: Callable[..., object]) -> list[str]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins and some C callables have none
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


def _describe(x: object) -> str:
    return f"{type(x).__name__} {x!r:.60}"


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
        raise TypeError(f"gradients() needs a Node, got {_describe(out)}")
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
    return unflatten(shape, [Const(x.value) if isinstance(x, _Arith) else x for x in leaves])  # type: ignore[return-value, attr-defined]  # same shape as tree; nodes have values
