"""A downstream project: fit a decaying exponential, parameters in a frozen attrs class.

Written as a user writes it: the model and the loss are typed in floats (as
JAX code is typed in arrays); under `grad` the same code runs on nodes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import NamedTuple, assert_type

import attrs

import autograd as ag


@attrs.frozen
class Decay:
    amplitude: float
    rate: float
    offset: float


class Sample(NamedTuple):
    t: float
    y: float


class Line(NamedTuple):
    slope: float
    intercept: float


def model(p: Decay, t: float) -> float:
    return p.amplitude * ag.exp(-p.rate * t) + p.offset


def loss(p: Decay, data: Sequence[Sample]) -> float:
    return ag.mean([(model(p, s.t) - s.y) ** 2 for s in data])


def line_loss(p: Line, data: Sequence[Sample]) -> float:
    return ag.mean([(p.slope * s.t + p.intercept - s.y) ** 2 for s in data])


def descend(p: Decay, g: Decay, lr: float) -> Decay:
    return Decay(p.amplitude - lr * g.amplitude, p.rate - lr * g.rate, p.offset - lr * g.offset)


def fit(steps: int = 300) -> tuple[Decay, float]:
    data = [Sample(0.25 * i, 2.0 * math.exp(-0.5 * 0.25 * i) + 1.0) for i in range(12)]
    p = Decay(amplitude=1.0, rate=1.0, offset=0.0)
    step = ag.jit(ag.value_and_grad(loss))
    value = math.inf
    for _ in range(steps):
        value, g = step(p, data)
        assert_type(g, Decay)
        assert_type(g.rate, float)
        if math.sqrt(g.amplitude**2 + g.rate**2 + g.offset**2) < 1e-9:
            break
        p = descend(p, g, 0.5)
    assert_type(value, float)

    # a helper called on floats is a float: compare it, format it
    residual = model(p, 1.0) - (2.0 * math.exp(-0.5) + 1.0)
    assert_type(residual, float)
    assert abs(residual) < 0.05, residual

    # the same loss, bound to the data two ways
    bound = functools.partial(loss, data=data)
    g_partial = ag.grad(bound)(p)
    assert_type(g_partial, Decay)
    # a lambda gets its parameter types from where it goes: give it a typed place (passed
    # straight to `grad`, mypy types it `Any` and pyright from grad's first overload)
    bound_lambda: Callable[[Decay], float] = lambda q: loss(q, data)  # noqa: E731
    g_lambda = ag.grad(bound_lambda)(p)
    assert_type(g_lambda, Decay)
    assert math.isclose(g_partial.rate, g_lambda.rate)

    # a NamedTuple of parameters, and a gradient read as floats
    g_line = ag.grad(line_loss)(Line(0.0, 0.0), data)
    assert_type(g_line, Line)
    slope: float = g_line.slope
    assert slope < 0.0

    # the gradient of the data too (argnums=(0, 1))
    g_both = ag.grad(loss, argnums=(0, 1))(p, data)
    assert_type(g_both[0], Decay)
    ag.check_grads(loss, (p, data))
    return p, value


if __name__ == "__main__":
    params, final = fit()
    print(f"fitted {params} with loss {final:.3g}")
