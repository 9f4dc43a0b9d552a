"""Negative ``argnums`` count from the end of each call's positional arguments, as in JAX.

The oracle is mpmath (`strategies.mp_derivative`): each gradient is checked
against the partial derivative with respect to the argument the negative
index names in that call, never against the transform with a non-negative
index alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import MP, floats, mp_derivative

import autograd as ag
from autograd import Scalar


def f3(x: Scalar, y: Scalar, z: Scalar) -> Scalar:
    return x * y * y + ag.exp(z) * y - ag.tanh(x * z)


def mp_f3(x: MP, y: MP, z: MP) -> MP:
    return x * y * y + mpmath.exp(z) * y - mpmath.tanh(x * z)


def d(i: int, xs: Sequence[float]) -> float:
    """∂f3/∂x_i at ``xs`` (mpmath)."""
    return mp_derivative(mp_f3, xs, [1 if j == i else 0 for j in range(3)])


def close(got: object, want: float) -> bool:
    return isinstance(got, float) and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)


POINT = st.tuples(floats(-2.0, 2.0), floats(-2.0, 2.0), floats(-2.0, 2.0))


@settings(max_examples=25, deadline=None)
@given(POINT)
def test_minus_one_is_the_last_argument(xs: tuple[float, float, float]) -> None:
    assert close(ag.grad(f3, argnums=-1)(*xs), d(2, xs))
    assert close(ag.grad(f3, argnums=-3)(*xs), d(0, xs))
    value, g = ag.value_and_grad(f3, argnums=-2)(*xs)
    assert close(g, d(1, xs))
    assert value == f3(*xs)


@settings(max_examples=25, deadline=None)
@given(POINT)
def test_tuples_mix_signs_and_keep_their_order(xs: tuple[float, float, float]) -> None:
    gz, gx = ag.grad(f3, argnums=(-1, 0))(*xs)
    assert close(gz, d(2, xs))
    assert close(gx, d(0, xs))
    _, (gx, gy) = ag.value_and_grad(f3, argnums=(0, -2))(*xs)
    assert close(gx, d(0, xs))
    assert close(gy, d(1, xs))
    jz, jy = cast("tuple[float, float]", ag.jacobian(f3, argnums=(-1, 1))(*xs))
    assert close(jz, d(2, xs))
    assert close(jy, d(1, xs))


def test_resolved_against_each_call() -> None:
    """With ``*args`` the last argument is a different parameter from call to call."""

    def weighted(*xs: Scalar) -> Scalar:
        return sum((x * (i + 1.0) for i, x in enumerate(xs)), start=0.0)

    g = ag.grad(weighted, argnums=-1)
    assert g(5.0) == 1.0
    assert g(5.0, 5.0) == 2.0
    assert g(5.0, 5.0, 5.0) == 3.0
    first_last = ag.grad(weighted, argnums=(0, -1))
    assert first_last(5.0, 5.0) == (1.0, 2.0)
    assert first_last(5.0, 5.0, 5.0, 5.0) == (1.0, 4.0)


def test_hessian_of_the_last_argument() -> None:
    xs = (0.3, -0.7, 1.1)
    want = mp_derivative(mp_f3, xs, [0, 0, 2])
    assert close(ag.hessian(f3, argnums=-1)(*xs), want)
    hess = ag.hessian(f3, argnums=(-1, 0))(*xs)
    ((hzz, hzx), (hxz, hxx)) = cast("tuple[tuple[float, float], tuple[float, float]]", hess)
    assert close(hzz, want)
    assert close(hzx, mp_derivative(mp_f3, xs, [1, 0, 1]))
    assert hzx == hxz
    assert close(hxx, mp_derivative(mp_f3, xs, [2, 0, 0]))


def test_pytree_argument_paths_name_the_resolved_parameter() -> None:
    def loss(scale: Scalar, p: dict[str, Scalar]) -> Scalar:
        return scale * p["w"] * p["w"]

    assert ag.grad(loss, argnums=-1)(3.0, {"w": 2.0}) == {"w": 12.0}
    with pytest.raises(TypeError, match=r"p\['w'\]"):
        ag.grad(loss, argnums=-1)(3.0, {"w": "2"})  # type: ignore[dict-item]  # the mistake under test


def test_has_aux_with_minus_one() -> None:
    def with_aux(x: Scalar, y: Scalar) -> tuple[Scalar, Scalar]:
        return x * y * y, y

    g, aux = ag.grad(with_aux, argnums=-1, has_aux=True)(2.0, 3.0)  # type: ignore[call-overload]  # no overload types has_aux with argnums != 0
    assert (g, aux) == (12.0, 3.0)


def test_nested_transform_passes_nodes_to_the_last_argument() -> None:
    """Inside an outer grad the last argument is a node: it gets its own variable."""

    def product(a: Scalar, b: Scalar) -> Scalar:
        return a * b * b

    def outer(x: Scalar) -> Scalar:
        inner = ag.grad(product, argnums=-1)  # 2 a b, at a = b = x
        return inner(x, x)  # type: ignore[arg-type]  # typed for a float, as for argnums=1

    assert ag.grad(outer)(3.0) == 12.0  # d/dx 2 x^2


OUT_OF_RANGE: list[tuple[Callable[[], object], str]] = [
    (
        lambda: ag.grad(f3, argnums=-4)(1.0, 2.0, 3.0),
        r"^grad\(\.\.\., argnums=-4\): the function was called with 3 positional argument\(s\); "
        "differentiated arguments are positional",
    ),
    (
        lambda: ag.value_and_grad(f3, argnums=(0, -3))(1.0, 2.0, z=3.0),
        r"^value_and_grad\(\.\.\., argnums=-3\): the function was called with 2 positional",
    ),
    (
        lambda: ag.jacobian(f3, argnums=-4)(1.0, 2.0, 3.0),
        r"^jacobian\(\.\.\., argnums=-4\): the function was called with 3 positional",
    ),
    (
        lambda: ag.hessian(f3, argnums=(-1, -5))(1.0, 2.0, 3.0),
        r"^hessian\(\.\.\., argnums=-5\): the function was called with 3 positional",
    ),
]


@pytest.mark.parametrize(("call", "match"), OUT_OF_RANGE)
def test_out_of_range_names_argnums_and_the_count(call: Callable[[], object], match: str) -> None:
    with pytest.raises(TypeError, match=match):
        call()


def test_duplicates_after_resolution_are_refused_at_call() -> None:
    def two(x: Scalar, y: Scalar = 1.0) -> Scalar:
        return x * y

    g = ag.grad(two, argnums=(0, -1))
    assert g(2.0, 3.0) == (3.0, 2.0)  # two arguments: distinct
    repeated = r"^grad\(\): argnums \(0, -1\) repeats an argument: with 1 positional argument"
    with pytest.raises(ValueError, match=rf"{repeated}\(s\) they are \(0, 0\)$"):
        g(2.0)  # type: ignore[call-arg]  # the mistake under test
    with pytest.raises(ValueError, match=r"argnums \(1, -1\) repeats an argument"):
        ag.value_and_grad(two, argnums=(1, -1))(2.0, 3.0)
    with pytest.raises(ValueError, match=r"^grad\(\): argnums \(-1, -1\) repeats an argument$"):
        ag.grad(two, argnums=(-1, -1))  # given twice: refused when the transform is made


# ---- jit --------------------------------------------------------------------


def test_jit_of_grad_with_negative_argnums_is_eager_bit_for_bit() -> None:
    xs = (0.3, -0.7, 1.1)
    for argnums in (-1, -2, (0, -1), (-1, -3)):
        eager = ag.value_and_grad(f3, argnums=argnums)(*xs)
        assert ag.jit(ag.value_and_grad(f3, argnums=argnums))(*xs) == eager
        assert ag.jit(ag.grad(f3, argnums=argnums))(*xs) == eager[1]


def test_jit_traces_each_arity_with_its_own_resolution() -> None:
    def weighted(*xs: Scalar) -> Scalar:
        return sum((x * x * (i + 1.0) for i, x in enumerate(xs)), start=0.0)

    jg = ag.jit(ag.grad(weighted, argnums=-1))
    assert jg(2.0) == 4.0  # 2 x
    assert jg(2.0, 3.0) == 12.0  # 2 * 2 * y
    assert jg(2.0) == 4.0  # the first trace, from the cache
    assert jg(2.0, 3.0, 5.0) == 30.0


def test_jit_static_and_differentiated_negative_indices_meet_at_call() -> None:
    def two(x: Scalar, k: Scalar) -> Scalar:
        return x * k

    assert ag.jit(ag.grad(two, argnums=-2), static_argnums=-1)(3.0, 4.0) == 4.0
    with pytest.raises(
        ValueError, match=r"argument 1 is differentiated \(argnums \(1,\)\) and cannot be static"
    ):
        ag.jit(ag.grad(two, argnums=-1), static_argnums=1)(3.0, 4.0)
    with pytest.raises(ValueError, match=r"argument 0 is differentiated"):
        ag.jit(ag.grad(two, argnums=(0, -1)), static_argnums=-2)(3.0, 4.0)
    with pytest.raises(
        TypeError, match=r"^grad\(\.\.\., argnums=-3\): the function was called with 2"
    ):
        ag.jit(ag.grad(two, argnums=-3))(3.0, 4.0)
