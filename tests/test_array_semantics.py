"""NumPy arrays given to `jit`: a traced function does with them what it does eagerly, or raises.

`jit` traces an array argument as the list of its variables (a batch for a
`vmap` inside, docs/vmap.md), a `TracedArray`. Indexing, iterating, slicing,
`autograd.sum` and `vmap` mean the same on an array and on that list, and an
array (or a slice of one, or a `vmap` result over one) returned is a float64
array. Python's list operators do not mean the same (``xs * 2`` doubles an
array but repeats a list), nor do NumPy's functions on a list of nodes (a
sequential sum, not NumPy's pairwise one): those raise a `TypeError` that
says why, where they used to return the list's meaning silently.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar
from autograd.core.batching import TracedArray

np = pytest.importorskip("numpy")

XS = [0.5, -1.0, 2.0, -0.0, 3.0, 1.5, 0.25, -3.0, 4.0, 1.0, math.inf, 1e-300]


def _twice(x: Scalar) -> Scalar:
    return x * 2.0


def _mapped(xs: object) -> object:
    return ag.vmap(_twice)(xs)  # type: ignore[arg-type]  # an array: loosely typed here


def _shared_varies(xs: object) -> object:
    """A vmap whose shared argument varies in an earlier batch: `jit` traces the loop."""
    total = ag.sum(_mapped(xs))  # type: ignore[call-overload]  # a batch
    return ag.vmap(lambda x, s: x * s, (0, None))(xs, total)


def bits(tree: object) -> object:
    """What a wrong result could differ in: container type, length, each float's bits."""
    if isinstance(tree, np.ndarray):
        return ("array", str(tree.dtype), [bits(float(v)) for v in tree.tolist()])
    if isinstance(tree, list | tuple):
        return (type(tree).__name__, [bits(v) for v in tree])
    if isinstance(tree, dict):
        return ("dict", [(k, bits(v)) for k, v in tree.items()])
    if isinstance(tree, float):  # np.float64 too; nans alike (docs/numerics.md)
        return "nan" if math.isnan(tree) else struct.pack("<d", tree)
    return ("other", type(tree).__name__, repr(tree))


SAME: dict[str, Callable[[object], object]] = {
    "autograd.sum": lambda xs: ag.sum(xs),  # type: ignore[call-overload]  # an array
    "a comprehension": lambda xs: [ag.tanh(x) for x in xs],  # type: ignore[attr-defined]
    "an element": lambda xs: xs[3] * 3.0,  # type: ignore[index]
    "the array returned": lambda xs: xs,
    "slices returned": lambda xs: {"odd": xs[1::2], "back": (xs[::-1], xs[2:5])},  # type: ignore[index]
    "vmap then autograd.sum": lambda xs: ag.sum(_mapped(xs)),  # type: ignore[call-overload]
    "vmap returned": _mapped,
    "vmap of a slice": lambda xs: _mapped(xs[2:9]),  # type: ignore[index]
    "vmap looping, returned": _shared_varies,
    "a list of arrays mapped": lambda xs: ag.vmap(lambda p: p[0] * p[1])([xs, xs[::-1]]),  # type: ignore[index]
    "nested vmap": lambda xs: _nested(xs[:3], xs[3:6]),  # type: ignore[index]
}


def _nested(a: object, b: object) -> object:
    inner = ag.vmap(lambda u, v: u * 10.0 + v, in_axes=(None, 0))
    return ag.vmap(inner, in_axes=(0, None))(a, b)


REFUSED: dict[str, Callable[[object], object]] = {
    "xs * 2": lambda xs: xs * 2,  # type: ignore[operator]
    "2 * xs": lambda xs: 2 * xs,  # type: ignore[operator]
    "xs * 2.0": lambda xs: xs * 2.0,  # type: ignore[operator]
    "xs + xs": lambda xs: xs + xs,  # type: ignore[operator]
    "-xs": lambda xs: -xs,  # type: ignore[operator]
    "xs == xs": lambda xs: ag.sum(xs) * float(np.all(xs == xs)),  # type: ignore[call-overload]
    "xs[1:3] * 2": lambda xs: xs[1:3] * 2,  # type: ignore[index]
    "np.sum(xs)": lambda xs: np.sum(xs),
    "vmap(f)(xs) * 2": lambda xs: _mapped(xs) * 2,  # type: ignore[operator]
    "vmap(f)(xs) + vmap(f)(xs)": lambda xs: _mapped(xs) + _mapped(xs),  # type: ignore[operator]
    "vmap looping, * 2": lambda xs: _shared_varies(xs) * 2,  # type: ignore[operator]
}


@pytest.mark.parametrize("name", list(SAME))
def test_what_an_array_and_its_list_mean_alike_matches_eager(name: str) -> None:
    f = SAME[name]
    xs = np.array(XS)
    want = f(xs)
    jf = ag.jit(f)
    assert bits(jf(xs)) == bits(want)
    assert bits(jf(xs)) == bits(want)  # the compiled call, not the trace


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(SAME)),
    values=st.lists(st.floats(width=64), min_size=9, max_size=24),
)
def test_random_arrays_mean_what_they_mean_eagerly(name: str, values: list[float]) -> None:
    f = SAME[name]
    xs, back = np.array(values), np.array(values[::-1])
    with np.errstate(all="ignore"):  # an element is a NumPy scalar eagerly: it warns on inf
        want, want_back = bits(f(xs)), bits(f(back))
    jf = ag.jit(f)
    assert bits(jf(xs)) == want
    assert bits(jf(back)) == want_back  # the compiled call


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_list_operator_on_a_traced_array_raises_where_it_would_mean_the_lists(
    name: str,
) -> None:
    f = REFUSED[name]
    xs = np.array(XS)
    f(xs)  # eager: NumPy's meaning
    with pytest.raises(TypeError, match="traced as the list of its floats"):
        ag.jit(f)(xs)


def _tanh_sum(w: Scalar, xs: Sequence[Scalar]) -> Scalar:
    def one(x: Scalar) -> Scalar:
        return ag.tanh(w * x)

    return ag.sum(ag.vmap(one)(xs))


def _tanh_product(w: Scalar, x: Scalar) -> Scalar:
    return ag.tanh(w * x)


def _scaled_with_aux(w: Scalar, xs: Sequence[Scalar]) -> tuple[Scalar, object]:
    def one(x: Scalar) -> Scalar:
        return w * x

    scaled = ag.vmap(one)(xs)  # nodes eagerly (w is differentiated): a list, not an array
    return ag.sum(scaled), scaled


@attrs.frozen
class Data:
    xs: object
    w: float


CONTAINERS: dict[str, tuple[Callable[..., object], tuple[object, ...]]] = {
    "in a dict": (
        lambda d: {"s": ag.sum(_mapped(d["xs"])), "xs": d["xs"]},  # type: ignore[call-overload]
        ({"xs": XS},),
    ),
    "in an attrs class": (lambda a: (a.xs[2:], ag.vmap(lambda x: x * a.w)(a.xs)), (Data(XS, 3.0),)),
    "shared whole": (
        lambda a, b: ag.vmap(lambda x, bb: x * ag.sum(bb), in_axes=(0, None))(a, b),
        (XS, XS[:3]),
    ),
    "an empty slice": (lambda a: a[5:5], (XS,)),
    "a list of an array and a slice": (lambda a: [a, a[:2]], (XS,)),
    "differentiated beside one": (ag.grad(_tanh_sum), (0.7, XS)),
    "per-example gradients": (
        lambda w, xs: ag.vmap(ag.grad(_tanh_product), in_axes=(None, 0))(w, xs),
        (0.7, XS),
    ),
    "aux of a variable's products: a list": (
        ag.value_and_grad(_scaled_with_aux, has_aux=True),
        (0.7, XS),
    ),
}


def _arrays(tree: object) -> object:
    """``tree`` with each list of `XS` (or a slice of it) as a NumPy array."""
    if isinstance(tree, Data):
        return Data(_arrays(tree.xs), tree.w)
    if isinstance(tree, dict):
        return {k: _arrays(v) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(map(_arrays, tree))
    return np.array(tree) if isinstance(tree, list) else tree


@pytest.mark.parametrize("name", list(CONTAINERS))
def test_arrays_in_containers_come_back_as_eager_gives_them(name: str) -> None:
    f, given = CONTAINERS[name]
    args = _arrays(given)
    assert isinstance(args, tuple)
    want = bits(f(*args))
    jf = ag.jit(f)
    assert [bits(jf(*args)) for _ in range(3)] == [want] * 3


def test_an_array_in_aux_is_refused_as_eagerly() -> None:
    f = ag.value_and_grad(lambda w, xs: (w * 2.0, xs[::3]), has_aux=True)
    xs = np.array(XS)
    with pytest.raises(TypeError, match="aux is a"):
        f(0.7, xs)
    with pytest.raises(TypeError, match="aux is a"):
        ag.jit(f)(0.7, xs)


def test_an_array_in_an_inner_transforms_aux_raises_eagers_error() -> None:
    """Unused afterwards, too: eager's `value_and_grad` refuses it as it returns."""

    def with_aux(v: float, xs: object) -> tuple[ag.Scalar, object]:
        return v * 2.0, {"xs": xs}

    def f(w: float, xs: object) -> ag.Scalar:
        (value, _), _ = ag.value_and_grad(with_aux, has_aux=True)(w, xs)
        return value

    xs = np.array(XS)
    with pytest.raises(TypeError, match=r"aux\['xs'\] is a ndarray \(array"):
        f(0.7, xs)
    with pytest.raises(TypeError, match=r"aux\['xs'\] is a ndarray \(traced by jit: 12 "):
        ag.jit(f)(0.7, xs)


def test_on_lists_the_list_operators_mean_what_they_mean_eagerly() -> None:
    for name in ("xs * 2", "2 * xs", "xs + xs", "xs[1:3] * 2", "vmap(f)(xs) * 2"):
        f = REFUSED[name]
        assert bits(ag.jit(f)(list(XS))) == bits(f(list(XS)))


def test_a_traced_arrays_slice_and_copy_stay_traced_arrays() -> None:
    xs = TracedArray([1.0, 2.0, 3.0])
    assert type(xs[1:]) is TracedArray
    assert type(xs.copy()) is TracedArray
    assert xs[1] == 2.0
    with pytest.raises(TypeError, match="traced as the list"):
        xs * 2  # the operator is the test


def test_numpy_on_traced_numbers_raises_where_it_would_compute_otherwise() -> None:
    # NumPy adds a float64 array pairwise; a list of traced nodes, one by one
    xs = [(-1.0) ** k * 10.0 ** (k % 11 - 5) / (k + 3) for k in range(40)]

    def f(v: list[float]) -> float:
        return float(np.sum(v)) * 1.0

    f(xs)  # eager: NumPy's pairwise sum
    with pytest.raises(TypeError, match="NumPy was given"):
        ag.jit(f)(xs)


def test_numpy_on_nodes_of_the_eager_call_still_computes_as_eagerly() -> None:
    xs: list[Scalar] = [0.1 * k for k in range(20)]

    def loss(v: list[Scalar]) -> Scalar:
        total: Scalar = np.sum(v)  # an object array: each + a node's, in order
        return total * total

    eager = ag.value_and_grad(loss)(xs)
    assert bits(ag.jit(ag.value_and_grad(loss))(xs)) == bits(eager)
    assert isinstance(np.sum([ag.Leaf(1.0), ag.Leaf(2.0)]), ag.Node)
    assert isinstance(np.float64(2.0) * ag.Leaf(3.0), ag.Node)


@pytest.mark.parametrize(
    ("given", "path", "described"),
    [
        (np.arange(3.0, dtype=np.float32), "args[0]", "dtype float32 and shape (3,)"),
        (np.arange(3), "args[0]", "dtype int64 and shape (3,)"),
        ({"w": [1.0, np.zeros((2, 2))]}, "args[0]['w'][1]", "dtype float64 and shape (2, 2)"),
    ],
)
def test_an_array_jit_cannot_take_is_named_with_its_dtype_and_shape(
    given: object, path: str, described: str
) -> None:
    with pytest.raises(TypeError) as info:
        ag.jit(lambda a: 1.0)(given)
    assert str(info.value).startswith(f"jit(<lambda>): {path} is a NumPy array of {described}")
    assert "numpy.asarray(..., dtype=numpy.float64)" in str(info.value)
