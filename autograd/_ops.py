"""What users call on ``float | Node``: elementary functions and balanced reductions.

Each function returns the kind it is given: floats in, a float out (so one loss
function runs on plain numbers), a node in, a node out (so it runs under a
transform). The float path is the node's own forward rule, so both agree
bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import overload

from ._nodes import (
    Node,
    Scalar,
    _Arith,
    _exp,
    _relu,
    _sigmoid,
    _tanh,
    as_float,
    exp_float,
    int_to_float,
    log,
    relu_float,
    sigmoid_float,
)

__all__ = ["dot", "exp", "log", "mean", "relu", "sigmoid", "sum", "tanh"]


@overload
def exp(x: float) -> float: ...
@overload
def exp(x: Node) -> Node: ...
@overload
def exp(x: Scalar) -> Scalar: ...
def exp(x: Scalar) -> Scalar:
    """``e ** x``; overflows to ``inf``, never raises.

    >>> exp(0.0), exp(1000.0)
    (1.0, inf)
    """
    if isinstance(x, _Arith):
        return _exp(x)
    return exp_float(x if type(x) is float else as_float(x))


@overload
def tanh(x: float) -> float: ...
@overload
def tanh(x: Node) -> Node: ...
@overload
def tanh(x: Scalar) -> Scalar: ...
def tanh(x: Scalar) -> Scalar:
    """Hyperbolic tangent; its gradient is exactly ``0.0`` once the output rounds to ±1.

    >>> tanh(0.0), tanh(1000.0)
    (0.0, 1.0)
    """
    if isinstance(x, _Arith):
        return _tanh(x)
    return math.tanh(x if type(x) is float else as_float(x))


@overload
def relu(x: float) -> float: ...
@overload
def relu(x: Node) -> Node: ...
@overload
def relu(x: Scalar) -> Scalar: ...
def relu(x: Scalar) -> Scalar:
    """``max(x, 0)``, keeping nan and ``-0.0`` (as ``torch.relu``); ``relu'(0) == 0``.

    >>> relu(-2.0), relu(3.0)
    (0.0, 3.0)
    """
    if isinstance(x, _Arith):
        return _relu(x)
    return relu_float(x if type(x) is float else as_float(x))


@overload
def sigmoid(x: float) -> float: ...
@overload
def sigmoid(x: Node) -> Node: ...
@overload
def sigmoid(x: Scalar) -> Scalar: ...
def sigmoid(x: Scalar) -> Scalar:
    """Logistic function ``1 / (1 + exp(-x))``, never overflowing.

    >>> sigmoid(0.0), sigmoid(-1000.0)
    (0.5, 0.0)
    """
    if isinstance(x, _Arith):
        return _sigmoid(x)
    return sigmoid_float(x if type(x) is float else as_float(x))


@overload
def sum(xs: Iterable[float]) -> float: ...
@overload
def sum(xs: Iterable[Node]) -> Node: ...
@overload
def sum(xs: Iterable[Scalar]) -> Scalar: ...
def sum(xs: Iterable[Scalar]) -> Scalar:
    """Sum as a balanced tree of additions, so the graph depth is ``log2(n)``.

    Floats and nodes give the same bits: both are added in the same tree
    order. An empty sum is ``0.0``.

    >>> sum([1.0, 2.0, 3.0])
    6.0
    """
    # ints as int_to_float makes them: float + 10**400 would raise OverflowError
    level: list[Scalar] = [_num(x) for x in xs]
    if not level:
        return 0.0
    while len(level) > 1:
        paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


@overload
def mean(xs: Sequence[float]) -> float: ...
@overload
def mean(xs: Sequence[Node]) -> Node: ...
@overload
def mean(xs: Sequence[Scalar]) -> Scalar: ...
def mean(xs: Sequence[Scalar]) -> Scalar:
    """Average: the balanced `sum` divided by ``len(xs)``; the mean of nothing is nan.

    >>> mean([1.0, 2.0, 4.0, 5.0])
    3.0
    """
    if not xs:
        return math.nan  # as torch.mean and jnp.mean of an empty array
    return sum(xs) / len(xs)  # torch.mean: one division (n >= 1, so never by zero)


@overload
def dot(xs: Sequence[float], ys: Sequence[float]) -> float: ...
@overload
def dot(xs: Sequence[Scalar], ys: Sequence[Scalar]) -> Scalar: ...
def dot(xs: Sequence[Scalar], ys: Sequence[Scalar]) -> Scalar:
    """``sum(x * y)`` over two sequences of equal length, as a balanced tree.

    >>> dot([1.0, 2.0], [3.0, 4.0])
    11.0

    Raises:
        ValueError: if the lengths differ.
    """
    if len(xs) != len(ys):
        raise ValueError(f"dot() needs sequences of equal length, got {len(xs)} and {len(ys)}")
    return sum([_num(x) * _num(y) for x, y in zip(xs, ys, strict=True)])


def _num(x: Scalar) -> Scalar:
    """An item of `sum` or `dot`: an int as `int_to_float` makes it (10**400 * 1.0 raises)."""
    v: object = x  # mypy counts an int as a float: test the runtime type
    return int_to_float(v) if type(v) is int else x
