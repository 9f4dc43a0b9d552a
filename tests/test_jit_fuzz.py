"""jit against eager on random programs: bit for bit, under several hash seeds, with teeth.

The cases (tests/jit_fuzz.py) return inputs, constants, plain floats and the
same node twice, in nested containers and `has_aux` aux, under random
transforms; each is called twice through one jit wrapper with new values.
The mutation tests plant known defects (the old register allocator, a wrong
rule, a frozen exponent) and require the same fuzz to catch each.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import attrs
import pytest

import autograd as ag
from autograd.compiler import chunks, equations
from autograd.compiler import codegen as _codegen
from autograd.compiler import runs as _runs
from autograd.compiler.options import Options
from autograd.compiler.stmts import Stmt
from autograd.compiler.writer import RuleCode
from autograd.core.nodes import Node, Scalar, Sigmoid

sys.path.insert(0, str(Path(__file__).parent))
import jit_fuzz  # the fuzzer is a script beside the tests
from test_reroll import generated_sources

FUZZ = Path(__file__).parent / "jit_fuzz.py"
HASH_SEEDS = ["0", "1", "2", "4242"]


def disagreements(seeds: range) -> Iterator[str]:
    for seed in seeds:
        why = jit_fuzz.check(jit_fuzz.make_case(seed))
        if why is not None and why != jit_fuzz.SKIPPED:
            yield why


def test_jit_agrees_with_eager_on_random_programs() -> None:
    bad = list(disagreements(range(2000)))
    assert bad == []


def test_jit_agrees_with_eager_when_every_program_is_split_into_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # names cross chunks through R; outputs read from R
    monkeypatch.setattr(jit_fuzz, "OPTIONS", Options(chunk=3))
    assert list(disagreements(range(2000, 3000))) == []


@pytest.mark.parametrize("order", ["traced", "by depth", "points, long periods"])
def test_jit_agrees_with_eager_when_every_repeated_run_is_a_loop(
    monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    options = Options(**jit_fuzz.EVERY_RUN)  # `jit_fuzz --reroll`
    if order == "by depth":  # `jit_fuzz --depth`: every program rolled in depth order
        options = attrs.evolve(options, depth_always=True)
    if order == "points, long periods":  # `--points --long`: sums over loops' iterations
        monkeypatch.setattr(jit_fuzz, "POINTS", True)  # (joins `sink` moves), and periods
        # found through windows only, searched at every position
        options = attrs.evolve(options, **jit_fuzz.LONG_PERIODS)
    monkeypatch.setattr(jit_fuzz, "OPTIONS", options)
    loops = 0
    link = _codegen.Program.link

    def counting(self: _codegen.Program, outputs: Sequence[str]) -> object:
        nonlocal loops
        run = link(self, outputs)
        loops += sum(src.startswith("def loop") for src in self.sources)
        return run

    monkeypatch.setattr(_codegen.Program, "link", counting)
    assert list(disagreements(range(3000, 4500))) == []
    assert loops > 300  # the cases' loops (and backward sweeps over them) became loops


@pytest.mark.parametrize(
    "statements",
    [
        "as written",
        "rerolled, in chunks of 3",
        "backward loops all prologue",
        "in depth order",
        "joins sunk",
        "wide sums in depth order",
        "sums over states sunk",
    ],
)
def test_jit_agrees_with_eager_when_runs_of_nodes_roll_before_their_statements(
    monkeypatch: pytest.MonkeyPatch, statements: str
) -> None:
    monkeypatch.setattr(jit_fuzz, "PERIODS", True)  # `jit_fuzz --periods`: longer loops,
    options = Options(**jit_fuzz.EVERY_PERIOD)  # each run of nodes rolled in the graph
    if statements == "rerolled, in chunks of 3":  # what is left rolled by `reroll`, in chunks
        options = attrs.evolve(options, reroll_from=0, min_reps=2, min_statements=2, chunk=3)
    if statements == "backward loops all prologue":  # `--settle 0`: no iteration in a `for`
        options = attrs.evolve(options, settle=0)
    if statements in ("in depth order", "wide sums in depth order"):  # `--depth`: the forward
        options = attrs.evolve(options, depth_always=True)  # by depth, its runs' values kept
    if statements in ("wide sums in depth order", "sums over states sunk"):  # `--wide`: runs
        monkeypatch.setattr(jit_fuzz, "WIDE", True)  # reading runs, an item each
    if statements == "sums over states sunk":  # `--wide --sink`: an RNN's states summed
        options = attrs.evolve(options, sink_always=True)
    if statements == "joins sunk":  # `--sink --points`: sums over the loops' iterations sunk,
        monkeypatch.setattr(jit_fuzz, "POINTS", True)  # their runs' values kept
        options = attrs.evolve(options, sink_always=True)
    monkeypatch.setattr(jit_fuzz, "OPTIONS", options)
    sources = generated_sources(monkeypatch)
    sunk = 0
    find_sunk = _codegen.Program._sunk

    def counting(self: _codegen.Program, few_joins: bool = False) -> object:
        nonlocal sunk
        found = find_sunk(self, few_joins)
        sunk += found is not None
        return found

    monkeypatch.setattr(_codegen.Program, "_sunk", counting)
    assert list(disagreements(range(6000, 6800))) == []
    if statements == "joins sunk":
        assert sunk >= 30  # (43 in these cases)
    if statements in ("wide sums in depth order", "sums over states sunk"):  # each item's
        # cotangent from a later run's loop, in the list it returns, streamed by the earlier
        # run's loop (sunk: carried through the states, `_c0 = _g0`)
        streamed = [src for src in sources if src.startswith("def bwd_loop") and " _g" in src]
        carried = [src for src in streamed if "= _g" in src]
        if statements == "wide sums in depth order":
            assert len(streamed) >= 5  # (8 in these cases; depth-order runs carry nothing)
        else:
            assert len(carried) >= 10  # (20 in these cases)
        return
    if statements == "in depth order":  # the sweep keeps the eager order: no backward loop
        loops = sum(src.startswith("def fwd_loop") for src in sources)
        assert loops > 200  # (360 in these cases)
        return
    loops = sum(src.startswith("def bwd_loop") for src in sources)
    assert loops > 40  # runs rolled forward and backward (56 in these cases)


def test_jit_agrees_with_eager_when_runs_read_earlier_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """`jit_fuzz --traced --periods`: a transform jitted as a plain function holds its sweep
    as nodes, runs reading earlier runs backwards, each rolled with its values kept."""
    monkeypatch.setattr(jit_fuzz, "PERIODS", True)
    monkeypatch.setattr(jit_fuzz, "TRACED", True)
    monkeypatch.setattr(jit_fuzz, "OPTIONS", Options(**jit_fuzz.EVERY_PERIOD))
    sources = generated_sources(monkeypatch)
    assert list(disagreements(range(7000, 8200))) == []
    streamed = sum("_x0" in src for src in sources if src.startswith("def fwd_loop"))
    assert streamed > 12  # loops streaming an earlier loop's values (25 in these cases)


def test_jit_agrees_with_eager_when_inputs_are_read_by_several_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`jit_fuzz --periods --depth --wide --reread`: the sequence differentiated and read
    again by wide sums' terms, so by depth a later run's backward loop leaves an input's
    cotangent so far, which an earlier run's loop streams (`BackwardLoops._prior`)."""
    for name in ("PERIODS", "WIDE", "REREAD"):
        monkeypatch.setattr(jit_fuzz, name, True)
    options = Options(**jit_fuzz.EVERY_PERIOD, depth_always=True)
    monkeypatch.setattr(jit_fuzz, "OPTIONS", options)
    sources = generated_sources(monkeypatch)
    assert list(disagreements(range(9000, 9600))) == []
    streamed = sum("_u0" in src for src in sources if src.startswith("def bwd_loop"))
    assert streamed >= 5  # (8 in these cases)


def _differentiated_twice(monkeypatch: pytest.MonkeyPatch, *switches: str) -> None:
    """`jit_fuzz --periods --second` and ``switches``: each run rolled, kept as traced."""
    for name in ("PERIODS", "SECOND", *switches):
        monkeypatch.setattr(jit_fuzz, name, True)
    options = Options(**jit_fuzz.EVERY_PERIOD, keep_always=True)
    monkeypatch.setattr(jit_fuzz, "OPTIONS", options)


@pytest.mark.parametrize("extra", ["", "WIDE", "POINTS"])
def test_jit_agrees_with_eager_when_differentiated_twice(
    monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    """`jit_fuzz --periods --second [--wide | --points]`: jit differentiates a scalar of
    each case's gradient, whose trace holds a sweep as nodes: runs reading earlier runs
    backwards, rolled as traced with their values kept (`keep_always`) and swept by loops
    that give the earlier runs' items their cotangents (``_m``)."""
    _differentiated_twice(monkeypatch, *([extra] if extra else []))
    sources = generated_sources(monkeypatch)
    assert list(disagreements(range(6000, 6300))) == []
    given = sum("_m0" in src for src in sources if src.startswith("def bwd_loop"))
    assert given >= 8  # (22, 41 and 15 in these cases)


def _started_with_the_found_phases_refs(
    run: _runs.Run,
    done: int,
    forms: list[int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[_runs.Run],
    stride: int,
) -> _runs.Run:
    """`runs._earliest` with a defect: the earlier start keeps the refs found at the later one
    (each operand read where it was an item or so later in the body)."""
    got = _runs._extent  # (the real check, for where a run may start at all)
    for s in range(max(done, run.start - stride + 1), run.start):
        if got(s, run.period, forms, operands, owner, runs, run.count) is not None:
            return _runs.Run(s, run.period, run.count, run.refs)
    return run


def test_twice_differentiated_fuzz_catches_a_run_started_with_another_phases_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _differentiated_twice(monkeypatch)
    monkeypatch.setattr(_runs, "_earliest", _started_with_the_found_phases_refs)
    assert next(disagreements(range(6000, 6300)), None) is not None


def test_most_fuzz_cases_compare_rather_than_skip() -> None:
    outcomes = [jit_fuzz.check(jit_fuzz.make_case(seed)) for seed in range(500)]
    assert outcomes.count(None) > 400  # a skip is an eager call that raised in Python


@pytest.mark.parametrize("hash_seed", HASH_SEEDS)
def test_jit_fuzz_agrees_under_hash_seed(hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    for extra in (
        [],
        ["--chunk", "4"],
        ["--reroll"],
        ["--reroll", "--depth", "--chunk", "3"],
        ["--periods", "--count", "200"],
    ):
        done = subprocess.run(
            [sys.executable, str(FUZZ), "--count", "400", "--seed", "7000", *extra],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert re.search(r"disagreed 0$", done.stdout.strip())


SOURCE_SCRIPT = """
import autograd as ag
from autograd.compiler import codegen as _codegen
seen = []
class Spy(_codegen.Program):
    def link(self, outputs):
        run = super().link(outputs)
        seen.extend(self.sources)
        return run
_codegen.Program = Spy
import autograd.compiler.tracing as t
t.Program = Spy
f = ag.value_and_grad(lambda p: ag.sum([p[0] ** 2, p[1] ** 2, ag.tanh(p[0] * p[2])]) + p[2])
ag.jit(f)([1.0, 2.0, 3.0])
ag.jit(lambda x, y: [x * y, x * x + y, y, {"a": x}, y])(2.0, 3.0)
print("\\n".join(seen))
"""


def test_generated_source_is_the_same_under_every_hash_seed() -> None:
    sources = set()
    for hash_seed in HASH_SEEDS:
        done = subprocess.run(
            [sys.executable, "-c", SOURCE_SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        sources.add(done.stdout)
    assert len(sources) == 1
    assert "def chunk0(R)" in sources.pop()


# ---- outputs that are inputs: the defect that started it, as plain tests ------------------


def test_outputs_that_are_inputs_and_repeated() -> None:
    f = ag.jit(lambda x, y: [x * y, x * x + y, y, x, y])
    assert f(2.0, 3.0) == [6.0, 7.0, 3.0, 2.0, 3.0]
    assert f(5.0, -1.0) == [-5.0, 24.0, -1.0, 5.0, -1.0]


def test_parameter_added_straight_to_the_loss() -> None:
    def loss(p: Sequence[Scalar]) -> Scalar:
        return ag.sum([p[0] ** 2, p[1] ** 2]) + p[2]

    f = ag.value_and_grad(loss)
    assert ag.jit(f)([1.0, 2.0, 3.0]) == (8.0, [2.0, 4.0, 1.0])
    assert ag.jit(f)([3.0, 1.0, -1.0]) == f([3.0, 1.0, -1.0])


def test_gradient_seed_returned_as_an_output() -> None:
    def first(x: Node, y: Node) -> Node:
        return x

    f = ag.jit(ag.value_and_grad(first, argnums=(0, 1)))
    assert f(2.0, 3.0) == (2.0, (1.0, 0.0))


# ---- eager semantics of numbers that are not differentiated --------------------------------


@pytest.mark.parametrize(
    ("x", "c"), [(-0.0, 0.5), (-float("inf"), 0.5), (1.3, 4.0), (2.0, 0.0), (0.0, -1.0), (3.0, 2.0)]
)
def test_undifferentiated_exponent_keeps_the_scalar_pow_path(x: float, c: float) -> None:
    f = ag.value_and_grad(lambda x, c: x**c)
    jitted = ag.jit(f)
    jitted(0.7, 1.5)  # trace with other values first: nothing about c may be frozen
    assert jit_fuzz.bits(jitted(x, c)) == jit_fuzz.bits(f(x, c))


def test_plain_jit_computes_floats_as_python_does() -> None:
    f = ag.jit(lambda x: x**0.5)
    assert str(f(-0.0)) == str((-0.0) ** 0.5) == "0.0"  # Python's pow; on a node it is sqrt: -0.0


# ---- teeth: planted defects the fuzz must catch ---------------------------------------------


def _old_registers(
    chunk: list[Stmt],
    loads: list[str],
    live_out: list[str],
    dead: list[list[str]] | None = None,
) -> dict[str, str]:
    """The allocator before the fix: a fresh register named by how many names it knows.

    (``dead`` is for batches only, which this fuzz does not compile.)
    """
    end = len(chunk)
    last_use: dict[str, int] = dict.fromkeys(live_out, end)
    for i, (_, _, uses) in enumerate(chunk):
        for u in uses:
            if last_use.get(u) != end:
                last_use[u] = i
    reg: dict[str, str] = {}
    free: list[str] = []
    for u in [*loads, *(o for o in live_out if o in loads)]:  # a name loaded twice
        reg[u] = free.pop() if free else f"r{len(reg)}"
    for i, (target, _, uses) in enumerate(chunk):
        for u in set(uses):
            if last_use[u] == i:
                free.append(reg[u])
        reg[target] = free.pop() if free else f"r{len(reg)}"
        if target not in last_use:
            free.append(reg[target])
    return reg


_Rule = Callable[
    [_codegen.Program, Node, tuple[Node, ...], int, list[str], bool, bool], list[RuleCode | None]
]


def _wrong_sigmoid_rule(rule: _Rule) -> _Rule:
    def wrong(
        self: _codegen.Program,
        node: Node,
        ins: tuple[Node, ...],
        key: int,
        names: list[str],
        own: bool,
        unit: bool,
    ) -> list[RuleCode | None]:
        if type(node) is Sigmoid and own and not unit:
            return [(("{{{2}}} * (1.0 - {{{1}}})", (2, 1)), None, None)]  # forgot the factor s
        return rule(self, node, ins, key, names, own, unit)

    return wrong


@pytest.mark.parametrize("defect", ["registers", "rule", "frozen_exponent"])
def test_fuzz_catches_a_planted_defect(monkeypatch: pytest.MonkeyPatch, defect: str) -> None:
    if defect == "registers":
        monkeypatch.setattr(chunks, "_registers", _old_registers)
    elif defect == "rule":
        wrong = _wrong_sigmoid_rule(_codegen.Program._rule_code)
        monkeypatch.setattr(_codegen.Program, "_rule_code", wrong)
    else:  # every number compiled as a node: the undifferentiated exponent's path is lost
        walk = equations.walk

        def no_plain(
            inputs: Sequence[Node], outputs: Sequence[Node], plain: object, floats: set[Node]
        ) -> equations.Walk:
            return walk(inputs, outputs, frozenset(), floats)

        monkeypatch.setattr(equations, "walk", no_plain)
    assert next(disagreements(range(3000)), None) is not None
