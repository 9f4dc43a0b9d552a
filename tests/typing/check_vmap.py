"""Types of vmap, stack and unstack (mypy only); must-fail lines carry their error code."""

from collections.abc import Callable, Mapping, Sequence
from typing import assert_type

import autograd as ag
from autograd import Scalar


def square(x: float) -> float:
    return x * x


def scale(x: Scalar) -> Scalar:
    return x * 2.0


def add(x: float, y: float) -> float:
    return x + y


def affine(w: Mapping[str, Scalar], x: float) -> Scalar:
    return w["w"] * x + w["b"]


def loss(w: Mapping[str, Scalar], x: float, y: float) -> Scalar:
    return (w["w"] * x + w["b"] - y) ** 2


def features(x: Sequence[Scalar]) -> Scalar:
    return x[0] * x[1]


def example(e: Mapping[str, float]) -> float:
    return e["x"] * e["y"]


def pair(x: float) -> tuple[float, float]:
    return x, x * x


def named(x: float) -> dict[str, float]:
    return {"x": x, "x2": x * x}


def three(x: float, y: float, z: float) -> float:
    return x * y * z


params = {"w": 2.0, "b": 1.0}
xs = [1.0, 2.0, 3.0]
ys = [0.0, 1.0, 0.0]

# one mapped scalar: Sequence in, list out; the element types follow fn's
assert_type(ag.vmap(square), Callable[[Sequence[float]], list[float]])
assert_type(ag.vmap(square)(xs), list[float])
assert_type(ag.vmap(scale)(xs), list[Scalar])
# every argument mapped
assert_type(ag.vmap(add)(xs, ys), list[float])
# shared parameters first: (None, 0) and (None, 0, 0)
assert_type(ag.vmap(affine, in_axes=(None, 0))(params, xs), list[Scalar])
assert_type(ag.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys), list[Scalar])
assert_type(
    ag.vmap(loss, in_axes=(None, 0, 0)),
    Callable[[Mapping[str, Scalar], Sequence[float], Sequence[float]], list[Scalar]],
)
# an example that is a Sequence or a Mapping of scalars: each leaf becomes a Sequence
assert_type(ag.vmap(features)([[1.0, 2.0], [3.0, 4.0]]), list[Scalar])
assert_type(ag.vmap(example)({"x": xs, "y": ys}), list[float])
assert_type(ag.vmap(ag.vmap(square)), Callable[[Sequence[Sequence[float]]], list[list[float]]])


# the batch mean of a one-example loss is a scalar again, so grad types it
def batch_loss(p: Mapping[str, Scalar]) -> Scalar:
    return ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(p, xs, ys))


assert_type(ag.grad(batch_loss)(params), dict[str, float])

# other argument patterns: positional arguments typed `object`, results typed by fn's output
assert_type(ag.vmap(three)(xs, ys, xs), list[float])
assert_type(ag.vmap(three, in_axes=(0, None, 0))(xs, 2.0, ys), list[float])
assert_type(ag.vmap(pair)(xs), tuple[list[float], list[float]])
assert_type(ag.vmap(named)(xs), dict[str, list[float]])
assert_type(ag.vmap(ag.grad(scale))(xs), list[float])
assert_type(ag.vmap(ag.value_and_grad(scale))(xs), tuple[list[float], list[float]])
per_example_grad = ag.grad(loss)
assert_type(ag.vmap(per_example_grad, in_axes=(None, 0, 0))(params, xs, ys), dict[str, list[float]])
# inline too: no Any from the context (tests/typing/check_vmap_grad.py has the compositions)
assert_type(ag.vmap(ag.grad(loss), in_axes=(None, 0, 0))(params, xs, ys), dict[str, list[float]])
assert_type(ag.vmap(affine, in_axes=(None, 0), out_axes=None)(params, xs), Scalar)
assert_type(ag.vmap(named, out_axes={"x": 0, "x2": None})(xs), object)
assert_type(ag.jit(ag.vmap(square))(xs), list[float])

# stack and unstack
assert_type(ag.stack([1.0, 2.0]), list[float])
assert_type(ag.stack([{"x": 1.0}, {"x": 2.0}]), dict[str, list[float]])
assert_type(ag.stack([[1.0, 2.0], [3.0, 4.0]]), list[list[float]])
assert_type(ag.unstack([1.0, 2.0]), list[float])
assert_type(ag.unstack({"x": [1.0, 2.0]}), list[dict[str, float]])
assert_type(ag.unstack(ag.vmap(named)(xs)), list[dict[str, float]])

# rejected: axes other than 0/None, nothing mapped, unbatched or non-numeric arguments
ag.vmap(square, in_axes=2)  # type: ignore[call-overload]
ag.vmap(square, in_axes=-1)  # type: ignore[call-overload]
ag.vmap(square, in_axes=None)  # type: ignore[call-overload]
ag.vmap(square, out_axes=1)  # type: ignore[call-overload]
ag.vmap(square)(1.0)  # type: ignore[arg-type]
ag.vmap(square)(["a"])  # type: ignore[list-item]
ag.vmap(affine, in_axes=(None, 0))(params, 1.0)  # type: ignore[arg-type]
ag.vmap(add)(xs)  # type: ignore[call-arg]
ag.vmap(three)(xs, ys, xs, y=1.0)  # type: ignore[call-arg]
wrong: list[str] = ag.vmap(square)(xs)  # type: ignore[assignment]
