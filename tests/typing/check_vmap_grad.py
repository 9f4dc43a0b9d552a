"""Types of vmap composed with grad, value_and_grad and jit (mypy), checked against run time.

Every `assert_type` is followed by a run-time check that the value has that
shape, and tests/test_typing_vmap.py runs this file: a type that drifts from
what `vmap` returns fails one or the other. Must-fail lines carry their code.
"""

from collections.abc import Callable, Sequence
from typing import NamedTuple, assert_type, cast

import attrs

import autograd as ag
from autograd.transforms.vmap import Stacked


@attrs.frozen
class Linear:
    w: float
    b: float


class Pair(NamedTuple):
    w: float
    b: float


def loss_d(p: dict[str, float], x: float, y: float) -> float:
    return (ag.tanh(p["w"] * x + p["b"]) - y) ** 2


def loss_l(p: list[float], x: float, y: float) -> float:
    return (ag.tanh(p[0] * x + p[1]) - y) ** 2


def loss_a(p: Linear, x: float, y: float) -> float:
    return (ag.tanh(p.w * x + p.b) - y) ** 2


def loss_n(p: Pair, x: float, y: float) -> float:
    return (ag.tanh(p.w * x + p.b) - y) ** 2


def loss_1(p: dict[str, float], x: float) -> float:
    return (p["w"] * x + p["b"]) ** 2


def cube(x: float) -> float:
    return x * x * x


def is_floats(v: object, n: int) -> bool:
    items = cast("list[object]", v)  # a list of unknown items (pyright strict would say so)
    return isinstance(v, list) and len(items) == n and all(type(e) is float for e in items)


def is_a(v: object, cls: type) -> bool:
    """``isinstance`` that mypy does not narrow by: a `Stacked[C]` is a ``C`` at run time."""
    return isinstance(v, cls)


xs = [0.5, -1.0, 2.0]
ys = [1.0, 0.0, -1.0]
pd = {"w": 1.0, "b": 0.5}
pl = [1.0, 0.5]
pa = Linear(1.0, 0.5)
pn = Pair(1.0, 0.5)

# per-example gradients: the parameters' structure, each leaf a list over the batch
gd = ag.vmap(ag.grad(loss_d), in_axes=(None, 0, 0))(pd, xs, ys)
assert_type(gd, dict[str, list[float]])
assert list(gd) == ["w", "b"]
assert all(is_floats(v, 3) for v in gd.values())

gl = ag.vmap(ag.grad(loss_l), in_axes=(None, 0, 0))(pl, xs, ys)
assert_type(gl, list[list[float]])
assert len(gl) == 2
assert all(is_floats(v, 3) for v in gl)

ga = ag.vmap(ag.grad(loss_a), in_axes=(None, 0, 0))(pa, xs, ys)
assert_type(ga, Stacked[Linear])
assert_type(ga.w, list[float])
assert is_a(ga, Linear)
assert is_floats(ga.w, 3)
assert is_floats(ga.b, 3)

gn = ag.vmap(ag.grad(loss_n), in_axes=(None, 0, 0))(pn, xs, ys)
assert_type(gn, Stacked[Pair])
assert_type(gn.b, list[float])
assert is_a(gn, Pair)
assert is_floats(gn.w, 3)
assert is_floats(gn.b, 3)
assert ga != pa  # a Stacked[C] compares with a C (it is one): no comparison-overlap
assert gn == Pair(*cast("list[float]", [gn.w, gn.b]))

# the mapped function keeps the argument types
assert_type(
    ag.vmap(ag.grad(loss_d), in_axes=(None, 0, 0)),
    Callable[[dict[str, float], Sequence[float], Sequence[float]], dict[str, list[float]]],
)
assert_type(ag.vmap(ag.grad(loss_1), in_axes=(None, 0))(pd, xs), dict[str, list[float]])

# value_and_grad: the losses and the gradients, each over the batch
vd = ag.vmap(ag.value_and_grad(loss_d), in_axes=(None, 0, 0))(pd, xs, ys)
assert_type(vd, tuple[list[float], dict[str, list[float]]])
assert is_floats(vd[0], 3)
assert all(is_floats(v, 3) for v in vd[1].values())
vl = ag.vmap(ag.value_and_grad(loss_l), in_axes=(None, 0, 0))(pl, xs, ys)
assert_type(vl, tuple[list[float], list[list[float]]])
assert is_floats(vl[0], 3)
assert all(is_floats(v, 3) for v in vl[1])
va = ag.vmap(ag.value_and_grad(loss_a), in_axes=(None, 0, 0))(pa, xs, ys)
assert_type(va, tuple[list[float], Stacked[Linear]])
assert is_floats(va[0], 3)
assert is_a(va[1], Linear)
assert is_floats(va[1].b, 3)
vn = ag.vmap(ag.value_and_grad(loss_n), in_axes=(None, 0, 0))(pn, xs, ys)
assert_type(vn, tuple[list[float], Stacked[Pair]])
assert is_floats(vn[0], 3)
assert is_a(vn[1], Pair)
assert is_floats(vn[1].w, 3)

# a function of one scalar: list in, list out
assert_type(ag.vmap(ag.grad(cube))(xs), list[float])
assert is_floats(ag.vmap(ag.grad(cube))(xs), 3)
assert_type(ag.vmap(ag.value_and_grad(cube))(xs), tuple[list[float], list[float]])
assert_type(ag.vmap(ag.grad(ag.grad(cube)))(xs), list[float])

# jit keeps the type
jd = ag.jit(ag.vmap(ag.grad(loss_d), in_axes=(None, 0, 0)))(pd, xs, ys)
assert_type(jd, dict[str, list[float]])
assert jd == gd
ja = ag.jit(ag.vmap(ag.grad(loss_a), in_axes=(None, 0, 0)))(pa, xs, ys)
assert_type(ja, Stacked[Linear])
assert is_a(ja, Linear)
assert is_floats(ja.w, 3)
jv = ag.jit(ag.vmap(ag.value_and_grad(loss_d), in_axes=(None, 0, 0)))(pd, xs, ys)
assert_type(jv, tuple[list[float], dict[str, list[float]]])


# other in_axes: arguments unchecked (Batched), results still typed by the gradient, never Any
bx = ag.vmap(ag.grad(loss_d), in_axes=(None, 0, None))(pd, xs, 1.0)
assert_type(bx, dict[str, list[float]])
assert all(is_floats(v, 3) for v in bx.values())
assert_type(ag.vmap(ag.grad(loss_d), in_axes=[None, 0, 0])(pd, xs, ys), dict[str, list[float]])
ba = ag.vmap(ag.grad(loss_a), in_axes=(None, 0, None))(pa, xs, 1.0)
assert_type(ba, Stacked[Linear])
assert is_a(ba, Linear)
assert is_floats(ba.b, 3)
bv = ag.vmap(ag.value_and_grad(loss_n), in_axes=(None, 0, None))(pn, xs, 1.0)
assert_type(bv, tuple[list[float], Stacked[Pair]])
assert is_a(bv[1], Pair)
assert_type(ag.vmap(ag.value_and_grad(cube), in_axes=[0])(xs), tuple[list[float], list[float]])
assert_type(ag.vmap(ag.grad(loss_l), in_axes=(None, 0, None))(pl, xs, 1.0), list[list[float]])


# the gradient of a batch mean: the parameters' own type
def mean_d(p: dict[str, float]) -> float:
    return ag.mean(ag.vmap(loss_d, in_axes=(None, 0, 0))(p, xs, ys))


def mean_a(p: Linear) -> float:
    return ag.mean(ag.vmap(loss_a, in_axes=(None, 0, 0))(p, xs, ys))


def mean_n(p: Pair) -> float:
    return ag.mean(ag.vmap(loss_n, in_axes=(None, 0, 0))(p, xs, ys))


bd = ag.grad(mean_d)(pd)
assert_type(bd, dict[str, float])
assert all(type(v) is float for v in bd.values())
assert_type(ag.grad(mean_a)(pa), Linear)
assert_type(ag.grad(mean_n)(pn), Pair)
assert_type(ag.value_and_grad(mean_d)(pd), tuple[float, dict[str, float]])
assert_type(ag.jit(ag.grad(mean_a))(pa), Linear)
assert_type(ag.grad(cube)(ag.mean(ag.vmap(cube)(xs))), float)

# rejected: wrong argument types and scalars where a batch goes (each also raises when
# called: tests/test_typing_vmap.py calls them), and misreading a result
per_example = ag.vmap(ag.grad(loss_d), in_axes=(None, 0, 0))
REJECTED_CALLS: list[Callable[[], object]] = [
    lambda: per_example(pd, 1.0, ys),  # type: ignore[arg-type]
    lambda: per_example(pd, xs),  # type: ignore[call-arg]
    lambda: per_example([1.0], xs, ys),  # type: ignore[arg-type]
    lambda: per_example(pd, ["a"], ys),  # type: ignore[list-item]
    lambda: ag.vmap(ag.grad(loss_a), in_axes=(None, 0, 0))(pd, xs, ys),  # type: ignore[arg-type]
    lambda: ag.vmap(ag.grad(loss_1), in_axes=(None, 0))(pd, 2.0),  # type: ignore[arg-type]
    lambda: ag.vmap(ag.grad(cube))(2.0),  # type: ignore[arg-type]
    lambda: ag.jit(per_example)(pd, 1.0, ys),  # type: ignore[arg-type]
    lambda: ga[0],  # type: ignore[index]
]


def misread() -> tuple[float, float, list[float]]:
    not_a_float: float = per_example(pd, xs, ys)["w"]  # type: ignore[assignment]
    not_a_float2: float = ga.w  # type: ignore[assignment]
    not_a_list: list[float] = ag.vmap(ag.grad(loss_1), in_axes=(None, 0))(pd, xs)  # type: ignore[assignment]
    return not_a_float, not_a_float2, not_a_list
