"""`grad` and `value_and_grad` called on nodes outside any transform return linked nodes.

As the ops do: a float in, a float out; a node in, a node out. So the result
of ``grad(f)(x)`` for a `Leaf` ``x`` can itself be differentiated with
`gradients`, and its value is bit for bit the float result.
"""

from __future__ import annotations

import math
import struct
from typing import assert_type

import pytest

import autograd as ag
from autograd import Leaf, Node, Scalar


def f(x: Scalar) -> Scalar:
    return ag.tanh(x) * x**3 + ag.exp(-x)


def bits(v: float) -> bytes:
    return struct.pack("<d", v)


@pytest.mark.parametrize("x0", [0.3, -1.7, 0.0, 2.5])
def test_grad_of_a_leaf_is_a_node_that_differentiates_again(x0: float) -> None:
    x = Leaf(x0)
    g = ag.grad(f)(x)
    assert isinstance(g, ag.Add | ag.Mul)  # a node of the derivative graph
    assert bits(g.value) == bits(ag.grad(f)(x0))
    assert bits(ag.gradients(g)[x]) == bits(ag.grad(ag.grad(f))(x0))


def test_value_and_grad_returns_nodes_for_nodes_and_floats_for_floats() -> None:
    x = Leaf(0.7)
    value, g = ag.value_and_grad(f)(x)
    assert isinstance(value, Node)
    assert isinstance(g, Node)
    assert bits(g.value) == bits(ag.grad(f)(0.7))
    assert type(ag.grad(f)(0.7)) is float
    assert type(ag.value_and_grad(f)(0.7)[1]) is float


def test_a_leaf_among_floats_links_only_what_depends_on_it() -> None:
    w = Leaf(2.0)
    grads = ag.grad(lambda p: p["w"] * p["b"] ** 2, argnums=0)({"w": w, "b": 3.0})
    assert isinstance(grads["w"], Node)  # d/dw = b**2, built from b's variable
    assert grads["w"].value == 9.0
    assert isinstance(grads["b"], Node)
    assert math.isclose(ag.gradients(grads["b"])[w], 6.0)  # d/dw (2 w b) at b = 3


def test_types_say_so() -> None:
    x = Leaf(1.0)
    assert_type(ag.grad(f)(x), Scalar)
    assert_type(ag.grad(f)(1.0), float)
