"""`flatten` and `unflatten`'s fast paths (flat dicts, lists and tuples of floats) agree with
the general walk: the same leaves, the same shape, the same rebuilt containers, and the same
errors for everything they hand on to it."""

from __future__ import annotations

import math
from collections import OrderedDict, defaultdict
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.pytree import (
    Kind,
    TreeDef,
    _make,
    _walk,
    builder,
    flatten,
    pair_builder,
    unflatten,
)

floats = st.floats(allow_nan=True, allow_infinity=True)
keys = st.one_of(st.text(max_size=3), st.integers(-2, 2), st.booleans(), st.floats(-1.0, 1.0))
flat_trees = st.one_of(
    floats,
    st.lists(floats, max_size=6),
    st.lists(floats, max_size=6).map(tuple),
    st.dictionaries(keys, floats, max_size=6),
    st.dictionaries(st.text(max_size=3), floats, max_size=6),
)
other_leaves = st.one_of(floats, st.integers(-3, 3), st.just(None), st.lists(floats, max_size=2))
near_flat = st.one_of(  # one leaf that is not a plain float sends it down the general walk
    st.lists(other_leaves, max_size=4),
    st.dictionaries(st.text(max_size=2), other_leaves, max_size=4),
)


def slow_flatten(tree: object) -> tuple[list[object], TreeDef]:
    return _walk(tree, "p", strict=True)


def slow_unflatten(tree: TreeDef, leaves: list[object]) -> object:
    """The general rebuild, container by container (no fast path)."""
    if tree.kind is Kind.LEAF:
        return leaves[0]
    if tree.kind is Kind.NONE:
        return None
    it = iter(leaves)
    children = [slow_unflatten(c, [next(it) for _ in range(c.num_leaves)]) for c in tree.children]
    return _make(tree, children)


def bits(x: object) -> object:
    """A leaf or key by type and bits: 0.0 and -0.0, 1 and True and 1.0 differ; nan is nan."""
    if isinstance(x, float):
        return (type(x), math.copysign(1.0, x), x if x == x else "nan")
    return (type(x), x)


def same_shape(a: TreeDef, b: TreeDef) -> bool:
    return (
        a == b
        and [bits(k) for k in a.keys] == [bits(k) for k in b.keys]
        and a.meta == b.meta
        and a.flat == b.flat
        and all(same_shape(x, y) for x, y in zip(a.children, b.children, strict=True))
    )


@settings(max_examples=300, deadline=None)
@given(st.one_of(flat_trees, near_flat))
def test_flatten_is_the_general_walk(tree: object) -> None:
    leaves, shape = flatten(tree, "p")
    want_leaves, want_shape = slow_flatten(tree)
    assert [bits(x) for x in leaves] == [bits(x) for x in want_leaves]
    assert same_shape(shape, want_shape)
    rebuilt = unflatten(shape, leaves)
    assert rebuilt is not leaves  # a new container: the caller's list stays its own
    want = slow_unflatten(want_shape, want_leaves)
    assert type(rebuilt) is type(want)
    assert repr(rebuilt) == repr(want)
    if isinstance(want, dict):
        assert [bits(k) for k in rebuilt] == [bits(k) for k in want]  # type: ignore[attr-defined]


nested_trees = st.recursive(
    floats | st.just(None),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(keys, inner, max_size=4),
        st.dictionaries(st.text(max_size=2), inner, max_size=3).map(OrderedDict),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(nested_trees)
def test_builder_rebuilds_what_unflatten_rebuilds(tree: object) -> None:
    """`builder` (flat fast paths, a generated expression for nested lists, tuples and dicts,
    `unflatten` otherwise): the same containers, keys by type and bits, leaves in order."""
    leaves, shape = _walk(tree, "p", strict=False)
    fresh = [object() for _ in leaves]  # identity shows each leaf lands in its place
    built = builder(shape)(fresh)
    want = slow_unflatten(shape, fresh)
    value = object()
    head, paired = pair_builder(shape)([value, *fresh])  # a value, then the tree's leaves
    assert head is value

    def parts(x: object) -> object:
        if isinstance(x, dict):
            return (type(x), [(bits(k), parts(v)) for k, v in x.items()])
        if isinstance(x, list | tuple):
            return (type(x), [parts(v) for v in x])
        return id(x) if x is not None else None

    assert parts(built) == parts(want) == parts(paired)


@pytest.mark.parametrize(
    "tree",
    [
        {1: 2.0},  # equal keys of three types: never one cached shape
        {True: 2.0},
        {1.0: 2.0},
        {0.0: 1.0},
        {-0.0: 1.0},
        OrderedDict(a=1.0),
        defaultdict(float, a=1.0),
        [],
        (),
        {},
    ],
)
def test_keys_and_container_types_survive(tree: object) -> None:
    for _ in range(2):  # the second time from the cache, if cached
        leaves, shape = flatten(tree, "p")
        rebuilt = unflatten(shape, leaves)
        assert type(rebuilt) is type(tree)
        assert repr(rebuilt) == repr(tree)
        if isinstance(tree, dict):
            assert [bits(k) for k in rebuilt] == [bits(k) for k in tree]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("tree", "error", "message"),
    [
        ({"w": "1"}, TypeError, r"p\['w'\] is a str"),
        ([1.0, True], TypeError, r"p\[1\] is a bool"),
        ((1.0, Fraction(1, 3)), ValueError, r"p\[1\] is a Fraction"),
        ({"w": [1.0, {2.0}]}, TypeError, r"p\['w'\]\[1\] is a set"),
    ],
)
def test_errors_are_the_general_walks(tree: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        flatten(tree, "p")
    with pytest.raises(error, match=message):
        ag.grad(lambda p: 0.0)(tree)


def test_gradients_of_flat_arguments_keep_their_containers() -> None:
    assert ag.grad(lambda p: p["b"] * p["b"] + p["a"] * p["a"])({"b": 1.0, "a": -0.0}) == {
        "b": 2.0,
        "a": -0.0,
    }
    assert ag.grad(lambda p: p[0] * p[1])((3.0, 0.5)) == (0.5, 3.0)
    assert ag.grad(lambda p: p[0] * p[0])([3.0]) == [6.0]
    assert ag.value_and_grad(lambda x: x * x)(2.0) == (4.0, 4.0)
