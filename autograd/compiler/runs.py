"""Runs of repeated forms: the one loop finder, over forms and operands.

One finder for graph nodes, equations and statements alike. It sees a
program as a list of items (statements, graph nodes or equations: its
callers decide) and each item as two things:

- its **form**, an int: two items have the same form when they compute the
  same expression of the same constants, their operands aside (`reroll`
  numbers a statement's text or the form it was written from,
  `codegen.Program` a node's class, static fields and constants' bits,
  `equations.find_loops` an equation's structural key);
- its **operands**, the items it reads, in the order its form numbers them:
  ``j >= 0`` is item ``j`` (always an earlier one), ``-1 - i`` is input ``i``
  (an argument). Items of one form have equally many operands, so an
  **operand position** ``(slot, m)``, the ``m``-th operand of a body's item
  at ``slot``, means the same thing at every iteration.

A **run** (`Run`) is ``count`` iterations of a body of ``period`` items from
item ``start``: the forms repeat with that period, and each operand position
finds its operand in the same place at every iteration, in one of these
**ref kinds** (tuples, compared whole):

- ``(LOCAL, slot)``: this iteration's item at ``slot``;
- ``(CARRIED, slot, init)``: the previous iteration's item at ``slot``; the
  first iteration reads item ``init``, before the run;
- ``(FIXED, j)``: item ``j``, before the run, at every iteration;
- ``(LIST, run, slot, first, step)``: the item at ``slot`` of iteration
  ``first + step * q`` of an earlier run (step not 0: a backward sweep reads
  its forward values at step -1, a balanced sum's level the one below at 2);
- ``(INPUTS, first, step)``: input ``first + step * q`` (step not 0: an RNN
  reads one input a step).

A run's ``refs`` hold one kind per body slot and operand position: what a
loop needs to run the body (locals, arguments, sequences to iterate).

The search (`best_run`): at an item, the periods tried are the distances to
the next items of its form (`_periods`) and, for long bodies, to where its
window of forms comes again (`Windows`). A candidate's first iteration
records where each operand is, the second fixes each one's kind, and later
ones are checked in chunks (`_extent`); the run covering most items wins,
and the search goes on after it. `short_runs` is the entry point for graph
nodes and equations (`compiler.periods`), `best_run` with `Windows` for
statements (`reroll`).
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from operator import itemgetter

from autograd.compiler.options import DEFAULT, Options

_CANDIDATES = 6
"""Periods tried at a position: distances to the next items of the same form."""

LONG_PERIOD = 16_384
"""Longest loop body looked for by its window (`Windows`): one data point's statements."""

LONG_CANDIDATES = 48
"""Long periods tried at a position: distances to the next places its window comes again."""

# The ref kinds (see above): where an operand position finds its operand, at every iteration.
LOCAL = 0  # (LOCAL, slot): this iteration's item at ``slot`` of the body
CARRIED = 1  # (CARRIED, slot, init): the previous iteration's; the first reads item ``init``
FIXED = 2  # (FIXED, j): item j, before the run, at every iteration
LIST = 3  # (LIST, run, slot, first, step): iteration ``first + step * q`` of an earlier run
OUTSIDE = 4  # only at the first iteration, before the kind is known: (OUTSIDE, j)
INPUTS = 5  # (INPUTS, first, step): input ``first + step * q`` (step not 0)


class Run:
    """``count`` iterations of a ``period``-item body, from item ``start``."""

    __slots__ = ("count", "finals", "period", "refs", "start", "stored")

    def __init__(self, start: int, period: int, count: int, refs: list[list[tuple[int, ...]]]):
        self.start = start
        self.period = period
        self.count = count
        self.refs = refs  # per body slot, per operand position: its ref kind (above)
        # what `reroll`'s loop keeps of the run, filled in by `reroll` (the finder leaves them)
        self.stored: set[int] = set()  # slots whose every iteration's value is kept in a list
        self.finals: set[int] = set()  # slots whose last value is read after the loop

    def where(self, j: int) -> tuple[int, int]:
        """(iteration, slot) of item ``j`` of the run."""
        return divmod(j - self.start, self.period)


def short_runs(
    forms: list[int],
    operands: list[list[int]],
    min_reps: int,
    min_statements: int,
    options: Options = DEFAULT,
    lists: bool = False,
    long: bool = False,
) -> list[tuple[int, int, int, list[int], list[tuple[int, int]], list[tuple[int, int]]]]:
    """Runs with short periods (no windows): ``(start, period, count, fixed, inputs, lists)``.

    Each iteration reads only its own items, the previous iteration's (the
    first reads what precedes the run), the items ``fixed``, before the run,
    the same at every iteration, and ``inputs``: ``(first, step)``, input
    ``first + step * q`` at iteration q. With ``lists``, an iteration may also
    read an earlier run's values at a stride (a Hessian's sweep reading its
    chain), as `reroll`'s loops do: ``lists`` holds ``(first, step)``, item
    ``first + step * q`` at iteration q; without, no earlier run's values.
    `compiler.periods` looks for these among a graph's nodes or a program's
    equations, with forms and operands of its own.
    """
    n = len(forms)
    nxt = next_same(forms)
    owner = [-1] * n  # the run each item is in: only recorded with ``lists``
    runs: list[Run] = []
    found = []
    windows = Windows(forms, nxt, options, every=True) if long else None
    i = done = 0
    while i < n:
        run = best_run(
            i, forms, operands, nxt, owner, runs, min_reps, min_statements, options, windows
        )
        if run is None:
            i += options.stride
            continue
        run = _earliest(run, done, forms, operands, owner, runs, options.stride)
        refs = [ref for slot in run.refs for ref in slot]
        if lists or all(ref[0] != LIST for ref in refs):
            fixed = sorted({ref[1] for ref in refs if ref[0] == FIXED})
            inputs = sorted({(ref[1], ref[2]) for ref in refs if ref[0] == INPUTS})
            streams = sorted(
                {
                    (runs[r].start + runs[r].period * first + slot, runs[r].period * step)
                    for kind, r, slot, first, step in (ref for ref in refs if ref[0] == LIST)
                }
            )
            found.append((run.start, run.period, run.count, fixed, inputs, streams))
        end = run.start + run.period * run.count
        if lists:
            owner[run.start : end] = [len(runs)] * (end - run.start)
            runs.append(run)
        i = done = end
    return found


def _earliest(
    run: Run,
    done: int,
    forms: list[int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[Run],
    stride: int,
) -> Run:
    """``run`` started at the earliest item after ``done`` that holds as many iterations.

    The search tries the position `Options.stride` after one that failed; the
    positions between were not tried. The run may have begun there, and found
    later it starts a few items into an iteration. Started at its first item,
    each iteration reads one item of an earlier run (a Hessian's sweep reads
    the chain's value of its step), not one item's last readers and the next
    one's first.
    """
    p = run.period
    for s in range(max(done, run.start - stride + 1), run.start):
        if forms[s : s + p] == forms[s + p : s + 2 * p]:
            got = _extent(s, p, forms, operands, owner, runs, run.count)
            if got is not None:
                return got
    return run


def next_same(forms: list[int]) -> list[int]:
    """For each item, the index of the next one of the same form (``len`` if none)."""
    n = len(forms)
    nxt = [n] * n
    last: dict[int, int] = {}
    for i in range(n - 1, -1, -1):
        nxt[i] = last.get(forms[i], n)
        last[forms[i]] = i
    return nxt


def best_run(
    i: int,
    forms: list[int],
    operands: list[list[int]],
    nxt: list[int],
    owner: list[int],
    runs: list[Run],
    min_reps: int,
    min_statements: int,
    options: Options,
    windows: Windows | None = None,
) -> Run | None:
    """The run from statement ``i`` covering most statements, if one is worth a loop.

    Periods tried are the distances to the next statements of ``i``'s form;
    a multiple of a period that already gave a run covers no more (its
    iterations are that run's, paired up), so it is skipped. Unless a run
    found so covers a quarter of what is left, longer periods are tried too:
    the distances to where ``i``'s window of forms comes again (`Windows`).
    """
    n = len(forms)
    best: Run | None = None
    found: list[int] = []
    for p in _periods(i, nxt, n):
        if p > options.max_period or i + min_reps * p > n:
            break
        best = _try(i, p, best, found, forms, operands, owner, runs, min_reps, min_statements)
    if windows is None:
        return best
    if best is not None:  # code that rolls: look for long periods soon again
        windows.skip = options.long_skip
    if i < windows.after or (best is not None and best.count * best.period * 4 >= n - i):
        return best
    short = best
    tried = set(_periods(i, nxt, n))
    for k, p in enumerate(windows.periods(i)):
        if k == LONG_CANDIDATES or i + min_reps * p > n:
            break
        if p > options.max_period or (windows.every and p not in tried):
            best = _try(i, p, best, found, forms, operands, owner, runs, min_reps, min_statements)
    if best is short:  # none here: skip ahead, twice as far each time in a row
        windows.after = i + windows.skip
        windows.skip = min(2 * windows.skip, LONG_PERIOD)
    else:
        windows.skip = options.long_skip
    return best


def _periods(i: int, nxt: list[int], n: int) -> Iterator[int]:
    """Distances from ``i`` to the next `_CANDIDATES` statements of its form."""
    j = nxt[i]
    for _ in range(_CANDIDATES):
        if j >= n:
            return
        yield j - i
        j = nxt[j]


def _try(
    i: int,
    p: int,
    best: Run | None,
    found: list[int],
    forms: list[int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[Run],
    min_reps: int,
    min_statements: int,
) -> Run | None:
    """The better of ``best`` and the run from ``i`` with period ``p`` (recorded in ``found``)."""
    if found and any(p % f == 0 for f in found):
        return best
    last = i + (min_reps - 1) * p  # the last iteration's first statement
    if forms[last] != forms[i] or forms[last + p - 1] != forms[i + p - 1]:
        return best  # a quick look first: most candidates fail it
    if not _may_pair(i, p, forms, operands, owner):
        return best  # the second iteration's operands fit no kind: most of the rest
    if forms[i:last] != forms[i + p : last + p]:
        return best  # not even the forms repeat often enough
    # a run worth a loop: at least ``min_reps`` iterations and ``min_statements`` statements
    run = _extent(i, p, forms, operands, owner, runs, max(min_reps, -(-min_statements // p)))
    if run is None:
        return best
    found.append(p)
    if best is None or run.count * p > best.count * best.period:
        return run
    return best


class Windows:
    """Where an item's `Options.window` forms come again, up to `LONG_PERIOD` later.

    The window's rarest form is followed along ``nxt`` (its next items
    of that form), and each place is compared whole: a list comparison in C.
    A position where no long run is found makes the next `Options.long_skip`
    positions skip the search, twice as many after each further failure in
    a row: code with no long period costs little.
    """

    __slots__ = ("_forms", "after", "count", "every", "nxt", "skip", "width")

    def __init__(
        self,
        forms: list[int],
        nxt: list[int],
        options: Options,
        count: collections.Counter[int] | None = None,
        every: bool = False,
    ) -> None:
        """``count``: how often each form occurs, if known (a reordering keeps it).

        ``every``: try every period a window finds, not only those over
        `Options.max_period` (a data point's network shorter than that, whose
        window also comes again at a neuron's period).
        """
        self._forms = forms
        self.nxt = nxt
        """Per item, the next one of its form (`next_same`)."""
        self.count = collections.Counter(forms) if count is None else count
        """How often each form occurs."""
        self.after = 0
        """Positions before this skip the search (`best_run` sets it when one found none)."""
        self.skip = options.long_skip
        """How far the next search failing skips: doubled at each failure in a row."""
        self.width = options.window
        self.every = every

    def periods(self, i: int) -> Iterator[int]:
        """Distances from ``i`` to the next places its window starts again, nearest first."""
        forms, nxt, n = self._forms, self.nxt, len(self._forms)
        width = self.width
        if i + width > n:
            return
        window = forms[i : i + width]
        rare = min(range(i, i + width), key=lambda k: self.count[forms[k]])
        last, mid, half = window[-1], window[width // 2], width // 2
        j = nxt[rare]
        while j < n and j - rare <= LONG_PERIOD:
            start = j - (rare - i)
            end = start + width
            # two forms first (most places fail there), then the whole window
            if (
                end <= n
                and forms[end - 1] == last
                and forms[start + half] == mid
                and forms[start:end] == window
            ):
                yield start - i
            j = nxt[j]


def _extent(
    s: int,
    p: int,
    forms: list[int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[Run],
    need: int = 0,
) -> Run | None:
    """The longest run of period ``p`` from ``s`` whose operands keep their places.

    The first iteration records where each operand is; the second fixes its
    kind (the ref kinds above); every later one must agree. None if it has
    fewer than ``need`` iterations, which iteration ``need - 1`` tells at once
    for most places in a run too short to be worth a loop.
    """
    n = len(forms)
    body = forms[s : s + p]
    refs: list[list[tuple[int, ...]]] = []
    q = 0
    while s + (q + 1) * p <= n and q < 2:
        base = s + q * p
        if q and forms[base : base + p] != body:
            break
        if not _iteration(q, s, p, base, operands, owner, runs, refs):
            break
        q += 1
    if q < 2:
        return None
    # From the third iteration on, each operand's kind is fixed: where it must be is
    # ``a + b * q``. Iterations are checked in chunks that double, each a few list
    # comparisons in C (forms, then each operand's column): a run costs little per
    # iteration, and one that breaks early little in all.
    coeffs, bounds = _affine(refs, s, p, runs)
    last = (n - s) // p  # iterations that fit
    for first, step, count in bounds:
        last = min(last, _in_bounds(first, step, count, q, last))
    # iteration ``need - 1`` first: each place of a short run would check all of it
    if need > q and (
        last < need or _agreeing(s, p, need - 1, need, body, coeffs, forms, operands) < need
    ):
        return None
    size = _FIRST_CHUNK
    while q < last:
        end = min(last, q + size)
        good = _agreeing(s, p, q, end, body, coeffs, forms, operands)
        if good < end:
            return Run(s, p, good, refs) if good >= need else None
        q, size = end, size * 2
    return Run(s, p, q, refs)


_FIRST_CHUNK = 8
"""Iterations `_extent` checks first, after the two that fix the kinds; then twice as many."""


def _in_bounds(first: int, step: int, count: int, q: int, last: int) -> int:
    """The first iteration from ``q`` (before ``last``) not ``0 <= first + step * i < count``.

    ``last`` if none. Iteration ``q - 1`` found its operand there, and the index
    moves one way: it leaves the range once, at the end it moves to.
    """
    if step > 0:  # first + step * i >= count from here
        return min(last, -(-(count - first) // step))
    if step < 0:  # first + step * i < 0 from here
        return min(last, first // -step + 1)
    return last


def _agreeing(
    s: int,
    p: int,
    q: int,
    end: int,
    body: list[int],
    coeffs: list[list[tuple[int, int]]],
    forms: list[int],
    operands: list[list[int]],
) -> int:
    """The first iteration in ``[q, end)`` of the run from ``s`` that breaks it (``end``: none).

    An iteration agrees when its forms are ``body`` and operand ``m`` of slot ``k`` is
    ``a + b * i`` for ``(a, b) = coeffs[k][m]``.
    """
    lo = s + q * p
    if forms[lo : s + end * p] != body * (end - q):
        end = next(i for i in range(q, end) if forms[s + i * p : s + (i + 1) * p] != body)
    for k, slot in enumerate(coeffs):  # equal forms: the same number of operands
        for m, (a, b) in enumerate(slot):
            col = list(map(itemgetter(m), operands[lo + k : s + end * p : p]))
            expect = list(range(a + b * q, a + b * end, b)) if b else [a] * (end - q)
            if col != expect:
                pairs = enumerate(zip(col, expect, strict=True))
                end = q + next(i for i, (x, y) in pairs if x != y)
    return end


def _affine(
    refs: list[list[tuple[int, ...]]], s: int, p: int, runs: list[Run]
) -> tuple[list[list[tuple[int, int]]], list[tuple[int, int, int]]]:
    """Where each operand of a run from ``s`` with period ``p`` is at iteration ``q``.

    Per body slot, per operand, ``(a, b)``: statement (or input, negative)
    ``a + b * q``. This iteration's statement at a slot is ``s + p * q`` on;
    the previous one's ``p`` before; a fixed one stays; an input or an earlier
    run's slot moves by its step. And the ranges that must hold, ``0 <=
    first + step * q < count``, for an input (no upper end: past the last, no
    operand matches) or an earlier run's iteration (past its ends, the index
    would name some other statement).
    """
    coeffs: list[list[tuple[int, int]]] = []
    bounds: list[tuple[int, int, int]] = []
    for slot in refs:
        c: list[tuple[int, int]] = []
        for ref in slot:
            kind = ref[0]
            if kind == LOCAL:
                c.append((s + ref[1], p))
            elif kind == CARRIED:
                c.append((s - p + ref[1], p))
            elif kind == FIXED:
                c.append((ref[1], 0))
            elif kind == INPUTS:
                _, first, step = ref
                c.append((-1 - first, -step))
                bounds.append((first, step, 1 << 62))
            else:  # LIST
                _, o, r, first, step = ref
                run = runs[o]
                c.append((run.start + first * run.period + r, step * run.period))
                bounds.append((first, step, run.count))
        coeffs.append(c)
    return coeffs, bounds


def _may_pair(
    s: int, p: int, forms: list[int], operands: list[list[int]], owner: list[int]
) -> bool:
    """A quick test of the first two iterations, on indices alone: False if no kind fits.

    The two must have the same forms, and each operand of the second must
    sit where some kind puts it, given the first's: ``p`` later (this
    iteration's), the same (before the run), in the first iteration (the
    previous one's), another input, or another statement of the same earlier
    run. Most candidate periods fail here.
    """
    end = s + p
    for r in range(s, end):
        if forms[r] != forms[r + p]:
            return False
        for j0, j1 in zip(operands[r], operands[r + p], strict=True):
            if j0 >= s:
                if j1 != j0 + p:
                    return False
            elif j1 != j0 and not s <= j1 < end:
                if j0 < 0 or j1 < 0:
                    if not (j0 < 0 and j1 < 0):
                        return False
                elif owner[j0] < 0 or owner[j0] != owner[j1]:
                    return False
    return True


def _iteration(
    q: int,
    s: int,
    p: int,
    base: int,
    operands: list[list[int]],
    owner: list[int],
    runs: list[Run],
    refs: list[list[tuple[int, ...]]],
) -> bool:
    """Record where iteration ``q`` (0 or 1) finds its operands: at 1, each one's kind."""
    for r in range(p):
        ops = operands[base + r]
        if q == 0:
            refs.append([(LOCAL, j - s) if j >= s else (OUTSIDE, j) for j in ops])
            continue
        slot = refs[r]
        for m, j in enumerate(ops):
            got = _where(j, s, p, q, owner, runs)
            if got is None:
                return False
            kind = _second(slot[m], got, owner, runs)
            if kind is None:
                return False
            slot[m] = kind
    return True


def _where(
    j: int, s: int, p: int, q: int, owner: list[int], runs: list[Run]
) -> tuple[int, ...] | None:
    """Where iteration ``q`` of a run from ``s`` with period ``p`` finds statement ``j``."""
    if j >= s:
        qq, rr = divmod(j - s, p)
        if qq == q:
            return (LOCAL, rr)
        if qq == q - 1:
            return (CARRIED, rr, -1)
        return None
    return (OUTSIDE, j)


def _second(
    first: tuple[int, ...], second: tuple[int, ...], owner: list[int], runs: list[Run]
) -> tuple[int, ...] | None:
    """An operand's kind, from where the first two iterations find it; None: no loop."""
    if first[0] == LOCAL:
        return first if second == first else None
    j0 = first[1]  # the first iteration finds it before the run
    if second[0] == CARRIED:
        return (CARRIED, second[1], j0)
    if second[0] != OUTSIDE:
        return None
    j1 = second[1]
    if j1 == j0:
        return (FIXED, j0)
    if j0 < 0 or j1 < 0:  # inputs, at a stride: data points
        return (INPUTS, -1 - j0, j0 - j1) if j0 < 0 and j1 < 0 else None
    o = owner[j0]
    if o < 0 or owner[j1] != o:
        return None
    (q0, r0), (q1, r1) = runs[o].where(j0), runs[o].where(j1)
    if r0 != r1 or q1 == q0:
        return None
    return (LIST, o, r0, q0, q1 - q0)
