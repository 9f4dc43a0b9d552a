"""What users see from the transforms: checked by mypy only, never run by pytest."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, assert_type

import attrs

import autograd as ag
from autograd import Node, Scalar


def node_fn(x: Node) -> Node:
    return ag.tanh(x) * 2.0


def scalar_fn(x: Scalar) -> Scalar:
    return x * x + 1.0


as_callable: Callable[[Node], Node] = node_fn

# grad of a Callable[[Node], Node], called on a float, is a float
assert_type(ag.grad(as_callable)(1.0), float)
assert_type(ag.grad(node_fn)(1.0), float)
assert_type(ag.grad(scalar_fn)(1.0), float)
assert_type(ag.grad(scalar_fn)(1), float)  # an int is accepted (promoted)
assert_type(ag.value_and_grad(scalar_fn)(1.0), tuple[float, float])


def mapping_loss(params: Mapping[str, Scalar]) -> Scalar:
    return params["w1"] * params["w2"]


params = {"w1": 2.0, "w2": 3.0}
assert_type(ag.grad(mapping_loss)(params), dict[str, float])
assert_type(ag.value_and_grad(mapping_loss)(params), tuple[float, dict[str, float]])


def sequence_loss(ws: Sequence[Scalar]) -> Scalar:
    return ag.sum(ws)


assert_type(ag.grad(sequence_loss)([1.0, 2.0]), Sequence[float])
assert_type(ag.grad(sequence_loss)((1.0, 2.0)), Sequence[float])
assert_type(ag.value_and_grad(sequence_loss)([1.0]), tuple[float, Sequence[float]])


@attrs.frozen
class Params:
    w: Scalar
    b: Scalar


def attrs_loss(p: Params) -> Scalar:
    return p.w * 2.0 + p.b


assert_type(ag.grad(attrs_loss)(Params(1.0, 2.0)), Params)
assert_type(ag.value_and_grad(attrs_loss)(Params(1.0, 2.0)), tuple[float, Params])


class Point(NamedTuple):
    x: Scalar
    y: Scalar


def point_loss(p: Point) -> Scalar:
    return p.x * p.y


assert_type(ag.grad(point_loss)(Point(1.0, 2.0)), Point)


# other arguments keep their types and are passed through
def with_data(w: Scalar, data: list[float], *, scale: float) -> Scalar:
    return w * data[0] * scale


assert_type(ag.grad(with_data)(1.0, [2.0], scale=3.0), float)


# has_aux: (gradient, aux) and ((value, aux), gradient)
def with_aux(x: Scalar) -> tuple[Scalar, str]:
    return x * x, "note"


assert_type(ag.grad(with_aux, has_aux=True)(1.0), tuple[float, str])
assert_type(ag.value_and_grad(with_aux, has_aux=True)(1.0), tuple[tuple[float, str], float])


def attrs_with_aux(p: Params) -> tuple[Scalar, int]:
    return p.w, 3


assert_type(ag.grad(attrs_with_aux, has_aux=True)(Params(1.0, 2.0)), tuple[Params, int])
assert_type(
    ag.value_and_grad(attrs_with_aux, has_aux=True)(Params(1.0, 2.0)),
    tuple[tuple[float, int], Params],
)


# argnums 1 and (0, 1) on scalar parameters give floats
def two(x: Scalar, y: Scalar) -> Scalar:
    return x * y


assert_type(ag.grad(two, argnums=1)(1.0, 2.0), float)
assert_type(ag.grad(two, argnums=(0, 1))(1.0, 2.0), tuple[float, float])
assert_type(ag.value_and_grad(two, argnums=(0, 1))(1.0, 2.0), tuple[float, tuple[float, float]])

# gradients and stop_gradient
leaf = ag.Leaf(1.0)
assert_type(ag.gradients(leaf * leaf), Mapping[Node, float])
assert_type(ag.stop_gradient({"a": [leaf]}), dict[str, list[ag.Leaf]])
