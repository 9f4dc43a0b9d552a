"""Loops for repeated code: a run of statements that repeats with a period becomes one loop.

A deep chain (``for _ in range(n): x = tanh(0.9 * x + 0.1)``) traces to the
same few statements n times, forward and backward. Compiled straight, each
statement costs about 10 us of CPython's compiler and the code grows with n;
as a loop, the body is compiled once.

`reroll` finds runs in the straight-line statements: a body of ``period``
statements repeated ``count`` times, the same expressions in the same order,
each operand of a body statement found in the same place at every iteration.
Where an operand lives: a local of the same iteration, a value carried from
the previous iteration (the first reads the value before the run), one value
for all iterations, the iterations of an earlier run, forwards or backwards
(the backward sweep reads the forward values in reverse), or inputs at a
fixed stride (an RNN reads one input a step). The loop runs the very
statements in the very order on the very operands; only where values are
kept changes, so results keep their bits.

Each loop is a generated function ``loopN(...)``, called by one statement of
the program; it returns the lists and last values that later statements read,
and unpacking statements put them back under their old names.

A loss over data points repeats a long body (a point's network) with a
balanced sum's additions between the points: `sink` moves those joins after
the points first (`compiler.orders`), and `_Windows` proposes periods longer than
`Options.max_period`.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterator, Sequence
from itertools import islice
from operator import itemgetter

from autograd.compiler.options import DEFAULT, Options
from autograd.compiler.orders import permute, sink
from autograd.compiler.stmts import NAME, Stmt

_SPLIT = re.compile(r"\b([avegkl][0-9]+)\b")

_CANDIDATES = 6
"""Periods tried at a position: distances to the next statements of the same form."""

LONG_PERIOD = 16_384
"""Longest loop body looked for by its window (`_Windows`): one data point's statements."""

_LONG_CANDIDATES = 48
"""Long periods tried at a position: distances to the next places its window comes again."""

# Where a body statement finds an operand, the same at every iteration (tuples, compared whole):
_LOCAL = 0  # (_LOCAL, slot): this iteration's statement at ``slot`` of the body
_CARRIED = 1  # (_CARRIED, slot, init): the previous iteration's; the first reads statement ``init``
_FIXED = 2  # (_FIXED, j): statement j, before the run, at every iteration
_LIST = 3  # (_LIST, run, slot, first, step): iteration ``first + step * q`` of an earlier run
# (step not 0: a tree's level reads the level below in pairs, step 2)
_OUTSIDE = 4  # only at the first iteration, before the kind is known: (_OUTSIDE, j)
_INPUTS = 5  # (_INPUTS, first, step): input ``first + step * q`` (step not 0)

# Operands are statement indices, and inputs: input i (named ``a{i}``) is -1 - i.


class _Run:
    """``count`` iterations of a ``period``-statement body, from statement ``start``."""

    __slots__ = ("count", "finals", "period", "refs", "start", "stored")

    def __init__(self, start: int, period: int, count: int, refs: list[list[tuple[int, ...]]]):
        self.start = start
        self.period = period
        self.count = count
        self.refs = refs  # per body slot, per operand (as `_forms` orders them): where it is
        self.stored: set[int] = set()  # slots whose every iteration's value is kept in a list
        self.finals: set[int] = set()  # slots whose last value is read after the loop

    def where(self, j: int) -> tuple[int, int]:
        """(iteration, slot) of statement ``j`` of the run."""
        return divmod(j - self.start, self.period)


class Rolled:
    """What `reroll` made: the statements, the loops they call, and how outputs are read."""

    __slots__ = ("loops", "reads_r", "returns", "sources", "spliced", "stmts")

    def __init__(self, stmts: list[Stmt], loops: dict[str, object], sources: list[str]) -> None:
        self.stmts = stmts
        self.loops = loops  # the loop functions: globals the call statements read
        self.sources = sources
        self.returns: list[str] = []  # the outputs, a run of them read as a list's slice
        self.spliced: list[Stmt] = []  # statements setting those outputs' names, one each
        self.reads_r = False  # whether a loop's call passes R whole (it reads inputs' slices)


def reroll(
    stmts: list[Stmt],
    live_out: Sequence[str],
    helpers: dict[str, object],
    written: Sequence[object] = (),
    movable: Sequence[bool] | None = None,
    options: Options = DEFAULT,
) -> Rolled:
    """``stmts`` with each run of repeated statements replaced by a call of a generated loop.

    Returns the new statements, the loop functions (globals the call
    statements read, compiled with ``helpers`` as their globals) and their
    sources. Every name a remaining statement reads is set, as before, to
    the same value; so is every name in ``live_out``, but where
    consecutive outputs are consecutive iterations of a loop: those are
    returned as a slice of its list (``*l3[0][::-1]`` in `Rolled.returns`),
    and `Rolled.spliced` sets their names instead, for a program that
    cannot return that expression.

    ``written`` may give, per statement, the form it was written from (None:
    unknown): statements written from the same form differ only in their
    operands, which their uses list in the same order. That spares parsing.

    ``movable`` marks the statements `sink` may move later (a forward's).
    """
    n = len(stmts)
    index = {t: i for i, (t, _, _) in enumerate(stmts)}
    forms, operands = _forms(stmts, index, written)
    nxt = _next_same(forms)
    windows = _Windows(forms, nxt, options)
    if movable is not None and _repeats_far(windows, movable, options.max_period):
        order = sink(forms, operands, movable)
        if order is not None:
            stmts, forms, operands, at = permute(order, stmts, forms, operands)
            # only the outputs are looked up by name from here on
            index = {name: at[index[name]] for name in live_out if name in index}
            nxt = _next_same(forms)
            windows = _Windows(forms, nxt, options, windows._count)  # the same forms, reordered
    owner = [-1] * n
    runs: list[_Run] = []
    i = 0
    while i < n:
        least, most = options.min_reps, options.min_statements
        run = _best_run(i, forms, operands, nxt, owner, runs, least, most, options, windows)
        if run is None:
            i += options.stride
            continue
        end = run.start + run.period * run.count
        owner[run.start : end] = [len(runs)] * (end - run.start)
        runs.append(run)
        i = end
    if not runs:
        rolled = Rolled(stmts, {}, [])
        rolled.returns = list(live_out)
        return rolled
    segments = _segments(live_out, index, owner, runs, options.splice)
    for o, r, _, _, _ in segments.values():
        runs[o].stored.add(r)
    covered = {k for k, (_, _, _, _, m) in segments.items() for k in range(k, k + m)}
    named = [name for k, name in enumerate(live_out) if k not in covered]
    unpack = _reads(stmts, index, operands, owner, runs, named)
    out: list[Stmt] = []
    loops: dict[str, object] = {}
    sources: list[str] = []
    reads_r = False
    i = 0
    while i < n:
        o = owner[i]
        if o < 0:
            out.append(stmts[i])
            i += 1
            continue
        run = runs[o]
        src, args = _loop_source(o, run, runs, stmts, operands)
        namespace = dict(helpers)
        exec(compile(src, "<autograd.jit loop>", "exec"), namespace)
        loops[f"loop{o}"] = namespace.pop(f"loop{o}")
        sources.append(src)
        uses = tuple(dict.fromkeys(u for a in args for u in NAME.findall(a)))
        reads_r = reads_r or "R" in args
        out.append((f"l{o}", f"loop{o}({', '.join(args)})", uses))
        lists, finals = sorted(run.stored), sorted(run.finals)
        for j in unpack[o]:
            q, r = run.where(j)
            if q == run.count - 1 and r in run.finals:
                expr = f"l{o}[{len(lists) + finals.index(r)}]"
            else:
                expr = f"l{o}[{lists.index(r)}][{q}]"
            out.append((stmts[j][0], expr, (f"l{o}",)))
        i = run.start + run.period * run.count
    rolled = Rolled(out, loops, sources)
    rolled.reads_r = reads_r
    k = 0
    while k < len(live_out):
        if k not in segments:
            rolled.returns.append(live_out[k])
            k += 1
            continue
        o, r, q, step, m = segments[k]
        whole = f"l{o}[{sorted(runs[o].stored).index(r)}]"
        rolled.returns.append(f"*{whole}{_slice(q, step, m, runs[o].count)}")
        rolled.spliced += [
            (live_out[k + e], f"{whole}[{q + step * e}]", (f"l{o}",)) for e in range(m)
        ]
        k += m
    return rolled


def short_runs(
    forms: list[int],
    operands: list[list[int]],
    min_reps: int,
    min_statements: int,
    options: Options = DEFAULT,
    lists: bool = False,
) -> list[tuple[int, int, int, list[int], list[tuple[int, int]], list[tuple[int, int]]]]:
    """Runs `reroll` finds with short periods: ``(start, period, count, fixed, inputs, lists)``.

    Each iteration reads only its own statements, the previous iteration's
    (the first reads what precedes the run), the statements ``fixed``, before
    the run, the same at every iteration, and ``inputs``: ``(first, step)``,
    input ``first + step * q`` at iteration q. With ``lists``, an iteration may
    also read an earlier run's values at a stride (a Hessian's sweep reading
    its chain), as `reroll`'s loops do: ``lists`` holds ``(first, step)``,
    statement ``first + step * q`` at iteration q; without, no earlier run's values.
    `compiler.periods` looks for these among a graph's nodes, with forms and
    operands of its own.
    """
    n = len(forms)
    nxt = _next_same(forms)
    owner = [-1] * n  # the run each statement is in: only recorded with ``lists``
    runs: list[_Run] = []
    found = []
    i = 0
    while i < n:
        run = _best_run(i, forms, operands, nxt, owner, runs, min_reps, min_statements, options)
        if run is None:
            i += options.stride
            continue
        refs = [ref for slot in run.refs for ref in slot]
        if lists or all(ref[0] != _LIST for ref in refs):
            fixed = sorted({ref[1] for ref in refs if ref[0] == _FIXED})
            inputs = sorted({(ref[1], ref[2]) for ref in refs if ref[0] == _INPUTS})
            streams = sorted(
                {
                    (runs[r].start + runs[r].period * first + slot, runs[r].period * step)
                    for kind, r, slot, first, step in (ref for ref in refs if ref[0] == _LIST)
                }
            )
            found.append((run.start, run.period, run.count, fixed, inputs, streams))
        end = run.start + run.period * run.count
        if lists:
            owner[run.start : end] = [len(runs)] * (end - run.start)
            runs.append(run)
        i = end
    return found


def _segments(
    live_out: Sequence[str],
    index: dict[str, int],
    owner: list[int],
    runs: list[_Run],
    splice: int,
) -> dict[int, tuple[int, int, int, int, int]]:
    """Runs of consecutive outputs that are consecutive iterations of one loop's slot.

    By first output: (run, slot, first iteration, step 1 or -1, how many).
    """
    at = []
    for name in live_out:
        j = index.get(name, -1)
        at.append((owner[j], *runs[owner[j]].where(j)) if j >= 0 and owner[j] >= 0 else None)
    out: dict[int, tuple[int, int, int, int, int]] = {}
    k = 0
    while k < len(at):
        here = at[k]
        m = 1
        if here is not None and k + 1 < len(at) and at[k + 1] is not None:
            o, q, r = here
            step = at[k + 1][1] - q  # type: ignore[index]  # not None, as tested
            while step in (1, -1) and k + m < len(at) and at[k + m] == (o, q + step * m, r):
                m += 1
            if m >= splice:
                out[k] = (o, r, q, step, m)
        k += m
    return out


def _slice(first: int, step: int, m: int, count: int) -> str:
    """The slice of a list of ``count`` that reads ``m`` items from ``first`` by ``step``."""
    if step == 1:
        return "" if first == 0 and m == count else f"[{first}:{first + m}]"
    stop = first - m
    return f"[{first}:{stop if stop >= 0 else ''}:-1]"


_SINK_PROBES = 16
"""Places `_repeats_far` looks at."""


def _repeats_far(windows: _Windows, movable: Sequence[bool], max_period: int) -> bool:
    """Whether forms at one of `_SINK_PROBES` movable places come again over ``max_period`` on.

    That is a long body repeating (not a short body many times over), which
    `sink` may let roll. Code that repeats nothing, or only short bodies (a
    chain), is not worth its cost.
    """
    n = len(movable)
    for i in range(0, n, max(1, n // _SINK_PROBES)):
        if not movable[i]:
            continue
        found = list(islice(windows.periods(i), _LONG_CANDIDATES))
        # a multiple of a short nearest one is a short body's, many times over
        if any(p > max_period and (p % found[0] or found[0] == p) for p in found):
            return True
    return False


def _forms(
    stmts: list[Stmt], index: dict[str, int], written: Sequence[object] = ()
) -> tuple[list[int], list[list[int]]]:
    """Each statement's form (its text with operands numbered) and those operands.

    Operands are statements and inputs (`_input`). Two statements have the
    same form when they compute the same expression of the same constants,
    their operands aside (in order of first use, the same repeated ones).
    """
    ids: dict[object, int] = {}
    forms: list[int] = []
    operands: list[list[int]] = []
    split, get, intern = _SPLIT.split, index.get, ids.setdefault
    known = len(written) == len(stmts)
    for i, (_, expr, uses) in enumerate(stmts):
        form = written[i] if known else None
        if form is not None:  # keyed by a pair of tuples: never equal to a parsed form's strs
            ops: list[int] = []
            places: list[object] = []  # per use: a constant's name, or which operand, as parsed
            for name in uses:
                j = get(name)
                if j is None and name[0] == "a":
                    j = -1 - int(name[1:])
                if j is None:
                    places.append(name)
                    continue
                if j not in ops:
                    ops.append(j)
                places.append(ops.index(j))
            forms.append(intern((form, tuple(places)), len(ids)))
            operands.append(ops)
            continue
        parts = split(expr)  # text, name, text, name, ..., text
        ops = []
        for k in range(1, len(parts), 2):
            name = parts[k]
            j = get(name)
            if j is None and name[0] == "a":
                j = -1 - int(name[1:])
            if j is not None:
                if j not in ops:
                    ops.append(j)
                parts[k] = f"_{ops.index(j)}"
        forms.append(intern(tuple(parts), len(ids)))
        operands.append(ops)
    return forms, operands


def _next_same(forms: list[int]) -> list[int]:
    """For each statement, the index of the next one of the same form (``len`` if none)."""
    n = len(forms)
    nxt = [n] * n
    last: dict[int, int] = {}
    for i in range(n - 1, -1, -1):
        nxt[i] = last.get(forms[i], n)
        last[forms[i]] = i
    return nxt


def _best_run(
    i: int,
    forms: list[int],
    operands: list[list[int]],
    nxt: list[int],
    owner: list[int],
    runs: list[_Run],
    min_reps: int,
    min_statements: int,
    options: Options,
    windows: _Windows | None = None,
) -> _Run | None:
    """The run from statement ``i`` covering most statements, if one is worth a loop.

    Periods tried are the distances to the next statements of ``i``'s form;
    a multiple of a period that already gave a run covers no more (its
    iterations are that run's, paired up), so it is skipped. Unless a run
    found so covers a quarter of what is left, longer periods are tried too:
    the distances to where ``i``'s window of forms comes again (`_Windows`).
    """
    n = len(forms)
    best: _Run | None = None
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
    for k, p in enumerate(windows.periods(i)):
        if k == _LONG_CANDIDATES or i + min_reps * p > n:
            break
        if p > options.max_period:
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
    best: _Run | None,
    found: list[int],
    forms: list[int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[_Run],
    min_reps: int,
    min_statements: int,
) -> _Run | None:
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
    run = _extent(i, p, forms, operands, owner, runs)
    if run is None or run.count < min_reps or run.count * p < min_statements:
        return best
    found.append(p)
    if best is None or run.count * p > best.count * best.period:
        return run
    return best


class _Windows:
    """Where a statement's `Options.window` forms come again, up to `LONG_PERIOD` later.

    The window's rarest form is followed along ``nxt`` (its next statements
    of that form), and each place is compared whole: a list comparison in C.
    A position where no long run is found makes the next `Options.long_skip`
    positions skip the search, twice as many after each further failure in
    a row: code with no long period costs little.
    """

    __slots__ = ("_count", "_forms", "_next", "after", "skip", "width")

    def __init__(
        self,
        forms: list[int],
        nxt: list[int],
        options: Options,
        count: collections.Counter[int] | None = None,
    ) -> None:
        """``count``: how often each form occurs, if known (a reordering keeps it)."""
        self._forms = forms
        self._next = nxt
        self._count = collections.Counter(forms) if count is None else count
        self.after = 0
        """Positions before this skip the search (`_best_run` sets it when one found none)."""
        self.skip = options.long_skip
        self.width = options.window
        """How far the next search failing skips: doubled at each failure in a row."""

    def periods(self, i: int) -> Iterator[int]:
        """Distances from ``i`` to the next places its window starts again, nearest first."""
        forms, nxt, n = self._forms, self._next, len(self._forms)
        width = self.width
        if i + width > n:
            return
        window = forms[i : i + width]
        rare = min(range(i, i + width), key=lambda k: self._count[forms[k]])
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
    runs: list[_Run],
) -> _Run | None:
    """The longest run of period ``p`` from ``s`` whose operands keep their places.

    The first iteration records where each operand is; the second fixes its
    kind (`_Ref` kinds above); every later one must agree.
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
    size = _FIRST_CHUNK
    while q < last:
        end = min(last, q + size)
        good = _agreeing(s, p, q, end, body, coeffs, forms, operands)
        if good < end:
            return _Run(s, p, good, refs)
        q, size = end, size * 2
    return _Run(s, p, q, refs)


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
    refs: list[list[tuple[int, ...]]], s: int, p: int, runs: list[_Run]
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
            if kind == _LOCAL:
                c.append((s + ref[1], p))
            elif kind == _CARRIED:
                c.append((s - p + ref[1], p))
            elif kind == _FIXED:
                c.append((ref[1], 0))
            elif kind == _INPUTS:
                _, first, step = ref
                c.append((-1 - first, -step))
                bounds.append((first, step, 1 << 62))
            else:  # _LIST
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
    runs: list[_Run],
    refs: list[list[tuple[int, ...]]],
) -> bool:
    """Record where iteration ``q`` (0 or 1) finds its operands: at 1, each one's kind."""
    for r in range(p):
        ops = operands[base + r]
        if q == 0:
            refs.append([(_LOCAL, j - s) if j >= s else (_OUTSIDE, j) for j in ops])
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


def _name(j: int, stmts: list[Stmt]) -> str:
    """The name of operand ``j``: a statement's target, or an input."""
    return stmts[j][0] if j >= 0 else f"a{-1 - j}"


def _where(
    j: int, s: int, p: int, q: int, owner: list[int], runs: list[_Run]
) -> tuple[int, ...] | None:
    """Where iteration ``q`` of a run from ``s`` with period ``p`` finds statement ``j``."""
    if j >= s:
        qq, rr = divmod(j - s, p)
        if qq == q:
            return (_LOCAL, rr)
        if qq == q - 1:
            return (_CARRIED, rr, -1)
        return None
    return (_OUTSIDE, j)


def _second(
    first: tuple[int, ...], second: tuple[int, ...], owner: list[int], runs: list[_Run]
) -> tuple[int, ...] | None:
    """An operand's kind, from where the first two iterations find it; None: no loop."""
    if first[0] == _LOCAL:
        return first if second == first else None
    j0 = first[1]  # the first iteration finds it before the run
    if second[0] == _CARRIED:
        return (_CARRIED, second[1], j0)
    if second[0] != _OUTSIDE:
        return None
    j1 = second[1]
    if j1 == j0:
        return (_FIXED, j0)
    if j0 < 0 or j1 < 0:  # inputs, at a stride: data points
        return (_INPUTS, -1 - j0, j0 - j1) if j0 < 0 and j1 < 0 else None
    o = owner[j0]
    if o < 0 or owner[j1] != o:
        return None
    (q0, r0), (q1, r1) = runs[o].where(j0), runs[o].where(j1)
    if r0 != r1 or q1 == q0:
        return None
    return (_LIST, o, r0, q0, q1 - q0)


def _reads(
    stmts: list[Stmt],
    index: dict[str, int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[_Run],
    live_out: Sequence[str],
) -> list[list[int]]:
    """Per run, its statements read by name after its loop (in order); marks what it keeps.

    A later run's iterations read a whole run's slot as a list (`_LIST`);
    everything else reads a value by name: statements outside runs, the
    outputs, a later run's fixed operands and carried first values.
    """
    wanted: list[dict[int, None]] = [{} for _ in runs]

    def read(j: int) -> None:
        if j >= 0 and owner[j] >= 0:  # not an input, and in a run
            wanted[owner[j]][j] = None

    for i, ops in enumerate(operands):
        if owner[i] < 0:
            for j in ops:
                read(j)
    for name in live_out:
        k = index.get(name)
        if k is not None:
            read(k)
    for run in runs:
        for slot in run.refs:
            for ref in slot:
                if ref[0] == _FIXED:
                    read(ref[1])
                elif ref[0] == _CARRIED:
                    read(ref[2])
                elif ref[0] == _LIST:
                    runs[ref[1]].stored.add(ref[2])
    for o, run in enumerate(runs):
        for j in wanted[o]:
            q, r = run.where(j)
            if q == run.count - 1:
                run.finals.add(r)
            else:
                run.stored.add(r)
    return [sorted(w) for w in wanted]


def _loop_source(
    o: int,
    run: _Run,
    runs: list[_Run],
    stmts: list[Stmt],
    operands: list[list[int]],
) -> tuple[str, list[str]]:
    """``def loop{o}(...)`` and the argument expressions of its call.

    The body is the run's second iteration with each operand replaced by
    where it lives (a carried one starts as the value before the loop).
    """
    params: dict[str, str] = {}  # argument expression -> parameter name

    def param(arg: str) -> str:
        name = params.get(arg)
        if name is None:
            name = params[arg] = f"_p{len(params)}"
        return name

    p = run.period
    readers: dict[int, list[int]] = {}  # carried slot -> the slots reading it
    inits: dict[int, dict[int, None]] = {}  # carried slot -> the statements its first reads
    streams: dict[tuple[int, ...], str] = {}  # an earlier run's values, in order -> a local
    for r, slot in enumerate(run.refs):
        for ref in slot:
            if ref[0] == _CARRIED:
                readers.setdefault(ref[1], []).append(r)
                inits.setdefault(ref[1], {})[ref[2]] = None
            elif ref[0] == _LIST or ref[0] == _INPUTS:
                streams.setdefault(ref, f"_e{len(streams)}")
    pre: list[str] = []
    post: list[str] = []
    carried: dict[tuple[int, int], str] = {}  # (slot, first value's statement) -> a local
    for rr in sorted(inits):
        # a slot read only by itself and slots before it still holds last iteration's value
        reuse = len(inits[rr]) == 1 and all(r <= rr for r in readers[rr])
        for init in inits[rr]:
            local = f"_s{rr}" if reuse else f"_c{len(carried)}"
            carried[(rr, init)] = local
            pre.append(f"    {local} = {param(_name(init, stmts))}")
            if not reuse:
                post.append(f"        {local} = _s{rr}")
    iters = []
    for ref, local in streams.items():
        if ref[0] == _INPUTS:  # R: the inputs first (a lone chunk's R is the inputs list)
            _, first, step = ref
            inputs = param("R")
            last = first + step * (run.count - 1)
            it = (
                f"{inputs}[{first}:{last + 1}:{step}]"
                if step > 0
                else f"{inputs}[{first}:{last - 1 if last else ''}:{step}]"
            )
            iters.append((local, it))
            continue
        _, o2, r2, first, step = ref
        other = runs[o2]
        whole = param(f"l{o2}[{sorted(other.stored).index(r2)}]")
        k, k2 = run.count, other.count
        last = first + step * (k - 1)  # the last iteration's (within the list: checked)
        if step == 1:
            it = whole if first == 0 and k == k2 else f"{whole}[{first}:{first + k}]"
        elif step == -1 and first == k2 - 1 and k == k2:
            it = f"reversed({whole})"
        elif step == -1:
            it = f"{whole}[{last}:{first + 1}][::-1]"
        elif step > 0:  # a tree's level reads the level below it in pairs: step 2
            it = f"{whole}[{first}:{last + 1}:{step}]"
        else:
            it = f"{whole}[{first}:{last - 1 if last else ''}:{step}]"
        iters.append((local, it))
    body: list[str] = []
    base = run.start + p  # the second iteration: every operand's kind is fixed there
    for r in range(p):
        i = base + r
        names = [_name(j, stmts) for j in operands[i]]
        parts = _SPLIT.split(stmts[i][1])
        for k in range(1, len(parts), 2):
            name = parts[k]
            if name not in names:  # an input or a constant: the same at every iteration
                parts[k] = param(name)
                continue
            ref = run.refs[r][names.index(name)]
            if ref[0] == _LOCAL:
                parts[k] = f"_s{ref[1]}"
            elif ref[0] == _CARRIED:
                parts[k] = carried[(ref[1], ref[2])]
            elif ref[0] == _FIXED:
                parts[k] = param(_name(ref[1], stmts))
            else:
                parts[k] = streams[ref]
        body.append(f"        _s{r} = {''.join(parts)}")
        if r in run.stored:
            body.append(f"        _a{r}(_s{r})")
    lists, finals = sorted(run.stored), sorted(run.finals)
    if not iters:
        over = f"_ in range({run.count})"
    elif len(iters) == 1:
        over = f"{iters[0][0]} in {iters[0][1]}"
    else:
        over = f"{', '.join(v for v, _ in iters)} in zip({', '.join(e for _, e in iters)})"
    if p == 1 and not pre and lists == [0]:  # one statement, kept: a list comprehension
        item = body[0].split(" = ", 1)[1]
        tail = "_l0[-1], " if finals else ""
        src = f"def loop{o}({', '.join(params.values())}):\n"
        src += f"    _l0 = [{item} for {over}]\n    return (_l0, {tail})"
        return src, list(params)
    for r in lists:
        pre.append(f"    _l{r} = []")
        pre.append(f"    _a{r} = _l{r}.append")
    returns = "".join(f"_l{r}, " for r in lists) + "".join(f"_s{r}, " for r in finals)
    src = "\n".join(
        [
            f"def loop{o}({', '.join(params.values())}):",
            *pre,
            f"    for {over}:",
            *body,
            *post,
            f"    return ({returns})",
        ]
    )
    return src, list(params)
