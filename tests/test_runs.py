"""`runs`, the loop finder: runs found in forms and operands, checked against oracles.

`_extent` checks a candidate run's later iterations in chunks that double; the
oracle checks them one by one, as it was first written. The programs hold a
run whose operands sit in every kind of place a run can read (this
iteration, the previous one, before the run, an input stream, an earlier
run's iterations at a stride), maybe broken by one changed form or operand.
"""

from __future__ import annotations

import random

import pytest

from autograd.compiler import runs as _runs
from autograd.compiler.options import Options


def _extent_one_by_one(
    s: int,
    p: int,
    forms: list[int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[_runs.Run],
) -> tuple[int, int, int, list[list[tuple[int, ...]]]] | None:
    """`reroll._extent` as first written: each later iteration checked in turn (the oracle)."""
    n = len(forms)
    body = forms[s : s + p]
    refs: list[list[tuple[int, ...]]] = []
    q = 0
    while s + (q + 1) * p <= n and q < 2:
        base = s + q * p
        if q and forms[base : base + p] != body:
            break
        if not _runs._iteration(q, s, p, base, operands, owner, runs, refs):
            break
        q += 1
    if q < 2:
        return None
    coeffs, bounds = _runs._affine(refs, s, p, runs)
    while s + (q + 1) * p <= n:
        base = s + q * p
        if forms[base : base + p] != body:
            break
        if any(not 0 <= first + step * q < count for first, step, count in bounds):
            break
        if operands[base : base + p] != [[a + b * q for a, b in slot] for slot in coeffs]:
            break
        q += 1
    return s, p, q, refs


def _periodic_program(
    rng: random.Random,
) -> tuple[list[int], list[list[int]], list[int], list[_runs.Run]]:
    """Forms, operands (`reroll._forms`' numbering), owners and runs, with a run, maybe broken.

    First an earlier run (its statements read as lists), then statements the run may
    read (fixed ones); in its body, operands of each kind: this iteration's, the
    previous one's, a fixed one, an input stream (inputs are ``-1 - index``), an
    earlier run's slot at a stride; then a change to one form or operand, or none.
    """
    p0, c0 = rng.randint(1, 2), rng.randint(2, 40)
    earlier = _runs.Run(0, p0, c0, [])
    pre = p0 * c0 + rng.randint(1, 6)
    p, count = rng.randint(1, 4), rng.randint(2, 70)
    forms = [7] * (p0 * c0) + [rng.randint(0, 3) for _ in range(pre - p0 * c0)]
    operands: list[list[int]] = [[] for _ in range(pre)]
    owner = [0] * (p0 * c0) + [-1] * (pre - p0 * c0)
    body = [rng.randint(0, 2) for _ in range(p)]
    kinds: list[list[tuple[str, int, int]]] = []
    for k in range(p):
        slot: list[tuple[str, int, int]] = []
        for _ in range(rng.randint(0, 2)):
            kind = rng.choice(["local", "carried", "fixed", "input", "list"][0 if k else 1 :])
            if kind == "local":
                slot.append((kind, rng.randrange(k), 0))
            elif kind == "carried":
                slot.append((kind, rng.randrange(p), 0))
            elif kind == "fixed":
                slot.append((kind, rng.randrange(pre), 0))
            elif kind == "input":
                slot.append((kind, rng.randint(0, 40), rng.choice([1, 2, -1, -2])))
            else:  # slot r of the earlier run's iteration a + b * q
                a = rng.randrange(c0)
                slot.append((kind, rng.randrange(p0) + p0 * a, rng.choice([1, 2, -1])))
        kinds.append(slot)
    for q in range(count):
        base = pre + q * p
        for k in range(p):
            ops: list[int] = []
            for kind, a, b in kinds[k]:
                if kind == "local":
                    j = base + a
                elif kind == "carried":
                    j = base - p + a
                elif kind == "fixed":
                    j = a
                elif kind == "input":  # past input 0 the stream reads the first statement
                    j = -1 - (a + b * q) if a + b * q >= 0 else 0
                else:  # past either end of the earlier run, the first statement after it
                    j = a + b * p0 * q if 0 <= a + b * p0 * q < p0 * c0 else p0 * c0
                if j not in ops:
                    ops.append(j)
            forms.append(body[k])
            operands.append(ops)
            owner.append(-1)
    if rng.random() < 0.7:
        at = rng.randrange(pre, len(forms))
        if rng.random() < 0.5 or not operands[at]:
            forms[at] = (forms[at] + 1) % 4
        else:
            m = rng.randrange(len(operands[at]))
            moved = operands[at][m] + rng.choice([-1, 1, p])
            if moved < at and moved not in operands[at]:
                operands[at][m] = moved
    for i in range(rng.randint(0, 5)):
        forms.append(rng.randint(0, 3))
        operands.append([len(forms) - 2 - i])
        owner.append(-1)
    # as `reroll._forms` numbers them: equal forms read as many operands
    forms = [f * 10 + len(ops) for f, ops in zip(forms, operands, strict=True)]
    return forms, operands, owner, [earlier]


@pytest.mark.parametrize("seed", range(300))
def test_extent_checks_iterations_in_chunks_as_it_would_one_by_one(seed: int) -> None:
    """Every start and period of a program holding a (maybe broken) run: the same run found."""
    forms, operands, owner, runs = _periodic_program(random.Random(seed))
    for s in range(len(forms)):
        for p in range(1, 6):
            run = _runs._extent(s, p, forms, operands, owner, runs)
            got = None if run is None else (run.start, run.period, run.count, run.refs)
            assert got == _extent_one_by_one(s, p, forms, operands, owner, runs), (s, p)


@pytest.mark.parametrize("seed", range(200))
def test_extent_with_too_few_iterations_is_none(seed: int) -> None:
    """Asked for ``need`` iterations, `_extent` gives the oracle's run if it has them, else
    None (it looks at iteration ``need - 1`` first)."""
    forms, operands, owner, runs = _periodic_program(random.Random(seed))
    for s in range(len(forms)):
        for p in range(1, 5):
            want = _extent_one_by_one(s, p, forms, operands, owner, runs)
            for need in (3, 4, 9, 40):
                run = _runs._extent(s, p, forms, operands, owner, runs, need)
                got = None if run is None else (run.start, run.period, run.count, run.refs)
                assert got == (want if want is not None and want[2] >= need else None), (s, p)


def _operand_at(ref: tuple[int, ...], run: _runs.Run, q: int, runs: list[_runs.Run]) -> int | None:
    """The operand ``ref`` names at iteration ``q`` of ``run``, read off the ref kinds' meaning
    (not the finder's code); None where it names nothing (past an earlier run's ends)."""
    here = run.start + q * run.period
    match ref:
        case (_runs.LOCAL, slot):
            return here + slot
        case (_runs.CARRIED, slot, init):
            return init if q == 0 else here - run.period + slot
        case (_runs.FIXED, j):
            return j if j < run.start else None
        case (_runs.INPUTS, first, step):
            return -1 - (first + step * q) if first + step * q >= 0 else None
        case (_runs.LIST, o, slot, first, step):
            other, it = runs[o], first + step * q
            return other.start + it * other.period + slot if 0 <= it < other.count else None
        case _:
            raise AssertionError(f"no such ref kind: {ref}")


@pytest.mark.parametrize("seed", range(300))
def test_every_run_found_reads_where_its_refs_say_at_every_iteration(seed: int) -> None:
    """Each run `best_run` finds, left to right as `short_runs` goes: every iteration has
    the body's forms and, at each operand position, the operand its ref kind names."""
    forms, operands, _, _ = _periodic_program(random.Random(seed))
    options = Options(min_reps=2, min_statements=2, stride=1)
    nxt, owner = _runs.next_same(forms), [-1] * len(forms)
    runs: list[_runs.Run] = []
    i = 0
    while i < len(forms):
        run = _runs.best_run(i, forms, operands, nxt, owner, runs, 2, 2, options)
        if run is None:
            i += 1
            continue
        assert run.start == i
        assert run.count >= 2
        for q in range(run.count):
            base = run.start + q * run.period
            assert forms[base : base + run.period] == forms[run.start : run.start + run.period]
            for k, slot in enumerate(run.refs):
                want = [_operand_at(ref, run, q, runs) for ref in slot]
                assert operands[base + k] == want, (run.start, run.period, q, k)
        i = run.start + run.period * run.count
        owner[run.start : i] = [len(runs)] * (i - run.start)
        runs.append(run)


def test_a_run_found_past_a_skipped_position_starts_at_its_first_iteration() -> None:
    """Four items that repeat nothing, then 40 iterations of five forms, each item reading
    the one before: the search tries items 0 and 8 (`Options.stride`), finds the run at 8,
    a step into an iteration, and starts it where its first iteration starts."""
    forms = [90, 91, 92, 93] + [1, 2, 3, 4, 5] * 40
    operands: list[list[int]] = [[]] + [[j - 1] for j in range(1, len(forms))]
    found = _runs.short_runs(forms, operands, 4, 16, Options())
    assert [(start, period) for start, period, *_ in found] == [(4, 5)]


@pytest.mark.parametrize("seed", range(300))
def test_runs_found_past_skipped_positions_read_where_they_say(seed: int) -> None:
    """At the default stride, a run found a few items into an iteration is started earlier
    (`_earliest`); what `short_runs` reports of it (iterations, fixed items, input streams,
    earlier runs' streams) is what checking the run from its reported start finds."""
    forms, operands, _, _ = _periodic_program(random.Random(seed))
    forms = [99 - k for k in range(seed % 7)] + forms  # the run a few items later
    operands = [[] for _ in range(seed % 7)] + [
        [j + seed % 7 if j >= 0 else j for j in ops] for ops in operands
    ]
    owner, runs = [-1] * len(forms), list[_runs.Run]()
    for start, period, count, fixed, inputs, lists in _runs.short_runs(
        forms, operands, 2, 2, Options(), lists=True
    ):
        run = _runs._extent(start, period, forms, operands, owner, runs, count)
        assert run is not None
        assert run.count == count
        refs = [ref for slot in run.refs for ref in slot]
        assert fixed == sorted({ref[1] for ref in refs if ref[0] == _runs.FIXED})
        assert inputs == sorted({(ref[1], ref[2]) for ref in refs if ref[0] == _runs.INPUTS})
        assert lists == sorted(
            {
                (runs[r].start + runs[r].period * first + slot, runs[r].period * step)
                for _, r, slot, first, step in (ref for ref in refs if ref[0] == _runs.LIST)
            }
        )
        owner[start : start + period * count] = [len(runs)] * (period * count)
        runs.append(run)
