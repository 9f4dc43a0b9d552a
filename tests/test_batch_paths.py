"""`jit` with `vmap` on the batched NumPy paths few calls take: each checked against eager.

Every test calls the public API only (`jit`, `vmap`, `grad`, `Options`) and
compares the jitted batch with eager `vmap`: floats by their bits (``-0.0``
apart; nans alike, as docs/numerics.md says every bit test does), NumPy
arrays apart from lists, ints apart from floats, nodes by class and value.
Where the batch deliberately falls back (to `jit`'s loop, or to the eager
call), the test also sees it happen from outside: how often the user's
function is called (a batch traces it once, on the first example; `jit`'s
loop once per example; the eager call on every call), a warning, or the
`FALLBACKS` counter.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar
from autograd.compiler.jit import FALLBACKS
from autograd.compiler.options import Options

np = pytest.importorskip("numpy")

loose_vmap = cast("Callable[..., Callable[..., object]]", ag.vmap)
"""`vmap` for the loosely typed calls below (``out_axes``, pytree prefixes, arrays)."""

XS = [0.5, -1.0, 2.0, -0.0, 3.0, math.inf, -math.inf, math.nan, 0.0, 1e-300, 5e-324, -2.5, 1e300]
"""A batch of examples, special values included: at least `Options.batch_from`, so `jit`
runs it as one batched program (a smaller batch runs the per-example code in a loop)."""

assert len(XS) >= Options().batch_from


def bits(tree: object) -> object:
    """``tree`` as comparable data: what a wrong result could differ in."""
    if isinstance(tree, np.ndarray):
        return ("array", str(tree.dtype), [bits(v) for v in tree.tolist()])
    if type(tree) is float:
        return "nan" if math.isnan(tree) else struct.pack("<d", tree)
    if isinstance(tree, ag.Node):
        return ("node", type(tree).__name__, bits(tree.value))
    if isinstance(tree, list | tuple):
        return (type(tree).__name__, [bits(v) for v in tree])
    if isinstance(tree, dict):
        return ("dict", [(k, bits(v)) for k, v in tree.items()])
    return ("other", type(tree).__name__, repr(tree))


def same(got: object, expected: object) -> None:
    assert bits(got) == bits(expected), f"{got!r} != {expected!r}"


def raised(fn: Callable[[], object]) -> tuple[type[BaseException], str]:
    """The type and message of the exception ``fn()`` raises."""
    with pytest.raises(Exception) as info:  # noqa: PT011  # any: compared with eager's below
        fn()
    return info.type, str(info.value)


def counted(fn: Callable[..., Scalar], calls: list[int]) -> Callable[..., Scalar]:
    """``fn``, appending to ``calls`` each time it runs (traced or not)."""

    def f(*args: Scalar) -> Scalar:
        calls.append(1)
        return fn(*args)

    return f


# ---- vmapped.py: out_axes other than 0 go to jit's loop ------------------------------------------


@pytest.mark.parametrize("out_axes", [(0, None), (0, 0)], ids=["0-None", "0-0"])
@pytest.mark.parametrize("as_array", [False, True], ids=["list", "array"])
def test_out_axes_other_than_0_run_the_loop_with_eagers_results(
    out_axes: tuple[int | None, int], as_array: bool
) -> None:
    calls: list[int] = []

    def f(x: Scalar, w: Scalar) -> tuple[Scalar, Scalar]:
        calls.append(1)
        return ag.tanh(x) * w, w * w

    mapped = loose_vmap(f, (0, None), out_axes)
    xs = np.array(XS) if as_array else XS
    expected = mapped(xs, 3.0)
    calls.clear()
    jitted = ag.jit(mapped)
    same(jitted(xs, 3.0), expected)
    assert len(calls) == len(XS)  # jit traced vmap's loop, an example a call: not one batch
    calls.clear()
    same(jitted(xs, 3.0), expected)
    assert calls == []  # and compiled it


def test_an_out_axes_none_output_that_varies_raises_eagers_error() -> None:
    mapped = loose_vmap(lambda x, w: (x * w, w * w), (0, None), None)
    error = raised(lambda: mapped(XS, 3.0))
    assert error[0] is ValueError
    assert raised(lambda: ag.jit(mapped)(XS, 3.0)) == error


# ---- vmapped.py: a node among the arguments runs eagerly -----------------------------------------


NODES_AT: dict[str, tuple[Sequence[Scalar], Scalar]] = {
    "every-example": ([ag.Leaf(x) for x in XS], 2.0),
    "first-example": ([ag.Leaf(XS[0]), *XS[1:]], 2.0),
    "shared": (XS, ag.Leaf(2.0)),
}


@pytest.mark.parametrize(("xs", "w"), NODES_AT.values(), ids=NODES_AT.keys())
def test_a_node_among_the_arguments_gives_eagers_nodes(xs: Sequence[Scalar], w: Scalar) -> None:
    calls: list[int] = []
    f = counted(lambda x, w: x * w + ag.tanh(x), calls)
    mapped = loose_vmap(f, (0, None))
    expected = mapped(xs, w)
    assert any(isinstance(v, ag.Node) for v in cast("list[object]", expected))
    jitted = ag.jit(mapped)
    for _ in range(2):  # never cached: a node's graph is the caller's
        calls.clear()
        same(jitted(xs, w), expected)
        assert len(calls) == len(XS)  # the eager call, each example


# ---- vmapped.py: an output that is not a number --------------------------------------------------


@pytest.mark.parametrize("out", ["abc", True, 1j], ids=["str", "bool", "complex"])
def test_a_non_number_output_raises_eagers_error(out: object) -> None:
    mapped = loose_vmap(lambda x: (x * 2.0, out))
    error = raised(lambda: mapped(XS))
    assert error[0] is TypeError
    assert raised(lambda: ag.jit(mapped)(XS)) == error


@pytest.mark.parametrize("out", [Fraction(1, 3), np.True_], ids=["fraction", "np-bool"])
def test_an_output_jit_refuses_raises_eagers_error(out: object) -> None:
    mapped = loose_vmap(lambda x: (x * 2.0, out))
    error = raised(lambda: mapped(XS))
    assert raised(lambda: ag.jit(mapped)(XS)) == error


def test_an_int_output_of_a_vmap_inside_jit_is_a_float() -> None:
    def f(xs: list[float]) -> object:
        return loose_vmap(lambda x: 1)(xs)

    same(ag.jit(f)(XS), f(XS))


# ---- vmapped.py: a graph over the budget runs eagerly --------------------------------------------


def test_a_batch_over_the_budget_runs_eagerly_with_eagers_results() -> None:
    def f(x: Scalar) -> Scalar:
        for _ in range(10):
            x = ag.sin(x) + 0.5
        return x

    mapped = loose_vmap(f)
    before = FALLBACKS["too big"]
    with pytest.warns(RuntimeWarning, match="too big to compile"):
        got = ag.jit(mapped, options=Options(budget=10))(XS)
    same(got, mapped(XS))
    assert FALLBACKS["too big"] > before


# ---- vmapped.py: leaves passed whole inside a partly mapped argument -----------------------------

SHARED: list[tuple[str, object, Callable[[object], Scalar]]] = [
    ("float", 3.0, lambda w: cast(Scalar, w)),
    ("list", [10.0, 2.0, -7.0], lambda w: cast("list[Scalar]", w)[0] * cast("list[Scalar]", w)[2]),
    ("array", np.array([10.0, 2.0, -7.0]), lambda w: cast("list[Scalar]", w)[2]),
    (
        "dict",
        {"a": np.array([1.0, -2.0]), "b": 5.0},
        lambda w: cast("dict[str, list[Scalar]]", w)["a"][1] * cast("dict[str, Scalar]", w)["b"],
    ),
]


@pytest.mark.parametrize(
    ("shared", "use"), [(s, u) for _, s, u in SHARED], ids=[n for n, _, _ in SHARED]
)
def test_a_shared_leaf_inside_a_mapped_argument_keeps_the_others_in_place(
    shared: object, use: Callable[[object], Scalar]
) -> None:
    calls: list[int] = []

    def f(p: dict[str, object]) -> Scalar:
        calls.append(1)
        return cast(Scalar, p["x"]) * use(p["w"]) - cast(Scalar, p["y"])

    mapped = loose_vmap(f, ({"x": 0, "w": None, "y": 0},))
    arg = {"x": XS, "w": shared, "y": [float(i) for i in range(len(XS))]}  # y after w's leaves
    expected = mapped(arg)
    calls.clear()
    same(ag.jit(mapped)(arg), expected)
    assert calls == [1]  # traced once, on the first example: one batch


# ---- batched.py: a vmap inside a jitted function that loops instead ------------------------------


ONE_CALLS: list[int] = []
"""An entry per call of `_one`: a batch calls it once (on stand-ins), a loop per example."""


@pytest.fixture
def one_calls() -> list[int]:
    ONE_CALLS.clear()
    return ONE_CALLS


def _one(x: Scalar) -> Scalar:
    ONE_CALLS.append(1)
    return ag.tanh(x) * x + 1.0


def _computed(xs: list[Scalar]) -> object:
    return loose_vmap(_one)([x * 2.0 for x in xs])


def _permuted(a: Sequence[Scalar]) -> object:
    return loose_vmap(_one)([a[i] for i in (0, 2, 1, *range(3, len(a)))])


def _repeated(a: Sequence[Scalar]) -> object:
    return loose_vmap(_one)([a[0], *a[:-1]])


@pytest.mark.parametrize(
    ("fn", "as_array"),
    [(_computed, False), (_permuted, True), (_repeated, True)],
    ids=["computed-leaves", "array-permuted", "array-repeated"],
)
def test_mapped_leaves_that_are_not_a_column_loop_with_eagers_results(
    fn: Callable[[Sequence[Scalar]], object], as_array: bool, one_calls: list[int]
) -> None:
    xs = np.array(XS) if as_array else XS
    expected = fn(xs)
    one_calls.clear()
    same(ag.jit(fn)(xs), expected)
    assert len(one_calls) == len(XS)  # vmap looped inside the trace


def test_grad_through_a_differentiated_mapped_argument_loops_with_eagers_bits(
    one_calls: list[int],
) -> None:
    def loss(xs: Sequence[Scalar]) -> Scalar:
        return ag.sum(ag.vmap(_one)(xs))

    xs = [0.5, -1.0, 2.0, -0.0, 3.0, 1.5, 0.25, -3.0, 4.0, 1.0]
    expected = ag.value_and_grad(loss)(xs)
    one_calls.clear()
    same(ag.jit(ag.value_and_grad(loss))(xs), expected)
    assert len(one_calls) == len(xs)  # vmap looped inside the trace


def _shared_varies(xs: Sequence[Scalar]) -> object:
    total = ag.sum(ag.vmap(_one)(xs))  # one number, but it varies in the first batch
    return loose_vmap(lambda x, s: x * s, (0, None))(xs, total)


def test_a_shared_value_from_another_batch_loops_with_eagers_results(
    one_calls: list[int],
) -> None:
    xs = [0.5, -1.0, 2.0, -0.0, 3.0, 1.5, 0.25, -3.0, 4.0, 1.0]
    before = FALLBACKS["batch too big or external"]
    expected = _shared_varies(xs)
    one_calls.clear()
    same(ag.jit(_shared_varies)(xs), expected)
    assert len(one_calls) == 1  # the first vmap is one batch: the second one loops
    assert FALLBACKS["batch too big or external"] == before


def test_a_shared_value_from_another_batch_over_an_array_gives_an_array() -> None:
    xs = np.array([0.5, -1.0, 2.0, -0.0, 3.0, 1.5, 0.25, -3.0, 4.0, 1.0])
    same(ag.jit(_shared_varies)(xs), _shared_varies(xs))


@pytest.mark.parametrize("setting", [3.0, "double", (2.0, "triple")], ids=["float", "str", "tuple"])
def test_a_shared_constant_inside_jit_stays_one_batch(setting: object) -> None:
    calls: list[int] = []

    def one(x: Scalar, s: object) -> Scalar:
        calls.append(1)
        return x * (s if isinstance(s, float) else 2.0 if s == "double" else 3.0)

    def f(xs: Sequence[Scalar]) -> object:
        return loose_vmap(one, (0, None))(xs, setting)

    expected = f(XS)
    calls.clear()
    same(ag.jit(f)(XS), expected)
    assert calls == [1]  # one batch: the example function called once, on stand-ins


# ---- arrays.py: a guard on a varying name holding one number -------------------------------------


def test_a_guard_on_a_shared_number_in_a_batch_retraces_when_it_flips() -> None:
    calls: list[int] = []

    def f(x: Scalar, c: Scalar, d: Scalar) -> Scalar:
        calls.append(1)
        y = ag.where(ag.lt(c, 0.0), x, d)  # this example's x, or the shared d (c >= 0)
        return ag.where(ag.lt(y, 1.0), 2.0 * x, 3.0 * x)  # a choice on y: guarded

    mapped = loose_vmap(f, (0, None, None))
    jitted = ag.jit(mapped)
    traces = []
    for d in (0.5, 0.5, 2.0, 2.0, 0.5):
        expected = mapped(XS, 1.0, d)
        calls.clear()
        same(jitted(XS, 1.0, d), expected)
        traces.append(len(calls))
    assert traces == [1, 0, 1, 0, 1]  # traced again exactly when d < 1 flips


# ---- arrays.py: pow with a shared exponent, NumPy's own functions --------------------------------

POW_PATHS = {"2": 3.0, "3": 4.0, "1": 2.0, "0.5": 1.5, "-1": 1e-17, "-2": -1.0, "-0.5": 0.5}
"""``c`` such that ``grad(x ** c)``'s ``x ** (c - 1)`` takes each of PyTorch's cheap paths
(``1e-17 - 1.0`` rounds to ``-1.0``: an exact ``c == 0`` would skip the power)."""

FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([-0.0, 0.0, 5e-324])


@pytest.mark.parametrize("c", POW_PATHS.values(), ids=[f"c-1={k}" for k in POW_PATHS])
@given(xs=st.lists(FLOATS, min_size=8, max_size=10))
def test_grad_of_pow_with_a_shared_exponent_gives_eagers_bits(c: float, xs: list[float]) -> None:
    mapped = loose_vmap(ag.grad(lambda x, c: x**c), (0, None))
    jitted = ag.jit(mapped, options=Options(numpy_functions=True))
    same(jitted(xs, c), mapped(xs, c))


def test_grad_of_pow_with_another_shared_exponent_gives_eagers_bits() -> None:
    # NumPy's power is within an ulp of math's (docs/numerics.md): results exact in float64
    xs = [0.25, 4.0, 9.0, 2.25, 16.0, 0.0, -0.0, math.inf, -math.inf, math.nan, -4.0, 1.0]
    mapped = loose_vmap(ag.grad(lambda x, c: x**c), (0, None))
    jitted = ag.jit(mapped, options=Options(numpy_functions=True))
    for c in (2.5, 1.25, -0.5):
        same(jitted(xs, c), mapped(xs, c))


# ---- arrays.py: a later example's node in a column -----------------------------------------------
#
# vmap converts every mapped number to a float first (`to_float`: ints past float range
# become infinities), so only a node after the first example (the first decides that the
# batch is traced) stops a column: jit's loop then builds on it.


def test_a_node_after_the_first_example_gives_eagers_results() -> None:
    mapped = loose_vmap(lambda x: x * 2.0 + ag.tanh(x))
    xs = [XS[0], ag.Leaf(XS[1]), *XS[2:]]
    same(ag.jit(mapped)(xs), mapped(xs))


BIG_INTS = [10**400, 3, 2**53 + 1, -(10**400), 2**1024 - 2**970 - 1, 0.5, -0.0, 7, 2**64 + 1]
"""Ints beyond float range (NumPy's own conversion raises ``OverflowError``) among others."""


def _big_ints_inside_jit(w: Scalar) -> object:
    return loose_vmap(lambda x: x * w)(BIG_INTS)


@pytest.mark.parametrize(
    ("fn", "arg"),
    [(loose_vmap(lambda x: x * 0.5), BIG_INTS), (_big_ints_inside_jit, 0.5)],
    ids=["jit-of-vmap", "vmap-inside-jit"],
)
def test_mapped_ints_beyond_float_range_are_infinities_in_a_batch(
    fn: Callable[[object], object], arg: object
) -> None:
    same(ag.jit(fn)(arg), fn(arg))


@given(
    xs=st.lists(
        st.integers(min_value=-(2**1100), max_value=2**1100) | FLOATS, min_size=7, max_size=10
    )
)
def test_mapped_ints_of_any_size_give_eagers_bits(xs: list[float]) -> None:
    mapped = loose_vmap(lambda x: x * 3.0)
    batch = [*xs, 2**1030]  # one past float range
    same(ag.jit(mapped)(batch), mapped(batch))


# ---- pack.py: a sum over the batch of unevenly spaced rows of a pack -----------------------------


def _example_loss(w: Sequence[Scalar], x: Scalar) -> Scalar:
    # One pack of eight rows: the four products, then the four terms' cotangents. The one
    # w[0] and w[1] share is summed on its own, so the sum over the batch of the other three
    # reads rows 4, 6 and 7: not evenly spaced, so not one view of the pack.
    a = w[2] * ag.tanh(3.0 * x) + w[3] * ag.tanh(5.0 * x)
    return a + (w[0] + w[1]) * ag.tanh(2.0 * x) + w[4] * ag.tanh(7.0 * x)


def test_shared_gradients_summed_from_uneven_rows_of_a_pack() -> None:
    def loss(w: Sequence[Scalar], xs: Sequence[Scalar]) -> Scalar:
        return ag.sum(ag.vmap(_example_loss, in_axes=(None, 0))(w, xs))

    w = [0.5, -1.0, 2.0, 0.3, -0.7]
    xs = [0.5, -1.0, 2.0, -0.0, 3.0, 1.5, 0.25, -3.0, 4.0, 1.0]
    got = ag.jit(ag.grad(loss))(w, xs)
    # the batch sums each example's gradient in autograd.sum's order (docs/vmap.md)
    per_example = ag.vmap(ag.grad(_example_loss), in_axes=(None, 0))(w, xs)
    same(got, [ag.sum(column) for column in per_example])
    assert got == pytest.approx(ag.grad(loss)(w, xs), rel=1e-13)
