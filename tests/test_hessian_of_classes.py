"""`hessian` of a class parameter is a ``T`` whose every field holds a ``T`` (typed `Hessian[T]`).

The run-time shape is what the type says, and each entry is a second
derivative: checked against central differences of the gradient's fields.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, assert_type

import attrs
import pytest

import autograd as ag
from autograd.transforms.jacobian import Hessian

H = 1e-5


@attrs.frozen
class Params:
    w: float
    b: float


def loss(p: Params, x: float) -> float:
    return ag.tanh(p.w * x + p.b) ** 2 + p.w * p.b**3


def field(p: Params, name: str) -> float:
    value = getattr(p, name)
    assert isinstance(value, float)
    return value


@pytest.mark.parametrize("x", [0.5, -1.5])
def test_each_field_of_the_hessian_holds_a_params_of_second_derivatives(x: float) -> None:
    p = Params(0.3, -0.7)
    h = ag.hessian(loss)(p, x)
    assert_type(h, Hessian[Params])
    whole: object = h  # narrowing h itself would make h.w a float
    assert type(whole) is Params
    for i in ("w", "b"):
        row = getattr(h, i)
        assert isinstance(row, Params)
        for j in ("w", "b"):

            def grad_i(u: float, i: str = i, j: str = j) -> float:
                shifted = attrs.evolve(p, **{j: u})
                return field(ag.grad(loss)(shifted, x), i)

            v = field(p, j)
            numeric = (grad_i(v + H) - grad_i(v - H)) / (2 * H)
            assert math.isclose(field(row, j), numeric, rel_tol=1e-6, abs_tol=1e-8), (i, j)
    assert_type(h.w.b, float)
    assert math.isclose(h.w.b, h.b.w, rel_tol=1e-15)  # symmetric, up to rounding


class NestedPair(NamedTuple):
    a: float
    b: list[float]


def nested_pair_loss(p: NestedPair) -> float:
    return p.a**2 * p.b[0]


def test_containers_of_containers_have_the_outer_types_they_are_typed() -> None:
    h = ag.hessian(nested_pair_loss)(NestedPair(1.0, [2.0]))
    assert_type(h, Sequence[object])
    assert h == NestedPair._make([NestedPair(4.0, [2.0]), [NestedPair(2.0, [0.0])]])

    def dict_loss(p: dict[str, list[float]]) -> float:
        return p["w"][0] * p["w"][1]

    hd = ag.hessian(dict_loss)({"w": [1.0, 2.0]})
    assert_type(hd, Mapping[str, object])
    assert hd == {"w": [{"w": [0.0, 1.0]}, {"w": [1.0, 0.0]}]}


def test_the_transform_is_a_callable_of_the_parameters() -> None:
    made: Callable[[Params, float], Hessian[Params]] = ag.hessian(loss)
    h = made(Params(0.0, 0.0), 1.0)
    assert (h.w.w, h.w.b, h.b.w, h.b.b) == (2.0, 2.0, 2.0, 2.0)  # tanh(w + b)**2 at 0
