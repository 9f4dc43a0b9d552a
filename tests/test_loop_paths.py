"""The loop machinery's rarer paths, each reached by a program `jit` compiles.

Each case is a small program with the compiler's thresholds lowered so that
it reaches one path of the loop machinery (`forward_loops`,
`backward_loops`, `backward_source`, `sweep`, `orders`, `equations`, a
batch's `forward`), and compares every result with the eager call's, bit
for bit: signed zeros and NaN payloads count. Where the path decides whether
a loop is written, the generated source says whether it was, next to a
program that differs only in what the path tests.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import pytest

import autograd as ag
from autograd.compiler import arrays, equations, orders
from autograd.compiler.jit import FALLBACKS
from autograd.compiler.options import Options
from autograd.compiler.stmts import Stmt
from autograd.core.nodes import Scalar

SMALL_RUNS = Options(loops_from=0, min_run=0, min_looped=1)
"""Every run of nodes rolled, however short (by default only long ones are)."""

KEPT_RUNS = Options(loops_from=0, min_run=0, min_looped=1, keep_always=True)
"""`SMALL_RUNS`, each run's values kept in lists as traced (a second derivative's order)."""

needs_numpy = pytest.mark.skipif(not arrays.HAVE_NUMPY, reason="batched execution needs NumPy")

NAN = struct.unpack("<d", bytes.fromhex("0100000000f8ff7f"))[0]
"""A quiet NaN with a payload of 1: its bits must come through."""


def exact(x: object) -> object:
    """A result's bits: every float packed (so ``-0.0`` and a NaN's payload count)."""
    if type(x) is float:
        return struct.pack("<d", x)
    if isinstance(x, list | tuple):
        return (type(x).__name__, [exact(v) for v in x])
    return ("other", type(x).__name__, repr(x))  # a node: never equal to a float


def loops(source: str, kind: str) -> list[str]:
    """The generated functions of one kind (``fwd_loop``, ``bwd_loop``) in ``source``."""
    return [f for f in source.split("\n\n") if f.startswith(f"def {kind}")]


# ---- forward_loops: aliases carried in a cycle ----------------------------------------------


def swap(p: Sequence[Scalar], factor: float) -> Scalar:
    """``x`` and ``y`` swap each step; with ``factor`` 1.0 each is the other's value itself."""
    x, y, z = p
    for _ in range(30):
        x, y = y * factor, x * factor
        z = z * x + y
    return z


@pytest.mark.parametrize("p", [[0.3, -0.7, 0.2], [-0.0, NAN, 0.5], [1.5, -0.0, -0.25]])
def test_aliases_swapped_over_iterations_are_written_straight(p: list[float]) -> None:
    """``x * 1.0`` is written as ``x``: a body whose aliases name each other's previous
    values has no statement to hold them, so its run is not looped (swapped products are)."""
    vg = ag.value_and_grad(swap)
    for factor, rolled in [(1.0, False), (0.5, True)]:
        jitted = ag.jit(vg, static_argnums=1, options=SMALL_RUNS)
        assert exact(jitted(p, factor)) == exact(vg(p, factor))
        source = jitted.lower(p, factor).source
        assert bool(loops(source, "fwd_loop")) is rolled
        assert bool(loops(source, "bwd_loop")) is rolled


# ---- backward_source: a variable stream that gets no cotangent ---------------------------------


def gated(p: Sequence[Scalar], x: Scalar) -> Scalar:
    """Each step's ``p[i]`` is only compared: no rule gives it a cotangent."""
    h = x
    for w in p:
        h = ag.where(ag.gt(h, w), ag.tanh(h), h * 0.5)
    return h


THRESHOLDS = [((i * 7) % 11) / 5.0 - 1.0 for i in range(30)]


@pytest.mark.parametrize("x", [0.7, -0.0, -1.5])
def test_a_stream_only_compared_in_a_loop_keeps_no_cotangents(x: float) -> None:
    vg = ag.value_and_grad(gated, argnums=(0, 1))
    jitted = ag.jit(vg, options=SMALL_RUNS)
    got = jitted(THRESHOLDS, x)
    assert exact(got) == exact(vg(THRESHOLDS, x))
    assert exact(got[1][0]) == exact([0.0] * len(THRESHOLDS))
    source = jitted.lower(THRESHOLDS, x).source
    assert loops(source, "fwd_loop")
    (backward,) = loops(source, "bwd_loop")
    assert "append" not in backward  # no list of the stream's cotangents, zeros or not
    assert "_i0" not in backward  # nor its items read


# ---- sweep: a loop's cotangent of a variable that a comparison read before it ------------------


def compared_first(p: Sequence[Scalar], x: Scalar) -> Scalar:
    """``p[5]`` is compared before the loop that reads every ``p[i]`` at a stride."""
    h = ag.where(ag.gt(p[5], 0.0), x, -x)
    for w in p:
        h = ag.tanh(h * 0.9 + w)
    return h


@pytest.mark.parametrize("p5", [0.25, -0.5, -0.0])
def test_a_variable_compared_before_its_loop_gets_the_loops_cotangent(p5: float) -> None:
    """The backward loop keeps ``p[5]``'s cotangent in its list, pending until the sweep
    passes the comparison, which adds none: it is read from the list at the end."""
    p = [*THRESHOLDS[:5], p5, *THRESHOLDS[6:]]
    vg = ag.value_and_grad(compared_first, argnums=(0, 1))
    jitted = ag.jit(vg, options=KEPT_RUNS)
    got = jitted(p, 0.7)
    assert exact(got) == exact(vg(p, 0.7))
    assert got[1][0][5] != 0.0
    source = jitted.lower(p, 0.7).source
    assert loops(source, "fwd_loop")
    assert loops(source, "bwd_loop")


# ---- backward_loops: an earlier run's items given cotangents at some iterations only ------------


def delayed(x: Scalar, delay: int) -> Scalar:
    """A chain, then a run reading its values through ``delay`` steps before ``total`` does.

    Each step's ``delay`` values are compared (so each step computes them), but only
    the last of them is added into ``total``, at the next step: the chain's value read
    at step q gets a cotangent only if q is ``delay`` steps or more before the end.
    """
    h = x
    hs = []
    for _ in range(24):
        h = ag.tanh(h * 0.9 + 0.1)
        hs.append(h)
    total = h
    vs = [h] * delay
    for q in range(24):
        prev = vs
        vs = [ag.sin(hs[q]), *[ag.sin(v) for v in prev[:-1]]]
        s = vs[0]
        for v in vs[1:]:
            s = s + v
        total = total * 0.5 + ag.where(ag.gt(s, 0.0), prev[-1], 0.25)
    return total


@pytest.mark.parametrize("x", [0.7, -0.3])
def test_a_run_giving_an_earlier_run_some_cotangents_is_swept_node_by_node(x: float) -> None:
    """With a delay past the run's tail, the first looped iterations swept give the chain's
    values no cotangent and the later ones do: no backward loop, and every bit as eager's;
    one step less, and every looped iteration gives one: both runs are swept by loops."""
    vg = ag.value_and_grad(delayed)
    for delay, swept in [(5, False), (4, True)]:
        jitted = ag.jit(vg, static_argnums=1, options=KEPT_RUNS)
        assert exact(jitted(x, delay)) == exact(vg(x, delay))
        source = jitted.lower(x, delay).source
        assert len(loops(source, "fwd_loop")) == 2
        assert len(loops(source, "bwd_loop")) == (2 if swept else 0)


# ---- forward: two `vmap` batches meeting; sweep: their gradients summed as each completes ------


XS = [0.25 * i - 1.0 for i in range(9)]
YS = [0.5 - 0.125 * i for i in range(10)]


def two_batches(xs: list[float], ys: list[float]) -> Scalar:
    """The second `vmap` reads a variable of the first's batch: the two batches meet."""
    leaked: list[Scalar] = []

    def first(x: Scalar) -> Scalar:
        leaked.append(x)
        return x * 2.0

    def second(y: Scalar) -> Scalar:
        return ag.tanh(y * leaked[0])

    total: Scalar = ag.sum(ag.vmap(first)(xs)) + ag.sum(ag.vmap(second)(ys))
    return total


@needs_numpy
def test_two_batches_meeting_in_a_node_run_as_the_loop() -> None:
    before = FALLBACKS["not batchable"]
    jitted = ag.jit(two_batches)
    assert exact(jitted(XS, YS)) == exact(two_batches(XS, YS))
    assert FALLBACKS["not batchable"] == before + 1
    assert exact(jitted(YS[1:], XS)) == exact(two_batches(YS[1:], XS))  # the loop, compiled


def separate_batches(w: Sequence[Scalar], xs: list[float], ys: list[float]) -> Scalar:
    """``w[0]`` is read by the first batch only, ``w[1]`` by the second."""
    a: Scalar = ag.mean(ag.vmap(lambda x: w[0] * x * x)(xs))
    b: Scalar = ag.mean(ag.vmap(lambda y: ag.sin(y) * w[1])(ys))
    return a + b


@needs_numpy
def test_per_example_gradients_are_summed_per_batch_as_each_completes() -> None:
    """With `Options.sum_group` 0, each variable's per-example cotangents are summed as soon
    as they are complete: one sum over its own batch, none over the other.

    A shared argument's gradient sums its examples in the balanced order, the eager sweep
    one by one (docs/vmap.md): dyadic data, 8 and 16 examples, make every sum exact.
    """
    xs = [k / 4.0 for k in (-3, 1, 2, -5, 0, 7, -1, 4)]
    ys = [k / 8.0 for k in (5, -2, 3, 1, -7, 6, 0, -4, 2, -1, 7, -6, 4, -3, 1, 0)]
    vg = ag.value_and_grad(separate_batches)
    jitted = ag.jit(vg, options=Options(sum_group=0))
    for w in ([0.5, -1.25], [-0.0, 3.0]):
        assert exact(jitted(w, xs, ys)) == exact(vg(w, xs, ys))
    source = jitted.lower([0.5, -1.25], xs, ys).source
    sums = [line.split(" = ")[1] for line in source.splitlines() if "batch_sums(" in line]
    # one variable each, each over its own batch only
    assert sorted(s.split("), ")[1] for s in sums) == ["16)", "8)"]
    assert all(s.startswith("batch_sums((r") and s.count(",") == 2 for s in sums)


# ---- equations: what `lower` prints -------------------------------------------------------------


def test_a_gradient_of_an_output_no_variable_reaches_prints_no_backward_equation() -> None:
    def f(x: Scalar, c: Scalar) -> Scalar:
        return c * 2.0

    g = ag.grad(f)
    jitted = ag.jit(g)
    for x, c in [(1.5, 3.0), (-0.0, NAN)]:
        assert exact(jitted(x, c)) == exact(g(x, c))
    text = jitted.lower(1.5, 3.0).as_text()
    assert "vjp" not in text
    assert "add_any" not in text
    assert "  gradients 0.0\n" in text


def test_a_plain_exponents_rule_is_printed_as_the_eager_call_runs_it() -> None:
    """``x ** c`` with ``c`` not differentiated: eager lifted ``c`` to a constant, so the rule
    is the scalar-exponent one (PyTorch's path), not the rule of a power of two nodes."""

    def power(x: Scalar, c: Scalar) -> Scalar:
        return x**c

    vg = ag.value_and_grad(power)
    jitted = ag.jit(vg)
    for x, c in [(2.0, 3.0), (-0.0, 0.5), (0.0, -1.0), (-8.0, 1 / 3), (-2.0, 0.0), (NAN, 0.0)]:
        assert exact(jitted(x, c)) == exact(vg(x, c))
    text = jitted.lower(2.0, 3.0).as_text()
    rule = "((a1 * pow_scalar_float(a0, (a1 - 1.0))) if (a1 != 0.0) else 0.0)"
    assert f"    g0 = vjp[pow, 0] {rule}\n" in text


@needs_numpy
def test_a_batch_sum_is_not_evaluated_one_example_at_a_time() -> None:
    def batch_mean(xs: list[float]) -> Scalar:
        mean: Scalar = ag.mean(ag.vmap(lambda x: ag.tanh(x) * 2.0)(xs))
        return mean

    xs = [0.1 * i for i in range(10)]
    jitted = ag.jit(batch_mean)
    assert exact(jitted(xs)) == exact(batch_mean(xs))
    program = jitted.lower(xs).program
    assert program is not None
    assert [e.prim for e in program.eqns] == ["tanh", "mul", "batch_sum", "div"]
    column = [0.5] * len(program.inputs)  # one example's values: a batch's sum is not one
    with pytest.raises(ValueError, match="a vmap's batch sum runs only over a batch"):
        equations.evaluate(program, column)


# ---- orders: a program wide at its ends only --------------------------------------------------


def ends_wide(xs: Sequence[Scalar]) -> list[Scalar]:
    """Products (a quarter of the first `orders.SAMPLE` statements), a chain, then as many
    statements each reading one chain value (the last ones, one depth there): but no
    depth holds a quarter of the whole."""
    products = [xs[i] * xs[i + 1] for i in range(0, len(xs) - 1, 2)]
    h = xs[0]
    chain = []
    for _ in range(15_000):
        h = ag.sin(h)
        chain.append(h)
    return [*products, h, *[c * 2.0 for c in chain]]


def test_a_program_wide_only_at_its_ends_is_rolled_as_traced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its first and last `orders.SAMPLE` statements look wide, the whole does not: `link`
    rolls it as traced, not by depth."""
    seen: list[tuple[bool, list[bool]]] = []
    by_depth = orders.by_depth

    def spy(stmts: Sequence[Stmt], force: bool = False) -> list[int] | None:
        order = by_depth(stmts, force)
        parts = [stmts[: orders.SAMPLE], stmts[-orders.SAMPLE :], stmts]
        seen.append((order is None, [orders.wide(orders.depths(s)) for s in parts]))
        return order

    monkeypatch.setattr(orders, "by_depth", spy)
    xs = [((i * 37) % 101) / 50.0 - 1.0 for i in range(10_002)]
    jitted = ag.jit(ends_wide, options=Options(loops_from=10**9))  # rolled as statements
    assert exact(jitted(xs)) == exact(ends_wide(xs))
    source = jitted.lower(xs).source
    assert seen == [(True, [True, True, False])] * 2
    assert len(loops(source, "loop")) == 3  # the products, the chain, the reads of its values
