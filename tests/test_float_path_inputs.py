"""Every public function on inputs that are not floats: one rule, on every path (issue 28).

`autograd.core.convert.to_float` is the one place a number becomes a float:
ints as ``float(i)`` (beyond float range a signed infinity), other real numbers
only when float64 holds them exactly, anything else a `TypeError`. Whatever is
passed, a public function's plain-number call returns exactly a `float` (a
`bool` for a comparison) equal bit for bit to the function of the converted
floats, to its node path and to `jit`; or it raises a `TypeError`/`ValueError`
naming the argument or item, on every path.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd as ag
from autograd import Leaf, Node, Scalar
from autograd.core.convert import to_float
from autograd.core.functions import BINARY_FUNCTIONS, FUNCTIONS

np = pytest.importorskip("numpy")  # the demo extra installs it; NumPy scalars are inputs here

INF = math.inf


def bits(v: object) -> object:
    """A float's bits (-0.0 apart from 0.0), every nan one value; anything else as it is.

    Which of two nans an addition keeps depends on the operand order the
    hardware sees, so their payloads are not compared.
    """
    if type(v) is not float:
        return v
    return "nan" if v != v else struct.pack("<d", v)


# --- the inputs: every kind of number, and what is not one ---------------------

BIG_INTS = [
    2**53 - 1,
    2**53,
    2**53 + 1,
    2**53 + 3,
    -(2**53) - 1,
    2**1023 * 2 - 2**970,  # rounds up to 2**1024: beyond float range, +inf
    10**400,
    -(10**400),
]
EXACT = [
    np.float64(0.1),
    np.float64(-0.0),
    np.float64("nan"),
    np.float32(1.5),
    np.float32(0.1),  # float64 holds every float32 exactly: 0.10000000149011612
    np.float16(-2.5),
    np.int64(7),
    np.int64(2**53),
    np.uint8(200),
    Fraction(1, 2),
    Fraction(-3, 4),
    Decimal("0.5"),
    Decimal("-0"),
    Decimal("1e3"),
    Decimal("NaN"),
    Decimal("-Infinity"),
]
INEXACT = [
    np.int64(2**53 + 1),  # NumPy would compare it to its float as floats: equal
    np.uint64(2**64 - 1),
    Fraction(1, 3),
    Fraction(10**400),
    Decimal("0.1"),
    Decimal("1e400"),
    Decimal("sNaN"),
]
if np.finfo(np.longdouble).nmant > 52:  # an x87 or quad long double holds more bits
    INEXACT.append(np.longdouble(1) / 3)
NOT_NUMBERS = [
    True,
    False,
    np.bool_(True),
    "1.0",
    "a",
    1j,
    np.complex128(1.0),
    None,
    [1.0],
    [],
    (2.0,),
    {"a": 1.0},
    b"1",
]

numbers_ = (
    st.floats()
    | st.integers(-10, 10)
    | st.integers(2**53 - 4, 2**53 + 4)
    | st.integers(-(2**60), 2**60)
    | st.sampled_from(BIG_INTS)
    | st.floats(width=32).map(np.float32)
    | st.floats().map(np.float64)
    | st.sampled_from(EXACT)
)
values = numbers_ | st.sampled_from(INEXACT) | st.sampled_from(NOT_NUMBERS)


def convert(v: object) -> float | type[Exception]:
    """The oracle: `to_float`'s float, or the kind of error it raises."""
    try:
        return to_float(v)
    except ValueError:
        return ValueError
    except TypeError:
        return TypeError


def first_error(args: Sequence[object]) -> tuple[int, type[Exception]] | None:
    for i, a in enumerate(args):
        c = convert(a)
        if not isinstance(c, float):
            return i, c
    return None


def errors(args: Sequence[object]) -> tuple[type[Exception], ...]:
    """The errors of every argument the rule refuses (`jit` checks them all before the call)."""
    return tuple(c for c in map(convert, args) if not isinstance(c, float))


def named(v: object) -> str:
    """How a message names ``v``'s type (a NumPy bool is a ``bool``)."""
    return type(v).__name__


def raises(
    error: type[Exception] | tuple[type[Exception], ...], f: Callable[[], object], match: str = ""
) -> None:
    """``f()`` raises ``error`` (TypeError or ValueError, never another kind) matching ``match``."""
    with pytest.raises((TypeError, ValueError)) as caught:
        f()
    assert isinstance(caught.value, error), caught.value
    assert not isinstance(caught.value, ArithmeticError | AttributeError), caught.value
    if match:
        assert str(caught.value).startswith(match), (str(caught.value), match)


AnyFn: TypeAlias = Callable[..., object]


def call(f: object, *args: object) -> object:
    """``f(*args)`` with arguments mypy would refuse: ill-typed input is what is tested here."""
    return cast(AnyFn, f)(*args)


def leaf(v: object) -> Leaf:
    """``Leaf(v)`` for any input: `Leaf` converts it by the rule, or refuses it."""
    return Leaf(cast(float, v))


def value(v: object) -> float:
    """A node's value (the node path's result)."""
    assert isinstance(v, Node), v
    return v.value


# `jit`ted versions, made once: every number is traced as a float, so one trace serves
JIT1: dict[str, AnyFn] = {name: ag.jit(f) for name, f in FUNCTIONS.items()}
JIT2: dict[str, AnyFn] = {name: ag.jit(f) for name, f in BINARY_FUNCTIONS.items()}
COMPARISONS: dict[str, ag.Comparison] = {
    "lt": ag.lt,
    "le": ag.le,
    "gt": ag.gt,
    "ge": ag.ge,
    "eq": ag.eq,
    "ne": ag.ne,
}
ON_FLOATS: dict[str, Callable[[float, float], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


def _chosen(cmp: ag.Comparison) -> Callable[[Scalar, Scalar], Scalar]:
    def chosen(x: Scalar, y: Scalar) -> Scalar:
        return ag.where(cmp(x, y), 1.0, 0.0)

    return chosen


JIT_COMPARE: dict[str, AnyFn] = {name: ag.jit(_chosen(cmp)) for name, cmp in COMPARISONS.items()}
CONDITIONS: list[object] = [True, False, np.bool_(True), np.bool_(False)]


def _where_with(cond: object) -> Callable[[Scalar, Scalar], Scalar]:
    def chosen(x: Scalar, y: Scalar) -> Scalar:
        return ag.where(cast(bool, cond), x, y)  # a NumPy bool is a condition too

    return chosen


JIT_WHERE: list[AnyFn] = [ag.jit(_where_with(c)) for c in CONDITIONS]
JIT_SUM: AnyFn = ag.jit(ag.sum)
JIT_MEAN: AnyFn = ag.jit(ag.mean)
JIT_DOT: AnyFn = ag.jit(ag.dot)


# --- the property, one test per kind of public function ------------------------


@pytest.mark.parametrize("name", list(FUNCTIONS))
@given(x=values)
def test_every_one_input_function_on_any_input(name: str, x: object) -> None:
    f = FUNCTIONS[name]
    c = convert(x)
    if not isinstance(c, float):
        raises(c, lambda: call(f, x), f"{name}: x is a {named(x)} (")
        raises(c, lambda: f(leaf(x)))
        raises(c, lambda: JIT1[name](x))
        return
    out = call(f, x)
    assert type(out) is float
    assert bits(out) == bits(f(c))
    assert bits(f(leaf(x)).value) == bits(out)
    assert bits(JIT1[name](x)) == bits(out)


def _named_error(args: Sequence[object], fn: str) -> tuple[int, type[Exception], str] | None:
    """The first argument (x, then y) the rule refuses: its index, error and message start."""
    bad = first_error(args)
    if bad is None:
        return None
    i, error = bad
    return i, error, f"{fn}: {'xy'[i]} is a {named(args[i])} ("


@pytest.mark.parametrize("name", list(BINARY_FUNCTIONS))
@given(x=values, y=values)
def test_every_two_input_function_on_any_input(name: str, x: object, y: object) -> None:
    f = BINARY_FUNCTIONS[name]
    bad = _named_error([x, y], name)
    if bad is not None:
        i, error, match = bad
        raises(error, lambda: call(f, x, y), match)
        raises(error, lambda: call(f, leaf(1.0), y) if i else call(f, x, leaf(1.0)), match)
        raises(errors([x, y]), lambda: JIT2[name](x, y))
        return
    out = call(f, x, y)
    assert type(out) is float
    assert bits(out) == bits(f(to_float(x), to_float(y)))
    assert bits(f(leaf(x), leaf(y)).value) == bits(out)
    assert bits(value(call(f, leaf(x), y))) == bits(out)  # a number beside a node
    assert bits(value(call(f, x, leaf(y)))) == bits(out)
    assert bits(JIT2[name](x, y)) == bits(out)


@pytest.mark.parametrize("name", list(COMPARISONS))
@given(x=values, y=values)
def test_every_comparison_on_any_input(name: str, x: object, y: object) -> None:
    f = COMPARISONS[name]
    bad = _named_error([x, y], name)
    if bad is not None:
        i, error, match = bad
        raises(error, lambda: call(f, x, y), match)
        raises(error, lambda: call(f, leaf(1.0), y) if i else call(f, x, leaf(1.0)), match)
        raises(errors([x, y]), lambda: JIT_COMPARE[name](x, y))
        return
    out = call(f, x, y)
    assert type(out) is bool
    assert out is ON_FLOATS[name](to_float(x), to_float(y))  # the converted floats compared
    assert value(f(leaf(x), leaf(y))) == float(out)
    assert value(call(f, leaf(x), y)) == float(out)
    assert value(call(f, x, leaf(y))) == float(out)
    assert JIT_COMPARE[name](x, y) == float(out)


@given(c=st.sampled_from(range(len(CONDITIONS))), x=values, y=values)
def test_where_on_any_input(c: int, x: object, y: object) -> None:
    cond = CONDITIONS[c]
    bad = _named_error([x, y], "where")
    if bad is not None:
        i, error, match = bad
        raises(error, lambda: call(ag.where, cond, x, y), match)
        one = leaf(1.0)
        raises(
            error,
            lambda: call(ag.where, cond, one, y) if i else call(ag.where, cond, x, one),
            match,
        )
        raises(errors([x, y]), lambda: JIT_WHERE[c](x, y))
        return
    cx, cy = to_float(x), to_float(y)
    out = call(ag.where, cond, x, y)
    assert type(out) is float
    assert bits(out) == bits(cx if cond else cy)  # both converted, whichever is chosen
    assert bits(value(call(ag.where, cond, leaf(x), leaf(y)))) == bits(out)
    assert bits(value(call(ag.where, cond, leaf(x), y))) == bits(out)
    assert bits(JIT_WHERE[c](x, y)) == bits(out)


items = st.lists(values, max_size=5)


def _item_error(xs: Sequence[object], fn: str, of: str = "") -> tuple[type[Exception], str] | None:
    bad = first_error(xs)
    if bad is None:
        return None
    i, error = bad
    return error, f"{fn}: item {i}{of} is a {named(xs[i])} ("


@pytest.mark.parametrize("name", ["sum", "mean"])
@given(xs=items)
def test_sum_and_mean_on_any_items(name: str, xs: list[object]) -> None:
    f, jitted = (ag.sum, JIT_SUM) if name == "sum" else (ag.mean, JIT_MEAN)
    bad = _item_error(xs, name)
    if bad is not None:
        error, match = bad
        raises(error, lambda: call(f, xs), match)
        raises(error, lambda: call(f, tuple(xs)), match)
        raises(error, lambda: call(f, iter(xs)), match)
        raises(errors(xs), lambda: jitted(xs))
        return
    out = call(f, xs)
    assert type(out) is float
    assert bits(out) == bits(call(f, [to_float(v) for v in xs]))
    if xs:
        assert bits(value(call(f, [leaf(v) for v in xs]))) == bits(out)
        assert bits(value(call(f, [leaf(xs[0]), *xs[1:]]))) == bits(out)  # numbers beside a node
    assert bits(jitted(xs)) == bits(out)


@given(pairs=st.lists(st.tuples(values, values), max_size=4))
def test_dot_on_any_items(pairs: list[tuple[object, object]]) -> None:
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    bad = _item_error(xs, "dot", " of xs") or _item_error(ys, "dot", " of ys")
    if bad is not None:
        error, match = bad
        raises(error, lambda: call(ag.dot, xs, ys), match)
        raises(errors([*xs, *ys]), lambda: JIT_DOT(xs, ys))
        return
    out = call(ag.dot, xs, ys)
    assert type(out) is float
    assert bits(out) == bits(ag.dot([to_float(v) for v in xs], [to_float(v) for v in ys]))
    if xs:
        assert bits(value(call(ag.dot, [leaf(v) for v in xs], ys))) == bits(out)
        assert bits(value(call(ag.dot, xs, [leaf(v) for v in ys]))) == bits(out)
    assert bits(JIT_DOT(xs, ys)) == bits(out)


# --- the cases, each by name -----------------------------------------------


def test_eq_past_2_53_agrees_with_jit() -> None:
    def f(x: Scalar, c: Scalar) -> Scalar:
        return ag.where(ag.eq(c, 2**53), x, -x)

    assert f(1.0, 2**53 + 1) == 1.0  # 2**53 + 1 is the float 2**53, as jit traces it
    assert ag.jit(f)(1.0, 2**53 + 1) == 1.0
    assert ag.eq(2**53 + 1, 2**53) is True
    assert ag.ne(2**53 + 1, 2**53) is False


def test_lt_of_a_huge_int_and_inf_is_false_on_every_path() -> None:
    assert ag.lt(10**400, INF) is False  # 10**400 is inf, as Leaf(10**400).value
    assert value(ag.lt(Leaf(10**400), INF)) == 0.0
    assert ag.jit(_chosen(ag.lt))(10**400, INF) == 0.0
    assert ag.gt(-(10**400), -INF) is False
    assert ag.le(10**400, INF) is True


def test_sum_of_nested_lists_is_a_type_error_naming_the_item() -> None:
    with pytest.raises(TypeError, match=r"^sum: item 0 is a list \(\[1\.0\]\)"):
        call(ag.sum, [[1.0], [2.0]])


def test_sum_of_strings_is_a_type_error_naming_the_item() -> None:
    with pytest.raises(TypeError, match=r"^sum: item 1 is a str \('b'\): strings are not numbers"):
        call(ag.sum, [1.0, "b"])
    with pytest.raises(TypeError, match=r"^sum: its argument is a str, not a sequence"):
        call(ag.sum, "ab")


def test_sum_of_a_dict_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^sum: its argument is a dict.*d\.values\(\)"):
        call(ag.sum, {"a": 1.0, "b": 2.0})
    assert ag.sum({"a": 1.0, "b": 2.0}.values()) == 3.0


def test_sum_of_complex_is_a_type_error_naming_the_item() -> None:
    with pytest.raises(TypeError, match=r"^sum: item 0 is a complex \(1j\)"):
        call(ag.sum, [1j, 2.0])


def test_sum_of_ints_converts_each_item_as_jit_does() -> None:
    # each int is a float first: 2**53 + 1.0 rounds to 2**53, as the compiled sum adds
    assert ag.sum([2**53, 1, 1]) == 2.0**53 == ag.jit(ag.sum)([2**53, 1, 1])
    assert type(ag.sum([1, 2])) is float


def test_where_of_big_int_is_inf() -> None:
    out = ag.where(True, 10**400, 2)
    assert type(out) is float
    assert out == INF
    assert type(ag.where(False, 10**400, 2)) is float


def test_where_of_a_str_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"^where: x is a str \('a'\): strings are not numbers"):
        call(ag.where, True, "a", 2.0)
    with pytest.raises(TypeError, match=r"^where: y is a str"):
        call(ag.where, True, 2.0, "a")  # the branch not taken too


def test_maximum_of_a_decimal_is_refused_or_a_float() -> None:
    with pytest.raises(
        ValueError, match=r"^maximum: x is a Decimal \(Decimal\('0\.1'\)\): float64 cannot"
    ):
        call(ag.maximum, Decimal("0.1"), 0.0)
    out = call(ag.maximum, Decimal("0.5"), 0.0)
    assert (type(out), out) == (float, 0.5)


def test_maximum_of_a_float32_is_a_float() -> None:
    out = ag.maximum(np.float32(1.5), 0.0)
    assert (type(out), out) == (float, 1.5)
    assert type(ag.minimum(np.float64(1.5), 0.0)) is float


def test_exp_of_an_inexact_fraction_is_refused_as_leaf_refuses_it() -> None:
    with pytest.raises(
        ValueError, match=r"^exp: x is a Fraction \(Fraction\(1, 3\)\): float64 cannot"
    ):
        call(ag.exp, Fraction(1, 3))
    with pytest.raises(ValueError, match="float64 cannot hold it exactly"):
        leaf(Fraction(1, 3))
    assert call(ag.exp, Fraction(1, 2)) == ag.exp(0.5)


def test_a_numpy_int_float64_cannot_hold_is_refused() -> None:
    # NumPy compares np.int64(2**53 + 1) == 2.0**53 as floats: True; the rule compares exactly
    with pytest.raises(ValueError, match="float64 cannot hold it exactly"):
        call(ag.exp, np.int64(2**53 + 1))
    with pytest.raises(ValueError, match="float64 cannot hold it exactly"):
        leaf(np.int64(2**53 + 1))
    assert call(ag.exp, np.int64(2**53)) == ag.exp(2.0**53)


def test_mean_of_a_numpy_array() -> None:
    assert ag.mean(np.array([1.0, 2.0])) == 1.5
    assert type(ag.mean(np.array([1.0, 2.0]))) is float
    assert ag.sum(np.array([1.0, 2.0, 4.0], dtype=">f8")) == 7.0  # big-endian too
    assert ag.dot(np.array([1.0, 2.0]), np.array([3.0, 4.0])) == 11.0
    assert ag.sum(np.array([0.1], dtype=np.float32)) == float(np.float32(0.1))
    assert ag.mean(np.array([], dtype=np.float64)) != ag.mean(np.array([], dtype=np.float64))  # nan


def test_eager_mean_of_vmap_of_an_array_agrees_with_jit() -> None:
    def loss(xs: Sequence[float]) -> Scalar:
        return ag.mean(ag.vmap(lambda x: x * x)(xs))

    xs = np.array([1.0, 2.0, 3.0])
    assert loss(xs) == ag.jit(loss)(xs) == 14.0 / 3.0


def test_arrays_that_are_not_1d_real_numbers_are_type_errors() -> None:
    refused = [
        np.array([[1.0], [2.0]]),
        np.array(1.0),
        np.array([1.0, None], dtype=object),
        np.array([True]),
        np.array([1j]),
    ]
    for a in refused:
        with pytest.raises(
            TypeError, match=r"^mean: its argument is a \d-d NumPy array of \w+: pass a 1-d"
        ):
            ag.mean(a)
    with pytest.raises(TypeError, match=r"^dot: ys is a 2-d NumPy array"):
        ag.dot(np.array([1.0]), np.array([[1.0]]))
    with pytest.raises(
        ValueError, match=r"^sum: item 0 is a int64 .*float64 cannot hold it exactly"
    ):
        ag.sum(np.array([2**53 + 1]))  # an int array: each item by the rule


def test_mean_of_a_dict_is_a_type_error() -> None:
    with pytest.raises(
        TypeError, match=r"^mean: its argument is a dict, not a sequence of numbers"
    ):
        call(ag.mean, {"a": 1.0})


def test_mean_of_none_is_a_type_error_naming_the_item() -> None:
    with pytest.raises(TypeError, match=r"^mean: item 0 is a NoneType \(None\)"):
        call(ag.mean, [None])


def test_dot_of_nested_lists_is_a_type_error_naming_the_argument() -> None:
    with pytest.raises(TypeError, match=r"^dot: item 0 of xs is a list \(\[1\.0\]\)"):
        call(ag.dot, [[1.0]], [[2.0]])
    with pytest.raises(TypeError, match=r"^dot: item 1 of ys is a str"):
        call(ag.dot, [1.0, 2.0], [1.0, "2"])


def test_a_number_is_not_a_sequence() -> None:
    with pytest.raises(
        TypeError, match=r"^sum: its argument is a float, not a sequence of numbers or nodes"
    ):
        call(ag.sum, 1.0)
    with pytest.raises(TypeError, match=r"^mean: its argument is a Leaf"):
        call(ag.mean, Leaf(1.0))


def test_where_takes_a_numpy_bool_as_a_condition() -> None:
    assert call(ag.where, np.bool_(True), 1.0, 2.0) == 1.0
    assert call(ag.where, np.bool_(False), 1.0, 2.0) == 2.0
    out = call(ag.where, np.bool_(False), Leaf(1.0), 2.0)
    assert isinstance(out, Node)
    assert out.value == 2.0
    assert ag.grad(lambda x: ag.where(cast(bool, np.bool_(True)), x * x, 0.0))(3.0) == 6.0
    with pytest.raises(TypeError, match=r"needs a comparison's result .*got float 1\.0"):
        call(ag.where, 1.0, 1.0, 2.0)


def test_a_float_subclass_comes_out_a_float() -> None:
    class Meters(float):
        pass

    assert type(ag.exp(Meters(0.0))) is float
    assert type(ag.hypot(Meters(3.0), 4.0)) is float
    assert type(ag.sum([Meters(1.0)])) is float
    assert type(ag.where(True, Meters(1.0), 2.0)) is float
