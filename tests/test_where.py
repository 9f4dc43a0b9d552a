"""Public `where` and comparisons: value choices that survive every transform and `jit`."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar


def bits(v: object) -> object:
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, list | tuple):
        return [bits(x) for x in v]
    return v


def test_numbers_compare_to_bools_and_nodes_to_compare_nodes() -> None:
    assert ag.lt(1.0, 2.0) is True
    assert ag.ge(1.0, 2.0) is False
    cond = ag.eq(ag.Leaf(2.0), 2.0)
    assert isinstance(cond, ag.Compare)
    assert cond.value == 1.0
    assert ag.where(True, 1.0, 2.0) == 1.0


def test_value_equality_under_a_transform_matches_floats() -> None:
    # `x == y` on two nodes is identity (dict keys need it); `eq` compares values
    def same(x: Scalar, y: Scalar) -> Scalar:
        return ag.where(ag.eq(x, y), 1.0, 0.0) + x * 0.0

    assert same(2.0, 2.0) == 1.0
    value, grads = ag.value_and_grad(same, argnums=(0, 1))(2.0, 2.0)
    assert value == 1.0
    assert grads == (0.0, 0.0)
    assert ag.jit(ag.value_and_grad(same))(2.0, 3.0)[0] == 0.0  # traced at another point


FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 5e-324, -5e-324, math.inf, -math.inf, math.nan]
)


def _leaky(x: Scalar) -> Scalar:
    return ag.where(ag.gt(x, 0.0), x * x, 0.5 * x)


@pytest.mark.parametrize(
    "stack",
    [ag.grad(_leaky), ag.value_and_grad(_leaky), ag.grad(ag.grad(_leaky)), ag.hessian(_leaky)],
    ids=["grad", "value_and_grad", "grad2", "hessian"],
)
@given(a=FLOATS, b=FLOATS)
def test_jit_tests_the_choice_at_run_time(
    stack: Callable[[float], object], a: float, b: float
) -> None:
    compiled = ag.jit(stack)
    for x in (a, b, -a, 0.0, -1.0, 1.0):
        assert bits(compiled(x)) == bits(stack(x))


def test_gradients_through_where_are_torchs_and_jaxs() -> None:
    # docs/numerics.md section 7: the branch not taken gets a zero cotangent
    def unsafe(x: Scalar) -> Scalar:
        return ag.where(ag.gt(x, 0.0), ag.log(x), 0.0)

    def safe(x: Scalar) -> Scalar:
        return ag.where(ag.gt(x, 0.0), ag.log(ag.where(ag.gt(x, 0.0), x, 1.0)), 0.0)

    assert unsafe(0.0) == 0.0
    assert math.isnan(ag.grad(unsafe)(0.0))  # 0 * (1/0): as torch and jax
    assert ag.grad(safe)(0.0) == 0.0  # the double where
    assert ag.grad(safe)(2.0) == 0.5


def test_a_condition_must_be_a_comparison() -> None:
    with pytest.raises(TypeError, match=r"where\(\) needs a comparison's result.*float"):
        ag.where(1.0, 2.0, 3.0)  # type: ignore[call-overload]  # the misuse under test


def test_node_equality_stays_identity() -> None:
    x, y = ag.Leaf(1.0), ag.Leaf(1.0)
    assert x == x
    assert x != y  # two variables, equal values: still different (API.md)
    assert {x: 1, y: 2}[y] == 2
    node: object = x  # `Node == float` is a type error too; at run time it raises
    with pytest.raises(TypeError, match="graph node, not a number"):
        _ = node == 1.0


def test_a_branch_must_be_a_number_or_a_node() -> None:
    cond = ag.lt(ag.Leaf(1.0), 2.0)
    with pytest.raises(TypeError, match=r"^where: x is a complex \(1j\)"):
        ag.where(cond, 1j, 0.0)  # type: ignore[call-overload]  # the misuse under test
    with pytest.raises(TypeError, match=r"^lt: y is a complex \(1j\)"):
        ag.lt(ag.Leaf(1.0), 1j)  # type: ignore[call-overload]  # as (-2.0) ** 0.5 makes
