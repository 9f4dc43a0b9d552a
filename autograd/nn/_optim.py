"""Optimisers as pure ``init``/``update`` pairs, in the shape of optax.

An optimiser never mutates anything: ``update`` takes the gradients and the
old state and returns the *updates* (what to add to the parameters) and a new
state; `apply_updates` adds them. Parameters may be any pytree of floats
(a `MLP`, a dict, a list); updates come back in the same structure.

>>> opt = sgd(0.1)
>>> params = {"w": 1.0}
>>> state = opt.init(params)
>>> updates, state = opt.update({"w": 2.0}, state)
>>> apply_updates(params, updates)
{'w': 0.8}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

import attrs

from autograd.pytree import TreeDef, flatten, unflatten

T = TypeVar("T")

Schedule = Callable[[int], float]
"""A learning rate as a function of the step count (0 for the first update)."""


def _leaves(tree: object, root: str) -> tuple[list[float], TreeDef]:
    """The float leaves of a tree of numbers, or a `TypeError` naming a bad leaf."""
    leaves, shape = flatten(tree, root)
    for i, x in enumerate(leaves):
        if not isinstance(x, float):
            raise TypeError(f"{root} leaf {i} is a graph node: optimisers take plain floats")
    return cast(list[float], leaves), shape


def _rate(learning_rate: float | Schedule, count: int) -> float:
    return learning_rate(count) if callable(learning_rate) else learning_rate


def apply_updates(params: T, updates: T) -> T:
    """``params + updates``, leaf by leaf, in ``params``' structure.

    >>> apply_updates([1.0, 2.0], [0.5, -0.5])
    [1.5, 1.5]

    Raises:
        TypeError: if a leaf is not a number.
        ValueError: if the two trees have different structures.
    """
    ps, shape = _leaves(params, "params")
    us, ushape = _leaves(updates, "updates")
    if shape != ushape:
        raise ValueError("apply_updates(): params and updates have different structures")
    return cast(T, unflatten(shape, [p + u for p, u in zip(ps, us, strict=True)]))


@attrs.frozen
class SgdState:
    """The state of `sgd`: the step count and the momentum of each leaf."""

    count: int
    velocity: tuple[float, ...]


@attrs.frozen
class Sgd:
    """Stochastic gradient descent, optionally with (heavy-ball) momentum.

    ``v = momentum * v + g``; the update is ``-learning_rate * v``, as
    ``torch.optim.SGD`` and ``optax.sgd``. Make one with `sgd`.
    """

    learning_rate: float | Schedule
    momentum: float = 0.0

    def init(self, params: object) -> SgdState:
        """The state before the first step: zero velocity for every leaf."""
        leaves, _ = _leaves(params, "params")
        return SgdState(0, (0.0,) * len(leaves))

    def update(self, grads: T, state: SgdState, params: object = None) -> tuple[T, SgdState]:
        """The updates for ``grads`` and the new state; ``params`` is not needed."""
        gs, shape = _leaves(grads, "grads")
        _same_size(gs, state.velocity)
        v = [self.momentum * vi + g for vi, g in zip(state.velocity, gs, strict=True)]
        lr = _rate(self.learning_rate, state.count)
        updates = cast(T, unflatten(shape, [-lr * vi for vi in v]))
        return updates, SgdState(state.count + 1, tuple(v))


def sgd(learning_rate: float | Schedule, momentum: float = 0.0) -> Sgd:
    """Gradient descent with a fixed or scheduled learning rate and optional momentum.

    Args:
        learning_rate: a number, or a function of the step count.
        momentum: 0 for plain descent; 0.9 is a common choice.

    Returns:
        An optimiser with ``init(params)`` and ``update(grads, state)``.

    >>> opt = sgd(0.5, momentum=0.9)
    >>> state = opt.init([0.0])
    >>> updates, state = opt.update([1.0], state)
    >>> updates, state.velocity
    ([-0.5], (1.0,))
    >>> opt.update([1.0], state)[0]
    [-0.95]
    """
    return Sgd(learning_rate, momentum)


@attrs.frozen
class AdamState:
    """The state of `adam`: the step count and the two moment estimates per leaf."""

    count: int
    mu: tuple[float, ...]
    nu: tuple[float, ...]


@attrs.frozen
class Adam:
    """Adam (Kingma and Ba, 2015) with bias correction, as ``optax.adam``. Make one with `adam`.

    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g**2``; the update is
    ``-lr * m_hat / (sqrt(v_hat) + eps)`` with ``m_hat = m / (1 - b1**t)``.
    """

    learning_rate: float | Schedule
    b1: float = 0.9
    b2: float = 0.999
    eps: float = 1e-8

    def init(self, params: object) -> AdamState:
        """The state before the first step: zero moments for every leaf."""
        leaves, _ = _leaves(params, "params")
        zeros = (0.0,) * len(leaves)
        return AdamState(0, zeros, zeros)

    def update(self, grads: T, state: AdamState, params: object = None) -> tuple[T, AdamState]:
        """The updates for ``grads`` and the new state; ``params`` is not needed."""
        gs, shape = _leaves(grads, "grads")
        _same_size(gs, state.mu)
        b1, b2 = self.b1, self.b2
        mu = [b1 * m + (1.0 - b1) * g for m, g in zip(state.mu, gs, strict=True)]
        nu = [b2 * v + (1.0 - b2) * g * g for v, g in zip(state.nu, gs, strict=True)]
        t = state.count + 1
        c1, c2 = 1.0 - b1**t, 1.0 - b2**t
        lr = _rate(self.learning_rate, state.count)
        steps = [
            -lr * (m / c1) / (math.sqrt(v / c2) + self.eps) for m, v in zip(mu, nu, strict=True)
        ]
        return cast(T, unflatten(shape, steps)), AdamState(t, tuple(mu), tuple(nu))


def adam(
    learning_rate: float | Schedule, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8
) -> Adam:
    """The Adam optimiser with optax's defaults.

    Args:
        learning_rate: a number, or a function of the step count.
        b1: decay of the first-moment (mean) estimate.
        b2: decay of the second-moment estimate.
        eps: added to the root of the second moment, so steps stay finite.

    Returns:
        An optimiser with ``init(params)`` and ``update(grads, state)``.

    >>> opt = adam(0.1)
    >>> state = opt.init({"w": 1.0})
    >>> updates, state = opt.update({"w": 4.0}, state)
    >>> round(updates["w"], 6)  # the first Adam step is -lr * sign(g)
    -0.1
    """
    return Adam(learning_rate, b1, b2, eps)


def _same_size(grads: Sequence[float], state: Sequence[float]) -> None:
    if len(grads) != len(state):
        raise ValueError(
            f"the gradients have {len(grads)} leaves but the optimiser state was made "
            f"for {len(state)}: call init() on these parameters"
        )
