"""A transform's results inside `jit`, computed on: as the eager call holds them.

Eagerly, ``grad(h)(x)`` under no other transform returns floats, so
``grad(h)(x) ** 3.0`` is Python's ``**`` (C ``pow``) and ``np.sum`` of such
results adds float64s pairwise. Traced, the same results are nodes; `jit`
marks them as floats of the eager call (`rules.float_result`) and compiles
what reads them as float arithmetic, or refuses NumPy on them. Under an outer
transform, or given a node, the eager call gets nodes: PyTorch's
scalar-exponent path, and NumPy's object arrays.

Each test compares bits with the eager call. ``POINT`` is one where the two
paths differ (C ``pow`` against ``g * g * g``): a `jit` computing on the wrong
kind gets another last bit there.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar
from autograd.compiler.jit import FALLBACKS

POINT = (2.0665311091502883, 2.5795440294030243)
"""``(x, c)``: ``cubic_slope(x, c) ** 3.0`` by C ``pow`` and by products differ in the last bit."""

EXPONENTS = (3.0, 1.5, -0.5, 1.0 / 3.0, -2.0)


def cubic(y: Scalar, c: Scalar) -> Scalar:
    return c * y * y * y + ag.sin(y)


def cubic_slope(x: Scalar, c: float) -> Scalar:
    return ag.grad(cubic)(x, c)


def bits(v: object) -> object:
    """Bits of floats in nested tuples, lists and dicts (float64 scalars as floats)."""
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, list | tuple):
        return [bits(x) for x in v]
    if isinstance(v, dict):
        return {k: bits(x) for k, x in v.items()}
    return v


def powers(rs: list[Scalar], p: float) -> Scalar:
    """Each result (they are finite where the tests draw) to the power ``p``, summed."""
    total: Scalar = 0.0
    for r in rs:
        total = total + (r * r + 1.0) ** p
    return total


TRANSFORMS: dict[str, Callable[[float, float], list[Scalar]]] = {
    "grad": lambda x, c: [ag.grad(cubic)(x, c)],
    "value_and_grad, aux": lambda x, c: _value_and_grad(x, c),
    "jvp": lambda x, c: list(ag.jvp(lambda y: cubic(y, c), (x,), (0.75,))),
    "vjp": lambda x, c: _vjp(x, c),
    "jacobian": lambda x, c: [ag.jacobian(cubic)(x, c)],
    "hessian": lambda x, c: [ag.hessian(cubic)(x, c)],
}


def _value_and_grad(x: float, c: float) -> list[Scalar]:
    def with_aux(y: Scalar) -> tuple[Scalar, Scalar]:
        v = cubic(y, c)
        return v, v * 0.5

    (value, aux), g = ag.value_and_grad(with_aux, has_aux=True)(x)
    return [value, aux, g]


def _vjp(x: float, c: float) -> list[Scalar]:
    value, pull = ag.vjp(lambda y: cubic(y, c), x)
    (g,) = pull(0.625)
    return [value, g]


@pytest.mark.parametrize("name", TRANSFORMS)
@pytest.mark.parametrize("p", EXPONENTS)
def test_results_are_computed_on_as_floats(name: str, p: float) -> None:
    transform = TRANSFORMS[name]

    def f(x: float, c: float) -> Scalar:
        return powers(transform(x, c), p)

    compiled = ag.jit(f, static_argnums=1)
    for x, c in [POINT, (0.5, -1.25), (-1.75, 0.3)]:
        assert bits(compiled(x, c)) == bits(f(x, c)), (name, p, x, c)


def test_the_point_tells_the_two_paths_apart() -> None:
    """Without this, the tests above could pass with `jit` computing on the wrong kind."""
    g = cubic_slope(*POINT)
    assert isinstance(g, float)
    assert g**3.0 != g * g * g


@settings(max_examples=60, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(-5.0, 5.0), st.sampled_from(EXPONENTS))
def test_random_points(x: float, c: float, p: float) -> None:
    def f(x: Scalar) -> Scalar:
        g = cubic_slope(x, c)
        return (g * g + 1.0) ** p + g**3.0

    assert bits(ag.jit(f)(x)) == bits(f(x))


def test_a_result_read_inside_a_later_transform_is_a_float_there() -> None:
    def f(x: Scalar) -> Scalar:
        g = cubic_slope(x, POINT[1])

        def later(y: Scalar) -> Scalar:
            return g**3.0 * y + y * y

        return ag.grad(later)(x)

    assert bits(ag.jit(f)(POINT[0])) == bits(f(POINT[0]))


def test_under_an_outer_transform_results_are_nodes() -> None:
    """Eagerly `grad`'s results are nodes under an outer transform: the node's path."""
    x, c = POINT
    g = cubic_slope(x, c)
    assert isinstance(g, float)
    by_products = bits(g * g * g)  # the node's path at this exponent: not C ``pow``'s bits

    def f(x: Scalar) -> Scalar:
        return cubic_slope(x, c) ** 3.0 + 0.0 * x

    value, _ = ag.value_and_grad(f)(x)
    assert bits(value) == by_products
    for outer in (ag.grad(f), ag.value_and_grad(f)):
        assert bits(ag.jit(outer)(x)) == bits(outer(x))

    def inner(x: Scalar) -> object:  # the power taken inside an inner transform
        return ag.value_and_grad(lambda y: cubic_slope(y, c) ** 3.0)(x)

    assert bits(inner(x)[0]) == by_products  # type: ignore[index]  # a (value, grad) pair
    assert bits(ag.jit(inner)(x)) == bits(inner(x))


def test_a_transform_given_a_node_gives_nodes() -> None:
    def f(x: Scalar) -> Scalar:
        g = ag.grad(cubic)(ag.Leaf(POINT[0]), POINT[1])  # a node in, a node out, eagerly too
        return g**3.0 * x

    got, want = ag.jit(f)(0.5), f(0.5)  # nodes, both: a user's Leaf is an input of neither
    assert isinstance(got, ag.Node)
    assert isinstance(want, ag.Node)
    assert bits(got.value) == bits(want.value)


def test_results_are_floats_in_every_vmap_example() -> None:
    def f(x: Scalar) -> Scalar:
        return cubic_slope(x, POINT[1]) ** 3.0

    xs = [POINT[0], 0.5, -1.75] * 4  # 12 examples: `jit` runs one batch
    assert bits(ag.jit(ag.vmap(f))(xs)) == bits(ag.vmap(f)(xs))


@pytest.mark.parametrize("as_array", [False, True])
def test_results_are_floats_in_a_vmap_inside_jit(as_array: bool) -> None:
    """40 examples: the trace runs the `vmap` as one batch (`BatchTrace`)."""

    def f(x: Scalar) -> Scalar:
        return cubic_slope(x, POINT[1]) ** 3.0

    def mapped(xs: list[float]) -> list[Scalar]:
        return ag.vmap(f)(xs)

    def summed(xs: list[float]) -> Scalar:
        return ag.sum(list(ag.vmap(f)(xs))) * 1.0

    points = [0.15 * k - 3.0 for k in range(40)]
    xs = np.array(points) if as_array else points
    assert sum(_node_path(cubic_slope(x, POINT[1])) for x in points) >= 5  # type: ignore[arg-type]
    for g in (mapped, summed):
        got, want = ag.jit(g)(xs), g(xs)  # type: ignore[arg-type]  # an array, as a user passes it
        assert type(got) is type(want)
        assert bits(np.asarray(got).tolist()) == bits(np.asarray(want).tolist())


def test_numpy_on_results_is_refused_where_eager_adds_float64s() -> None:
    cs = [0.1 * k - 2.0 for k in range(40)]

    def f(x: Scalar) -> object:
        return np.sum([cubic_slope(x, c) for c in cs]) * 1.0 + x

    eager = f(0.7)  # float64s added pairwise: no traced program adds so
    assert isinstance(eager, float)
    assert math.isfinite(eager)
    with pytest.raises(TypeError, match="a number in the eager call"):
        ag.jit(f)(0.7)


def test_numpy_on_results_under_an_outer_transform_is_traced() -> None:
    """There the eager call's NumPy holds nodes (object arrays), as the trace does."""
    cs = [0.1 * k - 2.0 for k in range(12)]

    def f(x: Scalar) -> Scalar:
        held: list[Scalar] = list(np.asarray([cubic_slope(x, c) for c in cs], dtype=object))
        return ag.sum(held) * x

    assert bits(ag.jit(ag.grad(f))(0.7)) == bits(ag.grad(f)(0.7))


def test_a_result_returned_as_it_is_keeps_its_bits() -> None:
    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_0000_0ABC))[0]

    def f(x: Scalar) -> list[Scalar]:
        return [ag.grad(lambda y: y * x)(-0.0), ag.grad(lambda y: y * y)(x)]

    for x in (-0.0, nan, math.inf):
        assert bits(ag.jit(f)(x)) == bits(f(x)), x


CANDIDATES = [0.1 * k + 0.05 for k in range(-30, 30)]
"""Points to draw from: at about a quarter, C ``pow(v, 3.0)`` and ``v * v * v`` differ."""


def _node_path(v: float) -> bool:
    """Whether the node's path (``v * v * v``) gives other bits than C ``pow`` at ``v``."""
    return bits(v * v * v) != bits(v**3.0)


def test_plain_arguments_under_an_outer_transform_give_nodes() -> None:
    """The eager call's inner `grad` of a plain argument under `grad`: nodes, not floats."""

    def f(x: Scalar, c: Scalar) -> Scalar:
        return ag.grad(cubic)(c, 1.3) ** 3.0 + 0.0 * x

    outer = ag.value_and_grad(f)
    told = 0
    for c in CANDIDATES:
        g = cubic_slope(c, 1.3)
        assert isinstance(g, float)
        told += _node_path(g)
        assert bits(ag.jit(outer)(0.5, c)) == bits(outer(0.5, c)), c
    assert told >= 5


def test_inside_an_inner_transform_a_transform_gives_nodes() -> None:
    def f(x: Scalar, c: Scalar) -> object:
        return ag.value_and_grad(lambda y: ag.grad(cubic)(c, 1.3) ** 3.0 + 0.0 * y)(x)

    for c in CANDIDATES:
        assert bits(ag.jit(f)(0.5, c)) == bits(f(0.5, c)), c


def _number(v: object) -> object:
    """A result's number: the eager call returns a node where a kept variable is read."""
    return v.value if isinstance(v, ag.Node) else v


def _leaked(x: Scalar) -> Scalar:
    """A variable of `grad`'s, kept past its call: a node in the eager call too."""
    kept: list[Scalar] = []

    def keep(y: Scalar) -> Scalar:
        kept.append(y)
        return y * y

    ag.grad(keep)(x)
    return kept[0] * 1.5


def test_a_transform_given_a_node_gives_nodes_at_every_level() -> None:
    def f(x: Scalar) -> Scalar:
        value, g = ag.value_and_grad(cubic)(_leaked(x), 1.3)
        return value**3.0 + g * 0.0

    told = 0
    for x in CANDIDATES:
        value = cubic(x * 1.5, 1.3)
        assert isinstance(value, float)
        told += _node_path(value)
        assert bits(ag.jit(f)(x)) == bits(_number(f(x))), x
    assert told >= 5


def test_a_node_tangent_gives_nodes() -> None:
    def f(x: Scalar) -> Scalar:
        value, tangent = ag.jvp(lambda y: cubic(y, 1.3), (x,), (_leaked(x),))
        return value**3.0 + tangent * 0.0

    for x in CANDIDATES:
        assert bits(ag.jit(f)(x)) == bits(_number(f(x))), x


NAN_PAYLOAD = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_0000_0ABC))[0]

AT_CONSTANTS: dict[str, Callable[[Scalar], object]] = {
    "grad": lambda x: ag.grad(lambda c: c * x * c + ag.sin(c * x))(0.5),
    "grad, int past 2**53": lambda x: ag.grad(lambda c: c * x + c * c)(2**60 + 1),
    "value_and_grad, -0.0": lambda x: ag.value_and_grad(lambda c: c * x + c)(-0.0),
    "value_and_grad, a nan's payload": lambda x: ag.value_and_grad(lambda c: c)(NAN_PAYLOAD),
    "argnums, a dict": lambda x: ag.grad(lambda p, q: p["a"] * x * q, argnums=(0, 1))(
        {"a": 0.5}, 1.5
    ),
    "one traced, one constant": lambda x: ag.grad(lambda a, c: a * c * c, argnums=(0, 1))(x, 0.5),
    "jvp": lambda x: ag.jvp(lambda c: c * x * c, (0.5,), (1.0,)),
    "vjp": lambda x: ag.vjp(lambda c: c * x * c, 0.5)[1](1.0),
    "jacobian": lambda x: ag.jacobian(lambda c: [c * x, c * c])(0.5),
    "hessian": lambda x: ag.hessian(lambda c: c * x * c * c)(0.5),
    "grad of grad": lambda x: ag.grad(ag.grad(lambda c: c * c * c * x))(0.7),
    "constants only": lambda x: cubic_slope(POINT[0], POINT[1]) ** 3.0 * x,
}


@pytest.mark.parametrize("name", AT_CONSTANTS)
def test_a_transform_at_constant_points_is_compiled(name: str) -> None:
    """Its variables are ``Const * 1.0`` in a trace, not fresh leaves the program lacks.

    A fresh `Leaf` is a node from outside the call: `jit` fell back to running
    the function eagerly for good (`FALLBACKS["external node"]`).
    """
    f = AT_CONSTANTS[name]
    calls: list[float] = []

    def counted(x: Scalar) -> object:
        calls.append(0.0)
        return f(x)

    before = dict(FALLBACKS)
    jf = ag.jit(counted)
    for x in (1.3, -0.25, 1.3):
        assert bits(jf(x)) == bits(f(x)), (name, x)
    assert dict(FALLBACKS) == before
    assert len(calls) == 1  # one trace; run eagerly, each call would call it again


# ---- stop_gradient: a number of the eager call is returned as it is ---------------------------


def _target_loss(pred: Scalar, target: Scalar) -> Scalar:
    return (pred * pred - ag.stop_gradient(target * 1.5)) ** 2.0


STOPPED: dict[str, tuple[Callable[..., object], tuple[float, ...]]] = {
    "a target grad does not differentiate": (ag.grad(_target_loss), (0.7, 0.3)),
    "a plain argument": (lambda x: ag.stop_gradient(x) ** 3.0 * 2.0, POINT[:1]),
    "a transform's result": (
        lambda x: ag.stop_gradient(cubic_slope(x, POINT[1])) ** 3.0,
        POINT[:1],
    ),
    "a pytree": (lambda x, c: ag.stop_gradient({"a": [x * c, c]}), (0.7, 0.3)),
}


@pytest.mark.parametrize("name", STOPPED)
def test_stop_gradient_of_a_number_of_the_eager_call_compiles(name: str) -> None:
    """Eagerly it gets a float and returns it; traced, the node is returned as it is."""
    f, args = STOPPED[name]
    before = dict(FALLBACKS)
    jf = ag.jit(f)
    for call in (args, tuple(-0.5 * a for a in args)):
        assert bits(jf(*call)) == bits(f(*call)), (name, call)
    assert dict(FALLBACKS) == before


def test_stop_gradient_of_a_differentiated_node_is_refused() -> None:
    """Its value would be frozen into the compiled code (docs/jit.md)."""
    f = ag.grad(lambda x: x * ag.stop_gradient(x))
    assert f(3.0) == 3.0
    with pytest.raises(TypeError, match=r"reads `\.value` of"):
        ag.jit(f)(3.0)
