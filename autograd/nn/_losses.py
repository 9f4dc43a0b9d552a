"""Losses over a batch: mean squared error, max-margin hinge, cross-entropy from logits.

Each takes a sequence of predictions and a sequence of targets of the same
length and returns their mean, a float for floats and a node under a
transform. They use only the engine's ops, so they differentiate (and
differentiate again) like any user code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from autograd.core.functions import exp, log, mean, relu
from autograd.core.nodes import Node, Scalar, _Arith


def _pairs(name: str, preds: Sequence[Scalar], targets: Sequence[float]) -> None:
    if len(preds) != len(targets):
        raise ValueError(
            f"{name}() needs as many targets as predictions, got {len(preds)} and {len(targets)}"
        )


@overload
def mse(preds: Sequence[float], targets: Sequence[float]) -> float: ...
@overload
def mse(preds: Sequence[Scalar], targets: Sequence[float]) -> Scalar: ...
def mse(preds: Sequence[Scalar], targets: Sequence[float]) -> Scalar:
    """Mean squared error, ``mean((p - t) ** 2)``; the mean of nothing is nan.

    >>> mse([1.0, 2.0], [1.0, 4.0])
    2.0

    Raises:
        ValueError: if the lengths differ.
    """
    _pairs("mse", preds, targets)
    return mean([(p - t) ** 2 for p, t in zip(preds, targets, strict=True)])


@overload
def hinge(scores: Sequence[float], labels: Sequence[float]) -> float: ...
@overload
def hinge(scores: Sequence[Scalar], labels: Sequence[float]) -> Scalar: ...
def hinge(scores: Sequence[Scalar], labels: Sequence[float]) -> Scalar:
    """Max-margin hinge loss, ``mean(relu(1 - y * score))``, for labels ``y`` of ±1.

    A point scores no loss once it is on the right side with a margin of 1
    (the loss of micrograd's moons demo).

    >>> hinge([2.0, -0.5], [1.0, 1.0])
    0.75

    Raises:
        ValueError: if the lengths differ.
    """
    _pairs("hinge", scores, labels)
    return mean([relu(1.0 - y * s) for s, y in zip(scores, labels, strict=True)])


@overload
def softplus(z: float) -> float: ...
@overload
def softplus(z: Node) -> Node: ...
@overload
def softplus(z: Scalar) -> Scalar: ...
def softplus(z: Scalar) -> Scalar:
    """``log(1 + exp(z))`` without overflow, with the right derivative everywhere.

    For ``z >= 0`` it computes ``z + log(1 + exp(-z))``, else
    ``log(1 + exp(z))``: ``exp`` only sees numbers ``<= 0``. The branch is
    chosen on the value, which is safe in an eager tracer (the branch not
    taken is never recorded). The branch-free ``relu(z) + log(1 + exp(-|z|))``
    has the same values but, with ``relu'(0) == 0``, a derivative of 0 at
    ``z == 0`` instead of 1/2. For ``z`` above about 37 the result rounds to
    ``z`` (absolute error below ``1e-16``; there is no ``log1p`` op).

    >>> softplus(0.0), softplus(1000.0), softplus(-1000.0)
    (0.6931471805599453, 1000.0, 0.0)
    """
    value = z.value if isinstance(z, _Arith) else z
    if value >= 0.0:
        return z + log(1.0 + exp(-z))
    return log(1.0 + exp(z))  # also for nan: log(1 + exp(nan)) is nan


@overload
def binary_cross_entropy_with_logits(
    logits: Sequence[float], targets: Sequence[float]
) -> float: ...
@overload
def binary_cross_entropy_with_logits(
    logits: Sequence[Scalar], targets: Sequence[float]
) -> Scalar: ...
def binary_cross_entropy_with_logits(logits: Sequence[Scalar], targets: Sequence[float]) -> Scalar:
    """Binary cross-entropy of targets in ``[0, 1]`` given logits, as PyTorch's.

    The mean of ``-t log sigmoid(z) - (1 - t) log(1 - sigmoid(z))``, computed
    as ``(1 - t) z + log(1 + exp(-z))`` for ``z >= 0`` and
    ``log(1 + exp(z)) - t z`` below (branching on the value, as `softplus`):
    it never takes the log of 0 or overflows, a logit of 1000 with target 1
    costs 0 (not nan), and no large terms cancel. The gradient is
    ``sigmoid(z) - t``, also at ``z == 0``.

    >>> binary_cross_entropy_with_logits([0.0], [1.0])
    0.6931471805599453
    >>> binary_cross_entropy_with_logits([1000.0, -1000.0], [1.0, 0.0])
    0.0

    Raises:
        ValueError: if the lengths differ.
    """
    _pairs("binary_cross_entropy_with_logits", logits, targets)
    return mean([_bce(z, t) for z, t in zip(logits, targets, strict=True)])


def _bce(z: Scalar, t: float) -> Scalar:
    value = z.value if isinstance(z, _Arith) else z
    if value >= 0.0:
        return (1.0 - t) * z + log(1.0 + exp(-z))
    return log(1.0 + exp(z)) - t * z  # also for nan, which gives nan
