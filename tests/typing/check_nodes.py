"""Node arithmetic and ops on ``float | Node``: checked by mypy only, never run by pytest."""

from __future__ import annotations

from typing import assert_never, assert_type

import autograd as ag
from autograd import Node, NodeUnion, Scalar

x = ag.Leaf(2.0)
n: Node = x * 3.0


def unknown_kind(v: Scalar) -> Scalar:
    """A `Scalar` of unknown kind: pyright narrows ``s: Scalar = 1.5`` to its value's type."""
    return v


s = unknown_kind(1.5)

assert_type(x.value, float)
assert_type(n + 1.0, Node)
assert_type(1.0 + n, Node)
assert_type(n - 1, Node)
assert_type(1 - n, Node)
assert_type(n * n, Node)
assert_type(2.0 * n, Node)
assert_type(n / 2.0, Node)
assert_type(2.0 / n, Node)
assert_type(n**2, Node)
assert_type(2.0**n, Node)
assert_type(n**n, Node)
assert_type(-n, Node)
assert_type(+n, Node)

# ops return the kind they are given
assert_type(ag.exp(1.0), float)
assert_type(ag.exp(n), Node)
assert_type(ag.exp(s), Scalar)
assert_type(ag.log(1.0), float)
assert_type(ag.log(n), Node)
assert_type(ag.tanh(x), Node)
assert_type(ag.relu(0.5), float)
assert_type(ag.sigmoid(n), Node)
assert_type(ag.sum([1.0, 2.0]), float)
assert_type(ag.sum([n, n]), Node)
assert_type(ag.sum([x, x]), Node)
assert_type(ag.sum([s, n]), Scalar)
assert_type(ag.mean([1.0, 2.0]), float)
assert_type(ag.mean([n, x]), Node)
assert_type(ag.dot([1.0], [2.0]), float)
assert_type(ag.dot([n], [2.0]), Node)
assert_type(ag.dot([x, x], [x, x]), Node)
assert_type(ag.dot([s], [s]), Scalar)
assert_type(ag.tan(1.0), float)
assert_type(ag.log1p(n), Node)
assert_type(ag.sign(s), Scalar)
assert_type(ag.arctan2(1.0, 2.0), float)
assert_type(ag.hypot(n, 2.0), Node)
assert_type(ag.maximum(1.0, x), Node)
assert_type(ag.minimum(n, n), Node)
assert_type(ag.maximum(s, s), Scalar)


def arity(node: NodeUnion) -> int:
    """The closed union: this match is exhaustive, so mypy accepts assert_never."""
    match node:
        case ag.Leaf() | ag.Const():
            return 0
        case ag.Exp() | ag.Log() | ag.Sqrt() | ag.Abs() | ag.Sin() | ag.Cos():
            return 1
        case ag.Tanh() | ag.Relu() | ag.Sigmoid():
            return 1
        case ag.Tan() | ag.Sinh() | ag.Cosh() | ag.Arcsin() | ag.Arccos() | ag.Arctan():
            return 1
        case ag.Log1p() | ag.Expm1() | ag.Log2() | ag.Log10() | ag.Exp2() | ag.Sign():
            return 1
        case ag.Add() | ag.Mul() | ag.Div() | ag.Pow() | ag.Compare():
            return 2
        case ag.Arctan2() | ag.Hypot() | ag.Maximum() | ag.Minimum():
            return 2
        case ag.Where():
            return 3
        case _:
            assert_never(node)


def comparisons(n: Node, s: Scalar) -> None:
    assert_type(ag.lt(1.0, 2.0), bool)
    assert_type(ag.eq(n, 2.0), ag.Cond)
    assert_type(ag.where(True, 1.0, 2.0), float)
    assert_type(ag.where(ag.gt(n, 0.0), n, 0.0), Scalar)
    assert_type(ag.where(ag.le(s, s), s, n), Scalar)
