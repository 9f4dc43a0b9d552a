"""Programs around the default thresholds, where the equation level and `reroll` share the work.

`Options.loops_from` (1,000 nodes) and `Options.min_run` (64 equations) decide
which of a program's runs become loops before statements are written; the
fuzzers lower them to reach small programs. Here the defaults stay, and
programs of a few hundred to a few thousand nodes (a wide sum, a tanh sum,
a sum whose terms read a value at three depths, a chain, a chain's second
derivative, an RNN reading its data, losses at every step, a net over points)
must give eager's bits on their first and a later call, and roll into loops
where they are large enough to.
"""

from __future__ import annotations

import functools
import random
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler.options import DEFAULT

sys.path.insert(0, str(Path(__file__).parent))
from jit_fuzz import bits  # the fuzzer is a script beside the tests
from test_periods import rnn_over, slope  # slope: a chain's derivative
from test_reroll import chain, generated_sources

Scalar = ag.Scalar
Case = tuple[Callable[..., object], tuple[object, ...], int]
"""A gradient function, its arguments, and how many nodes its forward graph has."""


def tanh_sum(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
    return ag.sum([ag.tanh(w * x) for w, x in zip(ws, xs, strict=True)])


def shared(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
    """Each product read at three depths: by depth, its readers' order changes."""
    terms = []
    for w, x in zip(ws, xs, strict=True):
        v = w * x
        terms.append(ag.tanh(ag.tanh(ag.tanh(x))) * v + v * 0.5 + ag.tanh(v))
    return ag.sum(terms)


def rnn_losses(w: Scalar, xs: list[float]) -> Scalar:
    h, losses = w, []
    for x in xs:
        h = ag.tanh(h * x + 0.25)
        losses.append(ag.sin(h * 1.5))
    return ag.sum(losses)


def net(w: list[list[Scalar]], xs: list[list[float]], ys: list[float]) -> Scalar:
    losses: list[Scalar] = []
    for x, y in zip(xs, ys, strict=True):
        hidden = [ag.tanh(ag.dot(n[:2], x) + n[2]) for n in w[:-1]]
        out = ag.dot(w[-1][:-1], hidden) + w[-1][-1]
        losses.append(ag.relu(1.0 - y * out) if len(losses) % 2 else (out - y) ** 2)
    return ag.mean(losses)


def case(kind: str, n: int, rng: random.Random) -> Case:
    """A program of about ``n`` nodes of the family ``kind``, on data drawn from ``rng``."""
    u = [rng.uniform(-1.5, 1.5) for _ in range(2 * n + 40)]
    if kind == "dot":
        return ag.value_and_grad(ag.dot, argnums=(0, 1)), (u[: n // 2], u[n : n + n // 2]), n
    if kind == "tanh_sum":
        return ag.value_and_grad(tanh_sum), (u[: n // 3], u[n : n + n // 3]), n
    if kind == "shared":
        return ag.value_and_grad(shared, argnums=(0, 1)), (u[: n // 9], u[n : n + n // 9]), n
    if kind == "chain":
        return ag.value_and_grad(functools.partial(chain, n=n // 3)), (u[0],), n
    if kind == "slope":  # 16 equations a step: 3 of the chain's, 13 of its sweep's
        return ag.value_and_grad(functools.partial(slope, n=n // 16)), (u[0],), n
    if kind == "rnn":  # every step reads its own input
        rnn = functools.partial(rnn_over, where=(None,))
        return ag.value_and_grad(rnn), (u[:2], u[2 : 2 + n // 4]), n
    if kind == "rnn_losses":
        return ag.value_and_grad(rnn_losses), (u[0], u[1 : 1 + n // 5]), n
    width = rng.randint(2, 8)
    points = max(2, n // (7 * width + 9))
    w = [u[3 * i : 3 * i + 3] for i in range(width)] + [u[-width - 1 :]]
    xs = [u[2 * i : 2 * i + 2] for i in range(points)]
    ys = [rng.choice([-1.0, 1.0]) for _ in range(points)]
    return ag.value_and_grad(net), (w, xs, ys), points * (7 * width + 9)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kind=st.sampled_from(
        ["dot", "tanh_sum", "shared", "chain", "slope", "rnn", "rnn_losses", "net"]
    ),
    n=st.integers(300, 6_000),
    seed=st.integers(0, 2**32 - 1),
)
def test_programs_around_the_thresholds_give_eager_bits(
    monkeypatch: pytest.MonkeyPatch, kind: str, n: int, seed: int
) -> None:
    sources = generated_sources(monkeypatch)
    try:
        f, args, nodes = case(kind, n, random.Random(seed))
        want = bits(f(*args))
        jitted = ag.jit(f)
        assert bits(jitted(*args)) == want
        assert bits(jitted(*args)) == want  # the cached program
        if nodes >= 2 * DEFAULT.loops_from:  # (the graph also holds the inputs)
            assert any(s.startswith(("def fwd_loop", "def loop")) for s in sources)
    finally:
        monkeypatch.undo()  # hypothesis runs every example in this one test's fixture
