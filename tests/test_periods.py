"""`periods`: runs of traced nodes rolled into loops before their statements are written.

Each case compiles a graph that repeats a body many times, with the thresholds
lowered so that small graphs roll, and compares every result bit for bit with
the eager call. Each also says whether its run rolls (a loop must be in the
generated code, forward and backward), so no case passes by rolling nothing,
and none that must not roll does.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler import codegen as _codegen
from autograd.compiler import periods
from autograd.compiler.options import DEFAULT, Options
from autograd.core.nodes import Scalar

sys.path.insert(0, str(Path(__file__).parent))
from jit_fuzz import bits  # the fuzzer is a script beside the tests
from jitting import jit, use
from test_reroll import generated_sources

STEPS = 40
SMALL_RUNS = Options(loops_from=0, min_run=0, min_looped=1)
"""Every run of nodes rolled, however short (by default only long ones are)."""


class Sources(list[str]):
    """Generated sources, and how many rolled runs the sweeps swept by one loop each: a
    loop that computes nothing (a sum's levels pass its ``1.0`` on) is not written."""

    swept = 0


@pytest.fixture
def sources(monkeypatch: pytest.MonkeyPatch) -> Sources:
    """Every runs' loop and chunk the programs linked from now on generate; small runs roll."""
    use(monkeypatch, SMALL_RUNS)
    got = Sources()
    generated_sources(monkeypatch, got)
    sweep = _codegen.Program._loop_backward

    def counted(self: _codegen.Program, *args: Any) -> bool:
        done = sweep(self, *args)
        got.swept += done
        return done

    monkeypatch.setattr(_codegen.Program, "_loop_backward", counted)
    return got


def chain(x: Scalar, n: int) -> Scalar:
    for _ in range(n):
        x = ag.tanh(0.9 * x + 0.1)
    return x


def rnn(p: list[Scalar], n: int) -> Scalar:
    """A weight and a bias every step reads: their cotangents add up over the loop."""
    x: Scalar = 0.3
    for _ in range(n):
        x = ag.tanh(p[0] * x + p[1])
    return x


def adds(x: Scalar, n: int) -> Scalar:
    """No statement in the backward sweep: every cotangent is the seed's 1.0."""
    for _ in range(n):
        x = x + 0.5
    return x


def swap(p: list[Scalar], n: int) -> Scalar:
    """Two values carried, each read by the next iteration in the other's place."""
    x, y = p
    for _ in range(n):
        x, y = y, ag.tanh(x - y * 0.5)
    return x * y


def plain_and_node(p: list[Scalar], n: int) -> Scalar:
    """``p[1]`` is not differentiated: what reads it alone is a plain float in the eager call."""
    x, s = p
    for _ in range(n):
        s = s * 0.5 + 1.0
        x = x * ag.tanh(s) + ag.sin(x)
    return x


def relu_loss(p: list[Scalar], n: int) -> Scalar:
    """Rules that choose by a value (relu's mask, `where`), and a power."""
    x = p[0]
    for _ in range(n):
        x = ag.relu(x - 0.25) + ag.where(ag.gt(x, 0.5), x * p[1], x**2) * 0.5
    return x


ROLLING: list[tuple[Callable[..., Scalar], object, int | tuple[int, ...]]] = [
    (chain, 0.5, 0),
    (chain, -3.0, 0),
    (rnn, [0.8, 0.1], 0),
    (adds, 1.25, 0),
    (swap, [0.4, -0.7], 0),
    (plain_and_node, [0.3, 2.0], 0),
    (relu_loss, [0.9, 0.7], 0),
]


@pytest.mark.parametrize(("fn", "arg", "argnums"), ROLLING)
def test_a_run_rolls_forward_and_backward_with_eager_bits(
    sources: Sources, fn: Callable[..., Scalar], arg: object, argnums: int
) -> None:
    want = ag.value_and_grad(fn, argnums=argnums)(arg, STEPS)
    got = jit(ag.value_and_grad(fn, argnums=argnums), static_argnums=1)(arg, STEPS)
    assert bits(got) == bits(want)
    assert rolled(sources)


def rnn_over(p: Sequence[Scalar], xs: Sequence[Scalar], where: tuple[int | None, ...]) -> Scalar:
    """An RNN over a sequence: each iteration reads its own input."""
    h: Scalar = 0.0
    for x in xs[slice(*where)]:
        h = ag.tanh(p[0] * h + p[1] * x)
    return h


SEQUENCE = [((i * 7) % 11) / 5.0 - 1.0 for i in range(60)]


@pytest.mark.parametrize("where", [(0, 60, 1), (None, None, -1), (1, 60, 2), (59, None, -3)])
def test_a_run_reading_a_sequence_streams_its_inputs(
    sources: Sources, where: tuple[int | None, ...]
) -> None:
    vg = ag.value_and_grad(rnn_over)
    got = jit(vg, static_argnums=2)([0.8, 0.3], SEQUENCE, where)
    assert bits(got) == bits(vg([0.8, 0.3], SEQUENCE, where))
    (loop,) = [s for s in sources if s.startswith("def fwd_loop")]
    assert " in _p" in loop  # for each input of the stream: a slice of them
    assert any(s.startswith("def bwd_loop") for s in sources)


def rolled(sources: Sources) -> bool:
    """Whether a run rolled both ways: a forward loop was generated, and a run swept by one."""
    return any(s.startswith("def fwd_loop") for s in sources) and sources.swept > 0


def returned_line_of_rolled_rnn(sources: Sources, where: tuple[int | None, ...]) -> str:
    """The RNN over a differentiated sequence, jitted: checks bits and that it rolled;
    returns the program's return line."""
    vg = ag.value_and_grad(rnn_over, argnums=(0, 1))
    got = jit(vg, static_argnums=2)([0.8, 0.3], SEQUENCE, where)
    assert bits(got) == bits(vg([0.8, 0.3], SEQUENCE, where))
    assert rolled(sources)
    (chunk,) = [s for s in sources if s.startswith("def chunk")]
    return chunk.splitlines()[-1]


@pytest.mark.parametrize("where", [(0, 60, 1), (None, None, -1)])
def test_a_run_reading_differentiated_inputs_at_a_step_of_one_rolls(
    sources: Sources, where: tuple[int | None, ...]
) -> None:
    """Each input's cotangent is an item of the backward loop's list, returned as its slice."""
    assert "*" in returned_line_of_rolled_rnn(sources, where)  # the looped inputs' gradients


@pytest.mark.parametrize("where", [(1, 60, 2), (59, None, -3)])
def test_differentiated_inputs_at_a_stride_roll_and_name_their_gradients(
    sources: Sources, where: tuple[int | None, ...]
) -> None:
    """Between the looped inputs' gradients are unread inputs' zeros: no slice, each named."""
    assert "*" not in returned_line_of_rolled_rnn(sources, where)


def flat_layers(p: Sequence[Scalar], x: Scalar) -> Scalar:
    """`layers` with its parameters in one list, ``[w0, b0, w1, b1, ...]``."""
    for i in range(0, len(p), 2):
        x = ag.tanh(p[i] * x + p[i + 1])
    return x


def test_gradients_of_interleaved_streams_are_returned_interleaved(sources: Sources) -> None:
    vg = ag.value_and_grad(flat_layers)
    p = [v for pair in zip(WEIGHTS, SEQUENCE, strict=True) for v in pair]
    jitted = jit(vg)
    for _ in range(2):  # the second call runs the program inside its arguments' check
        assert bits(jitted(p, 0.3)) == bits(vg(p, 0.3))
    assert rolled(sources)
    (chunk,) = [s for s in sources if s.startswith("def chunk")]
    assert "*interleaved(" in chunk.splitlines()[-1]


def rnn_and_penalty(p: Sequence[Scalar], xs: Sequence[Scalar]) -> Scalar:
    """The inputs are read by the run and by a penalty after it: two contributions each."""
    return rnn_over(p, xs, (None,)) + 0.01 * ag.sum([x * x for x in xs])


def penalty_and_rnn(p: Sequence[Scalar], xs: Sequence[Scalar]) -> Scalar:
    """The penalty first: its part of each cotangent is added after the run's sweep."""
    return 0.01 * ag.sum([x * x for x in xs]) + rnn_over(p, xs, (None,))


@pytest.mark.parametrize("loss", [rnn_and_penalty, penalty_and_rnn])
def test_differentiated_inputs_read_outside_the_run_are_written_straight(
    sources: Sources, loss: Callable[[Sequence[Scalar], Sequence[Scalar]], Scalar]
) -> None:
    vg = ag.value_and_grad(loss, argnums=(0, 1))
    assert bits(jit(vg)([0.8, 0.3], SEQUENCE)) == bits(vg([0.8, 0.3], SEQUENCE))
    assert not any(s.startswith("def fwd_loop") for s in sources)


def layers(params: tuple[Sequence[Scalar], Sequence[Scalar]], x: Scalar) -> Scalar:
    """A deep net with a weight and a bias a layer: the bias's cotangent is set by the
    sweep of the iteration after its own (`toposort` puts the bias before its sum)."""
    ws, bs = params
    for w, b in zip(ws, bs, strict=True):
        x = ag.tanh(w * x + b)
    return x


def layers_bias_first(params: tuple[Sequence[Scalar], Sequence[Scalar]], x: Scalar) -> Scalar:
    """The same net with the bias read first: its cotangent is its own iteration's."""
    ws, bs = params
    for w, b in zip(ws, bs, strict=True):
        x = ag.tanh(b + x * w)
    return x


def chain_sum(ws: Sequence[Scalar], xs: Sequence[Scalar]) -> Scalar:
    """A loss summed in a Python loop: one product and one sum an input."""
    total: Scalar = 0.0
    for w, x in zip(ws, xs, strict=True):
        total = total + w * x
    return total


WEIGHTS = [0.5 + ((i * 5) % 7) / 10.0 for i in range(60)]


@pytest.mark.parametrize("net", [layers, layers_bias_first])
def test_a_deep_net_with_weights_a_layer_rolls(
    sources: Sources, net: Callable[[tuple[Sequence[Scalar], Sequence[Scalar]], Scalar], Scalar]
) -> None:
    vg = ag.value_and_grad(net)
    params = (WEIGHTS, [w - 0.7 for w in SEQUENCE])
    assert bits(jit(vg)(params, 0.3)) == bits(vg(params, 0.3))
    assert rolled(sources)


def test_a_sum_in_a_python_loop_rolls(sources: Sources) -> None:
    vg = ag.value_and_grad(chain_sum)
    assert bits(jit(vg)(WEIGHTS, SEQUENCE)) == bits(vg(WEIGHTS, SEQUENCE))
    assert rolled(sources)


def test_looped_gradients_are_named_one_by_one_where_a_slice_cannot_return_them(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs of list items too short to splice, and programs of several chunks, which
    return names: each item gets a statement of its own."""
    vg = ag.value_and_grad(layers)
    params = (WEIGHTS, [w - 0.7 for w in SEQUENCE])
    want = bits(vg(params, 0.3))
    use(monkeypatch, attrs.evolve(SMALL_RUNS, splice=10**6))
    assert bits(jit(vg)(params, 0.3)) == want
    monkeypatch.undo()
    use(monkeypatch, attrs.evolve(SMALL_RUNS, chunk=40))
    assert bits(jit(vg)(params, 0.3)) == want
    assert rolled(sources)


BODIES: list[Callable[[Scalar, Scalar, Sequence[Scalar]], Scalar]] = [
    lambda h, x, p: ag.tanh(p[0] * h + p[1] * x),
    lambda h, x, p: ag.sigmoid(h * x + p[0]) - p[1] * h,
    lambda h, x, p: h + p[0] * ag.relu(x - h),
    lambda h, x, p: ag.where(ag.gt(h, 0.0), h * p[0], h + x) * 0.75,
]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.sampled_from(BODIES),
    xs=st.lists(st.floats(-2, 2), min_size=40, max_size=60),  # 14 or more iterations
    step=st.sampled_from([1, 2, 3, -1, -2]),
    p=st.lists(st.floats(-1.5, 1.5), min_size=2, max_size=2),
    argnums=st.sampled_from([0, (0, 1), 1]),
)
def test_runs_over_sequences_keep_eager_bits(
    sources: Sources,
    body: Callable[[Scalar, Scalar, Sequence[Scalar]], Scalar],
    xs: list[float],
    step: int,
    p: list[float],
    argnums: int | tuple[int, ...],
) -> None:
    """The sequence plain, or differentiated: then the loop keeps each item's cotangent."""

    def loss(p: Sequence[Scalar], xs: Sequence[Scalar]) -> Scalar:
        h: Scalar = 0.5
        for x in xs[::step]:
            h = body(h, x, p)
        return h

    sources.clear()
    vg = ag.value_and_grad(loss, argnums=argnums)
    assert bits(jit(vg)(p, xs)) == bits(vg(p, xs))
    assert any(s.startswith("def fwd_loop") for s in sources)
    if argnums != 0:  # the items' cotangents, kept in a list the loop appends to
        assert any(s.startswith("def bwd_loop") and "_a_m0(" in s for s in sources)


def test_without_a_gradient_the_loop_keeps_no_values(sources: Sources) -> None:
    got = jit(chain, static_argnums=1)(0.5, STEPS)
    assert bits(got) == bits(chain(0.5, STEPS))
    (loop,) = [s for s in sources if s.startswith("def fwd_loop")]
    assert ".append" not in loop
    assert "bwd_loop" not in "".join(sources)


def test_a_value_read_after_the_run_from_inside_it_keeps_the_run_straight(
    sources: Sources,
) -> None:
    def middle(x: Scalar, n: int) -> Scalar:
        xs = []
        for _ in range(n):
            x = ag.tanh(0.9 * x + 0.1)
            xs.append(x)
        return x + xs[n // 2] * 2.0  # a looped iteration's node: compiled code names none

    got = jit(ag.value_and_grad(middle), static_argnums=1)(0.5, STEPS)
    assert bits(got) == bits(ag.value_and_grad(middle)(0.5, STEPS))
    assert not any(s.startswith("def fwd_loop") for s in sources)


def slope(x: Scalar, n: int) -> Scalar:
    return ag.grad(chain)(x, n)


def test_a_second_derivative_rolls_its_chain_and_its_sweep_both_ways(sources: Sources) -> None:
    """The trace holds the chain, then its sweep, whose every step reads the chain's value
    of its step, last first. As traced, with the runs' values kept (`ForwardPass._kept`),
    both are loops forward (the sweep's streams the chain's list backwards) and backward
    (the sweep's loop gives each chain value's cotangent, the chain's loop streams them)."""
    for x in (0.5, -0.25):  # 200 steps: the loops hold nine tenths of it (`depth_gain`)
        got = jit(ag.value_and_grad(slope), static_argnums=1)(x, 200)
        assert bits(got) == bits(ag.value_and_grad(slope)(x, 200))
    forward = [s for s in sources if s.startswith("def fwd_loop")]
    assert len(forward) == 4  # two runs, two calls (one compiled program each)
    assert any("reversed(" in s or ":-1]" in s for s in forward)  # the chain, last first
    assert sources.swept == 4
    assert any(s.startswith("def bwd_loop") and "_m0" in s for s in sources)


@pytest.mark.parametrize("n", [DEFAULT.loops_from // 2, DEFAULT.loops_from * 3])
def test_a_second_derivative_rolls_at_the_default_thresholds(
    sources: Sources, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    """`jit(grad(grad(f)))` of a chain of ``n`` steps: its 13 nodes a step are all rolled
    as equations, forward and backward; `reroll` rolls nothing."""
    use(monkeypatch, DEFAULT)
    second = ag.grad(ag.grad(chain))
    jitted = jit(second, static_argnums=1)
    for x in (0.5, -0.25):
        assert bits(jitted(x, n)) == bits(second(x, n))
    assert sum(s.startswith("def fwd_loop") for s in sources) == 2
    assert sources.swept == 2
    assert not any(s.startswith("def loop") for s in sources)
    assert sum(s.count("\n") for s in sources) < 600  # not 13 statements a step


def settling(p: list[Scalar], n: int) -> Scalar:
    """A run whose sweep leaves no cotangent of ``a`` every other iteration: ``where``'s test
    of ``d`` passes none on, so the pattern of cotangents repeats every two iterations, from
    the second iteration the loop sweeps."""
    a, b, c, d, _w = p
    for _ in range(n):
        a, b, c, d = a + ag.where(ag.gt(d, 10.0), 1.0, 0.0), ag.sin(d) + d, a + c, b - a
    return a * d


SETTLING: list[Scalar] = [
    0.9424458033647352,
    0.859246592735216,
    0.515432470447876,
    0.9045578664136957,
    0.68,
]


def test_a_sweep_whose_cotangents_settle_late_gets_a_prologue_and_a_longer_body(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, attrs.evolve(SMALL_RUNS, min_looped=4))  # a run of one step each
    # 20 steps: one prologue iteration, then two a pass (the run starts at its first step,
    # `runs._earliest`; at 19 steps its looped iterations settle at once)
    got = jit(ag.value_and_grad(settling), static_argnums=1)(SETTLING, 20)
    assert bits(got) == bits(ag.value_and_grad(settling)(SETTLING, 20))
    (loop,) = [s for s in sources if s.startswith("def bwd_loop")]
    body = loop.split("    for ", 1)[1]
    assert "= next(_it)" in loop.split("    for ", 1)[0]  # an iteration before the loop
    assert "= next(_it)" in body  # two iterations a pass
    for n in range(16, 24):  # each count of iterations: the prologue makes the body fit
        sources.clear()
        got = jit(ag.value_and_grad(settling), static_argnums=1)(SETTLING, n)
        assert bits(got) == bits(ag.value_and_grad(settling)(SETTLING, n))
        assert any(s.startswith("def bwd_loop") for s in sources)


def test_a_sweep_that_does_not_settle_is_written_straight_in_its_loop_function(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, attrs.evolve(SMALL_RUNS, settle=0))
    cases: list[tuple[Callable[[list[Scalar], int], Scalar], list[Scalar]]]
    cases = [(rnn, [0.8, 0.1]), (settling, list(SETTLING))]
    for f, p in cases:
        sources.clear()
        got = jit(ag.value_and_grad(f), static_argnums=1)(p, STEPS)
        assert bits(got) == bits(ag.value_and_grad(f)(p, STEPS))
        (loop,) = [s for s in sources if s.startswith("def bwd_loop")]
        assert "    for " not in loop
        assert loop.count("= next(_it)") >= 8


def test_a_long_chain_rolls_before_its_statements_at_the_default_thresholds(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, DEFAULT)
    n = DEFAULT.loops_from // 3 + 100  # a few more nodes than the least that rolls
    got = jit(ag.value_and_grad(chain), static_argnums=1)(0.5, n)
    assert bits(got) == bits(ag.value_and_grad(chain)(0.5, n))
    assert sum(s.startswith(("def fwd_loop", "def bwd_loop")) for s in sources) == 2
    assert sum(s.count("\n") for s in sources) < 120  # not 6 * n statements


def test_a_run_of_too_few_nodes_is_left_to_reroll(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, DEFAULT)
    # a few fewer nodes (three a step); with the weights' sums, `reroll_from` statements
    n = DEFAULT.loops_from // 3 - 10
    got = jit(ag.value_and_grad(rnn), static_argnums=1)([0.8, 0.1], n)
    assert bits(got) == bits(ag.value_and_grad(rnn)([0.8, 0.1], n))
    assert not any(s.startswith("def fwd_loop") for s in sources)
    assert any(s.startswith("def loop") for s in sources)  # `reroll`'s


def test_windows_of_a_big_graph_decide_whether_it_is_searched(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over `Options.probes` windows of `Options.probe_window` nodes, a chain shows its run
    and is searched whole (and rolled); a wide sum is searched in depth order, where its
    products and the levels of its tree are runs, and not as traced."""
    use(monkeypatch, DEFAULT)
    searched = 0
    find = periods.find

    def counted(
        forms: list[int],
        operands: list[list[int]],
        options: Options = DEFAULT,
        stacked: bool = False,
    ) -> list[periods.Period]:
        nonlocal searched
        searched += 1
        return find(forms, operands, options, stacked)

    monkeypatch.setattr(periods, "find", counted)
    n = DEFAULT.probe_window * DEFAULT.probes // 3 + 500  # more nodes than the windows hold
    got = jit(ag.value_and_grad(chain), static_argnums=1)(0.5, n)
    assert bits(got) == bits(ag.value_and_grad(chain)(0.5, n))
    assert searched == 1
    assert any(s.startswith("def fwd_loop") for s in sources)
    ws = [0.001 * i - 3.0 for i in range(DEFAULT.probe_window * DEFAULT.probes)]
    sources.clear()
    summed = jit(ag.value_and_grad(ag.dot))(ws, ws[::-1])
    assert bits(summed) == bits(ag.value_and_grad(ag.dot)(ws, ws[::-1]))
    assert searched == 2  # in depth order only (`ForwardPass._by_depth`): the products, and
    loops = [s for s in sources if s.startswith("def fwd_loop")]  # levels of the sum
    assert len(loops) >= 3
    assert any("_x0" in s for s in loops)


def lagged(p: list[Scalar], n: int) -> Scalar:
    """``y`` is the previous iteration's ``x`` (``x * 1.0`` writes no statement), read after
    this iteration's ``x`` is computed: a loop would read the new one."""
    x, v, w = p
    for _ in range(n):
        y = x * 1.0
        x = ag.tanh(x * w)
        v = ag.sin(v) + y * x
    return v


def test_a_node_that_is_the_previous_iterations_value_is_not_rolled(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    use(monkeypatch, attrs.evolve(SMALL_RUNS, min_looped=4))
    got = jit(ag.value_and_grad(lagged), static_argnums=1)([0.3, 0.6, 0.9], 30)
    assert bits(got) == bits(ag.value_and_grad(lagged)([0.3, 0.6, 0.9], 30))
    assert not any(s.startswith("def fwd_loop") for s in sources)


def test_a_wide_sum_rolls_every_level_of_min_run_additions_at_the_equation_level(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dot of 3,000 pairs: in depth order its products and each level of its sum with
    `Options.min_run` (64) additions or more are a loop (1,500 down to 93: five), the rest
    of its 6,000 equations straight, and no statement is left for `reroll` to roll."""
    use(monkeypatch, DEFAULT)
    rng = random.Random(5)
    ws = [rng.uniform(-1, 1) for _ in range(3000)]
    xs = [rng.uniform(-1, 1) for _ in range(3000)]
    got = jit(ag.value_and_grad(ag.dot))(ws, xs)
    assert bits(got) == bits(ag.value_and_grad(ag.dot)(ws, xs))
    assert sum(s.startswith("def fwd_loop") for s in sources) == 6
    assert sources.swept >= 1
    assert not any(s.startswith("def loop") for s in sources)  # `reroll`'s
    assert sum(s.count("\n") for s in sources) < 600  # not 15,000 statements


def test_an_rnn_reading_its_data_rolls_each_step_as_one_iteration(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tanh(w0 * h + w1 * x)``: a third of its equations (the ``w1 * x``) are at depth 1, as
    in a wide sum, but as traced each step is one iteration: one loop each way, not the
    products' loop then the recurrence's (one list more each way, 20% slower calls)."""
    use(monkeypatch, DEFAULT)

    def rnn_on(w: list[Scalar], xs: list[float]) -> Scalar:
        h: Scalar = 0.3
        for x in xs:
            h = ag.tanh(w[0] * h + w[1] * x)
        return h

    xs = [((i * 7919) % 1013) / 337.0 - 1.5 for i in range(400)]
    got = jit(ag.value_and_grad(rnn_on))([0.8, 0.1], xs)
    assert bits(got) == bits(ag.value_and_grad(rnn_on)([0.8, 0.1], xs))
    assert sum(s.startswith("def fwd_loop") for s in sources) == 1
    assert sum(s.startswith("def bwd_loop") for s in sources) == 1


def test_a_wide_sum_is_written_by_depth_unless_its_sweep_reads_the_terms_one_by_one(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By depth, a value a loop kept is an item of its list, taken on its own where the
    sweep reads it outside a loop (`_reads_few`). ``dot``'s rules read no term's value;
    ``tanh(w * x) * w``'s read each term's, but each run is swept by a loop streaming its
    list (`_swept_by_loops`). A term reading its neighbour's weight moves a value's readers
    out of order by depth: the sweep keeps the trace's order, reading the values one by
    one, so it stays as traced. 8,000 terms of three equations: a quarter of the 32,000 at
    depth 1, a little less in the last 20,000 sampled (`orders.wide_equations`)."""
    use(monkeypatch, DEFAULT)
    n = DEFAULT.loops_from * 8  # the levels of `min_run` (64) sums or more roll
    ws: list[Scalar] = [0.001 * i - 8.0 for i in range(n)]
    xs = ws[::-1]

    def dot(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.dot(ws, xs)

    def tanh_terms(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.sum([ag.tanh(w * x) * w for w, x in zip(ws, xs, strict=True)])

    def neighbours(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.sum([ag.tanh(ws[i] * xs[i]) * ws[i - 1] for i in range(len(ws))])

    cases: list[tuple[Callable[[list[Scalar], list[Scalar]], Scalar], bool]]
    cases = [(dot, True), (tanh_terms, True), (neighbours, False)]
    for f, by_depth in cases:
        sources.clear()
        got = jit(ag.value_and_grad(f))(ws, xs)
        assert bits(got) == bits(ag.value_and_grad(f)(ws, xs))
        assert any(s.startswith("def fwd_loop") for s in sources) is by_depth
        assert any(s.startswith("def loop") for s in sources) is not by_depth  # `reroll`'s


def point_losses(w: Sequence[Scalar], data: Sequence[Sequence[float]]) -> list[Scalar]:
    """A small network's loss at each data point ``(x0, x1, y)``."""
    hidden = (len(w) - 1) // 4
    losses: list[Scalar] = []
    for x0, x1, y in data:
        h = [ag.tanh(w[4 * i] * x0 + w[4 * i + 1] * x1 + w[4 * i + 2]) for i in range(hidden)]
        out = ag.dot([w[4 * i + 3] for i in range(hidden)], h) + w[-1]
        losses.append(ag.relu(1.0 - y * out))
    return losses


def mean_loss(w: Sequence[Scalar], data: Sequence[Sequence[float]]) -> Scalar:
    return ag.mean(point_losses(w, data))


def weighted_loss(
    w: Sequence[Scalar], data: Sequence[Sequence[float]], scale: Sequence[float]
) -> Scalar:
    """Each point's loss times a plain number of its own: the product is part of the run."""
    losses = point_losses(w, data)
    return ag.sum([c * loss for c, loss in zip(scale, losses, strict=True)])


def product_loss(w: Sequence[Scalar], data: Sequence[Sequence[float]]) -> Scalar:
    """A balanced product over the points: each point's cotangent is the others' product."""
    level = [1.0 + 0.01 * loss for loss in point_losses(w, data)]
    while len(level) > 1:
        pairs = [a * b for a, b in zip(level[0::2], level[1::2], strict=False)]
        level = pairs + level[len(pairs) * 2 :]
    return level[0]


HIDDEN = 8
NET = [((i * 7) % 13) / 6.0 - 1.0 for i in range(4 * HIDDEN + 1)]
DATA = [[((q * 5) % 17) / 8.0 - 1.0, ((q * 3) % 11) / 5.0 - 1.0, (-1.0) ** q] for q in range(100)]
SCALE = [1.0 + q / 7.0 for q in range(len(DATA))]


@pytest.mark.parametrize(
    ("loss", "args"), [(mean_loss, (NET, DATA)), (weighted_loss, (NET, DATA, SCALE))]
)
def test_a_loss_over_data_points_rolls_over_the_points_as_equations(
    sources: Sources,
    monkeypatch: pytest.MonkeyPatch,
    loss: Callable[..., Scalar],
    args: tuple[object, ...],
) -> None:
    """Traced depth first, the sum's additions fall between the points' networks; moved
    after them (`ForwardPass._sunk`), each point is an iteration of one run, forward and
    backward, and every point's loss gets the sum's one cotangent from outside the run
    (a weight of its own, read by the run, is the run's). What is left (a few points,
    the sum) is written straight: `reroll` rolls nothing."""
    use(monkeypatch, DEFAULT)
    got = jit(ag.value_and_grad(loss))(*args)
    assert bits(got) == bits(ag.value_and_grad(loss)(*args))
    (forward,) = [s for s in sources if s.startswith("def fwd_loop")]
    assert forward.count("tanh(") == HIDDEN  # one point's network a pass
    assert [s for s in sources if s.startswith("def bwd_loop")]
    assert not [s for s in sources if s.startswith("def loop")]


def test_points_whose_cotangents_differ_are_swept_one_by_one(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A product over the points gives each point's loss a cotangent of its own: the
    points' forward is one loop, their sweep is written node by node (and rolled by
    `reroll`), with eager's bits."""
    use(monkeypatch, DEFAULT)
    got = jit(ag.value_and_grad(product_loss))(NET, DATA)
    assert bits(got) == bits(ag.value_and_grad(product_loss)(NET, DATA))
    assert [s for s in sources if s.startswith("def fwd_loop")]
    assert not [s for s in sources if s.startswith("def bwd_loop")]


def test_a_point_loss_read_twice_keeps_eager_bits(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A point's loss read by the mean and again: the addition reading it is not moved (its
    cotangents' order would change), the rest are; a head point's, a looped one's, the
    last one's. Both sides of an addition left in place roll (200 points: 100 a side)."""
    use(monkeypatch, DEFAULT)
    data = DATA + DATA
    for q in (1, 100, len(data) - 1):

        def loss(w: Sequence[Scalar], data: Sequence[Sequence[float]], q: int = q) -> Scalar:
            losses = point_losses(w, data)
            return ag.mean(losses) + losses[q] * 0.5

        sources.clear()
        got = jit(ag.value_and_grad(loss))(NET, data)
        assert bits(got) == bits(ag.value_and_grad(loss)(NET, data))
        assert [s for s in sources if s.startswith("def fwd_loop")]


def test_a_join_whose_operand_later_points_read_stays_in_place(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each point reads the losses of the points two and four before it: moved after the
    points, the addition of two points' losses would give the first its cotangent before
    the later points do, not after, and the sum of the three differs in its last bits. It
    is not moved; the additions over it are, and the points roll, two an iteration."""
    use(monkeypatch, attrs.evolve(DEFAULT, sink_always=True))

    def loss(w: Sequence[Scalar], data: Sequence[Sequence[float]]) -> Scalar:
        losses: list[Scalar] = []
        for q, point in enumerate(data):
            (own,) = point_losses(w, [point])
            losses.append(own + losses[q - 2] * 0.37 + losses[q - 4] * 0.21 if q >= 4 else own)
        return ag.mean(losses)

    got = jit(ag.value_and_grad(loss))(NET, DATA)
    assert bits(got) == bits(ag.value_and_grad(loss)(NET, DATA))
    assert [s for s in sources if s.startswith("def fwd_loop")]


def test_a_wide_sum_whose_order_keeps_its_readers_is_swept_by_loops(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By depth, a balanced sum's values are each read once: the order keeps every value's
    readers in order (`ForwardPass._keeps_readers`), so it is swept in reverse, each run
    by one loop, each term getting the sum's one cotangent from outside it. ``dot``'s
    gradients are the other factors, the inputs themselves: its loops compute nothing,
    keep no list, and are not written. A sum of squares' gradients are a loop's list,
    built by a comprehension (`backward_source.Source`)."""
    use(monkeypatch, DEFAULT)
    n = DEFAULT.loops_from * 8
    ws: list[Scalar] = [0.001 * i - 8.0 for i in range(n)]
    xs = ws[::-1]

    def dot(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.dot(ws, xs)

    def squares(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.sum([w * w for w in ws])

    for f, keeps in [(dot, False), (squares, True)]:
        sources.clear()
        sources.swept = 0
        got = jit(ag.value_and_grad(f))(ws, xs)
        assert bits(got) == bits(ag.value_and_grad(f)(ws, xs))
        loops = [s for s in sources if s.startswith("def bwd_loop")]
        assert sources.swept >= 3  # the terms, the levels of 2,000 sums or more
        assert len(loops) == keeps  # the squares' terms: a list
        assert any("_m0 = [" in loop for loop in loops) is keeps  # a list, by comprehension
        assert sum(s.count("\n") for s in sources) < n // 2  # not a statement a term


def test_a_wide_sum_whose_order_moves_a_reader_is_swept_as_traced(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``w`` is read first deep in a chain (traced first), then by every term: by depth the
    terms come first, so its cotangent would add the chain's contribution first, not
    last, and differ in its last bits (it does, if `_keeps_readers` is skipped). The order
    is written by depth, the sweep keeps the eager order: no backward loop."""
    use(monkeypatch, attrs.evolve(DEFAULT, depth_always=True))  # whatever its runs hold
    n = DEFAULT.loops_from * 4
    xs: list[Scalar] = [((i * 7919) % 1013) / 337.0 - 1.5 for i in range(n)]

    def chain_first(p: list[Scalar], xs: list[Scalar]) -> Scalar:
        w, v = p
        return ag.tanh(ag.tanh(v * w)) * w + ag.sum([w * x for x in xs])

    got = jit(ag.value_and_grad(chain_first))([0.7, 0.3], xs)
    assert bits(got) == bits(ag.value_and_grad(chain_first)([0.7, 0.3], xs))
    assert [s for s in sources if s.startswith("def fwd_loop")]
    assert not [s for s in sources if s.startswith("def bwd_loop")]


def test_runs_reading_earlier_runs_are_swept_by_loops(
    sources: Sources, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By depth, ``w * x * 0.5``'s scalings are a run reading the products' run, and each
    level of the sum a run reading the level below: each gives the items it reads one
    cotangent (``0.5``, the sum's ``1.0``), a parameter of its loop. ``sin``'s slope is an
    item's own: that run's loop returns the products' cotangents as a list (``_m``), which
    the products' loop streams (``_g``). Every run is swept by a loop, with eager's bits."""
    use(monkeypatch, attrs.evolve(DEFAULT, depth_always=True))
    n = DEFAULT.loops_from * 4
    ws: list[Scalar] = [((i * 7919) % 1013) / 337.0 - 1.5 for i in range(n)]
    xs = ws[::-1]

    def scaled(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.sum([w * x * 0.5 for w, x in zip(ws, xs, strict=True)])

    def sines(ws: list[Scalar], xs: list[Scalar]) -> Scalar:
        return ag.sum([ag.sin(w * x) for w, x in zip(ws, xs, strict=True)])

    for f, listed in [(scaled, False), (sines, True)]:
        sources.clear()
        sources.swept = 0
        got = jit(ag.value_and_grad(f))(ws, xs)
        assert bits(got) == bits(ag.value_and_grad(f)(ws, xs))
        forward = [s for s in sources if s.startswith("def fwd_loop")]
        backward = [s for s in sources if s.startswith("def bwd_loop")]
        assert len(forward) >= 3  # the terms, their levels
        assert sources.swept == len(forward)
        assert any(" _g" in s for s in backward) is listed


@pytest.mark.parametrize("last", [None, "first", "after"])
def test_a_loss_at_every_state_of_an_rnn_rolls_forward_and_backward(
    sources: Sources, monkeypatch: pytest.MonkeyPatch, last: str | None
) -> None:
    """A loss at every step of an RNN: traced depth first, the sum's additions fall
    between the states, and each state's whole expression differs from the next's, so only
    its last few levels (`orders.SHAPE_DEPTH`) show the additions join like terms. Sunk,
    the states and their terms are one run (``total`` or ``total + p``), or with ``p +
    total`` (the states traced first) the states one run and the terms another reading
    them: the terms' loop returns each state's cotangent in a list, which the states' loop
    streams, carried from state to state. Forward and backward are loops, with eager's
    bits."""
    use(monkeypatch, DEFAULT)
    xs: list[Scalar] = [((i * 7919) % 1013) / 337.0 - 1.5 for i in range(DEFAULT.loops_from)]

    def loss(w: Scalar, xs: list[Scalar]) -> Scalar:
        p, states = w, []
        for x in xs:
            p = ag.tanh(p * x + 0.25)
            states.append(p)
        total = ag.sum([ag.sin(q * 1.5) for q in states])
        return total if last is None else p + total if last == "first" else total + p

    vg = ag.value_and_grad(loss, argnums=(0, 1))
    assert bits(jit(vg)(0.3, xs)) == bits(vg(0.3, xs))
    assert len([s for s in sources if s.startswith("def fwd_loop")]) == (
        2 if last == "first" else 1
    )
    backward = [s for s in sources if s.startswith("def bwd_loop")]
    assert len(backward) == (2 if last == "first" else 1)
    assert any("= _g" in s for s in backward) is (last == "first")  # a carried stream


def entropy(ps: Sequence[Scalar]) -> Scalar:
    """Each input read at two depths: ``log(p)`` by depth 1's run, ``p * log(p)`` by depth 2's."""
    return ag.sum([p * ag.log(p) for p in ps])


def squares_then_entropy(ps: Sequence[Scalar]) -> Scalar:
    """A run before the entropy's reads each input too: its cotangents wait (`pending`)."""
    return ag.sum([p * p for p in ps]) * 0.5 + entropy(ps)


def tanh_then_entropy(ps: Sequence[Scalar]) -> Scalar:
    """Three runs read each input: ``tanh``'s and ``log``'s at depth 1, the products' at 2.
    (The other way round, by depth ``tanh`` would read each input before the products, not
    after as traced: the sweep goes as traced then, its forward by depth.)"""
    return ag.sum([ag.tanh(p) for p in ps]) + entropy(ps)


@pytest.mark.parametrize("loss", [entropy, squares_then_entropy, tanh_then_entropy])
def test_inputs_read_by_several_runs_are_swept_by_loops_that_add_in_turn(
    sources: Sources, monkeypatch: pytest.MonkeyPatch, loss: Callable[..., Scalar]
) -> None:
    """By depth, each run reading the inputs is a loop both ways: a later run's backward
    loop leaves each input's cotangent so far in a list, which the earlier run's loop
    streams and adds its own to (`BackwardLoops._prior`), as the eager sweep adds them."""
    use(monkeypatch, DEFAULT)
    ps: list[Scalar] = [0.05 + ((i * 37) % 101) / 40.0 for i in range(DEFAULT.loops_from * 2)]
    vg = ag.value_and_grad(loss)
    jitted = jit(vg)
    assert bits(jitted(ps)) == bits(vg(ps))
    qs = [p * 1.5 for p in ps]
    assert bits(jitted(qs)) == bits(vg(qs))  # the same code on new values
    backward = [s for s in sources if s.startswith("def bwd_loop")]
    assert any("_u0" in s for s in backward)  # a cotangent so far, streamed
    assert sum(s.count("\n") for s in sources) < 1_000  # not 12,000 statements


UNARIES: list[Callable[[Scalar], Scalar]] = [ag.tanh, ag.sin, lambda v: v * v, ag.exp]
BINARIES: list[Callable[[Scalar, Scalar], Scalar]] = [
    lambda a, b: a * b,
    lambda a, b: a + b,
    lambda a, b: a - b * 0.5,
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 2), st.booleans()), min_size=1, max_size=4
    ),
    n=st.integers(24, 160),
    extra=st.sampled_from(["none", "before", "after", "neighbour", "output"]),
    depth=st.booleans(),
)
def test_terms_reading_their_inputs_at_several_depths_keep_eager_bits(
    shape: list[tuple[int, int, bool]], n: int, extra: str, depth: bool
) -> None:
    """A wide sum whose every term reads its input again at random depths, with a run
    reading the inputs before or after it, terms reading their neighbour's input too (by
    depth, readers out of order), or an input returned as an output: every run rolled, by
    depth where it may be (or always), gives eager's bits on two calls."""

    def term(p: Scalar, q: Scalar) -> Scalar:
        v = p
        for u, b, again in shape:
            v = BINARIES[b](UNARIES[u](v), (q if extra == "neighbour" else p) if again else v)
        return v

    def loss(ps: list[Scalar]) -> Scalar:
        total = ag.sum([term(p, q) for p, q in zip(ps, ps[1:] + ps[:1], strict=True)])
        if extra == "before":
            total = ag.sum([ag.sin(p) for p in ps]) + total
        if extra == "after":
            total = total + ag.sum([ag.sin(p) for p in ps])
        return total

    def with_input(ps: list[Scalar]) -> tuple[Scalar, Scalar]:
        return loss(ps), ps[3]

    ps: list[Scalar] = [((i * 29) % 41) / 20.0 - 1.0 for i in range(n)]
    options = attrs.evolve(SMALL_RUNS, depth_always=depth)
    vg: Callable[[list[Scalar]], object] = (
        ag.value_and_grad(with_input, has_aux=True)
        if extra == "output"
        else ag.value_and_grad(loss)
    )
    jitted = ag.jit(vg, options=options)
    for xs in (ps, [x * -0.75 for x in ps]):
        assert bits(jitted(xs)) == bits(vg(xs))
