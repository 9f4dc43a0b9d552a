"""`jit` compiles with the cyclic collector paused, and leaves it as it found it."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator, Sequence

import pytest

import autograd as ag
from autograd.compiler import codegen as _codegen
from autograd.compiler import collector
from autograd.core.nodes import Scalar


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Each test starts with the collector on, and the suite gets it back on whatever happens."""
    gc.enable()
    yield
    gc.enable()


def spy_on_link(monkeypatch: pytest.MonkeyPatch, seen: list[bool]) -> None:
    """Record, at each link (the heart of a compile), whether the collector is on."""
    link = _codegen.Program.link

    def spy(self: _codegen.Program, outputs: Sequence[str]) -> object:
        seen.append(gc.isenabled())
        return link(self, outputs)

    monkeypatch.setattr(_codegen.Program, "link", spy)


def test_compiling_pauses_the_collector_and_tracing_the_function_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiling: list[bool] = []
    tracing: list[bool] = []
    spy_on_link(monkeypatch, compiling)

    def f(x: Scalar) -> Scalar:
        tracing.append(gc.isenabled())  # the user's code runs as the user set things up
        return ag.tanh(x) * 2.0

    jitted = ag.jit(ag.grad(f))
    assert jitted(0.5) == ag.grad(f)(0.5)
    assert compiling == [False]
    assert tracing == [True, True]  # the trace, then the eager call above
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off(monkeypatch: pytest.MonkeyPatch) -> None:
    compiling: list[bool] = []
    spy_on_link(monkeypatch, compiling)
    gc.disable()
    ag.jit(ag.grad(ag.tanh))(0.5)
    assert compiling == [False]
    assert not gc.isenabled()


@pytest.mark.parametrize("error", [_codegen.GraphTooBigError, RuntimeError])
def test_the_collector_is_back_on_when_compiling_fails(
    monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    """A graph too big runs eagerly (with a warning); any other error propagates."""

    def failing(self: _codegen.Program, outputs: Sequence[str]) -> object:
        assert not gc.isenabled()
        raise error("planted")

    monkeypatch.setattr(_codegen.Program, "link", failing)
    jitted = ag.jit(ag.grad(ag.tanh))
    if error is RuntimeError:
        with pytest.raises(RuntimeError, match="planted"):
            jitted(0.5)
    else:
        with pytest.warns(RuntimeWarning, match="too big to compile"):
            assert jitted(0.5) == ag.grad(ag.tanh)(0.5)
    assert gc.isenabled()


def test_concurrent_compiles_turn_it_back_on_when_the_last_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    both_inside = threading.Barrier(2, timeout=30)
    first_done = threading.Event()
    seen: dict[str, bool] = {}
    link = _codegen.Program.link

    def spy(self: _codegen.Program, outputs: Sequence[str]) -> object:
        both_inside.wait()  # both threads are compiling now
        name = threading.current_thread().name
        if name == "second":
            first_done.wait(timeout=30)  # the first compile has ended: still paused
            seen["after the first ended"] = gc.isenabled()
        return link(self, outputs)

    monkeypatch.setattr(_codegen.Program, "link", spy)

    def compile_one(f: Callable[[Scalar], Scalar]) -> None:
        ag.jit(ag.grad(f))(0.5)
        if threading.current_thread().name == "first":
            first_done.set()

    threads = [
        threading.Thread(target=compile_one, args=(ag.tanh,), name="first"),
        threading.Thread(target=compile_one, args=(ag.sin,), name="second"),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert seen == {"after the first ended": False}
    assert gc.isenabled()


def test_paused_nests() -> None:
    with collector.paused():
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
