"""`jit` composed with every transform, in either order, bit for bit against eager.

The property tests draw random programs and transform stacks
(tests/compose_fuzz.py); the named tests are the compositions issue 10 names,
and the masks of relu and pow crossing their boundary between the call that
traces and the call that runs the compiled code. Every result is compared
with ``struct.pack`` on each float (``-0.0`` is not ``0.0``, nan is not a
number), and the eager results of the named tests also against mpmath, so
eager and jit cannot agree on a wrong value.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Node, Scalar

sys.path.insert(0, str(Path(__file__).parent))
import compose_fuzz
from compose_fuzz import SKIPPED, TRANSFORMS, Case, bits, cases, check
from strategies import MP, as_node, close, mp_derivative
from strategies import UNARY as MP_UNARY

INF, NAN = math.inf, math.nan


def agree(case: Case, arrays: bool = False) -> None:
    why = check(case, arrays)
    if why == SKIPPED:
        reject()  # the eager call raised on two plain floats, as Python's float ops do
    assert why is None, f"{compose_fuzz.describe(case)}: {why}"


# ---- random programs under random stacks ---------------------------------------------------


@pytest.mark.parametrize("kind", TRANSFORMS)
@given(data=st.data())
def test_jit_of_one_transform_matches_eager(kind: str, data: st.DataObject) -> None:
    agree(data.draw(cases([kind], jit_level=1)))


@given(data=st.data())
def test_jit_of_two_transforms_matches_eager(data: st.DataObject) -> None:
    kinds = data.draw(st.lists(st.sampled_from(TRANSFORMS), min_size=2, max_size=2))
    agree(data.draw(cases(kinds, jit_level=2)))


@pytest.mark.parametrize("inner", TRANSFORMS)
@given(data=st.data())
def test_transform_of_jit_of_transform_matches_eager(inner: str, data: st.DataObject) -> None:
    outer = data.draw(st.sampled_from(TRANSFORMS))  # grad(jit(grad(f))) and its relatives
    agree(data.draw(cases([inner, outer], jit_level=1)))


@given(cases(nested_jit=None))
def test_jit_anywhere_in_random_stacks_matches_eager(case: Case) -> None:
    agree(case)


@given(cases(nested_jit=True))
def test_jit_nested_in_jit_matches_eager(case: Case) -> None:
    agree(case)


@given(data=st.data())
def test_results_of_transforms_computed_on_match_eager(data: st.DataObject) -> None:
    """A program on a transform's results (`compose_fuzz.THEN`), under `jit` or an outer transform.

    Under no other transform the eager call holds them as floats (Python's ``**``), under
    one as nodes (PyTorch's scalar-exponent path): `jit` must know which.
    """
    inner = data.draw(st.sampled_from(TRANSFORMS))
    outer = data.draw(st.lists(st.sampled_from(TRANSFORMS), max_size=1))
    kinds = [inner, compose_fuzz.THEN, *outer]
    agree(data.draw(cases(kinds, jit_level=data.draw(st.integers(2, len(kinds))))))


@given(data=st.data())
def test_transforms_at_constant_points_match_eager(data: st.DataObject) -> None:
    """A transform whose first argument is a constant (`compose_fuzz.AT`): compiled, not eager."""
    inner = data.draw(st.sampled_from(TRANSFORMS))
    outer = data.draw(st.lists(st.sampled_from(TRANSFORMS), max_size=1))
    kinds = [inner, compose_fuzz.AT, *outer]
    agree(data.draw(cases(kinds, jit_level=data.draw(st.integers(1, len(kinds))))))


@given(cases(nested_jit=None, then=True))
def test_random_stacks_with_programs_on_results_match_eager(case: Case) -> None:
    agree(case)


@given(data=st.data())
def test_random_stacks_over_numpy_arrays_match_eager(data: st.DataObject) -> None:
    pytest.importorskip("numpy")
    kinds = data.draw(st.lists(st.sampled_from(TRANSFORMS), min_size=1, max_size=3))
    drawn = cases(["vmap", *kinds], jit_level=None, sizes=(1, 2, 40))
    agree(data.draw(drawn), arrays=True)


@settings(max_examples=150)
@given(data=st.data())
def test_jit_of_vmap_over_numpy_arrays_matches_eager(data: st.DataObject) -> None:
    pytest.importorskip("numpy")  # 40 examples: `jit` runs them as one batched program
    outer = data.draw(st.lists(st.sampled_from(TRANSFORMS), max_size=1))
    agree(data.draw(cases(["vmap", *outer], jit_level=1, sizes=(40,))), arrays=True)


# ---- the compositions the issue names -------------------------------------------------------


def assert_jit_matches(fn: Callable[..., object], *calls: Sequence[object]) -> None:
    """``jit(fn)`` gives ``fn``'s bits on every call; the first call traces, the rest compile."""
    jitted = ag.jit(fn)
    for args in calls:
        want = fn(*args)
        got = jitted(*args)
        assert bits(got) == bits(want), f"at {args!r}: eager {want!r}, jit {got!r}"


def assert_mp(actual: float, f: Callable[[MP], MP], x: float, order: int) -> None:
    """The eager value against mpmath's derivative: jit and eager cannot agree on a wrong one."""
    expected = mp_derivative(f, [x], [order])
    assert close(actual, expected, rtol=1e-13, atol=1e-15), (actual, expected)


def cube(x: Scalar) -> Scalar:
    return x**3


def test_jit_grad_grad_of_cube() -> None:
    f = ag.grad(ag.grad(cube))
    assert_mp(f(0.3), lambda x: x**3, 0.3, 2)
    assert_jit_matches(f, (0.3,), (-0.0,), (0.0,), (-2.0,), (INF,), (NAN,))


def square_times(p: Sequence[Node]) -> Scalar:
    return p[0] ** 2 * p[1]


def test_jit_hessian_of_product() -> None:
    f = ag.hessian(square_times)
    assert f([0.3, 0.4]) == [[0.8, 0.6], [0.6, 0.0]]
    assert_jit_matches(f, ([0.3, 0.4],), ([-0.0, 0.0],), ([2.0, -3.0],), ([INF, 0.0],))


def tanh_cubed_exp(x: Scalar) -> Scalar:
    return ag.tanh(x) ** 3 * ag.exp(x)


def test_jit_grad_grad_of_tanh_cubed_times_exp() -> None:
    f = ag.grad(ag.grad(tanh_cubed_exp))
    tanh, exp = MP_UNARY["tanh"][1], MP_UNARY["exp"][1]
    assert_mp(f(0.3), lambda x: tanh(x) ** 3 * exp(x), 0.3, 2)
    assert_jit_matches(f, (0.3,), (-0.0,), (-1.5,), (25.0,), (-INF,))


def test_jit_jacobian() -> None:
    f = ag.jacobian(lambda p: [p[0] / p[1], ag.relu(p[0]) * ag.sigmoid(p[1]), p[1]])
    assert_jit_matches(f, ([0.3, 0.4],), ([0.0, -0.0],), ([-1.0, 0.0],), ([NAN, 2.0],))


def test_jit_of_a_function_calling_jvp() -> None:
    def pushed(x: float, t: float) -> object:
        return ag.jvp(lambda x: ag.tanh(x) * ag.log(x) + x**0.5, (x,), (t,))

    assert_jit_matches(pushed, (0.3, 1.0), (0.0, 1.0), (-0.0, -2.0), (2.0, 0.0), (-1.0, INF))


def test_jit_of_a_function_calling_vjp() -> None:
    def pulled(x: float, y: float, g: float) -> object:
        value, vjp_fn = ag.vjp(lambda x, y: ag.relu(x) * y**x / y, x, y)
        return value, vjp_fn(g)

    calls = [(0.3, 0.4, 1.0), (0.0, 0.4, 1.0), (-0.0, 0.0, -1.0), (-2.0, -3.0, 0.5)]
    assert_jit_matches(pulled, *calls)


def sigmoid_square(x: Scalar) -> Scalar:
    return ag.sigmoid(x) * x**2.0


def test_grad_of_jit_of_grad() -> None:
    inner = ag.jit(ag.grad(sigmoid_square))
    eager_inner = ag.grad(sigmoid_square)
    f = ag.grad(lambda x: as_node(inner(x)) * x)
    eager = ag.grad(lambda x: as_node(eager_inner(x)) * x)
    for x in (0.3, 0.0, -0.0, -1e-3, 40.0):
        assert bits(f(x)) == bits(eager(x)), x


def test_jit_of_grad_of_jit_of_grad() -> None:
    inner: Callable[..., object] = ag.jit(ag.grad(sigmoid_square))  # called on a node here

    def outer(x: Node) -> Node:
        return as_node(inner(x)) * x

    assert_jit_matches(ag.grad(outer), (0.3,), (-0.0,), (2.0,))


def test_jit_of_value_and_grad_with_aux() -> None:
    def loss(p: Sequence[Node]) -> tuple[Scalar, list[Scalar]]:
        z = ag.relu(p[0]) ** p[1] + ag.tanh(p[1])
        return z * z, [z, p[0], 2.0]  # the aux holds an input and a constant

    f = ag.value_and_grad(loss, has_aux=True)
    assert_jit_matches(f, ([0.3, 2.0],), ([0.0, 2.0],), ([-0.0, 0.0],), ([-1.0, -1.0],))


def test_jit_of_vmap_of_grad() -> None:
    f = ag.vmap(ag.grad(lambda x: ag.relu(x) * x**3 / (1.0 + ag.exp(x))))
    batch = [0.3, 0.0, -0.0, -2.0, INF]
    assert_jit_matches(f, (batch,), ([-0.3, 0.3, 0.0, NAN, 1e300],))


def test_jit_of_jit_of_grad() -> None:
    assert_jit_matches(ag.jit(ag.grad(relu_times_x)), (0.3,), (-0.0,), (-0.3,))


def test_jit_of_hessian_of_vmapped_sum() -> None:
    f = ag.hessian(lambda xs: ag.sum(ag.vmap(lambda x: ag.log(x) * ag.tanh(x))(xs)))
    assert_jit_matches(f, ([0.3, 2.0],), ([0.0, -0.0],), ([-1.0, INF],))


# ---- masks crossing their boundary after the trace ----------------------------------------


def relu_times_x(x: Scalar) -> Scalar:
    return ag.relu(x) * x


def relu_times_square(p: Sequence[Node]) -> Scalar:
    return ag.relu(p[0]) * p[1] ** 2


MASK_EDGES = [0.0, -0.0, -0.3, 1e-310, -5e-324, NAN, INF, -INF]


@pytest.mark.parametrize("x", MASK_EDGES)
def test_relu_mask_of_a_first_derivative_decided_at_run_time(x: float) -> None:
    assert_jit_matches(ag.grad(relu_times_x), (0.3,), (x,), (0.3,))
    assert_jit_matches(ag.value_and_grad(ag.relu), (-0.3,), (x,), (-0.3,))


@pytest.mark.parametrize("x", MASK_EDGES)
def test_relu_mask_of_a_second_derivative_decided_at_run_time(x: float) -> None:
    assert_jit_matches(ag.grad(ag.grad(relu_times_x)), (0.3,), (x,), (0.3,))
    assert_jit_matches(ag.grad(ag.grad(relu_times_x)), (-0.3,), (x,), (-0.3,))
    assert_jit_matches(ag.hessian(relu_times_square), ([0.3, 2.0],), ([x, x],))


EXPONENTS = [0.0, 0.5, 2.0, -1.0, 1.0, 3.0, -0.5]


def power(c: float) -> Callable[[Scalar], Scalar]:
    def f(x: Scalar) -> Scalar:
        return x**c

    return f


BASES = [0.0, -0.0, -2.0, 0.3, INF, -INF, NAN]


@pytest.mark.parametrize("c", EXPONENTS)
@pytest.mark.parametrize("x", BASES)
def test_pow_constant_exponent_first_derivative_after_the_trace(c: float, x: float) -> None:
    assert_jit_matches(ag.grad(power(c)), (0.7,), (x,))


@pytest.mark.parametrize("c", EXPONENTS)
@pytest.mark.parametrize("x", BASES)
def test_pow_constant_exponent_second_derivative_after_the_trace(c: float, x: float) -> None:
    assert_jit_matches(ag.grad(ag.grad(power(c))), (0.7,), (x,))


NODE_POWS = [[0.0, 2.0], [0.0, 0.0], [-0.0, -1.0], [-2.0, 2.0], [0.0, 0.5], [-2.0, 0.0]]
NODE_POWS += [[0.0, -0.0], [INF, 0.0], [NAN, 0.0]]


def node_power(p: Sequence[Node]) -> Scalar:
    return p[0] ** p[1]


@pytest.mark.parametrize("p", NODE_POWS)
def test_pow_node_exponent_first_derivative_after_the_trace(p: list[float]) -> None:
    assert_jit_matches(ag.grad(node_power), ([0.3, 2.0],), (p,))


@pytest.mark.parametrize("p", NODE_POWS)
def test_pow_node_exponent_second_derivative_after_the_trace(p: list[float]) -> None:
    assert_jit_matches(ag.hessian(node_power), ([0.3, 2.0],), (p,))


NEW_OPS = ["abs", "sqrt", "sin", "cos"]


@pytest.mark.parametrize("name", NEW_OPS)
def test_jit_grad_grad_of_an_op_added_later(name: str) -> None:
    if not hasattr(ag, name):
        pytest.skip(f"autograd has no {name} yet")
    op: Callable[[Scalar], Scalar] = getattr(ag, name)
    f = ag.grad(ag.grad(lambda x: op(x) * x))
    assert_jit_matches(f, (0.3,), (0.0,), (-0.0,), (-2.0,), (1e22,), (INF,), (NAN,))
    quotient: Callable[[Sequence[Node]], Scalar] = lambda p: op(p[0]) / p[1]  # noqa: E731 - typed
    assert_jit_matches(ag.hessian(quotient), ([0.3, 2.0],), ([0.0, -0.0],))
