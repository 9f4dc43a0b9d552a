"""A downstream project in the Scalar/Node style: an MLP whose layers are TypedDicts.

The model is a TypedDict of a list of layers (each a TypedDict of nested lists)
and a dict of output settings, generic in its leaves as ``Model[S]``: the user
holds a ``Model[float]``, the loss is written once over ``Model[S]``, and each
gradient is a ``Model[float]`` read as floats (``Model[Node]`` from nodes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Generic, TypedDict, TypeVar, assert_type

import autograd as ag
from autograd import Leaf, Node, Scalar, nn

S = TypeVar("S", bound=Scalar)


class Layer(TypedDict, Generic[S]):
    w: list[list[S]]
    b: list[S]


class Model(TypedDict, Generic[S]):
    layers: list[Layer[S]]
    head: dict[str, S]  # "scale" and "bias" of the output


def init(sizes: Sequence[int]) -> Model[float]:
    mlp = nn.init_mlp(sizes, seed=1)
    layers: list[Layer[float]] = [{"w": [list(r) for r in d.w], "b": list(d.b)} for d in mlp.layers]
    return {"layers": layers, "head": {"scale": 1.0, "bias": 0.0}}


def forward(model: Model[S], x: Sequence[float]) -> Scalar:
    h: list[Scalar] = list(x)
    last = len(model["layers"]) - 1
    for i, layer in enumerate(model["layers"]):
        h = [ag.dot(row, h) + b for row, b in zip(layer["w"], layer["b"], strict=True)]
        if i < last:
            h = [ag.tanh(v) for v in h]
    # the `S` on the right: mypy does not try the reflected operator of a type variable
    return h[0] * model["head"]["scale"] + model["head"]["bias"]


def loss(model: Model[S], data: nn.Dataset) -> Scalar:
    return nn.hinge([forward(model, x) for x in data.xs], data.ys)


def loss_with_stats(model: Model[S], data: nn.Dataset) -> tuple[Scalar, dict[str, Scalar]]:
    scores = [forward(model, x) for x in data.xs]
    return nn.hinge(scores, data.ys), {"first_score": scores[0]}


def accuracy(model: Model[float], data: nn.Dataset) -> float:
    right = 0
    for x, y in zip(data.xs, data.ys, strict=True):
        score = forward(model, x)
        assert isinstance(score, float)  # floats in: a float out, whatever the annotation says
        right += score * y > 0.0
    return right / len(data.ys)


def norm(g: Model[float]) -> float:
    leaves = [v for layer in g["layers"] for row in layer["w"] for v in row]
    leaves += [v for layer in g["layers"] for v in layer["b"]] + list(g["head"].values())
    return math.sqrt(sum(v * v for v in leaves))


def train(steps: int = 60) -> float:
    data = nn.make_moons(40, noise=0.1, seed=0)
    model = init((2, 8, 1))
    opt = nn.adam(0.05)
    state = opt.init(model)
    step = ag.jit(ag.value_and_grad(loss))
    for _ in range(steps):
        value, grads = step(model, data)
        assert_type(value, float)
        assert_type(grads, Model[float])
        assert_type(grads["layers"][0]["w"][0][0], float)
        assert_type(grads["head"]["scale"], float)
        updates, state = opt.update(grads, state)
        model = nn.apply_updates(model, updates)
    assert norm(ag.grad(loss)(model, data)) < 10.0

    (value, stats), grads = ag.value_and_grad(loss_with_stats, has_aux=True)(model, data)
    assert_type(value, float)
    assert_type(grads["layers"][1]["b"][0], float)
    assert_type(stats["first_score"], Scalar)  # the aux as declared: floats at run time
    grads_only, _ = ag.grad(loss_with_stats, has_aux=True)(model, data)
    assert_type(grads_only["head"]["bias"], float)

    # the data's gradient too: an argnums tuple over two structures
    xs = [list(x) for x in data.xs[:4]]
    g_model, g_xs = ag.grad(batch_loss, argnums=(0, 1))(model, xs)
    assert_type(g_model["head"]["bias"], float)
    assert_type(g_xs[0][1], float)

    # nodes in, nodes out: a model of leaves gives a gradient of nodes
    small: Model[Node] = {
        "layers": [{"w": [[Leaf(0.5), Leaf(-0.5)]], "b": [Leaf(0.1)]}],
        "head": {"scale": Leaf(1.0), "bias": Leaf(0.0)},
    }
    g_small = ag.grad(loss)(small, data)
    assert_type(g_small, Model[Node])
    assert_type(g_small["layers"][0]["w"][0][1], Node)
    assert isinstance(g_small["head"]["scale"], Node)
    return accuracy(model, data)


def batch_loss(model: Model[S], xs: list[list[S]]) -> Scalar:
    return ag.mean([forward_tanh(model, x) ** 2 for x in xs])


def forward_tanh(model: Model[S], x: Sequence[Scalar]) -> Scalar:
    h: list[Scalar] = list(x)
    for layer in model["layers"]:
        h = [ag.tanh(ag.dot(row, h) + b) for row, b in zip(layer["w"], layer["b"], strict=True)]
    return h[0]


if __name__ == "__main__":
    print(f"accuracy {train():.2f}")
