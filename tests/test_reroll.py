"""`reroll`: repeated statements rolled into loops compute what the straight statements do.

The property test writes random straight-line programs with repeated
segments whose operands sit everywhere a loop can find them (this
iteration, the previous one, before the loop, an earlier loop's iterations
forwards or backwards) and where it cannot (two iterations back, an earlier
loop's values out of step, anything at random), runs them straight and
rolled, and compares every output bit for bit. The `jit` tests at the end
hold the compiled chain to eager results and to its size.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler import codegen as _codegen
from autograd.compiler import reroll as _reroll
from autograd.compiler import runs as _runs
from autograd.compiler.options import Options
from autograd.compiler.orders import by_depth, sink
from autograd.compiler.reroll import reroll
from autograd.compiler.stmts import Stmt, code, fields, ref
from autograd.core.nodes import Scalar
from autograd.core.sym import HELPERS

sys.path.insert(0, str(Path(__file__).parent))
from jit_fuzz import bits  # the fuzzer is a script beside the tests
from jitting import CURRENT, jit, use

ARGS = [0.3, -1.25, 2.0, 0.5, 1.5, -0.75, 0.0, 0.25, -2.0, 1.0, 0.125, -0.5]
INPUTS = [f"a{i}" for i in range(len(ARGS))] + ["k0", "k1"]
# Each keeps magnitudes bounded (so values stay informative), is not symmetric in its
# operands, and some read one operand twice or name an input in their text.
FORMS = [
    "(({0} * 0.5) + ({1} * 0.25)) + 0.125",
    "({0} * 0.75) - ({1} * 0.375)",
    "tanh({0} - {1})",
    "(({0} * {0}) * 0.25) - {1}",
    "tanh((a1 * {0}) + {1})",
    "({0} * k0) - tanh({1})",
]


@pytest.fixture(autouse=True)
def every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Roll every run of two or more iterations (by default only long runs are rolled)."""
    use(monkeypatch, EVERY_RUN)


EVERY_RUN = Options(min_reps=2, min_statements=2, stride=1)
"""`reroll` rolling every run of two or more iterations."""


def random_program(seed: int) -> tuple[list[Stmt], list[str], list[object]]:
    """Random statements with repeated segments, and the names read at the end."""
    rng = random.Random(seed)
    names: list[str] = []  # statement targets so far
    written: list[object] = []  # the form each statement was written from
    stmts: list[Stmt] = []
    segments: list[tuple[int, int, int]] = []  # (first statement, period, reps)

    def emit(form: str, x: str, y: str) -> None:
        t = f"v{len(stmts)}"
        expr = template(form.format(x, y))
        # uses: every name read, in order, as `Program` lists a statement written from a form
        stmts.append((t, expr, tuple(fields(expr))))
        written.append(form)
        names.append(t)

    def anything() -> str:
        return rng.choice(INPUTS + names)

    for _ in range(rng.randint(1, 6)):
        if rng.random() < 0.3 or not names:
            emit(rng.choice(FORMS), anything(), anything())
            continue
        period, reps = rng.randint(1, 4), rng.randint(2, 7)
        start = len(stmts)
        body = [
            (rng.choice(FORMS), [_pattern(rng, r, period, segments) for _ in "xy"])
            for r in range(period)
        ]
        before = list(INPUTS + names)
        for q in range(reps):
            for form, pats in body:
                ops = [_operand(rng, p, q, start, period, before) for p in pats]
                emit(form, *ops)
        segments.append((start, period, reps))
    live = rng.sample(names, rng.randint(1, len(names)))
    if rng.random() < 0.3:
        live = list(names)  # every value read after its loop
    elif rng.random() < 0.2:
        live = names[::-1]  # every value, last first (a backward sweep's gradients)
    return stmts, live, written


@attrs.frozen
class Pattern:
    """Where a body operand is read from: its kind, and the choices that fix the place."""

    kind: str
    slot: int = 0  # a body slot (of this segment, or of ``segment``)
    u: float = 0.0  # picks a name before the segment, or a stream's first iteration
    segment: tuple[int, int, int] = (0, 1, 1)  # an earlier segment: first statement, period, reps
    step: int = 1


def _pattern(
    rng: random.Random, r: int, period: int, segments: list[tuple[int, int, int]]
) -> Pattern:
    kinds = ["carried", "fixed", "two back", "random", "inputs", "inputs"]
    if r:
        kinds += ["local", "local"]
    if segments:
        kinds += ["stream", "stream", "stream then jump"]
    kind = rng.choice(kinds)
    if kind == "local":
        return Pattern(kind, rng.randrange(r))
    if kind == "inputs":  # data points: inputs at a stride (wrapping around: out of step)
        return Pattern(kind, rng.choice([1, -1, 2, 3]), rng.random())
    if kind.startswith("stream"):
        segment = rng.choice(segments)
        slot, step = rng.randrange(segment[1]), rng.choice([1, -1, 1, -1, 2, -2, 3])
        return Pattern(kind, slot, rng.random(), segment, step)
    return Pattern(kind, rng.randrange(period), rng.random())


def _operand(
    rng: random.Random,
    pat: Pattern,
    q: int,
    start: int,
    period: int,
    before: list[str],
) -> str:
    """The name a pattern reads at iteration ``q`` (a fixed choice is the same at every one)."""
    chosen = before[int(pat.u * len(before))]
    if pat.kind == "local":
        return f"v{start + q * period + pat.slot}"
    if pat.kind in ("carried", "two back"):
        back = 1 if pat.kind == "carried" else 2
        return chosen if q < back else f"v{start + (q - back) * period + pat.slot}"
    if pat.kind == "fixed":
        return chosen
    if pat.kind == "inputs":  # ``slot`` is the stride
        return f"a{(int(pat.u * len(ARGS)) + pat.slot * q) % len(ARGS)}"
    if pat.kind.startswith("stream"):
        s2, p2, reps2 = pat.segment
        it = (int(pat.u * reps2) + pat.step * q) % reps2  # wraps around: out of step there
        if pat.kind == "stream then jump" and q >= 2:
            it = rng.randrange(reps2)
        return f"v{s2 + it * p2 + pat.slot}"
    return rng.choice(before)


_NAME = re.compile(r"\b[avegklp][0-9]+\b")
"""The names in this test's generated code, written as text."""


def template(expr: str) -> str:
    """A statement's code as a template (`compiler.stmts`): its names as fields."""
    return _NAME.sub(lambda m: ref(m[0]), expr)


def refs(names: Sequence[str]) -> list[str]:
    """Outputs as templates, as `link` passes them to `reroll`."""
    return [ref(n) for n in names]


def execute(
    stmts: list[Stmt], live: Sequence[str], namespace: dict[str, object]
) -> tuple[float, ...]:
    src = "def f(R):\n    " + ", ".join(INPUTS[: len(ARGS)]) + " = R\n    k0, k1 = 0.7, -0.1\n"
    src += "".join(f"    {t} = {code(e)}\n" for t, e, _ in stmts)
    src += f"    return ({''.join(code(name) + ', ' for name in live)})\n"  # names, or a slice
    exec(compile(src, "<test>", "exec"), namespace)
    fn = cast("Callable[..., tuple[float, ...]]", namespace.pop("f"))  # generated: f(R)
    return fn(list(ARGS))  # R: the inputs, as a compiled program's chunk reads them


@pytest.mark.parametrize("told", [False, True], ids=["parsed", "written"])
@pytest.mark.parametrize("order", ["traced", "by depth", "joins sunk", "long periods"])
def test_reroll_finds_loops_and_keeps_every_value(
    told: bool, order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forms parsed from the text, or told by the form each statement was written from;
    statements as written, or by depth (`by_depth`, as `jit` rolls them), or with
    joins moved late (`sink`: every statement movable, or a random part), or with
    every period found as a long one (`runs.Windows`, searched at every position)."""
    if order == "long periods":
        use(monkeypatch, attrs.evolve(EVERY_RUN, max_period=0, window=2, long_skip=1))
    rolled = spliced = 0
    for seed in range(600):
        stmts, live, written = random_program(seed)
        want = execute(stmts, live, dict(HELPERS))
        movable = None
        if order == "by depth":
            at = by_depth(stmts, force=True)
            assert at is not None
            stmts, written = [stmts[i] for i in at], [written[i] for i in at]
            assert bits(list(execute(stmts, live, dict(HELPERS)))) == bits(list(want))
        elif order == "joins sunk":
            rng = random.Random(seed)
            movable = [seed % 2 == 0 or rng.random() < 0.5 for _ in stmts]
        new = reroll(list(stmts), refs(live), HELPERS, written if told else (), movable, options())
        rolled += bool(new.loops)
        spliced += len(new.spliced) > 0
        namespace = {**HELPERS, **new.loops}
        assert bits(list(execute(new.stmts, new.returns, namespace))) == bits(list(want)), seed
        assert bits(list(execute(new.stmts + new.spliced, live, namespace))) == bits(list(want))
    assert rolled > 150  # a third of the programs have a segment a loop covers
    assert spliced > 10  # and some return consecutive iterations, read as a slice


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_reroll_keeps_every_value_on_any_program(seed: int) -> None:
    stmts, live, written = random_program(seed)
    if seed % 3 == 0:
        at = by_depth(stmts, force=True)
        assert at is not None
        stmts, written = [stmts[i] for i in at], [written[i] for i in at]
    movable = [True] * len(stmts) if seed % 5 < 2 else None
    new = reroll(list(stmts), refs(live), HELPERS, written if seed % 2 else (), movable, options())
    namespace = {**HELPERS, **new.loops}
    assert bits(list(execute(new.stmts, new.returns, namespace))) == bits(
        list(execute(stmts, live, dict(HELPERS)))
    )


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_sink_moves_only_joins_and_only_later_than_their_operands(seed: int) -> None:
    """`sink`'s order is a permutation computing every operand first; what is not a
    join keeps its order; a join comes after every statement before it that it reads."""
    stmts, _, written = random_program(seed)
    rng = random.Random(seed)
    movable = [rng.random() < 0.7 for _ in stmts]
    index = {t: i for i, (t, _, _) in enumerate(stmts)}
    forms, operands = _reroll._forms(stmts, index, written)
    order = sink(forms, operands, movable)
    if order is None:
        return
    assert sorted(order) == list(range(len(stmts)))
    at = {old: new for new, old in enumerate(order)}
    for i, ops in enumerate(operands):
        assert all(at[j] < at[i] for j in ops if j >= 0)
    kept = [i for i in order if not movable[i]]
    assert kept == sorted(kept)  # statements it may not move keep their order


def test_a_loss_over_data_points_rolls_over_the_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mean of a network's loss over 40 points: traced depth first, the mean's
    balanced sum falls between the points' networks; with its additions moved after
    them (`sink`), each point's forward statements and then its backward ones are one
    loop body each, found at their long period (`runs.Windows`: over `Options.max_period`).
    Runs of equations are not looked for here (`loops_from`): they would roll the points
    first (`test_periods.test_a_loss_over_data_points_rolls_over_the_points_as_equations`)."""
    monkeypatch.undo()  # the default thresholds
    use(monkeypatch, Options(loops_from=10**9))
    sources = generated_sources(monkeypatch)
    rng = random.Random(3)
    hidden, points = 48, 40
    w = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(hidden)] + [
        [rng.uniform(-1, 1) for _ in range(hidden + 1)]
    ]
    xs = [[rng.uniform(-2, 2) for _ in range(2)] for _ in range(points)]
    ys = [rng.choice([-1.0, 1.0]) for _ in range(points)]

    def loss(w: Sequence[Sequence[Scalar]], xs: list[list[float]], ys: list[float]) -> Scalar:
        losses = []
        for x, y in zip(xs, ys, strict=True):
            h = [ag.tanh(ag.dot(n[:2], x) + n[2]) for n in w[:hidden]]
            out = ag.dot(w[hidden][:hidden], h) + w[hidden][hidden]
            losses.append(ag.relu(1.0 - y * out))
        return ag.mean(losses)

    want = ag.value_and_grad(loss)(w, xs, ys)
    got = jit(ag.value_and_grad(loss))(w, xs, ys)
    assert bits([got[0], *(g for n in got[1] for g in n)]) == bits(
        [want[0], *(g for n in want[1] for g in n)]
    )
    loops = [s for s in sources if s.startswith("def loop")]
    assert any(s.count("tanh") >= hidden for s in loops)  # a point's network
    lines = sum(s.count("\n") for s in sources)
    assert lines < 2_500  # of 25,272 traced; 5,300 in 80 loops of one neuron each without windows


def test_only_code_repeating_a_long_body_is_worth_sinking() -> None:
    """`sink` costs a pass and a reordering: code with no long body repeating (random
    statements, a chain) skips it; a long body repeated does not."""
    rng = random.Random(0)
    chain = [rng.randrange(3) for _ in range(40)] * 100  # a body of 40 statements
    noise = [rng.randrange(5) for _ in range(4000)]
    body = [rng.randrange(5) for _ in range(300)]  # longer than Options.max_period
    for forms, want in ((chain, False), (noise, False), (noise[:500] + body * 10, True)):
        windows = _runs.Windows(forms, _runs.next_same(forms), options())
        period = options().max_period
        assert _reroll._repeats_far(windows, [True] * len(forms), period) is want
        assert not _reroll._repeats_far(windows, [False] * len(forms), period)


ACTIVATIONS: list[Callable[[Scalar], Scalar]] = [ag.tanh, ag.relu, ag.sigmoid, lambda v: v * v]
REDUCTIONS: list[Callable[[list[Scalar]], Scalar]] = [
    ag.mean,
    ag.sum,
    lambda ts: ts[0] if len(ts) == 1 else ag.sum(ts[1:]) + ts[0] * 0.5,
]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
def test_random_losses_over_points_keep_eager_bits(seed: int) -> None:
    """Random networks over random points, reduced at random, some taking a branch for
    some points (so the points' code differs), some wide enough that a point's body is
    longer than `Options.max_period`: every program rolled (joins sunk, long periods looked
    for), called on the traced points and on new ones, gives eager's bits."""
    rng = random.Random(seed)
    hidden = rng.choice([1, 2, 5, 12, 60])
    points = rng.randint(1, 24)
    act = rng.choice(ACTIVATIONS)
    reduce = rng.choice(REDUCTIONS)
    branchy = rng.random() < 0.3
    w = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(hidden)] + [
        [rng.uniform(-1, 1) for _ in range(hidden + 1)]
    ]

    def data() -> tuple[list[list[float]], list[float]]:
        xs = [[rng.uniform(-2, 2), rng.choice([0.0, -0.0, 1.5])] for _ in range(points)]
        return xs, [rng.choice([-1.0, 1.0]) for _ in range(points)]

    def loss(w: Sequence[Sequence[Scalar]], xs: list[list[float]], ys: list[float]) -> Scalar:
        terms = []
        for i, (x, y) in enumerate(zip(xs, ys, strict=True)):
            h = [act(ag.dot(n[:2], x) + n[2]) for n in w[:hidden]]
            if branchy and i % 3 == 1:  # this point's code differs (a trace-time choice)
                h = [v * x[0] for v in h]
            out = ag.dot(w[hidden][:hidden], h) + w[hidden][hidden]
            terms.append(ag.relu(1.0 - y * out) if seed % 2 else (out - y) ** 2)
        return reduce(terms)

    eager = ag.value_and_grad(loss)
    jitted = ag.jit(eager, options=attrs.evolve(EVERY_RUN, reroll_from=0))  # every one rolled
    for xs, ys in (data(), data()):
        want, got = eager(w, xs, ys), jitted(w, xs, ys)
        assert bits([got[0], *(g for n in got[1] for g in n)]) == bits(
            [want[0], *(g for n in want[1] for g in n)]
        ), (hidden, points, branchy)


def test_an_input_stride_stops_at_the_first_input() -> None:
    """Iterations read a5, a2, then v0: the stride would reach input -1, and -1 - (-1) is
    statement 0's index, so a loop once took v0 for an input and ran two iterations of three."""
    stmts: list[Stmt] = [("v0", "{a0} * 0.5", ("a0",))]
    for x in ["a5", "a2", "v0"]:
        t = f"v{len(stmts)}"
        stmts.append((t, f"tanh({{a1}} - {{{x}}})", ("a1", x)))
    live = [t for t, _, _ in stmts]
    new = reroll(list(stmts), refs(live), HELPERS, options=options())
    got = execute(new.stmts, new.returns, {**HELPERS, **new.loops})
    assert bits(list(got)) == bits(list(execute(stmts, live, dict(HELPERS))))


# ---- jit: a deep chain compiles to loops -------------------------------------------------------


ROLLED_LATE = Options(loops_from=10**9)
"""The default thresholds, but no run of nodes rolled first: `reroll`'s loops."""


def options() -> Options:
    """The options of the test in progress (`jitting.use`)."""
    return CURRENT["options"]


def generated_sources(
    monkeypatch: pytest.MonkeyPatch, sources: list[str] | None = None
) -> list[str]:
    """A list (``sources``, or a new one) that every program linked from now on adds its
    generated sources to."""
    sources = [] if sources is None else sources
    link = _codegen.Program.link

    def spy(self: _codegen.Program, outputs: Sequence[str]) -> object:
        run = link(self, outputs)
        sources.extend(self.sources)
        return run

    monkeypatch.setattr(_codegen.Program, "link", spy)
    return sources


def chain(x: Scalar, n: int) -> Scalar:
    for _ in range(n):
        x = ag.tanh(0.9 * x + 0.1)
    return x


def test_deep_chain_compiles_to_two_loops_with_eager_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.undo()  # the default thresholds: a chain this long is rolled as it is
    use(monkeypatch, ROLLED_LATE)
    sources = generated_sources(monkeypatch)
    calls = 0

    def counted(x: Scalar, n: int) -> Scalar:
        nonlocal calls
        calls += 1
        return chain(x, n)

    vg = ag.value_and_grad(chain)
    jitted = jit(ag.value_and_grad(counted), static_argnums=(1,))
    for x in (0.5, -3.0, 0.0):
        assert bits(jitted(x, 3000)) == bits(vg(x, 3000))
    assert calls == 1  # traced once, then compiled code
    loops = [s for s in sources if s.startswith("def loop")]
    assert len(loops) == 2  # the forward chain and the backward sweep over it
    assert "reversed(" in loops[1] or "::-1]" in loops[1]  # the forward values, last first
    assert sum(s.count("\n") for s in sources) < 60  # not 15,000 statements


def test_budget_counts_what_is_compiled_after_rolling(monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.undo()
    use(monkeypatch, ROLLED_LATE)
    use(monkeypatch, attrs.evolve(ROLLED_LATE, budget=100))  # 15,000 traced, a few dozen compiled
    calls = 0

    def counted(x: Scalar) -> Scalar:
        nonlocal calls
        calls += 1
        return chain(x, 3000)

    jitted = jit(ag.value_and_grad(counted))
    assert bits(jitted(0.25)) == bits(ag.value_and_grad(chain)(0.25, 3000))
    jitted(0.5)
    assert calls == 1  # compiled, not eager

    # not rolled: over the budget, eager
    use(monkeypatch, attrs.evolve(ROLLED_LATE, budget=100, reroll_from=10**9))
    eager = jit(ag.value_and_grad(counted))
    with pytest.warns(RuntimeWarning, match="too big to compile"):
        eager(0.25)
    eager(0.5)
    assert calls == 4  # the trace, then each of the two calls eagerly


def test_recurrence_over_a_sequence_of_inputs_compiles_to_loops_reading_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An RNN's steps read one input each: a loop reads the inputs at their stride."""
    monkeypatch.undo()
    use(monkeypatch, ROLLED_LATE)
    sources = generated_sources(monkeypatch)

    def rnn(w: Scalar, xs: Sequence[float]) -> Scalar:
        h: Scalar = 0.0
        for x in xs:
            h = ag.tanh(w * h + x)
        return h

    xs = [0.5 * i % 3.0 - 1.5 for i in range(2000)]
    vg = ag.value_and_grad(rnn)
    jitted = jit(vg)
    for w in (0.5, -1.25):
        assert bits(jitted(w, xs)) == bits(vg(w, xs))
    assert bits(jitted(0.5, xs[::-1])) == bits(vg(0.5, xs[::-1]))  # new values, same code
    loops = [s for s in sources if s.startswith("def loop")]
    assert len(loops) == 2
    assert re.search(r"_p\d+\[\d+:\d+\]", loops[0])  # the forward loop walks R, the inputs
    assert sum(s.count("\n") for s in sources) < 80


def test_a_wide_balanced_sum_rolls_level_by_level_and_returns_its_gradients_as_a_slice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """W4's shape: ``dot(ws, xs)`` traces depth first (products between the tree's additions);
    rolled by depth, the products, each level of the tree and the backward sweep are loops,
    and the 3,000 gradients are returned as one slice of the sweep's list."""
    monkeypatch.undo()  # the default thresholds, but no run of nodes rolled first
    use(monkeypatch, ROLLED_LATE)
    sources = generated_sources(monkeypatch)
    rng = random.Random(4)
    ws = [rng.uniform(-1, 1) for _ in range(3000)]
    xs = [rng.uniform(-1, 1) for _ in range(3000)]
    jitted = jit(ag.value_and_grad(ag.dot))
    for _ in range(2):
        assert bits(jitted(ws, xs)) == bits(ag.value_and_grad(ag.dot)(ws, xs))
    loops = [s for s in sources if s.startswith("def loop")]
    assert len(loops) >= 6  # products, the sweep, a loop per level of 64 sums or more
    assert any(":2]" in s for s in loops)  # a level reads the one below in pairs
    (program,) = [s for s in sources if s.startswith("def chunk")]
    assert program.count("\n") < 300  # not 9,000 statements (the top levels stay straight)
    assert "*" in program.splitlines()[-1]  # the gradients: a slice of the sweep's list
