"""`jit`'s per-call fast path (`autograd.compiler.dispatch`): the generated check of the
last call's argument structure accepts exactly the arguments the general path keys the
same way, with their floats in the same order, and nothing else."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from typing import NamedTuple, cast

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler import dispatch, keys
from autograd.compiler import jit as _jit
from autograd.core.nodes import Scalar
from autograd.pytree import flatten_any


class MyFloat(float):
    """A float subclass: the general path keys it as it does a float, but slowly."""


class MyStr(str):
    """A str subclass as a dict key: the general path keys it apart from a str."""

    __slots__ = ()


class Config(NamedTuple):
    """A named tuple, a common static argument: keyed item by item, apart from a tuple."""

    n: int
    act: str


class Reversed(tuple[int, ...]):
    """A tuple whose iteration is not its items in order: no check is written for it."""

    __slots__ = ()

    def __iter__(self) -> Iterator[int]:
        return reversed(tuple(super().__iter__()))


LEAVES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, math.nan]),
    st.integers(-2, 2),
    st.booleans(),
    st.floats(-2.0, 2.0).map(MyFloat),
)
KEYS = st.one_of(
    st.sampled_from(["a", "b", "w1", "w2", "x"]),
    st.just(MyStr("a")),
    st.integers(0, 2),
)


def trees(leaves: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=12),
            st.lists(children, max_size=12).map(tuple),
            st.dictionaries(KEYS, children, max_size=12),
        ),
        max_leaves=40,
    )


def key(args: tuple[object, ...]) -> tuple[tuple[object, ...], list[float]] | None:
    """The general path's structure and flat inputs (None: it takes the slow flatten)."""
    flat: list[float] = []
    try:
        return tuple(map(keys.shape_of, args, repeat(flat))), flat
    except keys.Slow:
        return None


def shapes_of(*args: object) -> tuple[object, ...]:
    known = key(args)
    assert known is not None
    return known[0]


def refloat(tree: object, draw: Callable[[], float]) -> object:
    """``tree`` with every leaf a new float: the same structure, all floats."""
    if type(tree) is dict:
        return {k: refloat(v, draw) for k, v in tree.items()}
    if type(tree) is list or type(tree) is tuple:
        items = [refloat(v, draw) for v in cast("list[object]", tree)]
        return items if type(tree) is list else tuple(items)
    return draw()


@settings(max_examples=400, deadline=None)
@given(st.lists(trees(LEAVES), max_size=3), st.lists(trees(LEAVES), max_size=3), st.randoms())
def test_the_check_accepts_exactly_the_same_structure_of_floats(
    first: list[object], other: list[object], rnd: object
) -> None:
    args = tuple(first)
    known = key(args)
    assume(known is not None)
    shapes, _ = cast("tuple[tuple[object, ...], list[float]]", known)
    check = dispatch.checker(shapes)
    assume(check is not None)
    assert check is not None
    uniform = cast("Callable[[float, float], float]", rnd.uniform)  # type: ignore[attr-defined]  # a Random
    same = tuple(refloat(a, lambda: uniform(-1.0, 1.0)) for a in args)
    ints = tuple(refloat(a, lambda: 1) for a in args)  # ints where the floats were
    for candidate in (args, same, ints, tuple(other), tuple(first[:1]), (*first, 1.0)):
        got = check(candidate)
        general = key(candidate)
        if got is not None:  # accepted: the general path keys it the same, floats alike
            assert general is not None
            assert general[0] == shapes
            assert all(type(x) is float for x in got)
            assert [a is b for a, b in zip(got, general[1], strict=True)] == [True] * len(got)
    assert check(same) == cast("tuple[object, list[float]]", key(same))[1]


def test_the_check_refuses_each_kind_of_difference() -> None:
    check = dispatch.checker(shapes_of({"w1": 1.0, "w2": [2.0, 3.0]}, 4.0))
    assert check is not None
    assert check(({"w1": 1.5, "w2": [2.5, 3.5]}, 4.5)) == [1.5, 2.5, 3.5, 4.5]
    for wrong in [
        ({"w1": 1, "w2": [2.0, 3.0]}, 4.0),  # an int: the general path converts it
        ({"w1": True, "w2": [2.0, 3.0]}, 4.0),
        ({"w1": MyFloat(1.0), "w2": [2.0, 3.0]}, 4.0),
        ({"w2": [2.0, 3.0], "w1": 1.0}, 4.0),  # keys in another order
        ({MyStr("w1"): 1.0, "w2": [2.0, 3.0]}, 4.0),
        ({"w1": 1.0, "w2": (2.0, 3.0)}, 4.0),
        ({"w1": 1.0, "w2": [2.0, 3.0, 5.0]}, 4.0),
        ({"w1": 1.0, "w2": [2.0, 3.0], "x": 0.0}, 4.0),
        ({"w1": 1.0, "w2": [2.0, 3.0]},),
        ({"w1": 1.0, "w2": [2.0, 3.0]}, 4.0, 5.0),
    ]:
        assert check(wrong) is None, wrong


def test_long_containers_are_checked_in_one_pass() -> None:
    n = dispatch.CHECK_UNROLL + 5
    xs, d = [float(i) for i in range(n)], {f"k{i}": float(i) for i in range(n)}
    check = dispatch.checker(shapes_of(xs, d))
    assert check is not None
    assert check((xs, d)) == xs + xs
    assert check(([*xs[:-1], 1], d)) is None
    assert check((xs, {**d, "k0": 1})) is None
    assert check((xs, dict(reversed(d.items())))) is None
    assert check((xs, {MyStr(k): v for k, v in d.items()})) is None


def test_unsupported_structures_have_no_check() -> None:
    assert dispatch.checker(shapes_of({1: 2.0})) is None
    assert dispatch.checker(shapes_of([1, 2.0])) is None  # a float keys as (list, 2)
    assert dispatch.checker(shapes_of([[1.0]] * (dispatch.MAX_LINES // 2))) is None  # too big
    assert dispatch.checker(shapes_of([[1.0]] * 100)) is not None


def loss(p: dict[str, Scalar]) -> Scalar:
    return ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5


def test_a_repeated_structure_skips_the_general_key(monkeypatch: pytest.MonkeyPatch) -> None:
    f = ag.jit(ag.value_and_grad(loss))
    assert f({"w1": 2.0, "w2": 3.0}) == (2.5, {"w1": 1.0, "w2": -2.0})
    calls: list[tuple[object, ...]] = []
    shape = keys.shape_of

    def counted(*a: object) -> object:
        calls.append(a)
        return shape(*a)  # type: ignore[arg-type]  # `shape_of`'s own arguments

    monkeypatch.setattr(_jit, "shape_of", counted)  # the name `jit` calls
    assert f({"w1": 4.0, "w2": 5.0}) == ag.value_and_grad(loss)({"w1": 4.0, "w2": 5.0})
    assert calls == []
    assert f({"w1": 4, "w2": 5.0}) == ag.value_and_grad(loss)({"w1": 4, "w2": 5.0})  # general
    assert calls != []


def sum_of_squares(xs: Sequence[Scalar]) -> Scalar:
    return ag.sum([x * x for x in xs])


def test_alternating_structures_each_get_their_own_code() -> None:
    f = ag.jit(ag.grad(sum_of_squares))
    for n in [1, 2, 3, 2, 1, 3, 3, 1]:
        xs = [float(i) + 0.5 for i in range(n)]
        assert f(xs) == [2 * x for x in xs]
        got: object = f(tuple(xs))
        assert got == tuple(2 * x for x in xs)


def test_the_arguments_are_not_the_programs_list() -> None:
    f = ag.jit(lambda xs: [x * 2.0 for x in xs])
    xs = [1.0] * 30
    f(xs)
    assert f(xs) == [2.0] * 30
    xs[3] = 5.0
    assert f(xs)[3] == 10.0
    assert xs == [1.0] * 3 + [5.0] + [1.0] * 26


def test_debug_nans_still_checks_after_a_fast_call() -> None:
    f = ag.jit(ag.log)
    assert f(2.0) == math.log(2.0)
    assert f(3.0) == math.log(3.0)
    with ag.debug_nans(), pytest.raises(FloatingPointError, match="Log"):
        f(-1.0)
    assert math.isnan(f(-1.0))


def test_under_another_transform_the_result_is_a_graph() -> None:
    f = ag.jit(lambda x: x * x)
    assert f(3.0) == 9.0
    assert f(4.0) == 16.0
    assert ag.grad(f)(3.0) == 6.0
    assert ag.grad(ag.grad(f))(3.0) == 2.0


# ---- `fast_path`: the check, the program and the result in one function ----


FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, math.nan, 5e-324]),
)


def weighted(*args: object) -> Scalar:
    """A sum of every leaf of ``args``, each times its own weight (a number for all floats)."""
    leaves = cast("list[Scalar]", flatten_any(args)[0])
    return ag.sum([x * (1.5 + i) for i, x in enumerate(leaves)])


def returns_inputs(*args: object) -> object:
    """The weighted sum, then the arguments themselves: outputs that are runs of the inputs."""
    return weighted(*args), args


def as_floats(tree: object) -> object:
    if type(tree) is dict:
        return {k: as_floats(v) for k, v in tree.items()}
    if type(tree) is list or type(tree) is tuple:
        items = [as_floats(v) for v in cast("list[object]", tree)]
        return items if type(tree) is list else tuple(items)
    return float(cast(float, tree))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(trees(FLOATS), min_size=1, max_size=3),
    st.lists(trees(FLOATS), min_size=1, max_size=3),
    st.sampled_from(["plain", "grad", "value_and_grad"]),
    st.randoms(),
)
def test_the_fast_call_returns_what_the_transform_does(
    first: list[object], other: list[object], how: str, rnd: object
) -> None:
    transforms: dict[str, Callable[..., object]] = {
        "plain": returns_inputs,
        "grad": ag.grad(weighted),
        "value_and_grad": ag.value_and_grad(weighted),
    }
    eager = transforms[how]
    f = ag.jit(eager)
    uniform = cast("Callable[[float, float], float]", rnd.uniform)  # type: ignore[attr-defined]  # a Random
    args = tuple(first)
    same = tuple(refloat(a, lambda: uniform(-1.0, 1.0)) for a in args)
    ints = tuple(refloat(a, lambda: 1) for a in args)
    for call in (args, same, args, ints, tuple(other), same, (*first, 2.0), args):
        traced = tuple(as_floats(a) for a in call)  # jit traces every number as a float
        assert repr(f(*call)) == repr(eager(*traced)), (how, call)
    last = _jit._caches[f].last
    known = key(args)
    if known is not None and dispatch.checker(known[0]) is not None:  # the last call's
        assert last is not None
        assert last[0](args) is not dispatch.MISS
    if last is not None:  # whatever it accepts, it computes as the transform does
        for call in (args, same, ints, tuple(other), (*first, 2.0), tuple(first[:-1])):
            out = last[0](call)
            if out is not dispatch.MISS:
                assert repr(out) == repr(eager(*(as_floats(a) for a in call))), (how, call)


def test_a_small_program_runs_inside_the_check() -> None:
    f = ag.jit(ag.value_and_grad(loss))
    f({"w1": 2.0, "w2": 3.0})
    last = _jit._caches[f].last
    assert last is not None
    code = cast("Callable[..., object]", last[0]).__code__
    assert "_PROGRAM" not in code.co_names  # the program's statements are its own
    assert "R" not in code.co_varnames  # it reads the floats where the check found them
    assert last[0](({"w1": 4.0, "w2": 5.0},)) == ag.value_and_grad(loss)({"w1": 4.0, "w2": 5.0})
    assert last[0](({"w1": 4.0},)) is dispatch.MISS


def test_a_program_reading_its_inputs_as_a_list_gets_one() -> None:
    f = ag.jit(returns_inputs)
    xs = [float(i) - 3.5 for i in range(9)]
    f(xs)
    last = _jit._caches[f].last
    assert last is not None
    code = cast("Callable[..., object]", last[0]).__code__
    assert "_PROGRAM" not in code.co_names
    assert "R" in code.co_varnames
    ys = [x * 3.0 for x in xs]
    assert last[0]((ys,)) == returns_inputs(ys) == f(ys)


def test_a_long_program_runs_as_its_own_function(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatch, "FUSE_LINES", 3)
    f = ag.jit(ag.value_and_grad(loss))
    f({"w1": 2.0, "w2": 3.0})
    last = _jit._caches[f].last
    assert last is not None
    assert "_PROGRAM" in cast("Callable[..., object]", last[0]).__code__.co_names
    assert f({"w1": 4.0, "w2": 5.0}) == ag.value_and_grad(loss)({"w1": 4.0, "w2": 5.0})
    assert _jit._caches[f].entries[next(iter(_jit._caches[f].entries))].chunk is None


# ---- static arguments on the fast path ----


def scaled(x: Scalar, s: object) -> Scalar:
    """``x`` times a number that tells ``s`` apart by type and repr (1, True, 1.0, -0.0)."""
    return x * (sum(map(ord, repr((type(s).__name__, s)))) % 97 + 1.0)


STATIC_VALUES: list[object] = ["relu", "tanh", "", MyStr("relu"), 0, 1, -1, 2**70, True, False]
STATIC_VALUES += [None, 0.0, -0.0, 1.0, math.nan, math.inf, 5e-324, (1, 2), frozenset({1})]
STATIC_VALUES += [(), (1,), (1.0,), (True,), (-0.0,), (0.0,), (math.nan,), (1, 2.0), (1, (2, "a"))]
STATIC_VALUES += [(1, (2.0, "a")), ((),), Config(1, "relu"), Config(1, "tanh"), (1, "relu")]
STATIC_VALUES += [(1, frozenset({1})), Reversed((1, 2)), (MyStr("relu"),), (None, 2**70)]
STATICS = st.sampled_from(STATIC_VALUES)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(-3.0, 3.0), STATICS), min_size=1, max_size=12))
def test_static_arguments_on_the_fast_path_key_by_type_and_bits(
    calls: list[tuple[float, object]],
) -> None:
    f = ag.jit(scaled, static_argnums=1)
    for x, s in calls:
        assert repr(f(x, s)) == repr(scaled(x, s)), (x, s)
    distinct = {keys.static_key(s, "", None) for _, s in calls}
    assert _jit.cache_size(f) == len(distinct)  # no value traced twice, no trace shared
    last = _jit._caches[f].last
    if last is not None:  # written for one static value: it accepts that one key alone
        accepted = [s for _, s in calls if last[0]((1.5, s)) is not dispatch.MISS]
        assert len({keys.static_key(s, "", None) for s in accepted}) == 1
        for s in accepted:
            assert repr(last[0]((1.5, s))) == repr(scaled(1.5, s))


def test_a_repeated_static_call_skips_the_general_key(monkeypatch: pytest.MonkeyPatch) -> None:
    def loss_n(p: dict[str, Scalar], n: int) -> Scalar:
        return loss(p) * n

    f = ag.jit(ag.value_and_grad(loss_n), static_argnums=1)
    assert f({"w1": 2.0, "w2": 3.0}, 3) == ag.value_and_grad(loss_n)({"w1": 2.0, "w2": 3.0}, 3)
    calls: list[object] = []
    keyed = keys.call_key

    def counted(*a: object) -> object:
        calls.append(a)
        return keyed(*a)  # type: ignore[arg-type]  # `call_key`'s own arguments

    monkeypatch.setattr(_jit, "call_key", counted)  # the name `jit` calls
    p: dict[str, Scalar] = {"w1": 4.0, "w2": 5.0}
    assert f(p, 3) == ag.value_and_grad(loss_n)(p, 3)
    assert calls == []
    assert f(p, 4) == ag.value_and_grad(loss_n)(p, 4)  # another static value: the general key
    assert calls != []


def test_static_values_of_other_types_take_the_general_key() -> None:
    f = ag.jit(scaled, static_argnums=1)
    for s in [frozenset({1}), 1 + 2j, MyStr("a"), (1, frozenset({1})), Reversed((1, 2))]:
        assert f(2.0, s) == scaled(2.0, s)
        assert _jit._caches[f].entries[next(reversed(_jit._caches[f].entries))].fast is None


def test_tuples_and_named_tuples_are_checked_item_by_item() -> None:
    f = ag.jit(scaled, static_argnums=1)
    for s in [(1, ("relu", 2.0)), Config(2, "relu")]:
        assert f(2.0, s) == scaled(2.0, s)
        last = _jit._caches[f].last
        assert last is not None
        assert last[0]((2.0, s)) == scaled(2.0, s)
    fast = cast("tuple[dispatch.Fast, object]", _jit._caches[f].last)[0]
    for other in [
        (2, "relu"),
        Config(2, "tanh"),
        Config._make((2.0, "relu")),
        Config(True, "relu"),
    ]:
        assert fast((2.0, other)) is dispatch.MISS
