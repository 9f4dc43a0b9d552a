"""debug_nans(): the first op that creates a nan raises, naming op, inputs, direction, line."""

from __future__ import annotations

import contextvars
import math
import re
import threading
import typing
from collections.abc import Callable, Mapping

import pytest

import autograd as ag
from autograd import Node, Scalar
from autograd.core import base as _seams

HERE = r"test_debug\.py:\d+"


def test_forward_nan_names_op_inputs_and_source_line() -> None:
    def f(x: Node) -> Scalar:
        return ag.log(x - 2.0)  # log(-1)

    with ag.debug_nans(), pytest.raises(FloatingPointError) as info:
        ag.grad(f)(1.0)
    message = str(info.value)
    assert "Log produced nan in the forward pass from input (-1.0)" in message
    assert "return ag.log(x - 2.0)  # log(-1)" in message
    assert __file__ in message


def test_backward_only_nan_is_caught_in_the_sweep() -> None:
    def masked(x: Node) -> Scalar:
        return 0.0 * x**0.5  # value 0; local derivative inf at 0, times the mask's 0

    assert ag.grad(masked)(1.0) == 0.0
    assert math.isnan(ag.grad(masked)(0.0))  # silently nan without debug_nans
    with ag.debug_nans(), pytest.raises(FloatingPointError) as info:
        ag.grad(masked)(0.0)
    message = str(info.value)
    assert "Pow produced nan in the backward sweep" in message
    assert "from cotangent 0.0, inputs (0.0, 0.5)" in message
    assert "return 0.0 * x**0.5" in message


def test_relu_mask_times_infinite_slope_is_caught() -> None:
    def f(x: Node) -> Scalar:
        return ag.relu(-1.0 - x * x) * ag.log(x)  # relu(..) is 0; log'(0) = inf

    with ag.debug_nans(), pytest.raises(FloatingPointError, match=r"forward pass"):
        ag.grad(f)(0.0)  # 0 * -inf: the forward value is already nan

    def g(x: Node) -> Scalar:
        return ag.relu(-1.0 - x * x) * (x**0.5)

    with ag.debug_nans(), pytest.raises(FloatingPointError, match=rf"backward sweep.*{HERE}"):
        ag.grad(g)(0.0)


def test_forward_mode_nan_is_caught() -> None:
    def masked(x: Node) -> Scalar:
        return 0.0 * x**0.5

    with ag.debug_nans(), pytest.raises(FloatingPointError, match=r"forward-mode \(jvp\) sweep"):
        ag.jvp(masked, (0.0,), (1.0,))


def test_nan_from_a_nan_input_is_not_reported() -> None:
    with ag.debug_nans():
        assert math.isnan(ag.grad(lambda x: x * x)(math.nan))
        assert math.isnan(ag.jvp(ag.exp, (math.nan,), (1.0,))[1])
        assert math.isnan(ag.grad(ag.log)(math.nan))


def test_silent_on_healthy_code() -> None:
    def f(p: Mapping[str, Scalar]) -> Scalar:
        return ag.tanh(p["w"] * p["x"]) ** 2.0 + ag.log(ag.sigmoid(p["w"]))

    p = {"w": 0.3, "x": -1.2}
    with ag.debug_nans():
        g = ag.grad(f)(p)
        h = ag.hessian(f)(p)
        ag.jvp(f, (p,), ({"w": 1.0, "x": 0.0},))
        ag.check_grads(f, (p,), order=2)
    assert g == ag.grad(f)(p)
    assert h == ag.hessian(f)(p)


def test_other_threads_and_contexts_are_not_checked() -> None:
    inside = threading.Event()
    done = threading.Event()
    results: list[object] = []

    def debugging_thread() -> None:
        with ag.debug_nans():
            inside.set()
            done.wait(5.0)

    worker = threading.Thread(target=debugging_thread)
    worker.start()
    try:
        assert inside.wait(5.0)

        def other() -> None:
            results.append(ag.grad(lambda x: 0.0 * x**0.5)(0.0))
            results.append(ag.log(ag.Leaf(-1.0)).value)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        # the main thread is not debugging either, while the worker is
        results.append(ag.grad(lambda x: ag.log(x))(-1.0))
    finally:
        done.set()
        worker.join()
    assert len(results) == 3
    assert all(isinstance(r, float) for r in results)
    assert [math.isnan(r) for r in results if isinstance(r, float)] == [True, True, False]


def test_a_copied_context_inherits_debugging() -> None:
    with ag.debug_nans():
        ctx = contextvars.copy_context()
    # the copy was taken inside the block: it still checks after the block ended
    with pytest.raises(FloatingPointError, match="Log produced nan"):
        ctx.run(ag.grad(ag.log), -1.0)
    assert math.isnan(ag.log(ag.Leaf(-1.0)).value)  # this context does not


def _build_hook() -> object:
    return _seams.on_build  # read through a call: mypy would narrow the attribute


def test_nested_blocks_leave_the_node_classes_alone_and_exit_restores_the_hook() -> None:
    before = {cls: dict(vars(cls)) for cls in typing.get_args(Node)}
    with ag.debug_nans():
        with ag.debug_nans():
            assert _build_hook() is not None
        assert _build_hook() is not None
        with pytest.raises(FloatingPointError):
            ag.log(ag.Leaf(-1.0))
    assert _build_hook() is None
    assert {cls: dict(vars(cls)) for cls in typing.get_args(Node)} == before  # never patched
    assert math.isnan(ag.log(ag.Leaf(-1.0)).value)  # off again


def test_nested_transforms_report_the_derivative_graph_op() -> None:
    def masked(x: Node) -> Scalar:
        return 0.0 * x**0.5

    # the inner sweep builds nodes; the nan appears when one of them is built
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=r"Mul produced nan"):
        ag.grad(ag.grad(masked))(0.0)


def test_concurrent_blocks_in_many_threads_restore_the_classes() -> None:
    before = {cls: cls.__init__ for cls in (ag.Add, ag.Mul, ag.Pow, ag.Log)}
    errors: list[str] = []
    start = threading.Barrier(4)

    def worker(k: int) -> None:
        start.wait()
        for i in range(50):
            if (i + k) % 2:
                with ag.debug_nans():
                    try:
                        ag.grad(ag.log)(-1.0)
                        errors.append("no error inside debug_nans()")
                    except FloatingPointError:
                        pass
            elif not math.isnan(ag.log(ag.Leaf(-1.0)).value):
                errors.append("wrong value outside")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert {cls: cls.__init__ for cls in before} == before


def test_jitted_code_is_checked_inside_debug_nans() -> None:
    def f(x: Node) -> Scalar:
        return ag.log(x - 2.0)

    fast = ag.jit(ag.value_and_grad(f))
    assert fast(3.0) == (0.0, 1.0)  # compiled, outside the block
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=r"Log produced nan"):
        fast(1.0)
    value, slope = fast(1.0)  # compiled again after the block: nan, unchecked
    assert math.isnan(value)
    assert slope == -1.0


INF = math.inf


@pytest.mark.parametrize(
    ("call", "op", "inputs"),
    [
        (lambda: ag.log(-1.0), "Log", r"input \(-1\.0\)"),
        (lambda: ag.log(-(10**400)), "Log", r"input \(-inf\)"),  # promoted
        (lambda: ag.sum([1.0, INF, -INF]), "Add", r"inputs \(inf, -inf\)"),
        (
            lambda: ag.mean([2.0, -INF, 1.0, INF]),
            "Add",
            r"inputs \(1\.0, inf\)|inputs \(-inf, inf\)",
        ),
        (lambda: ag.dot([1.0, INF], [2.0, 0.0]), "Mul", r"inputs \(inf, 0\.0\)"),
        (lambda: ag.sum([ag.Leaf(1.0), INF, -INF]), "Add", r"inputs \(inf, -inf\)"),
    ],
)
def test_public_functions_on_plain_floats_are_checked(
    call: Callable[[], Scalar], op: str, inputs: str
) -> None:
    assert _is_nan(call())  # silently nan without debug_nans
    with ag.debug_nans(), pytest.raises(FloatingPointError) as info:
        call()
    message = str(info.value)
    assert f"debug_nans: {op} produced nan in the forward pass" in message
    assert re.search(inputs, message), message
    assert "test_debug.py" in message


def test_float_call_names_the_users_line() -> None:
    def loss(w: float) -> float:
        return ag.log(w - 2.0) * 3.0  # the line named

    with ag.debug_nans(), pytest.raises(FloatingPointError) as info:
        loss(1.0)
    assert "return ag.log(w - 2.0) * 3.0  # the line named" in str(info.value)
    assert __file__ in str(info.value)


def test_nan_that_comes_in_with_a_float_input_is_not_reported() -> None:
    with ag.debug_nans():
        for f in (ag.exp, ag.log, ag.tanh, ag.relu, ag.sigmoid):
            assert math.isnan(f(math.nan))
        assert math.isnan(ag.sum([math.nan, 1.0]))
        assert math.isnan(ag.dot([math.nan], [0.0]))
        assert ag.log(0.0) == -INF  # not nan: no report


def _is_nan(v: Scalar) -> bool:
    x = v.value if isinstance(v, ag.Leaf | ag.Const | ag.Add | ag.Mul) else v
    return isinstance(x, float) and math.isnan(x)
