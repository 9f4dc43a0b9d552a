"""The typed surface of `jvp`, `vjp`, `jacobian` and `hessian`.

The machinery is in `linearize.py`; this module only states the types. As
for `grad`, overloads are tried in order: a `Node` parameter is called with
a `float`; `Sequence` and `Mapping` parameters get `float` leaves; any other
parameter type ``T`` (an attrs class, a NamedTuple annotated with `Scalar`
fields) comes back as ``T``. Outputs: a scalar gives ``float``, a
``Sequence`` of scalars a ``Sequence[float]``, a ``Mapping`` a ``dict``.

A node in, a node out: a function typed in `Node` (or `Scalar`) may also be
called on nodes, and then returns nodes linked to their graph. The protocols
below say so: ``OnScalar[P, F, N]`` returns ``F`` for a float and ``N`` for a
node (``ScalarFn[P]`` is ``OnScalar[P, float, Node]``), and the other three
do the same for sequences, mappings and pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, Literal, ParamSpec, Protocol, TypeVar, TypeVarTuple, overload

from autograd.core.nodes import Node, Scalar
from autograd.transforms.arguments import Arguments
from autograd.transforms.grad import Fn
from autograd.transforms.linearize import hessian_impl, jacobian_impl, jvp_impl, vjp_impl

P = ParamSpec("P")
T = TypeVar("T")
K = TypeVar("K")
K2 = TypeVar("K2")
A = TypeVar("A")
R = TypeVar("R")
Ts = TypeVarTuple("Ts")
T1 = TypeVar("T1")
T2 = TypeVar("T2")
F_co = TypeVar("F_co", covariant=True)
N_co = TypeVar("N_co", covariant=True)
T_co = TypeVar("T_co", covariant=True)
FloatSeq = TypeVar("FloatSeq", bound=Sequence[float])
FloatMap = TypeVar("FloatMap", bound=Mapping[str, float])
ScalarSeq = TypeVar("ScalarSeq", bound=Sequence[Scalar])
ObjectSeq = TypeVar("ObjectSeq", bound=Sequence[object])
ObjectMap = TypeVar("ObjectMap", bound=Mapping[str, object])


# ---- what the transforms return: floats in, floats out; nodes in, nodes out ----


class OnScalar(Protocol[P, F_co, N_co]):
    """A transform of a function of a scalar: a float gives ``F_co``, a node ``N_co``.

    ``OnScalar[[], Sequence[float], Sequence[Node]]`` is what `jacobian` of
    ``(Node) -> list[Scalar]`` returns: ``jacobian(f)(1.0)`` is a sequence of
    floats, ``jacobian(f)(Leaf(1.0))`` of nodes linked to the leaf (a zero is a
    `Const`).
    """

    @overload
    def __call__(self, x: float, /, *args: P.args, **kwargs: P.kwargs) -> F_co: ...
    @overload
    def __call__(self, x: Node, /, *args: P.args, **kwargs: P.kwargs) -> N_co: ...


class ScalarFn(Protocol[P]):
    """`OnScalar[P, float, Node]` under a short name: a float in, a float out; a node, a node.

    What `hessian` and `jacobian` of ``(Node) -> Scalar`` return, the common
    case, so that mypy's messages and ``reveal_type`` read ``ScalarFn[[]]``
    instead of spelling out the node union.
    """

    @overload
    def __call__(self, x: float, /, *args: P.args, **kwargs: P.kwargs) -> float: ...
    @overload
    def __call__(self, x: Node, /, *args: P.args, **kwargs: P.kwargs) -> Node: ...


class OnSequence(Protocol[P, F_co, N_co]):
    """A transform of a function of a sequence: of floats gives ``F_co``, else ``N_co``."""

    @overload
    def __call__(self, x: Sequence[float], /, *args: P.args, **kwargs: P.kwargs) -> F_co: ...
    @overload
    def __call__(self, x: Sequence[Scalar], /, *args: P.args, **kwargs: P.kwargs) -> N_co: ...


class OnMapping(Protocol[K, P, F_co, N_co]):
    """A transform of a function of a mapping: of floats gives ``F_co``, else ``N_co``."""

    @overload
    def __call__(self, x: Mapping[K, float], /, *args: P.args, **kwargs: P.kwargs) -> F_co: ...
    @overload
    def __call__(self, x: Mapping[K, Scalar], /, *args: P.args, **kwargs: P.kwargs) -> N_co: ...


class OnPair(Protocol[P, F_co, N_co]):
    """A transform of a function of two scalars: two floats give ``F_co``, a node ``N_co``.

    Called on a node and a float, the result is nodes too, linked to the node
    (a zero is a `Const`); two `Scalar`s give either.
    """

    @overload
    def __call__(self, x: float, y: float, /, *args: P.args, **kwargs: P.kwargs) -> F_co: ...
    @overload
    def __call__(self, x: Node, y: Scalar, /, *args: P.args, **kwargs: P.kwargs) -> N_co: ...
    @overload
    def __call__(self, x: float, y: Node, /, *args: P.args, **kwargs: P.kwargs) -> N_co: ...


class Hessian(Protocol[T_co]):
    """The Hessian of a function of a class ``T``: a ``T`` whose every field holds a ``T``.

    For ``@attrs.frozen class Params: w: float; b: float``, ``H.w.b`` is
    d/db (d f / dw), a float. Exact for a class whose fields are scalars (the
    usual parameter class); a field that is itself a container holds that
    container of ``T``s at run time, which no type can spell (docs/typing.md).
    """

    def __getattr__(self, name: str) -> T_co: ...


# ---- jvp ----------------------------------------------------------------------


@overload
def jvp(
    fn: Callable[..., tuple[Scalar, A]],
    primals: Sequence[float],
    tangents: Sequence[float],
    *,
    has_aux: Literal[True],
) -> tuple[float, float, A]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[..., tuple[Scalar, A]],
    primals: Sequence[Node],
    tangents: Sequence[Scalar],
    *,
    has_aux: Literal[True],
) -> tuple[Node, Node, A]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: floats, then nodes, then pytrees
    fn: Callable[..., tuple[Scalar, A]],
    primals: Sequence[Scalar],
    tangents: Sequence[Scalar],
    *,
    has_aux: Literal[True],
) -> tuple[Scalar, Scalar, A]: ...
@overload
def jvp(
    fn: Callable[..., tuple[Scalar, A]],
    primals: Sequence[object],
    tangents: Sequence[object],
    *,
    has_aux: Literal[True],
) -> tuple[float, float, A]: ...
@overload
def jvp(
    fn: Callable[..., tuple[Sequence[Scalar], A]],
    primals: Sequence[float],
    tangents: Sequence[float],
    *,
    has_aux: Literal[True],
) -> tuple[Sequence[float], Sequence[float], A]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[..., tuple[Sequence[Scalar], A]],
    primals: Sequence[Node],
    tangents: Sequence[Scalar],
    *,
    has_aux: Literal[True],
) -> tuple[Sequence[Node], Sequence[Node], A]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: floats, then nodes, then pytrees
    fn: Callable[..., tuple[Sequence[Scalar], A]],
    primals: Sequence[Scalar],
    tangents: Sequence[Scalar],
    *,
    has_aux: Literal[True],
) -> tuple[Sequence[Scalar], Sequence[Scalar], A]: ...
@overload
def jvp(
    fn: Callable[..., tuple[Sequence[Scalar], A]],
    primals: Sequence[object],
    tangents: Sequence[object],
    *,
    has_aux: Literal[True],
) -> tuple[Sequence[float], Sequence[float], A]: ...
@overload
def jvp(
    fn: Callable[..., tuple[R, A]],
    primals: Sequence[object],
    tangents: Sequence[object],
    *,
    has_aux: Literal[True],
) -> tuple[R, R, A]: ...
@overload
def jvp(
    fn: Callable[..., Scalar],
    primals: Sequence[float],
    tangents: Sequence[float],
    has_aux: Literal[False] = False,
) -> tuple[float, float]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[..., Scalar],
    primals: Sequence[Node],
    tangents: Sequence[Scalar],
    has_aux: Literal[False] = False,
) -> tuple[Node, Node]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: floats, then nodes, then pytrees
    fn: Callable[..., Scalar],
    primals: Sequence[Scalar],
    tangents: Sequence[Scalar],
    has_aux: Literal[False] = False,
) -> tuple[Scalar, Scalar]: ...
@overload
def jvp(
    fn: Callable[..., Scalar],
    primals: Sequence[object],
    tangents: Sequence[object],
    has_aux: Literal[False] = False,
) -> tuple[float, float]: ...
@overload
def jvp(
    fn: Callable[..., Sequence[Scalar]],
    primals: Sequence[float],
    tangents: Sequence[float],
    has_aux: Literal[False] = False,
) -> tuple[Sequence[float], Sequence[float]]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[..., Sequence[Scalar]],
    primals: Sequence[Node],
    tangents: Sequence[Scalar],
    has_aux: Literal[False] = False,
) -> tuple[Sequence[Node], Sequence[Node]]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: floats, then nodes, then pytrees
    fn: Callable[..., Sequence[Scalar]],
    primals: Sequence[Scalar],
    tangents: Sequence[Scalar],
    has_aux: Literal[False] = False,
) -> tuple[Sequence[Scalar], Sequence[Scalar]]: ...
@overload
def jvp(
    fn: Callable[..., Sequence[Scalar]],
    primals: Sequence[object],
    tangents: Sequence[object],
    has_aux: Literal[False] = False,
) -> tuple[Sequence[float], Sequence[float]]: ...
@overload
def jvp(
    fn: Callable[..., Mapping[K, Scalar]],
    primals: Sequence[float],
    tangents: Sequence[float],
    has_aux: Literal[False] = False,
) -> tuple[dict[K, float], dict[K, float]]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[..., Mapping[K, Scalar]],
    primals: Sequence[Node],
    tangents: Sequence[Scalar],
    has_aux: Literal[False] = False,
) -> tuple[dict[K, Node], dict[K, Node]]: ...
@overload
def jvp(  # type: ignore[overload-overlap]  # first match wins: floats, then nodes, then pytrees
    fn: Callable[..., Mapping[K, Scalar]],
    primals: Sequence[Scalar],
    tangents: Sequence[Scalar],
    has_aux: Literal[False] = False,
) -> tuple[dict[K, Scalar], dict[K, Scalar]]: ...
@overload
def jvp(
    fn: Callable[..., Mapping[K, Scalar]],
    primals: Sequence[object],
    tangents: Sequence[object],
    has_aux: Literal[False] = False,
) -> tuple[dict[K, float], dict[K, float]]: ...
@overload
def jvp(
    fn: Callable[..., R],
    primals: Sequence[object],
    tangents: Sequence[object],
    has_aux: Literal[False] = False,
) -> tuple[R, R]: ...
def jvp(
    fn: Callable[..., object],
    primals: Sequence[object],
    tangents: Sequence[object],
    has_aux: bool = False,
) -> tuple[object, ...]:
    """Forward mode: the value of ``fn(*primals)`` and its derivative along ``tangents``.

    The function is traced once on fresh variables, then one forward sweep
    runs each op's ``jvp`` rule, inputs before users.

    Args:
        fn: a function of positional pytree arguments returning a pytree of scalars.
        primals: the arguments, a tuple or list.
        tangents: one tangent per argument, each with its argument's structure.
        has_aux: ``fn`` returns ``(output, aux)``; the result is then
            ``(value, tangent, aux)``, ``aux`` with nodes made floats.

    Returns:
        ``(value, tangent)``, both with the output's structure: floats at top
        level, nodes linked to their graph if a primal or tangent is a node.

    Raises:
        TypeError: naming ``primals[i]``/``tangents[i]`` paths of bad leaves, or
            a tangent whose structure differs from its primal's.

    >>> import autograd as ag
    >>> ag.jvp(lambda x, y: x * y + ag.exp(x), (0.0, 3.0), (1.0, 0.0))
    (1.0, 4.0)
    """
    return jvp_impl(fn, primals, tangents, has_aux)


# ---- vjp ----------------------------------------------------------------------


@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node], tuple[Scalar, A]], primal: float, /, *, has_aux: Literal[True]
) -> tuple[float, Callable[[float], tuple[float]], A]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node], tuple[Scalar, A]], primal: Scalar, /, *, has_aux: Literal[True]
) -> tuple[Scalar, Callable[[Scalar], tuple[Scalar]], A]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[*Ts], tuple[Scalar, A]], *primals: *Ts, has_aux: Literal[True]
) -> tuple[float, Callable[[float], tuple[*Ts]], A]: ...
@overload
def vjp(
    fn: Callable[..., tuple[R, A]], *primals: object, has_aux: Literal[True]
) -> tuple[R, Callable[[R], tuple[object, ...]], A]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node], Scalar], primal: float, /, *, has_aux: Literal[False] = False
) -> tuple[float, Callable[[float], tuple[float]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[[Node], Scalar], primal: Node, /, *, has_aux: Literal[False] = False
) -> tuple[Node, Callable[[Scalar], tuple[Node]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node], Scalar], primal: Scalar, /, *, has_aux: Literal[False] = False
) -> tuple[Scalar, Callable[[Scalar], tuple[Scalar]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node, Node], Scalar],
    primal0: float,
    primal1: float,
    /,
    *,
    has_aux: Literal[False] = False,
) -> tuple[float, Callable[[float], tuple[float, float]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins: nodes in, nodes out
    fn: Callable[[Node, Node], Scalar],
    primal0: Node,
    primal1: Node,
    /,
    *,
    has_aux: Literal[False] = False,
) -> tuple[Node, Callable[[Scalar], tuple[Node, Node]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node, Node], Scalar],
    primal0: Scalar,
    primal1: Scalar,
    /,
    *,
    has_aux: Literal[False] = False,
) -> tuple[Scalar, Callable[[Scalar], tuple[Scalar, Scalar]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[*Ts], Scalar], *primals: *Ts, has_aux: Literal[False] = False
) -> tuple[float, Callable[[float], tuple[*Ts]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node], Sequence[Scalar]], primal: float, /, *, has_aux: Literal[False] = False
) -> tuple[Sequence[float], Callable[[Sequence[float]], tuple[float]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins: a node in, nodes out
    fn: Callable[[Node], Sequence[Scalar]], primal: Node, /, *, has_aux: Literal[False] = False
) -> tuple[Sequence[Node], Callable[[Sequence[Scalar]], tuple[Node]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node], Sequence[Scalar]], primal: Scalar, /, *, has_aux: Literal[False] = False
) -> tuple[Sequence[Scalar], Callable[[Sequence[Scalar]], tuple[Scalar]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node, Node], Sequence[Scalar]],
    primal0: float,
    primal1: float,
    /,
    *,
    has_aux: Literal[False] = False,
) -> tuple[Sequence[float], Callable[[Sequence[float]], tuple[float, float]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins: nodes in, nodes out
    fn: Callable[[Node, Node], Sequence[Scalar]],
    primal0: Node,
    primal1: Node,
    /,
    *,
    has_aux: Literal[False] = False,
) -> tuple[Sequence[Node], Callable[[Sequence[Scalar]], tuple[Node, Node]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[Node, Node], Sequence[Scalar]],
    primal0: Scalar,
    primal1: Scalar,
    /,
    *,
    has_aux: Literal[False] = False,
) -> tuple[Sequence[Scalar], Callable[[Sequence[Scalar]], tuple[Scalar, Scalar]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[*Ts], Sequence[Scalar]], *primals: *Ts, has_aux: Literal[False] = False
) -> tuple[Sequence[float], Callable[[Sequence[float]], tuple[*Ts]]]: ...
@overload
def vjp(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[[*Ts], Mapping[K, Scalar]], *primals: *Ts, has_aux: Literal[False] = False
) -> tuple[dict[K, float], Callable[[Mapping[K, float]], tuple[*Ts]]]: ...
@overload
def vjp(
    fn: Callable[..., R], *primals: object, has_aux: Literal[False] = False
) -> tuple[R, Callable[[R], tuple[object, ...]]]: ...
def vjp(fn: Callable[..., object], *primals: object, has_aux: bool = False) -> tuple[object, ...]:
    """Reverse mode: ``fn(*primals)`` and a function pulling cotangents back.

    The graph is traced once and kept; each call of ``vjp_fn`` is one reverse
    sweep from every output at once, seeded with the cotangent's leaves.

    Args:
        fn: a function of positional pytree arguments returning a pytree of scalars.
        *primals: the arguments.
        has_aux: ``fn`` returns ``(output, aux)``; the result is then
            ``(value, vjp_fn, aux)``.

    Returns:
        ``(value, vjp_fn)``: ``vjp_fn(cotangent)``, with ``cotangent`` shaped like
        the output, returns a tuple with one cotangent per primal, each shaped
        like its primal. It can be called any number of times. Floats at top
        level; nodes linked to their graph if a primal or the cotangent is a node.

    >>> import autograd as ag
    >>> value, vjp_fn = ag.vjp(lambda x, y: [x * y, x + y], 2.0, 3.0)
    >>> value, vjp_fn([1.0, 0.0]), vjp_fn([0.0, 1.0])
    ([6.0, 5.0], (3.0, 2.0), (1.0, 1.0))
    """
    return vjp_impl(fn, primals, has_aux)


# ---- jacobian -----------------------------------------------------------------


@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, P], tuple[Sequence[Scalar], A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> OnScalar[P, tuple[Sequence[float], A], tuple[Sequence[Node], A]]: ...
@overload
def jacobian(
    fn: Callable[Concatenate[T, P], tuple[Sequence[Scalar], A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> Fn[Concatenate[T, P], tuple[Sequence[T], A]]: ...
@overload
def jacobian(
    fn: Callable[P, tuple[object, A]], argnums: int | tuple[int, ...] = 0, *, has_aux: Literal[True]
) -> Fn[P, tuple[object, A]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> ScalarFn[P]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, P], Sequence[Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnScalar[P, Sequence[float], Sequence[Node]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, P], Mapping[K, Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnScalar[P, dict[K, float], dict[K, Node]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Sequence[Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnSequence[P, Sequence[float], Sequence[Node]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Sequence[Node], P], Sequence[Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnSequence[P, Sequence[Sequence[float]], Sequence[Sequence[Node]]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Sequence[Node], P], Mapping[K, Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnSequence[P, dict[K, Sequence[float]], dict[K, Sequence[Node]]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Mapping[K2, Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnMapping[K2, P, dict[K2, float], dict[K2, Node]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Mapping[K2, Node], P], Sequence[Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnMapping[K2, P, Sequence[dict[K2, float]], Sequence[dict[K2, Node]]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Mapping[K2, Node], P], Mapping[K, Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnMapping[K2, P, dict[K, dict[K2, float]], dict[K, dict[K2, Node]]]: ...
@overload
def jacobian(
    fn: Callable[Concatenate[T, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, P], T]: ...
@overload
def jacobian(
    fn: Callable[Concatenate[T, P], Sequence[Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, P], Sequence[T]]: ...
@overload
def jacobian(
    fn: Callable[Concatenate[T, P], Mapping[K, Scalar]],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, P], dict[K, T]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, Node, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> OnPair[P, tuple[float, float], tuple[Node, Node]]: ...
@overload
def jacobian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, Node, P], Sequence[Scalar]],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> OnPair[P, Sequence[tuple[float, float]], Sequence[tuple[Node, Node]]]: ...
@overload
def jacobian(
    fn: Callable[Concatenate[T1, T2, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, T2, P], tuple[T1, T2]]: ...
@overload
def jacobian(
    fn: Callable[Concatenate[T1, T2, P], Sequence[Scalar]],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T1, T2, P], Sequence[tuple[T1, T2]]]: ...
@overload
def jacobian(
    fn: Callable[P, object], argnums: int | tuple[int, ...], has_aux: Literal[False] = False
) -> Fn[P, object]: ...
def jacobian(
    fn: Callable[..., object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., object]:
    """The Jacobian of a function returning a pytree of scalars.

    One trace and one reverse sweep per output scalar: each row is exactly
    what `grad` gives for that output.

    Args:
        fn: returns a pytree of scalars (a scalar, list, tuple, dict, ...).
        argnums: the positional argument(s) to differentiate, as in `grad`.
        has_aux: ``fn`` returns ``(output, aux)``; the function then returns
            ``(jacobian, aux)``.

    Returns:
        A function returning the output's structure *outside* and the
        differentiated argument's structure *inside*: ``J[i][j]`` is
        ``d out[i] / d x[j]``. Every leaf is a float at top level.

    >>> import autograd as ag
    >>> ag.jacobian(lambda x: [x[0] * x[1], x[0] + 2.0 * x[1]])([3.0, 5.0])
    [[5.0, 3.0], [1.0, 2.0]]
    """
    return jacobian_impl(Arguments(fn, argnums, "jacobian", has_aux))


# ---- hessian ------------------------------------------------------------------


@overload
def hessian(
    fn: Callable[Concatenate[Node, P], tuple[Scalar, A]],
    argnums: Literal[0] = 0,
    *,
    has_aux: Literal[True],
) -> OnScalar[P, tuple[float, A], tuple[Node, A]]: ...
@overload
def hessian(
    fn: Callable[P, tuple[Scalar, A]], argnums: int | tuple[int, ...] = 0, *, has_aux: Literal[True]
) -> Fn[P, tuple[object, A]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[Node, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> ScalarFn[P]: ...
@overload
def hessian(
    fn: Callable[Concatenate[float, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[float, P], float]: ...
@overload
def hessian(
    fn: Callable[Concatenate[FloatSeq, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[FloatSeq, P], Sequence[Sequence[float]]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[FloatMap, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[FloatMap, P], dict[str, dict[str, float]]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[Sequence[Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnSequence[P, Sequence[Sequence[float]], Sequence[Sequence[Node]]]: ...
@overload
def hessian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Mapping[K, Node], P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> OnMapping[K, P, dict[K, dict[K, float]], dict[K, dict[K, Node]]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[ScalarSeq, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[ScalarSeq, P], Sequence[Sequence[Scalar]]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[ObjectSeq, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[ObjectSeq, P], Sequence[object]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[ObjectMap, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[ObjectMap, P], Mapping[str, object]]: ...
@overload
def hessian(
    fn: Callable[Concatenate[T, P], Scalar],
    argnums: Literal[0] = 0,
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[T, P], Hessian[T]]: ...
@overload
def hessian(  # type: ignore[overload-overlap]  # first match wins
    fn: Callable[Concatenate[Node, Node, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> OnPair[
    P,
    tuple[tuple[float, float], tuple[float, float]],
    tuple[tuple[Node, Node], tuple[Node, Node]],
]: ...
@overload
def hessian(
    fn: Callable[Concatenate[float, float, P], Scalar],
    argnums: tuple[Literal[0], Literal[1]],
    has_aux: Literal[False] = False,
) -> Fn[Concatenate[float, float, P], tuple[tuple[float, float], tuple[float, float]]]: ...
@overload
def hessian(
    fn: Callable[P, Scalar], argnums: int | tuple[int, ...] = 0, has_aux: Literal[False] = False
) -> Fn[P, object]: ...
def hessian(
    fn: Callable[..., object], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., object]:
    """The matrix of second derivatives of a scalar function, forward over reverse.

    One trace, one reverse sweep that builds the gradient as a graph, then
    one forward sweep of that graph per input scalar (JAX's strategy).

    Args:
        fn: returns a scalar.
        argnums: the positional argument(s) to differentiate, as in `grad`.
        has_aux: ``fn`` returns ``(scalar, aux)``; the function then returns
            ``(hessian, aux)``.

    Returns:
        A function returning ``H`` with the argument's structure outside and
        inside: ``H[i][j]`` is ``d/dx[j] (d fn / dx[i])``. With an ``argnums``
        tuple, both levels are tuples over the arguments: for scalar
        arguments ``H[a][b]`` is ``d/d args[b] (d fn / d args[a])``.

    >>> import autograd as ag
    >>> ag.hessian(lambda x: x[0] ** 3.0 * x[1])([2.0, 5.0])
    [[60.0, 12.0], [12.0, 0.0]]
    """
    return hessian_impl(Arguments(fn, argnums, "hessian", has_aux))
