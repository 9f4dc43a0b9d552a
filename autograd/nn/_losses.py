"""Losses over a batch: mean squared error, max-margin hinge, cross-entropy from logits.

Each takes a sequence of predictions and a sequence of targets of the same
length and returns their mean, a float for floats and a node under a
transform. They use only the engine's ops, so they differentiate (and
differentiate again) like any user code.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._nodes import Scalar
from .._ops import exp, log, mean, relu


def _pairs(name: str, preds: Sequence[Scalar], targets: Sequence[float]) -> None:
    if len(preds) != len(targets):
        raise ValueError(
            f"{name}() needs as many targets as predictions, got {len(preds)} and {len(targets)}"
        )


def mse(preds: Sequence[Scalar], targets: Sequence[float]) -> Scalar:
    """Mean squared error, ``mean((p - t) ** 2)``; the mean of nothing is nan.

    >>> mse([1.0, 2.0], [1.0, 4.0])
    2.0

    Raises:
        ValueError: if the lengths differ.
    """
    _pairs("mse", preds, targets)
    return mean([(p - t) ** 2 for p, t in zip(preds, targets, strict=True)])


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


def softplus(z: Scalar) -> Scalar:
    """``log(1 + exp(z))`` without overflow: ``relu(z) + log(1 + exp(-|z|))``.

    ``|z|`` is ``relu(z) + relu(-z)``, so ``exp`` only sees numbers ``<= 0``.

    >>> softplus(0.0), softplus(1000.0), softplus(-1000.0)
    (0.6931471805599453, 1000.0, 0.0)
    """
    abs_z = relu(z) + relu(-z)
    return relu(z) + log(1.0 + exp(-abs_z))


def binary_cross_entropy_with_logits(logits: Sequence[Scalar], targets: Sequence[float]) -> Scalar:
    """Binary cross-entropy of targets in ``[0, 1]`` given logits, as PyTorch's.

    ``mean(relu(z) - z * t + log(1 + exp(-|z|)))``, which equals
    ``-t log sigmoid(z) - (1 - t) log(1 - sigmoid(z))`` but never takes the
    log of 0 or overflows: a logit of 1000 with target 1 costs 0, not nan.

    >>> binary_cross_entropy_with_logits([0.0], [1.0])
    0.6931471805599453
    >>> binary_cross_entropy_with_logits([1000.0, -1000.0], [1.0, 0.0])
    0.0

    Raises:
        ValueError: if the lengths differ.
    """
    _pairs("binary_cross_entropy_with_logits", logits, targets)
    return mean([softplus(z) - z * t for z, t in zip(logits, targets, strict=True)])
