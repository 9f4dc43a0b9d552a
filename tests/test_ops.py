"""Ops on ``float | Node``: floats in give floats out, bit for bit the node's value;
reductions are balanced trees."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import as_node, floats

import autograd as ag
import autograd.walks as trace
from autograd import Leaf, Node, Scalar
from autograd.core.floats import int_to_float

FUNCTIONS: list[Callable[[Scalar], Scalar]] = [ag.exp, ag.log, ag.tanh, ag.relu, ag.sigmoid]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_function_returns_the_kind_it_is_given(f: Callable[[Scalar], Scalar]) -> None:
    assert type(f(0.5)) is float
    assert isinstance(f(Leaf(0.5)), Node)


def depth(root: Node) -> int:
    """Longest path from ``root`` to an input, without recursion."""
    memo: dict[Node, int] = {}
    for node, ins in trace.toposort(root):
        memo[node] = 1 + max((memo[p] for p in ins), default=-1)
    return memo[root]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 1000, 1025])
def test_sum_mean_and_dot_are_balanced(n: int) -> None:
    xs = [Leaf(float(i)) for i in range(n)]
    levels = math.ceil(math.log2(n))
    assert depth(as_node(ag.sum(xs))) == levels
    assert depth(as_node(ag.mean(xs))) == levels + 1  # then one multiplication by 1/n
    assert depth(as_node(ag.dot(xs, xs))) == levels + 1  # products first


VECTORS = st.lists(floats(-1e6, 1e6), min_size=1, max_size=40)


@given(xs=VECTORS)
def test_reductions_on_floats_are_bit_identical_to_the_node_path(xs: list[float]) -> None:
    nodes = [Leaf(x) for x in xs]
    ys = xs[::-1]
    pairs: list[tuple[Scalar, Node]] = [
        (ag.sum(xs), as_node(ag.sum(nodes))),
        (ag.mean(xs), as_node(ag.mean(nodes))),
        (ag.dot(xs, ys), as_node(ag.dot(nodes, [Leaf(y) for y in ys]))),
        (ag.dot(xs, ys), as_node(ag.dot(nodes, ys))),  # floats on one side only
    ]
    for on_floats, on_nodes in pairs:
        assert isinstance(on_floats, float)
        assert on_floats.hex() == on_nodes.value.hex()


@given(xs=VECTORS)
def test_reduction_gradients(xs: list[float]) -> None:
    def mean(v: Sequence[Scalar]) -> Scalar:
        return ag.mean(v)

    def sum_of_squares(v: Sequence[Scalar]) -> Scalar:
        return ag.dot(v, v)

    assert ag.grad(ag.sum)(xs) == [1.0] * len(xs)
    assert ag.grad(mean)(xs) == [1.0 / len(xs)] * len(xs)
    assert ag.grad(sum_of_squares)(xs) == [2 * x for x in xs]


def test_empty_and_mixed_reductions() -> None:
    assert ag.sum([]) == 0.0
    assert math.isnan(ag.mean([]))
    assert ag.sum(iter([1.0, 2.0])) == 3.0  # any iterable
    mixed = ag.sum([1.0, Leaf(2.0), 3.0])
    assert isinstance(mixed, Node)
    assert mixed.value == 6.0
    assert ag.dot([], []) == 0.0


def _bits(x: float) -> object:
    """A float's bits, every nan alike (nan signs and payloads are not promised)."""
    return "nan" if math.isnan(x) else struct.pack("<d", x)


_SPECIAL = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e308, -1e308, 5e-324]
_ANY_FLOAT = st.one_of(st.sampled_from(_SPECIAL), st.floats(allow_nan=True, allow_infinity=True))


def _check_subtraction(x: float, c: float) -> None:
    d = Leaf(x) - c
    assert type(d) is ag.Add
    assert type(d.y) is ag.Const
    assert _bits(d.value) == _bits(x - int_to_float(c) if type(c) is int else x - c)
    f = ag.value_and_grad(lambda v: v - c)
    value, g = ag.jit(f)(x)
    assert (_bits(value), g) == (_bits(d.value), 1.0) == (_bits(f(x)[0]), f(x)[1])


def test_subtracting_a_number_adds_its_negation_with_float_bits() -> None:
    """``x - c`` is ``Add(x, Const(-c))`` (IEEE's definition of subtraction): the value is
    float subtraction's, signed zeros and infinities included, and the gradient is 1."""
    for x in _SPECIAL:
        for c in _SPECIAL:
            _check_subtraction(x, c)


@given(x=_ANY_FLOAT, c=st.one_of(_ANY_FLOAT, st.integers(-(10**400), 10**400)))
def test_subtracting_any_number_adds_its_negation(x: float, c: float) -> None:
    _check_subtraction(x, c)


def test_subtracting_a_node_multiplies_it_by_minus_one() -> None:
    d = Leaf(5.0) - Leaf(2.0)
    assert type(d) is ag.Add
    assert type(d.y) is ag.Mul
    assert d.y.y.value == -1.0
    assert ag.grad(lambda u, v: u - v, argnums=(0, 1))(5.0, 2.0) == (1.0, -1.0)
