"""Types of grad and value_and_grad: higher order, argnums tuples, has_aux (mypy only)."""

from collections.abc import Callable, Mapping, Sequence
from typing import assert_type

import autograd as ag
from autograd import Node, Scalar


def cube(x: Scalar) -> Scalar:
    return x * x * x


def node_fn(x: Node) -> Node:
    return ag.tanh(x)


def scaled(x: Node, k: float) -> Node:
    return x * k


def two(x: Node, y: Node) -> Scalar:
    return x * y


def with_aux(x: Node) -> tuple[Scalar, str]:
    return x * x, "aux"


# first, second and third derivatives of a scalar function
assert_type(ag.grad(cube)(2.0), float)
assert_type(ag.grad(ag.grad(cube))(2.0), float)
assert_type(ag.grad(ag.grad(ag.grad(cube)))(2.0), float)
assert_type(ag.grad(node_fn)(0.5), float)
assert_type(ag.grad(ag.grad(node_fn))(0.5), float)
assert_type(ag.grad(scaled)(1.0, 3.0), float)
assert_type(ag.value_and_grad(cube)(2.0), tuple[float, float])


# a function that calls grad inside, on a node, and is differentiated again
def uses_inner_grad(x: Scalar) -> Scalar:
    return x * ag.grad(cube)(x)


def uses_inner_value_and_grad(x: Node) -> Scalar:
    value, slope = ag.value_and_grad(cube)(x)
    return value * slope


assert_type(ag.grad(cube)(ag.Leaf(1.0)), Node)
assert_type(ag.grad(uses_inner_grad)(2.0), float)
assert_type(ag.grad(uses_inner_value_and_grad)(2.0), float)

# argnums tuples and argnums=1
assert_type(ag.grad(two, argnums=(0, 1))(1.0, 2.0), tuple[float, float])
assert_type(ag.value_and_grad(two, argnums=(0, 1))(1.0, 2.0), tuple[float, tuple[float, float]])
assert_type(ag.grad(two, argnums=1)(ag.Leaf(1.0), 2.0), float)  # x passes through as a Node


def affine(k: float, x: Node) -> Scalar:
    return x * k


assert_type(ag.grad(affine, argnums=1)(3.0, 2.0), float)


def mixed(w: Sequence[Scalar], b: Mapping[str, Scalar]) -> Scalar:
    return w[0] * b["b"]


assert_type(
    ag.grad(mixed, argnums=(0, 1))([1.0], {"b": 2.0}),
    tuple[Sequence[Scalar], Mapping[str, Scalar]],
)

# has_aux
assert_type(ag.grad(with_aux, has_aux=True)(2.0), tuple[float, str])
assert_type(ag.value_and_grad(with_aux, has_aux=True)(2.0), tuple[tuple[float, str], float])

# a lambda is typed through an annotated variable (docs/typing.md, "What degrades")
product: Callable[[Sequence[Scalar]], Scalar] = lambda w: w[0] * w[1]  # noqa: E731
assert_type(ag.grad(product)([1.0, 2.0]), Sequence[float])

# misuse stays rejected
ag.grad(cube)("2.0")  # type: ignore[call-overload]  # a str is not a float
ag.grad(two, argnums=(0, 1))(1.0)  # type: ignore[call-arg]  # two arguments needed
ag.grad(cube, has_aux=True)  # type: ignore[call-overload]  # cube returns no (value, aux) pair
x: str = ag.grad(cube)(2.0)  # type: ignore[assignment]  # a gradient is a float
