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

from ._debug import float_nan
from ._nodes import (
    Node,
    Scalar,
    _Arith,
    _exp,
    _log,
    _relu,
    _sigmoid,
    _tanh,
    as_float,
    exp_float,
    int_to_float,
    log_float,
    relu_float,
    sigmoid_float,
)
from ._trace import debug_sites

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
    return _exp(x) if isinstance(x, _Arith) else exp_float(x)  # exp_float takes any int


@overload
def log(x: float) -> float: ...
@overload
def log(x: Node) -> Node: ...
@overload
def log(x: Scalar) -> Scalar: ...
def log(x: Scalar) -> Scalar:
    """Natural logarithm; ``log(0.0) == -inf`` and a negative number gives nan, never raising.

    >>> log(1.0), log(0.0), log(-1.0)
    (0.0, -inf, nan)
    """
    if isinstance(x, _Arith):
        return _log(x)
    v = log_float(x)
    # One test on the result, as a node's forward rule has: nan (for debug_nans()),
    # or above log(float max), which only an int beyond float range reaches
    # (math.log reads ints exactly; float(i) would be inf)
    if not v <= 709.8:
        x = as_float(x)
        v = log_float(x)
        if v != v:
            float_nan("Log", (x,))
    return v


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
    try:
        return math.tanh(x)
    except OverflowError:  # an int beyond float range
        return math.tanh(as_float(x))


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
    return _sigmoid(x) if isinstance(x, _Arith) else sigmoid_float(x)  # via exp_float: any int


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
    items = list(xs)
    if not items:
        return 0.0
    if debug_sites.get() is not None:  # debug_nans(): a sum of two floats does not check itself
        _check_pairs(items, "Add")
    level = items
    try:
        while len(level) > 1:
            paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
            if len(level) % 2:
                paired.append(level[-1])
            level = paired
    except OverflowError:  # an int beyond float range met a float: promote it, as float(i)
        return sum(_promoted(items))
    return _num(level[0])  # a sum of ints only is an int: promoted once, at the end


def _pairwise(level: list[Scalar]) -> list[Scalar]:
    """One level of the balanced sum: neighbours added, an odd last item carried up."""
    paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
    if len(level) % 2:
        paired.append(level[-1])
    return paired


def _check_pairs(items: list[Scalar], op: str) -> None:
    """Report the first float addition (or product) of `sum` (or `dot`) that makes nan."""
    level = items
    while len(level) > 1:
        for a, b in zip(level[0::2], level[1::2], strict=False):
            if type(a) is float and type(b) is float:
                v = a * b if op == "Mul" else a + b
                if v != v:
                    float_nan(op, (a, b))
        if op == "Mul":
            return  # dot's products: one level
        level = _pairwise(level)


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
    if debug_sites.get() is not None:  # debug_nans(): a product of two floats does not check itself
        _check_pairs([v for pair in zip(xs, ys, strict=True) for v in pair], "Mul")
    try:
        return sum([x * y for x, y in zip(xs, ys, strict=True)])
    except OverflowError:  # an int beyond float range met a float: promote it, as float(i)
        return sum([x * y for x, y in zip(_promoted(xs), _promoted(ys), strict=True)])


def _promoted(xs: Iterable[Scalar]) -> list[Scalar]:
    """Items of `sum` or `dot`, ints as `int_to_float` makes them (10**400 * 1.0 raises)."""
    return [_num(x) for x in xs]


def _num(x: Scalar) -> Scalar:
    item: object = x  # mypy counts an int as a float: test the runtime type
    return int_to_float(item) if type(item) is int else x
