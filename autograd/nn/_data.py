"""Small seeded data sets for two-class problems, labels ±1."""

from __future__ import annotations

import math
import random
from typing import NamedTuple


class Dataset(NamedTuple):
    """Points and their labels: ``xs[i]`` is a point ``(x, y)``, ``ys[i]`` its label, ±1."""

    xs: tuple[tuple[float, float], ...]
    ys: tuple[float, ...]


def _gauss_pairs(rng: random.Random) -> tuple[float, float]:
    """Two independent standard normal numbers from two ``random()`` draws (Box-Muller)."""
    u1 = 1.0 - rng.random()  # in (0, 1]: log(u1) is finite
    u2 = rng.random()
    r = math.sqrt(-2.0 * math.log(u1))
    return r * math.cos(2.0 * math.pi * u2), r * math.sin(2.0 * math.pi * u2)


def _half_circle(k: int) -> list[float]:
    """``k`` angles evenly spaced over ``[0, pi]``, both ends included (``numpy.linspace``)."""
    if k == 1:
        return [0.0]
    return [math.pi * i / (k - 1) for i in range(k)]


def make_moons(n: int = 100, noise: float = 0.1, seed: int = 0) -> Dataset:
    """Two interleaving half circles, as scikit-learn's ``make_moons``, labels ±1.

    The algorithm, so that any implementation can reproduce the numbers:

    1. ``n // 2`` points on the upper half circle ``(cos a, sin a)`` with label
       -1, then ``n - n // 2`` on the lower one ``(1 - cos a, 0.5 - sin a)``
       with label +1, the angles ``a`` evenly spaced over ``[0, pi]``.
    2. With ``rng = random.Random(seed)``: to each point in that order, add
       ``noise`` times two standard normal numbers made by Box-Muller from two
       ``rng.random()`` draws ``u1, u2`` (``r = sqrt(-2 log(1 - u1))``, then
       ``r cos(2 pi u2)`` to x and ``r sin(2 pi u2)`` to y).
    3. Shuffle points and labels together, Fisher-Yates from the end:
       for ``i = n-1 .. 1`` swap ``i`` with ``j = int(rng.random() * (i + 1))``.

    Only ``Random.random()`` is used: it is the one stream Python promises to
    keep across versions (``gauss`` and ``shuffle`` make no such promise).

    Args:
        n: the number of points (at least 1).
        noise: the standard deviation of the noise (0 for exact circles).
        seed: the integer seed.

    Returns:
        A `Dataset` of ``n`` points and labels.

    Raises:
        ValueError: for ``n < 1`` or a negative ``noise``.

    >>> data = make_moons(6, noise=0.0, seed=0)
    >>> sorted(data.ys)
    [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
    >>> make_moons(100, 0.1, seed=3) == make_moons(100, 0.1, seed=3)
    True
    """
    if type(n) is not int or n < 1:
        raise ValueError(f"make_moons() needs a positive int n, got {n!r}")
    if not noise >= 0.0:
        raise ValueError(f"make_moons() needs noise >= 0, got {noise!r}")
    rng = random.Random(seed)
    n_upper = n // 2
    points = [(math.cos(a), math.sin(a)) for a in _half_circle(n_upper)] if n_upper else []
    points += [(1.0 - math.cos(a), 0.5 - math.sin(a)) for a in _half_circle(n - n_upper)]
    labels = [-1.0] * n_upper + [1.0] * (n - n_upper)
    noisy = []
    for x, y in points:
        dx, dy = _gauss_pairs(rng)
        noisy.append((x + noise * dx, y + noise * dy))
    for i in range(n - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        noisy[i], noisy[j] = noisy[j], noisy[i]
        labels[i], labels[j] = labels[j], labels[i]
    return Dataset(tuple(noisy), tuple(labels))


def xor() -> Dataset:
    """The four corners of the unit square, labelled +1 where exactly one coordinate is 1.

    The smallest problem a linear model cannot solve and an MLP can.

    >>> xor()
    Dataset(xs=((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)), ys=(-1.0, 1.0, 1.0, -1.0))
    """
    return Dataset(((0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0)), (-1.0, 1.0, 1.0, -1.0))
