"""Loss code typed in floats (the recommended style): every gradient leaf is a float."""

import functools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypedDict, assert_type

import attrs

import autograd as ag
from autograd import nn
from autograd.transforms.grad import Fn, GradFn
from autograd.transforms.jacobian import Hessian


@attrs.frozen
class Params:
    w: float
    b: float


class Pair(NamedTuple):
    a: float
    b: float


class Layer(TypedDict):
    w: list[list[float]]
    b: list[float]


def predict(p: Params, x: float) -> float:
    return ag.tanh(p.w * x + p.b)


def loss(p: Params, xs: Sequence[float]) -> float:
    return ag.mean([(predict(p, x) - 1.0) ** 2 for x in xs])


def pair_loss(p: Pair) -> float:
    return p.a * p.b


def layers_loss(layers: list[Layer]) -> float:
    return ag.sum([ag.dot(row, layer["b"]) for layer in layers for row in layer["w"]])


def layers_loss_one(layer: Layer) -> float:
    return ag.dot(layer["w"][0], layer["b"])


class NestedPair(NamedTuple):
    a: float
    b: list[float]


def nested_pair_loss(p: NestedPair) -> float:
    return p.a * p.b[0]


def three(x: float, y: Params, z: list[float]) -> float:
    return x * y.w + ag.sum(z)


def with_aux(p: Params) -> tuple[float, dict[str, float]]:
    return p.w * p.b, {"w": p.w}


p = Params(1.0, 0.0)
# a helper on floats is a float: comparisons and math work on it
assert_type(predict(p, 1.0), float)
assert_type(predict(p, 1.0) > 0, bool)
assert_type(ag.jit(loss)(p, [1.0]), float)

# class, NamedTuple, TypedDict and nested-list parameters: gradients of floats
assert_type(ag.grad(loss)(p, [1.0]).w, float)
assert_type(ag.grad(pair_loss)(Pair(1.0, 2.0)).a, float)
assert_type(ag.grad(layers_loss)([{"w": [[1.0]], "b": [2.0]}])[0]["w"][0][0], float)
assert_type(ag.value_and_grad(loss)(p, [1.0]), tuple[float, Params])

# argnums beyond 1
assert_type(ag.grad(three, argnums=2)(1.0, p, [1.0]), list[float])
assert_type(ag.grad(three, argnums=(0, 2))(1.0, p, [1.0]), tuple[float, list[float]])
assert_type(ag.grad(three, argnums=(1, 2))(1.0, p, [1.0]), tuple[Params, list[float]])
assert_type(ag.grad(three, argnums=(0, 1, 2))(1.0, p, [1.0]), tuple[float, Params, list[float]])
assert_type(ag.value_and_grad(three, argnums=2)(1.0, p, [1.0]), tuple[float, list[float]])
assert_type(ag.value_and_grad(three, argnums=1)(1.0, p, [1.0]), tuple[float, Params])

# has_aux of floats is floats
assert_type(ag.grad(with_aux, has_aux=True)(p), tuple[Params, dict[str, float]])
assert_type(
    ag.value_and_grad(with_aux, has_aux=True)(p), tuple[tuple[float, dict[str, float]], Params]
)

# functools.partial: the gradient has the first argument's type
assert_type(ag.grad(functools.partial(loss, xs=[1.0]))(p), Params)
assert_type(ag.value_and_grad(functools.partial(loss, xs=[1.0]))(p), tuple[float, Params])

# a lambda: mypy cannot infer its parameters, so the result may be called, untyped;
# pyright types them from the first overload that fits (docs/typing.md, What degrades)
MYPY = False  # mypy takes the name as true; pyright as false (pyproject's defineConstant)
if MYPY:
    assert_type(ag.grad(lambda x: x * x), Any)
    assert_type(ag.grad(lambda x, y: x * y, argnums=(0, 1)), Fn[Any, Any])
else:
    assert_type(ag.grad(lambda x: x * x), GradFn[[]])
    assert_type(ag.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0), tuple[float, float])
g_lambda: float = ag.grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 3.0)[0]

# higher order in floats
assert_type(ag.grad(ag.grad(ag.tanh))(1.0), float)
# a NamedTuple of floats is a Sequence of floats: its Hessian is a Pair of Pairs at run time
assert_type(ag.hessian(pair_loss)(Pair(1.0, 2.0)), Sequence[Sequence[float]])
# an attrs class: a Params whose every field holds a Params, so h.w.b is d/db (dloss/dw)
h = ag.hessian(loss)(p, [1.0])
assert_type(h, Hessian[Params])
assert_type(h.w.b, float)
h[0]  # type: ignore[index]  # a class is not indexed
_ = h.w.c  # type: ignore[attr-defined]  # nor has fields it does not declare
# containers of containers: honest outer types (a TypedDict, a NamedTuple with a list field)
assert_type(ag.hessian(layers_loss_one)({"w": [[1.0]], "b": [2.0]}), Mapping[str, object])
assert_type(ag.hessian(nested_pair_loss)(NestedPair(1.0, [2.0])), Sequence[object])
assert_type(ag.hessian(ag.tanh)(1.0), float)
assert_type(ag.jacobian(three, argnums=(0, 1))(1.0, p, [1.0]), tuple[float, Params])


def flat(v: list[float]) -> float:
    return v[0] * v[1]


assert_type(ag.hessian(flat)([1.0, 2.0]), Sequence[Sequence[float]])

# nn: parameters, predictions and losses are floats
net = nn.init_mlp((2, 3, 1), seed=0)
assert_type(nn.mlp(net, [1.0, 2.0])[0] > 0, bool)
assert_type(nn.hinge([1.0], [1.0]), float)
assert_type(nn.softplus(1.0), float)
assert_type(net.layers[0].w[0][0], float)


def neuron(x1: float, x2: float, w1: float, w2: float, b: float) -> float:
    return ag.tanh(x1 * w1 + x2 * w2 + b)


assert_type(
    ag.grad(neuron, argnums=(0, 1, 2, 3))(1.0, 2.0, 3.0, 4.0, 5.0),
    tuple[float, float, float, float],
)
assert_type(ag.value_and_grad(neuron, argnums=(0, 1, 2, 3))(1.0, 2.0, 3.0, 4.0, 5.0)[1][3], float)
