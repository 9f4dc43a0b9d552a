"""`vmap` at its edges, eager and under `jit` (issue 28): both give the loop's floats.

What is passed whole (``in_axes`` None) reaches every example as it is, on
every path; mapped numbers and output numbers become floats by the engine's
one rule (`to_float`); NumPy arrays of any real dtype and byte order map;
nested `vmap` over arrays, user-defined ops and ``out_axes=None`` work under
`jit` as they do eagerly. The property at the end checks random small
functions against the per-example loop bit for bit.
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import ClassVar, cast

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler.options import Options
from autograd.core import functions as _ops
from autograd.core import nodes as _nodes
from autograd.core.convert import to_float
from autograd.core.functions import BINARY_FUNCTIONS, FUNCTIONS, Elementwise, elementwise
from autograd.core.nodes import Node, Op, Primal, S, _forwarded, _input, define, lt, where

np = pytest.importorskip("numpy")


loose_vmap = cast("Callable[..., Callable[..., object]]", ag.vmap)
"""`vmap` for the deliberately loosely typed calls of these tests."""


def plain(tree: object) -> object:
    """``tree`` with arrays as lists and floats as bits (nan alike, signed zeros apart)."""
    if isinstance(tree, np.ndarray):
        return ("array", [plain(v) for v in tree.tolist()])
    if isinstance(tree, float):
        return ("f", b"nan" if math.isnan(tree) else struct.pack("<d", tree))
    if isinstance(tree, list | tuple):
        return (type(tree).__name__, [plain(v) for v in tree])
    if isinstance(tree, dict):
        return ("dict", [(k, plain(v)) for k, v in tree.items()])
    return ("other", type(tree).__name__, tree)


def same(a: object, b: object) -> None:
    assert plain(a) == plain(b), f"{a!r} != {b!r}"


def both(
    f: Callable[..., object], in_axes: object = 0, out_axes: object = 0
) -> tuple[Callable[..., object], Callable[..., object]]:
    """Eager ``vmap(f)`` and ``jit(vmap(f))``."""
    mapped = loose_vmap(f, in_axes, out_axes)
    return mapped, ag.jit(mapped)


# ---- silently wrong 1: what in_axes None passes is passed whole ---------------------


@pytest.mark.parametrize(
    "w",
    [np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0]), [1.0, 2.0, 3.0], (1.0, 2.0)],
    ids=["array-3", "array-2", "list", "tuple"],
)
@pytest.mark.parametrize("k", [0, 1])
def test_a_shared_sequence_is_passed_whole_under_jit(w: Sequence[float], k: int) -> None:
    eager, jitted = both(lambda x, w: x * w[k], in_axes=(0, None))
    xs = np.ones(3)
    expected = np.full(3, float(w[k]))
    same(eager(xs, w), expected)
    same(jitted(xs, w), expected)
    same(jitted(xs, w), expected)  # the cached program too


def test_a_shared_array_inside_a_partly_mapped_argument_is_passed_whole() -> None:
    f = loose_vmap(lambda p: p["x"] * p["w"][1] + p["w"][0], in_axes=({"w": None, "x": 0},))
    arg = {"w": np.array([10.0, 2.0, 7.0]), "x": [1.0, 2.0, 3.0, 4.0]}
    same(f(arg), [12.0, 14.0, 16.0, 18.0])
    same(ag.jit(f)(arg), [12.0, 14.0, 16.0, 18.0])


def test_a_shared_array_and_a_mapped_array_under_jit_of_grad() -> None:
    def loss(x: ag.Scalar, w: Sequence[float]) -> ag.Scalar:
        return ag.tanh(x * w[0]) * w[1]

    eager, jitted = both(ag.grad(loss), in_axes=(0, None))
    xs, w = np.array([0.5, -1.0, 2.0]), np.array([3.0, -2.0])
    expected = np.array([ag.grad(loss)(float(x), [3.0, -2.0]) for x in xs])
    same(eager(xs, w), expected)
    same(jitted(xs, w), expected)


# ---- silently wrong 5: mapped ints become floats, one rule ----------------------------


def test_a_mapped_int_beyond_float_range_is_inf_eagerly_and_under_jit() -> None:
    eager, jitted = both(lambda x: x * x)
    same(eager([10**400]), [math.inf])
    same(jitted([10**400]), [math.inf])
    same(eager([-(10**400), 2]), [math.inf, 4.0])


def test_mapped_ints_give_floats_eagerly_and_under_jit() -> None:
    eager, jitted = both(lambda x: x * x)
    for f in (eager, jitted):
        out = cast("list[object]", f([2, 3]))
        assert out == [4.0, 9.0]
        assert [type(v) for v in out] == [float, float]


def test_an_int_past_2_53_is_rounded_as_float_rounds_it() -> None:
    eager, jitted = both(lambda x: x - 9007199254740992.0)
    big = 2**53 + 1  # float(big) is 2**53: ties go to even
    same(eager([big]), [0.0])
    same(jitted([big]), [0.0])


def test_int_outputs_become_floats_as_jit_returns_them() -> None:
    eager, jitted = both(lambda x: 10**400)
    same(eager([1.0, 2.0]), [math.inf, math.inf])
    same(jitted([1.0, 2.0]), [math.inf, math.inf])


# ---- traceback 1: nested vmap over arrays --------------------------------------------


def test_nested_vmap_over_arrays_eager_and_under_jit() -> None:
    def h(a: ag.Scalar, b: ag.Scalar) -> ag.Scalar:
        return a * 10.0 + b

    nested = ag.vmap(ag.vmap(h, in_axes=(None, 0)), in_axes=(0, None))
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    expected = [np.array([13.0, 23.0]), np.array([14.0, 24.0]), np.array([15.0, 25.0])]
    same(nested(a, b), expected)
    same(ag.jit(nested)(a, b), expected)
    # the list layout is the same numbers, lists in and lists out
    same(nested([1.0, 2.0], [3.0, 4.0, 5.0]), [[13.0, 23.0], [14.0, 24.0], [15.0, 25.0]])


# ---- traceback 2: an op a user defines, under jit(vmap) --------------------------------


def edge_ramp_float(x: float) -> float:
    return 0.5 * x if x < 0.0 else x


@pytest.fixture(scope="module")
def ramp() -> Iterator[Elementwise]:
    @define
    @attrs.frozen(eq=False)
    class EdgeRamp(Op):
        """0.5 x below 0, else x."""

        name: ClassVar[str] = "edge_ramp"
        label: ClassVar[str] = "edge_ramp"
        impl = edge_ramp_float
        x: Node = attrs.field(repr=False, converter=_input)
        value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

        def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
            return (where(lt(p(self.x), 0.0), 0.5 * g, g),)

    function = elementwise(EdgeRamp, "A leaky ramp (a test's throwaway op).")
    try:
        yield function
    finally:
        _nodes.undefine(EdgeRamp)
        del _ops.FUNCTIONS["edge_ramp"]


def test_a_user_defined_op_runs_batched_under_jit_of_vmap(ramp: Elementwise) -> None:
    def f(x: ag.Scalar) -> ag.Scalar:
        return ramp(x) * x

    xs = [-2.0, 3.0, -0.0, math.inf, math.nan, -1e-310]
    loop = [f(x) for x in xs]
    grads = [ag.grad(f)(x) for x in xs]
    same(ag.jit(ag.vmap(f))(xs), loop)
    same(ag.jit(ag.vmap(ag.grad(f)))(xs), grads)
    total = ag.jit(lambda xs: ag.mean(ag.vmap(f)(xs)))
    assert total(xs[:2]) == ag.mean([f(x) for x in xs[:2]])
    with ag.debug_nans():  # jit runs it checked, eagerly: still the loop's numbers
        same(ag.jit(ag.vmap(f))(xs[:3]), loop[:3])


def test_a_user_defined_op_runs_batched_not_by_the_loop(ramp: Elementwise) -> None:
    calls: list[object] = []

    def f(x: ag.Scalar) -> ag.Scalar:
        calls.append(x)
        return ramp(x) * 2.0

    jitted = ag.jit(
        ag.vmap(f), options=Options(batch_from=1, numpy_call=0)
    )  # a small batch, run as one
    same(jitted([-2.0, 3.0, 4.0]), [-2.0, 6.0, 8.0])
    assert len(calls) == 1  # one trace of one example: the batched program ran
    same(jitted([5.0, -6.0, 1.0]), [10.0, -6.0, 2.0])
    assert len(calls) == 1


# ---- traceback 5: out_axes=None under jit ---------------------------------------------


def test_out_axes_none_of_equal_values_under_jit() -> None:
    eager, jitted = both(lambda x: x * 0.0 + 5.0, out_axes=None)
    assert eager([1.0, 2.0]) == jitted([1.0, 2.0]) == 5.0
    # x * 0.0 is nan for an infinite x: the examples differ, eagerly and compiled
    for f in (eager, jitted):
        with pytest.raises(ValueError, match=r"output is nan in example 1 but 5.0 in example 0"):
            f([1.0, math.inf])
    assert jitted([3.0, 4.0]) == 5.0


def test_out_axes_none_under_jit_tells_signed_zeros_apart() -> None:
    eager, jitted = both(lambda x: x * 0.0, out_axes=None)
    same(jitted([1.0, 2.0]), 0.0)
    for f in (eager, jitted):
        with pytest.raises(ValueError, match=r"output is -0.0 in example 1 but 0.0 in example 0"):
            f([1.0, -2.0])
    same(jitted([-1.0, -2.0]), -0.0)


def test_out_axes_none_under_jit_of_all_nans() -> None:
    eager, jitted = both(lambda x: x * 0.0, out_axes=None)
    same(eager([math.inf, -math.inf]), math.nan)
    same(jitted([math.inf, -math.inf]), math.nan)
    with pytest.raises(ValueError, match=r"output is 0.0 in example 1 but nan in example 0"):
        jitted([math.inf, 1.0])


def test_out_axes_none_under_jit_still_refuses_a_differentiated_mapped_node() -> None:
    def total(xs: Sequence[ag.Scalar]) -> ag.Scalar:
        return cast(ag.Scalar, loose_vmap(lambda x: x * 0.0, out_axes=None)(xs))

    for g in (ag.grad(total), ag.jit(ag.grad(total))):
        with pytest.raises(ValueError, match=r"output depends on a mapped argument"):
            g([1.0, 2.0])


# ---- traceback 6: NumPy scalars and arrays, dict prefixes by key ------------------------


@pytest.mark.parametrize(
    "xs",
    [
        [np.float32(1.5), np.int64(3), np.float64(0.25)],
        np.array([1.5, 3.0, 0.25], dtype=">f8"),
        np.array([1.5, 3.0, 0.25], dtype=np.float32),
        np.array([1.5, 3.0, 0.25], dtype=np.float16),
        np.array([1.5, 3.0, 0.25], dtype=np.longdouble),
    ],
    ids=["numpy-scalars", "big-endian", "float32", "float16", "longdouble"],
)
def test_numpy_numbers_map_as_the_floats_they_equal(xs: object) -> None:
    eager, jitted = both(lambda x: x * 2.0 + 1.0)
    arrays = isinstance(xs, np.ndarray)
    expected = np.array([4.0, 7.0, 1.5]) if arrays else [4.0, 7.0, 1.5]
    same(eager(xs), expected)
    same(jitted(xs), expected)


def test_an_int64_array_maps_its_exact_ints_and_refuses_the_others() -> None:
    eager, jitted = both(lambda x: x + 0.0)
    xs = np.array([2**53, -3, 2**62], dtype=np.int64)
    expected = np.array([float(2**53), -3.0, float(2**62)])
    same(eager(xs), expected)
    same(jitted(xs), expected)
    # a NumPy integer becomes a float only exactly (to_float), unlike a Python int
    inexact = np.array([2**53 + 1, 1], dtype=np.int64)
    for run in (eager, jitted):
        with pytest.raises(ValueError, match=r"x\[0\] is a int64 .*cannot hold it exactly"):
            run(inexact)


@pytest.mark.parametrize(
    ("xs", "error", "match"),
    [
        ([1.0, Fraction(1, 3)], ValueError, r"x\[1\] is a Fraction .*cannot hold it exactly"),
        ([1.0, np.bool_(True)], TypeError, r"x\[1\] is a bool.*booleans are not differentiable"),
        ([1.0, 1j], TypeError, r"x\[1\] is a complex .*only real numbers"),
        (np.array([True, False]), TypeError, r"x\[0\] is a bool.*booleans"),
        (np.array([1j, 2.0]), TypeError, r"x\[0\] is a complex"),
        (np.ones((2, 2)), TypeError, r"x is a 2-d NumPy array of shape \(2, 2\), not a batch"),
        (
            np.array([1.0, 0.1], dtype=np.longdouble) / 3,
            ValueError,
            r"x\[0\] is a longdouble .*cannot hold it exactly",
        ),
    ],
    ids=["fraction", "numpy-bool", "complex", "bool-array", "complex-array", "2-d", "inexact"],
)
def test_what_is_not_a_float_by_the_rule_is_refused_naming_its_path(
    xs: object, error: type[Exception], match: str
) -> None:
    eager, jitted = both(lambda x: x * 2.0)
    for f in (eager, jitted):
        with pytest.raises(error, match=match):
            f(xs)


def test_in_axes_dicts_match_the_argument_by_key() -> None:
    eager, jitted = both(lambda d: d["a"] * d["b"], in_axes=({"b": None, "a": 0},))
    arg = {"a": [1.0, 2.0], "b": 3.0}
    same(eager(arg), [3.0, 6.0])
    same(jitted(arg), [3.0, 6.0])
    out = loose_vmap(lambda x: {"u": x, "v": x * 2.0}, 0, {"v": 0, "u": 0})([1.0])
    same(out, {"u": [1.0], "v": [2.0]})
    with pytest.raises(ValueError, match=r"in_axes\[0\] is a dict with keys \['b', 'c'\]"):
        loose_vmap(lambda d: d["a"], in_axes=({"b": None, "c": 0},))(arg)


# ---- the property: jit(vmap) against the loop, random functions and in_axes -------------

UNARY = sorted(FUNCTIONS)
BINARY = sorted(BINARY_FUNCTIONS)
ARITH: dict[str, Callable[[object, object], object]] = {
    "+": lambda a, b: a + b,  # type: ignore[operator]  # numbers and nodes
    "-": lambda a, b: a - b,  # type: ignore[operator]
    "*": lambda a, b: a * b,  # type: ignore[operator]
}

Expr = tuple[object, ...]
"""``("arg", i)``, ``("w", i, k)`` (``w[k]`` of shared sequence ``i``), ``("c", v)``,
``("un", name, e)``, ``("bin", name, e, e)``, ``("op", symbol, e, e)``."""


def exprs(nargs: int) -> st.SearchStrategy[Expr]:
    leaves = st.one_of(
        st.tuples(st.just("arg"), st.integers(0, nargs - 1)),
        st.tuples(st.just("w"), st.integers(0, nargs - 1), st.integers(0, 1)),
        st.tuples(st.just("c"), st.sampled_from([0.0, -0.0, 0.5, -2.0, math.inf, 3.0])),
    )
    return st.recursive(
        leaves,
        lambda sub: st.one_of(
            st.tuples(st.just("un"), st.sampled_from(UNARY), sub),
            st.tuples(st.just("bin"), st.sampled_from(BINARY), sub, sub),
            st.tuples(st.just("op"), st.sampled_from(sorted(ARITH)), sub, sub),
        ),
        max_leaves=5,
    )


def evaluate(e: Expr, args: Sequence[object]) -> object:
    """``e`` on one example's arguments (a sequence argument read as a number is its w[0])."""
    match e:
        case ("c", v):
            return v
        case ("arg", i):
            a = args[cast(int, i)]
            return cast("Sequence[object]", a)[0] if isinstance(a, list | tuple | np.ndarray) else a
        case ("w", i, k):
            a = args[cast(int, i)]
            seq = cast("Sequence[object]", a)
            return seq[cast(int, k)] if isinstance(a, list | tuple | np.ndarray) else a
        case ("un", name, x):
            unary = cast("Callable[[object], object]", FUNCTIONS[cast(str, name)])
            return unary(evaluate(cast(Expr, x), args))
        case ("bin", name, x, y):
            binary = cast("Callable[[object, object], object]", BINARY_FUNCTIONS[cast(str, name)])
            return binary(evaluate(cast(Expr, x), args), evaluate(cast(Expr, y), args))
        case ("op", symbol, x, y):
            return ARITH[cast(str, symbol)](
                evaluate(cast(Expr, x), args), evaluate(cast(Expr, y), args)
            )
        case _:
            raise AssertionError(e)


FLOATS = st.one_of(
    st.floats(-4.0, 4.0),
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e308, 5e-324]),
)
INTS = st.one_of(st.integers(-3, 3), st.sampled_from([2**53 + 1, -(2**53) - 3, 10**400]))


def f32(fs: list[float]) -> object:
    """``fs`` as float32 (1e308 becomes inf there, as NumPy casts it)."""
    with np.errstate(all="ignore"):
        return np.array(fs, dtype=np.float32)


def scalars(fs: list[float], ns: list[int]) -> list[object]:
    """NumPy scalars: float32 and int64, alternating."""
    with np.errstate(all="ignore"):
        return [
            np.float32(f) if i % 2 else np.int64(n % 7)
            for i, (f, n) in enumerate(zip(fs, ns, strict=True))
        ]


Column = Callable[[list[float], list[int]], object]
"""How a mapped column is given: floats and ints drawn, in one container kind."""

COLUMNS: dict[str, Column] = {
    "floats": lambda fs, _: list(fs),
    "ints": lambda _, ns: list(ns),
    "mixed": lambda fs, ns: [
        f if i % 2 else n for i, (f, n) in enumerate(zip(fs, ns, strict=True))
    ],
    "tuple": lambda fs, _: tuple(fs),
    "float64": lambda fs, _: np.array(fs),
    "big-endian": lambda fs, _: np.array(fs, dtype=">f8"),
    "float32": lambda fs, _: f32(fs),
    "int64": lambda _, ns: np.array([n for n in ns if abs(n) <= 2**53] or [1], dtype=np.int64),
    "numpy-scalars": scalars,
}
SHARED: dict[str, Callable[[list[float]], object]] = {
    "float": lambda fs: fs[0],
    "list": lambda fs: [fs[0], fs[1]],
    "tuple": lambda fs: (fs[0], fs[1], fs[0]),
    "array": lambda fs: np.array([fs[0], fs[1]]),
    "array-3": lambda fs: np.array([fs[0], fs[1], 2.0]),
}


@st.composite
def calls(draw: st.DrawFn, grads: bool = False) -> tuple[Expr, tuple[object, ...], list[object]]:
    """A function's expression, its in_axes, and its arguments (at least one mapped)."""
    nargs = draw(st.integers(2, 3))
    n = draw(st.integers(1, 4))
    axes: list[object] = [draw(st.sampled_from([0, None])) for _ in range(nargs)]
    if grads:
        axes[0] = 0  # the differentiated argument is mapped
    elif all(a is None for a in axes):
        axes[draw(st.integers(0, nargs - 1))] = 0
    args: list[object] = []
    for axis in axes:
        fs = draw(st.lists(FLOATS, min_size=n, max_size=n))
        ns = draw(st.lists(INTS, min_size=n, max_size=n))
        if axis == 0:
            kind = "floats" if grads and not args else draw(st.sampled_from(sorted(COLUMNS)))
            column = COLUMNS[kind](fs, ns)
            if len(column) != n:  # type: ignore[arg-type]  # a sequence
                column = list(fs)
            args.append(column)
        else:
            args.append(
                SHARED[draw(st.sampled_from(sorted(SHARED)))](
                    draw(st.lists(FLOATS, min_size=2, max_size=2))
                )
            )
    return draw(exprs(nargs)), tuple(axes), args


def example(args: Sequence[object], axes: Sequence[object], i: int) -> list[object]:
    """Example ``i``'s arguments by the rule: mapped numbers as floats, the rest whole."""
    return [to_float(a[i]) if axis == 0 else a for a, axis in zip(args, axes, strict=True)]  # type: ignore[index]


def restacked(outs: list[object], args: Sequence[object], axes: Sequence[object]) -> object:
    floats = [to_float(v) for v in outs]
    arrays = any(isinstance(a, np.ndarray) for a, axis in zip(args, axes, strict=True) if axis == 0)
    return np.array(floats) if arrays else floats


@given(calls())
def test_jit_of_vmap_is_the_loop_bit_for_bit(
    call: tuple[Expr, tuple[object, ...], list[object]],
) -> None:
    e, axes, args = call

    def f(*xs: object) -> object:
        return evaluate(e, xs)

    n = len(next(a for a, axis in zip(args, axes, strict=True) if axis == 0))  # type: ignore[arg-type]
    with np.errstate(all="ignore"):  # a shared array's elements are NumPy scalars eagerly
        expected = restacked([f(*example(args, axes, i)) for i in range(n)], args, axes)
        eager, jitted = both(f, in_axes=axes)
        same(eager(*args), expected)
    same(jitted(*args), expected)
    same(jitted(*args), expected)  # the cached program


@given(calls(grads=True))
def test_jit_of_vmap_of_grad_is_the_loop_bit_for_bit(
    call: tuple[Expr, tuple[object, ...], list[object]],
) -> None:
    e, axes, args = call

    def f(*xs: object) -> ag.Scalar:
        return cast(ag.Scalar, evaluate(("op", "+", e, ("arg", 0)), xs))  # depends on xs[0]

    g = cast("Callable[..., object]", ag.grad(f))
    n = len(cast("Sequence[object]", args[0]))
    with np.errstate(all="ignore"):
        expected = restacked([g(*example(args, axes, i)) for i in range(n)], args, axes)
        eager, jitted = both(g, in_axes=axes)
        same(eager(*args), expected)
    same(jitted(*args), expected)


LEVEL_AXES = st.sampled_from([(0, 0), (0, None), (None, 0)])


@st.composite
def nested_calls(
    draw: st.DrawFn,
) -> tuple[Expr, tuple[object, ...], tuple[object, ...], list[object], Callable[..., object]]:
    """``vmap(vmap(f, inner), outer)``: the expression, both in_axes, the arguments, the oracle.

    The oracle gives argument ``k`` of inner example ``l`` in outer example ``j``.
    """
    inner, outer = draw(LEVEL_AXES), draw(LEVEL_AXES)
    m, n = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kinds = st.sampled_from(["floats", "ints", "float64"])
    args: list[object] = []
    getters: list[Callable[[int, int], object]] = []
    for k in range(2):
        if inner[k] == 0 and outer[k] == 0:  # m columns of n: the outer batch is innermost
            kind = draw(kinds)
            grid = [
                COLUMNS[kind](
                    draw(st.lists(FLOATS, min_size=n, max_size=n)),
                    draw(st.lists(INTS, min_size=n, max_size=n)),
                )
                for _ in range(m)
            ]
            args.append(grid)
            getters.append(functools.partial(lambda g, j, i: to_float(g[i][j]), grid))
        elif inner[k] == 0:  # the inner batch, passed whole by the outer vmap
            v = COLUMNS[draw(kinds)](
                draw(st.lists(FLOATS, min_size=m, max_size=m)),
                draw(st.lists(INTS, min_size=m, max_size=m)),
            )
            args.append(v)
            getters.append(functools.partial(lambda v, j, i: to_float(v[i]), v))
        elif outer[k] == 0:  # the outer batch, passed whole by the inner vmap
            v = COLUMNS[draw(kinds)](
                draw(st.lists(FLOATS, min_size=n, max_size=n)),
                draw(st.lists(INTS, min_size=n, max_size=n)),
            )
            args.append(v)
            getters.append(functools.partial(lambda v, j, i: to_float(v[j]), v))
        else:
            s = draw(FLOATS)
            args.append(s)
            getters.append(functools.partial(lambda s, j, i: s, s))

    def oracle(f: Callable[..., object]) -> object:
        outer_arrays = any(
            isinstance(cast("Sequence[object]", a)[0] if inner[k] == 0 else a, np.ndarray)
            for k, a in enumerate(args)
            if outer[k] == 0
        )
        rows = [[to_float(f(*(g(j, i) for g in getters))) for j in range(n)] for i in range(m)]
        return [np.array(r) if outer_arrays else r for r in rows]

    return draw(exprs(2).filter(lambda e: "w" not in repr(e))), inner, outer, args, oracle


@given(nested_calls())
def test_jit_of_nested_vmap_is_the_double_loop_bit_for_bit(
    call: tuple[Expr, tuple[object, ...], tuple[object, ...], list[object], Callable[..., object]],
) -> None:
    e, inner, outer, args, oracle = call

    def f(a: object, b: object) -> object:
        return evaluate(e, (a, b))

    nested = loose_vmap(loose_vmap(f, in_axes=inner), in_axes=outer)
    expected = oracle(f)
    same(nested(*args), expected)
    same(ag.jit(nested)(*args), expected)


@given(calls())
def test_out_axes_none_of_what_the_batch_does_not_change_is_eager_under_jit(
    call: tuple[Expr, tuple[object, ...], list[object]],
) -> None:
    e, axes, args = call
    shared = [i for i, axis in enumerate(axes) if axis is None]
    # the second output reads shared arguments only (or a constant)
    e2: Expr = ("op", "*", ("arg", shared[0]), ("c", 2.0)) if shared else ("c", 1.5)

    def f(*xs: object) -> object:
        return evaluate(e, xs), evaluate(e2, xs)

    n = len(next(a for a, axis in zip(args, axes, strict=True) if axis == 0))  # type: ignore[arg-type]
    with np.errstate(all="ignore"):
        outs = [cast("tuple[object, object]", f(*example(args, axes, i))) for i in range(n)]
        expected = (restacked([o[0] for o in outs], args, axes), to_float(outs[0][1]))
        eager, jitted = both(f, in_axes=axes, out_axes=(0, None))
        same(eager(*args), expected)
    same(jitted(*args), expected)
