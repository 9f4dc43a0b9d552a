"""check_grads: passes on correct derivatives, fails (naming the leaf) on wrong ones."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import pytest

import autograd as ag
from autograd import Node, Scalar


class Params(NamedTuple):
    w: Sequence[Scalar]
    b: Scalar


def mlp_like(p: Mapping[str, Sequence[Scalar]], x: Scalar) -> Scalar:
    h = [ag.tanh(w * x + b) for w, b in zip(p["w1"], p["b1"], strict=True)]
    return ag.sigmoid(ag.dot(h, p["w2"]))


PARAMS = {"w1": [0.3, -0.2, 0.5, 0.1], "b1": [0.0, 0.1, -0.1, 0.2], "w2": [1.0, -0.5, 0.3, 0.7]}


def test_passes_on_a_small_network_up_to_order_2() -> None:
    ag.check_grads(mlp_like, (PARAMS, 0.7), order=2)


def test_passes_up_to_order_3_with_pytree_outputs() -> None:
    def f(p: Params) -> dict[str, Scalar]:
        return {"a": ag.exp(p.w[0] * p.b), "b": ag.log(p.w[1] ** 2.0 + 1.0) * p.b}

    ag.check_grads(f, (Params([0.4, -0.3], 1.2),), order=3)


def test_stop_gradient_fails_on_purpose_naming_the_leaf() -> None:
    def f(params: Mapping[str, Sequence[Scalar]]) -> Scalar:
        w = params["w1"]
        return ag.sum(w) + w[3] * ag.stop_gradient(w[3])

    params = {"w1": [0.1, 0.2, 0.3, 0.4]}
    for mode in ("fwd", "rev"):
        with pytest.raises(
            AssertionError,
            match=(
                rf"{mode} mode, order 1: d output / d params\['w1'\]\[3\] is 1\.4, "
                r"central difference gives 1\.8000000000\d*"
            ),
        ):
            ag.check_grads(f, (params,), modes=(mode,))


def test_a_wrong_second_derivative_fails_only_at_order_2() -> None:
    def f(x: Node) -> Scalar:
        # value x*x and first derivative 2x everywhere, but its graph's own
        # derivative is -2: the stop_gradient terms cancel in value only
        return x * x + (x - ag.stop_gradient(x)) * (ag.stop_gradient(2.0 * x) - 2.0 * x)

    ag.check_grads(f, (0.7,), order=1)
    with pytest.raises(AssertionError, match=r"order 2 \(of the (fwd|rev)-mode derivative\)"):
        ag.check_grads(f, (0.7,), order=2)


def test_output_leaf_is_named() -> None:
    def f(x: Node) -> list[Scalar]:
        return [x * x, x * ag.stop_gradient(x)]

    with pytest.raises(AssertionError, match=r"d output\[1\] / d x is 2\.0"):
        ag.check_grads(f, (2.0,), modes=("rev",))


def test_relu_kink_disagrees_with_central_differences() -> None:
    # relu'(0) == 0 (PyTorch), while the symmetric difference quotient is 0.5
    with pytest.raises(AssertionError, match=r"is 0\.0, central difference gives 0\.5"):
        ag.check_grads(ag.relu, (0.0,))
    ag.check_grads(ag.relu, (0.5,), order=2)


def test_nan_matches_only_nan() -> None:
    def x_log_x(x: Node) -> Scalar:
        return x * ag.log(x)

    ag.check_grads(x_log_x, (0.0,))  # analytic nan (PyTorch), numeric nan
    with pytest.raises(AssertionError, match=r"is -1\.0, central difference gives nan"):
        ag.check_grads(ag.log, (-1.0,))  # log(-1) is nan, its rule still says 1/x


def test_tolerances_are_used() -> None:
    def f(x: Node) -> Scalar:
        return x * (1.0 + 1e-7 * ag.stop_gradient(x))  # derivative off by 1e-7 * x

    ag.check_grads(f, (1.0,))
    with pytest.raises(AssertionError):
        ag.check_grads(f, (1.0,), rtol=1e-9, atol=1e-9)


def test_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match="order must be at least 1"):
        ag.check_grads(ag.exp, (1.0,), order=0)
    with pytest.raises(ValueError, match="modes are 'fwd' and 'rev'"):
        ag.check_grads(ag.exp, (1.0,), modes=("backward",))
    with pytest.raises(TypeError, match=r"x is a str"):
        ag.check_grads(ag.exp, ("1.0",))


def test_random_compositions_pass_to_order_2() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    ops = [
        lambda a, b: a * b + ag.tanh(a),
        lambda a, b: ag.exp(0.3 * a) * b,
        lambda a, b: ag.sigmoid(a - b) * a,
        lambda a, b: ag.log(1.0 + a * a) + b**2.0,
    ]

    @settings(derandomize=True, max_examples=15, deadline=None)
    @given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.floats(-1.0, 1.0))
    def check(program: list[int], x0: float) -> None:
        def f(x: Scalar, y: Scalar) -> Scalar:
            a, b = x, y
            for op in program:
                a, b = ops[op](a, b), a
            return a

        ag.check_grads(f, (x0, 0.4), order=2, rtol=1e-4, atol=1e-6)

    check()
