"""Types of grad and value_and_grad with a negative argnums (mypy only).

``argnums=-1`` types the gradient as the last parameter; ``(0, -1)`` as the
first and the last. A function with keyword-only parameters, or any other
negative index, falls back to the types of an int argnums beyond 1 (``object``).
"""

from typing import Any, assert_type

import autograd as ag
from autograd import Node, Scalar
from autograd.transforms.grad import Positional


def affine(x: float, w: list[float]) -> float:
    return w[0] * x + w[1]


def three(scale: float, name: str, p: dict[str, float]) -> float:
    return scale * p["a"] * p["b"]


def nodes(x: Node, y: Node) -> Scalar:
    return x * y


def one(x: float) -> float:
    return x * x


def keyword_only(x: float, y: float, *, k: float = 1.0) -> float:
    return x * y * k


# -1: the last parameter's type, the other parameters kept
assert_type(ag.grad(affine, argnums=-1), Positional[float, list[float], list[float]])
assert_type(ag.grad(affine, argnums=-1)(2.0, [3.0, 1.0]), list[float])
assert_type(ag.grad(three, argnums=-1)(2.0, "n", {"a": 1.0, "b": 2.0}), dict[str, float])
assert_type(ag.grad(nodes, argnums=-1)(ag.Leaf(2.0), 3.0), float)  # Node parameters: a float
assert_type(ag.grad(one, argnums=-1)(3.0), float)  # one parameter: -1 is 0
assert_type(ag.value_and_grad(affine, argnums=-1)(2.0, [3.0, 1.0]), tuple[float, list[float]])
assert_type(ag.value_and_grad(nodes, argnums=-1)(ag.Leaf(2.0), 3.0), tuple[float, float])

# (0, -1): the first and the last
assert_type(ag.grad(affine, argnums=(0, -1))(2.0, [3.0, 1.0]), tuple[float, list[float]])
assert_type(
    ag.grad(three, argnums=(0, -1))(2.0, "n", {"a": 1.0, "b": 2.0}),
    tuple[float, dict[str, float]],
)
assert_type(
    ag.value_and_grad(affine, argnums=(0, -1))(2.0, [3.0, 1.0]),
    tuple[float, tuple[float, list[float]]],
)

# what mypy cannot express precisely: the fallback of an int argnums beyond 1
assert_type(ag.grad(three, argnums=-2)(1.0, "n", {}), object)
assert_type(ag.value_and_grad(three, argnums=-2)(1.0, "n", {}), tuple[float, object])
assert_type(ag.grad(three, argnums=(1, -1))(1.0, "n", {}), tuple[object, ...])

# where the two checkers differ
MYPY = False  # mypy takes the name as true; pyright as false (pyproject's defineConstant)
if MYPY:
    assert_type(ag.grad(keyword_only, argnums=-1)(1.0, 2.0, k=3.0), object)
    assert_type(ag.grad(one, argnums=(0, -1))(1.0), tuple[object, ...])  # one parameter
    assert_type(ag.grad(lambda x, y: x * y, argnums=-1), Any)  # a lambda: several overloads fit
else:
    # pyright matches `(*Ts, T)` to a function whose keyword-only parameters have defaults
    assert_type(ag.grad(keyword_only, argnums=-1)(1.0, 2.0), float)
    # and `(T1, *Ts, T2)` to a function of one parameter: the call, which raises (argnums
    # (0, -1) name one argument twice), is an error
    ag.grad(one, argnums=(0, -1))(1.0)  # type: ignore[call-arg]

# mistakes caught
ag.grad(affine, argnums=-1)(2.0)  # type: ignore[call-arg]  # both arguments needed
ag.grad(affine, argnums=-1)(2.0, 3.0)  # type: ignore[arg-type]  # the last is a list
ag.grad(affine, argnums=-1)(2.0, w=[1.0])  # type: ignore[call-arg]  # positional only
