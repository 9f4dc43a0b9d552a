"""Types of jvp, vjp, jacobian and hessian (mypy only)."""

from collections.abc import Mapping, Sequence
from typing import assert_type

import autograd as ag
from autograd import Node, Scalar


def f(x: Node) -> Scalar:
    return ag.exp(x) * x


def f2(x: Node, y: Node) -> Scalar:
    return x * y


def outs(x: Node) -> list[Scalar]:
    return [x * x, ag.tanh(x)]


def named_outs(x: Node) -> dict[str, Scalar]:
    return {"square": x * x, "tanh": ag.tanh(x)}


def vec(x: Sequence[Node]) -> list[Scalar]:
    return [x[0] * x[1], x[0] + x[1]]


def params(p: Mapping[str, Node]) -> list[Scalar]:
    return [p["w"] * p["b"]]


def params_scalar(p: Mapping[str, Scalar]) -> Scalar:
    return p["w"] * p["b"]


# jvp: typed by the output
assert_type(ag.jvp(f, (1.0,), (1.0,)), tuple[float, float])
assert_type(ag.jvp(outs, (1.0,), (1.0,)), tuple[Sequence[float], Sequence[float]])
assert_type(ag.jvp(named_outs, (1.0,), (1.0,)), tuple[dict[str, float], dict[str, float]])

# vjp: one cotangent per primal
value, pullback = ag.vjp(f, 1.0)
assert_type(value, float)
assert_type(pullback(1.0), tuple[float])
value2, pullback2 = ag.vjp(f2, 1.0, 2.0)
assert_type(pullback2(1.0), tuple[float, float])
values, pullback3 = ag.vjp(outs, 1.0)
assert_type(values, Sequence[float])
assert_type(pullback3([1.0, 0.0]), tuple[float])
value4, pullback4 = ag.vjp(params_scalar, {"w": 1.0, "b": 2.0})
assert_type(pullback4(1.0), tuple[dict[str, float]])

# jacobian: output structure outside, input structure inside
assert_type(ag.jacobian(f)(1.0), float)
assert_type(ag.jacobian(outs)(1.0), Sequence[float])
assert_type(ag.jacobian(named_outs)(1.0), dict[str, float])
assert_type(ag.jacobian(vec)([1.0, 2.0]), Sequence[Sequence[float]])
assert_type(ag.jacobian(params)({"w": 1.0, "b": 2.0}), Sequence[dict[str, float]])
assert_type(ag.jacobian(f2, argnums=(0, 1))(1.0, 2.0), tuple[float, float])
assert_type(
    ag.hessian(f2, argnums=(0, 1))(1.0, 2.0), tuple[tuple[float, float], tuple[float, float]]
)

# hessian
assert_type(ag.hessian(f)(1.0), float)
assert_type(ag.hessian(ag.grad(f))(1.0), float)  # third derivative
assert_type(ag.hessian(params_scalar)({"w": 1.0, "b": 2.0}), dict[str, dict[str, float]])

# misuse stays rejected
pullback2(1.0, 2.0)  # type: ignore[call-arg]  # one cotangent for one output
ag.jacobian(vec)(1.0)  # type: ignore[call-overload]  # vec takes a sequence
ag.hessian(outs)  # type: ignore[arg-type]  # hessian needs a scalar output


# has_aux: the aux output keeps its type
def with_aux(x: Node) -> tuple[Scalar, str]:
    return x * x, "aux"


def outs_aux(x: Node) -> tuple[list[Scalar], int]:
    return [x, x * x], 1


assert_type(ag.jvp(with_aux, (1.0,), (1.0,), has_aux=True), tuple[float, float, str])
aux_value, aux_pullback, aux = ag.vjp(with_aux, 1.0, has_aux=True)
assert_type(aux_pullback(1.0), tuple[float])
assert_type(aux, str)
assert_type(ag.jacobian(outs_aux, has_aux=True)(1.0), tuple[Sequence[float], int])
assert_type(ag.hessian(with_aux, has_aux=True)(1.0), tuple[float, str])
ag.hessian(with_aux)(1.0)  # type: ignore[arg-type]  # a pair needs has_aux=True
