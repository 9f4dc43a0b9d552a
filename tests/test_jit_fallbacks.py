"""`jit`'s failures are loud: compiler errors raise, deliberate fallbacks are counted."""

from __future__ import annotations

import pytest

import autograd as ag
from autograd.compiler import codegen
from autograd.compiler.jit import FALLBACKS
from autograd.compiler.options import Options


def test_a_compiler_error_raises_and_runs_the_function_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def f(x: float) -> float:
        calls.append(1)
        return ag.tanh(x) * 2.0

    def broken(self: codegen.Program, outputs: object) -> object:
        raise RuntimeError("a planted compiler bug")

    monkeypatch.setattr(codegen.Program, "link", broken)
    with pytest.raises(RuntimeError, match="planted"):
        ag.jit(f)(0.5)
    assert calls == [1]


def test_an_error_inside_a_batched_vmap_is_raised_once() -> None:
    pytest.importorskip("numpy")
    calls: list[int] = []

    def per_example(x: float) -> float:
        calls.append(1)
        raise ValueError("the user's own error")

    def f(xs: list[float]) -> float:
        return ag.sum(ag.vmap(per_example)(xs))

    before = dict(FALLBACKS)
    with pytest.raises(ValueError, match="the user's own error"):
        ag.jit(f)([1.0, 2.0])
    assert calls == [1]  # not traced again with vmap looping
    assert dict(FALLBACKS) == before


def test_a_batch_escape_is_a_counted_fallback_with_eager_results() -> None:
    pytest.importorskip("numpy")

    def f(xs: list[float], w: list[float]) -> float:
        return ag.dot(ag.vmap(lambda x: x * x)(xs), w)

    before = FALLBACKS["batch escaped"]
    args = ([1.0, 2.0, 3.0], [0.5, -1.0, 2.0])
    assert ag.jit(f)(*args) == f(*args)
    assert FALLBACKS["batch escaped"] == before + 1


def test_a_graph_over_budget_is_a_counted_fallback() -> None:

    def f(x: float) -> float:
        for _ in range(20):
            x = ag.sin(x) + 0.5
        return x

    before = FALLBACKS["too big"]
    with pytest.warns(RuntimeWarning, match="too big"):
        assert ag.jit(f, options=Options(budget=10))(0.3) == f(0.3)
    assert FALLBACKS["too big"] == before + 1


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("chunk", 0),
        ("chunk", "x"),
        ("budget", 2.5),
        ("probes", 1),
        ("batch_from", True),
        ("depth_gain", 1.5),
        ("depth_always", 1),
    ],
)
def test_options_out_of_range_are_refused_when_made(field: str, value: object) -> None:
    """A bad threshold is a clear error at once, not a crash inside a later compile."""
    with pytest.raises(ValueError, match=rf"Options\.{field} must be"):
        Options(**{field: value})  # type: ignore[arg-type]  # wrong on purpose


def test_jit_refuses_options_that_are_not_options() -> None:
    with pytest.raises(TypeError, match="options must be an Options, got dict"):
        ag.jit(lambda x: x, options={"chunk": 1})  # type: ignore[arg-type]  # wrong on purpose
