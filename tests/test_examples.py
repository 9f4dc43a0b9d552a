"""The worked examples users know from the micrograd tutorials."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import pytest

import autograd as ag
from autograd import Scalar


def loss(params: Mapping[str, Scalar]) -> Scalar:
    return ((params["w1"] - 1) ** 2 + (params["w2"] - 5) ** 2) * 0.5


def test_seed_loss_value_and_gradient_at_2_3() -> None:
    value, grads = ag.value_and_grad(loss)({"w1": 2.0, "w2": 3.0})
    assert value == 2.5
    assert grads == {"w1": 1.0, "w2": -2.0}


def test_ten_descent_steps_converge_towards_1_5() -> None:
    params = {"w1": 2.0, "w2": 3.0}
    for _ in range(10):
        grads = ag.grad(loss)(params)
        params = {k: v - 0.5 * grads[k] for k, v in params.items()}
    # each step halves the distance to (1, 5): exactly (1 + 2**-10, 5 - 2 * 2**-10)
    assert params == {"w1": 1 + 2**-10, "w2": 5 - 2 * 2**-10}
    value = loss(params)  # plain floats in, a plain float out
    assert isinstance(value, float)
    assert value < 1e-5


B = 6.8813735870195432


def neuron(p: Mapping[str, Scalar]) -> Scalar:
    return ag.tanh(p["x1"] * p["w1"] + p["x2"] * p["w2"] + p["b"])


def neuron_with_exp(p: Mapping[str, Scalar]) -> Scalar:
    e = ag.exp(2 * (p["x1"] * p["w1"] + p["x2"] * p["w2"] + p["b"]))
    return (e - 1) / (e + 1)


@pytest.mark.parametrize("f", [neuron, neuron_with_exp], ids=["tanh", "exp"])
def test_micrograd_neuron_value_and_gradients(f: Callable[[Mapping[str, Scalar]], Scalar]) -> None:
    point = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": B}
    value, grads = ag.value_and_grad(f)(point)
    assert value == pytest.approx(math.sqrt(0.5), abs=1e-12)
    expected = {"x1": -1.5, "x2": 0.5, "w1": 1.0, "w2": 0.0, "b": 0.5}
    assert grads.keys() == expected.keys()
    for name, g in expected.items():
        assert grads[name] == pytest.approx(g, abs=1e-12), name


def test_x_plus_x_has_gradient_2() -> None:
    def double(x: Scalar) -> Scalar:
        return x + x

    assert ag.grad(double)(3.0) == 2.0
    a = ag.Leaf(3.0)
    assert ag.gradients(a + a)[a] == 2.0
