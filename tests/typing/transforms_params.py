"""The annotation patterns docs/typing.md lists for user parameters (mypy only)."""

from collections.abc import Mapping, Sequence
from typing import NamedTuple, assert_type

import attrs

import autograd as ag
from autograd import Node, Scalar
from autograd.transforms.jacobian import Hessian


@attrs.frozen
class Linear:
    """Pattern 1: a frozen attrs class with Scalar fields."""

    w: Scalar
    b: Scalar


class Pair(NamedTuple):
    """Pattern 2: a NamedTuple with Scalar fields."""

    a: Scalar
    b: Scalar


def linear_loss(p: Linear, x: float) -> Scalar:
    return (p.w * x + p.b - 1.0) ** 2


def pair_loss(p: Pair) -> Scalar:
    return p.a * p.b


def mapping_loss(p: Mapping[str, Scalar]) -> Scalar:  # pattern 3
    return p["w"] * p["b"]


def sequence_loss(p: Sequence[Scalar]) -> Scalar:  # pattern 4
    return ag.sum(p)


def node_sequence_loss(p: Sequence[Node]) -> Scalar:  # pattern 4, nodes only
    return ag.sum(p)


def nested_loss(p: dict[str, list[Scalar]]) -> Scalar:  # pattern 5: nested containers
    return p["w"][0] * p["w"][1]


# pattern 1: the gradient is the same class; its fields hold floats at run time
assert_type(ag.grad(linear_loss)(Linear(1.0, 0.0), 2.0), Linear)
assert_type(ag.value_and_grad(linear_loss)(Linear(1.0, 0.0), 2.0), tuple[float, Linear])
assert_type(ag.jacobian(linear_loss)(Linear(1.0, 0.0), 2.0), Linear)

# pattern 2
assert_type(ag.grad(pair_loss)(Pair(1.0, 2.0)), Pair)

# pattern 3: a dict of floats comes back
assert_type(ag.grad(mapping_loss)({"w": 1.0, "b": 2.0}), dict[str, float])
assert_type(ag.hessian(mapping_loss)({"w": 1.0, "b": 2.0}), dict[str, dict[str, float]])

# pattern 4
assert_type(ag.grad(sequence_loss)([1.0, 2.0]), Sequence[float])
assert_type(ag.grad(node_sequence_loss)([1.0, 2.0]), Sequence[float])
assert_type(ag.hessian(sequence_loss)([1.0, 2.0]), Sequence[Sequence[float]])

# pattern 5: the declared type comes back (leaves are floats, a subtype of Scalar)
assert_type(ag.grad(nested_loss)({"w": [1.0, 2.0]}), dict[str, list[Scalar]])

# hessian of a class: a Hessian[T] (each field holds a T); of a NamedTuple of scalars,
# a Sequence of Sequences
assert_type(ag.hessian(linear_loss)(Linear(1.0, 0.0), 2.0), Hessian[Linear])
assert_type(ag.hessian(linear_loss)(Linear(1.0, 0.0), 2.0).w, Linear)
assert_type(ag.hessian(linear_loss)(Linear(1.0, 0.0), 2.0).w.b, Scalar)
assert_type(ag.hessian(pair_loss)(Pair(1.0, 2.0)), Sequence[Sequence[Scalar]])

# misuse stays rejected
ag.grad(linear_loss)({"w": 1.0, "b": 0.0}, 2.0)  # type: ignore[arg-type]  # not a Linear
ag.grad(pair_loss)((1.0, 2.0))  # type: ignore[arg-type]  # a plain tuple is not a Pair
ag.grad(mapping_loss)([1.0])  # type: ignore[arg-type]  # a list is not a Mapping
