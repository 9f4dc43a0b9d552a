"""NumPy arrays given to `jit`: a traced function must do with them what it does eagerly.

`jit` traces an array argument as the list of its floats (a batch for a
`vmap` inside, docs/vmap.md). Indexing, iterating, `autograd.sum` and `vmap`
mean the same on both; Python's list operators do not: ``xs * 2`` doubles
an array's elements but repeats a list. The strict xfails below are
such programs where `jit` silently returns the list's meaning today; each
must start to pass (then lose its mark) when a traced array keeps its own.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import pytest

import autograd as ag
from autograd import Scalar

np = pytest.importorskip("numpy")

XS = [0.5, -1.0, 2.0, -0.0, 3.0, 1.5, 0.25, -3.0, 4.0, 1.0, math.inf, 1e-300]


def _twice(x: Scalar) -> Scalar:
    return x * 2.0


def _mapped(xs: object) -> object:
    return ag.vmap(_twice)(xs)  # type: ignore[arg-type]  # an array: loosely typed here


def bits(tree: object) -> object:
    """What a wrong result could differ in: container type, length, each float's bits."""
    if isinstance(tree, np.ndarray):
        return ("array", [bits(float(v)) for v in tree.tolist()])
    if isinstance(tree, list | tuple):
        return (type(tree).__name__, [bits(v) for v in tree])
    if isinstance(tree, float):  # np.float64 too: a float subclass, its value's bits
        return struct.pack("<d", tree)
    return ("other", type(tree).__name__, repr(tree))


SAME: dict[str, Callable[[object], object]] = {
    "autograd.sum": lambda xs: ag.sum(xs),  # type: ignore[call-overload]  # an array
    "a comprehension": lambda xs: [ag.tanh(x) for x in xs],  # type: ignore[attr-defined]
    "vmap then autograd.sum": lambda xs: ag.sum(_mapped(xs)),  # type: ignore[call-overload]  # a batch
    "vmap returned": _mapped,
}

LIST_MEANING: dict[str, Callable[[object], object]] = {
    "xs * 2": lambda xs: xs * 2,  # type: ignore[operator]
    "2 * xs": lambda xs: 2 * xs,  # type: ignore[operator]
    "xs + xs": lambda xs: xs + xs,  # type: ignore[operator]
    "xs[1:3] * 2": lambda xs: xs[1:3] * 2,  # type: ignore[index]
    "vmap(f)(xs) * 2": lambda xs: _mapped(xs) * 2,  # type: ignore[operator]
    "vmap(f)(xs) + vmap(f)(xs)": lambda xs: _mapped(xs) + _mapped(xs),  # type: ignore[operator]
}


@pytest.mark.parametrize("name", list(SAME))
def test_what_an_array_and_its_list_mean_alike_matches_eager(name: str) -> None:
    f = SAME[name]
    xs = np.array(XS)
    assert bits(ag.jit(f)(xs)) == bits(f(xs))


@pytest.mark.xfail(
    strict=True,
    reason="jit traces an array argument as a list, so a list operator on it (or on a vmap "
    "result over it) takes the list's meaning: repeated or concatenated, not elementwise",
)
@pytest.mark.parametrize("name", list(LIST_MEANING))
def test_a_list_operator_on_a_traced_array_means_what_it_means_eagerly(name: str) -> None:
    f = LIST_MEANING[name]
    xs = np.array(XS)
    want = f(xs)
    try:
        got = ag.jit(f)(xs)
    except TypeError:
        return  # refusing it, loudly, would be right too
    assert bits(got) == bits(want)


def test_on_lists_the_list_operators_mean_what_they_mean_eagerly() -> None:
    for f in LIST_MEANING.values():
        assert bits(ag.jit(f)(list(XS))) == bits(f(list(XS)))
