"""Runs whose values are read after them, rolled with their values kept (a scan).

`jit` of a function without a compiled sweep (`hessian`, a `grad` inside a
plain function, a function returning every state of a chain) rolls each run
of repeated nodes into a loop even where later code reads its values: the
loop keeps those in lists, a later run streams them at a stride (a sweep
reads its chain last first), and a value read on its own is an item of its
list. Each is checked bit for bit against eager, and for being rolled.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler.jit import FALLBACKS
from autograd.compiler.options import Options
from autograd.core.nodes import Scalar

EVERY_RUN = Options(loops_from=0, min_run=0, min_looped=1)
"""Every run of nodes rolled, however short (by default only runs of 2,000 nodes are)."""


def bits(x: object) -> object:
    if isinstance(x, float):
        return "nan" if math.isnan(x) else struct.pack("<d", x)
    if isinstance(x, list | tuple):
        return [bits(v) for v in x]
    return x


def chain(n: int, a: float = 0.9, b: float = 0.1) -> Callable[[Scalar], Scalar]:
    def f(x: Scalar) -> Scalar:
        for _ in range(n):
            x = ag.tanh(a * x + b)
        return x

    return f


def loops_in(lowered: ag.Lowered) -> int:
    return lowered.source.count("def fwd_loop")


@pytest.mark.parametrize(("n", "options"), [(40, EVERY_RUN), (2000, Options())])
def test_a_hessian_of_a_chain_is_three_loops_and_eagers_bits(n: int, options: Options) -> None:
    f = ag.hessian(chain(n))
    jitted = ag.jit(f, options=options)
    for x in (0.3, -1.7, 0.0, 25.0):
        assert bits(jitted(x)) == bits(f(x))
    lowered = jitted.lower(0.3)
    assert loops_in(lowered) == 3  # the chain, its sweep, and the sweep of that
    assert len(lowered.source.splitlines()) < 1500  # not one statement a node (44 a step)


def test_a_gradient_traced_inside_a_plain_function_rolls_its_sweep() -> None:
    g = ag.grad(chain(500))
    plain = ag.jit(
        lambda x: g(x) * 2.0, options=EVERY_RUN
    )  # jit sees a plain function: the sweep is nodes
    for x in (0.3, -0.4):
        assert bits(plain(x)) == bits(g(x) * 2.0)
    assert loops_in(plain.lower(0.3)) == 2


def test_every_state_of_a_chain_returned_is_an_item_of_its_loops_list() -> None:
    def states(x: Scalar) -> list[Scalar]:
        out = []
        for _ in range(400):
            x = ag.tanh(0.9 * x + 0.1)
            out.append(x)
        return out[::-1]  # the last first: the first output's walk meets the whole chain

    jitted = ag.jit(states, options=EVERY_RUN)
    assert bits(jitted(0.3)) == bits(states(0.3))
    assert bits(jitted(-2.0)) == bits(states(-2.0))
    assert loops_in(jitted.lower(0.3)) == 1


def test_a_later_run_reading_every_other_state() -> None:
    """A second chain over the first one's states at a stride of two, last first."""

    def f(x: Scalar) -> Scalar:
        xs = []
        for _ in range(300):
            x = ag.tanh(0.9 * x + 0.1)
            xs.append(x)
        y = x
        for v in xs[::-2]:
            y = ag.sin(y * v) + 0.5
        return y + xs[7] * xs[150]  # and two states read on their own

    jitted = ag.jit(f, options=EVERY_RUN)
    for x in (0.3, 1.1):
        assert bits(jitted(x)) == bits(f(x))
    assert loops_in(jitted.lower(0.3)) == 2


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(12, 60),
    a=st.floats(-2.0, 2.0),
    b=st.floats(-1.0, 1.0),
    x=st.floats(-3.0, 3.0),
)
def test_hessians_of_random_chains_agree_with_eager(n: int, a: float, b: float, x: float) -> None:
    f = ag.hessian(chain(n, a, b))
    before = dict(FALLBACKS)
    assert bits(ag.jit(f, options=EVERY_RUN)(x)) == bits(f(x))
    assert dict(FALLBACKS) == before  # compiled, not run eagerly


def test_a_compiled_sweep_never_reads_a_scan() -> None:
    """`jit(grad)` compiles its sweep over the forward runs: those roll as before."""
    f = chain(3000)
    jitted = ag.jit(ag.grad(f))
    assert bits(jitted(0.3)) == bits(ag.grad(f)(0.3))
    source = jitted.lower(0.3).source
    assert "def bwd_loop" in source
