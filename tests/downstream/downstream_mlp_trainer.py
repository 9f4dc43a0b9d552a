"""A downstream project: an MLP trainer, layers as TypedDicts of nested lists, `nn.adam`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict, assert_type

import autograd as ag
from autograd import nn


class Layer(TypedDict):
    w: list[list[float]]
    b: list[float]


def init(sizes: Sequence[int]) -> list[Layer]:
    mlp = nn.init_mlp(sizes, seed=1)
    return [{"w": [list(row) for row in d.w], "b": list(d.b)} for d in mlp.layers]


def forward(params: list[Layer], x: Sequence[float]) -> float:
    h = list(x)
    for i, layer in enumerate(params):
        h = [ag.dot(row, h) + b for row, b in zip(layer["w"], layer["b"], strict=True)]
        if i < len(params) - 1:
            h = [ag.tanh(v) for v in h]
    return h[0]


def loss(params: list[Layer], data: nn.Dataset) -> float:
    scores = [forward(params, x) for x in data.xs]
    return nn.hinge(scores, data.ys)


def loss_with_stats(params: list[Layer], data: nn.Dataset) -> tuple[float, dict[str, float]]:
    scores = [forward(params, x) for x in data.xs]
    worst = scores[0]
    return nn.hinge(scores, data.ys), {"first_score": worst}


def net_loss(net: nn.MLP, data: nn.Dataset) -> float:
    return nn.hinge([nn.mlp(net, x, ag.tanh)[0] for x in data.xs], data.ys)


def accuracy(params: list[Layer], data: nn.Dataset) -> float:
    right = sum(1 for x, y in zip(data.xs, data.ys, strict=True) if forward(params, x) * y > 0)
    return right / len(data.ys)


def train(steps: int = 60) -> float:
    data = nn.make_moons(40, noise=0.1, seed=0)
    params = init((2, 8, 1))
    opt = nn.adam(0.05)
    state = opt.init(params)
    step = ag.jit(ag.value_and_grad(loss))
    value = loss(params, data)
    for _ in range(steps):
        value, grads = step(params, data)
        assert_type(grads, list[Layer])
        assert_type(grads[0]["w"][0][0], float)
        updates, state = opt.update(grads, state)
        params = nn.apply_updates(params, updates)
    assert_type(value, float)

    (value, stats), grads = ag.value_and_grad(loss_with_stats, has_aux=True)(params, data)
    assert_type(stats["first_score"], float)
    grads_only, stats = ag.grad(loss_with_stats, has_aux=True)(params, data)
    assert_type(grads_only, list[Layer])

    # the library's own MLP: parameters and predictions are floats
    net = nn.init_mlp((2, 4, 1), seed=0)
    g = ag.grad(net_loss)(net, data)
    assert_type(g, nn.MLP)
    assert_type(g.layers[0].w[0][0], float)
    # a lambda gets its parameter types from where it goes: give it a typed place (passed
    # straight to `grad`, mypy types it `Any` and pyright from grad's first overload)
    bound: Callable[[nn.MLP], float] = lambda p: net_loss(p, data)  # noqa: E731
    g_lambda = ag.grad(bound)(net)
    assert_type(g_lambda, nn.MLP)
    assert g_lambda == g
    label = 1.0 if nn.mlp(net, data.xs[0])[0] > 0 else -1.0
    assert label in (1.0, -1.0)
    return accuracy(params, data)


if __name__ == "__main__":
    print(f"accuracy {train():.2f}")
