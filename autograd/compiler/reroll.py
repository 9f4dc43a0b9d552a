"""Loops for repeated code: a run of statements that repeats with a period becomes one loop.

A deep chain (``for _ in range(n): x = tanh(0.9 * x + 0.1)``) traces to the
same few statements n times, forward and backward. Compiled straight, each
statement costs about 10 us of CPython's compiler and the code grows with n;
as a loop, the body is compiled once.

`reroll` numbers each statement's form and operands (`_forms`) and has
`compiler.runs` find runs in them: a body of ``period`` statements repeated
``count`` times, the same expressions in the same order, each operand of a
body statement found in the same place at every iteration. Where an operand
lives: a local of the same iteration, a value carried from
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
the points first (`compiler.orders`), and `runs.Windows` proposes periods longer
than `Options.max_period`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from itertools import islice

from autograd.compiler.loops import Loop, items
from autograd.compiler.options import DEFAULT, Options
from autograd.compiler.orders import permute, sink
from autograd.compiler.runs import (
    CARRIED,
    FIXED,
    INPUTS,
    LIST,
    LOCAL,
    LONG_CANDIDATES,
    Run,
    Windows,
    best_run,
    next_same,
)
from autograd.compiler.stmts import Fields, Stmt, named, reads, ref


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
    index = {t: i for i, (t, _, _) in enumerate(stmts)}
    forms, operands = _forms(stmts, index, written)
    stmts, forms, operands, index, windows = _rolling_order(
        stmts, forms, operands, index, live_out, movable, options
    )
    owner, runs = _find_runs(forms, operands, windows, options)
    if not runs:
        rolled = Rolled(stmts, {}, [])
        rolled.returns = list(live_out)
        return rolled
    live = _names(live_out)
    segments = _segments(live, index, owner, runs, options.splice)
    for o, r, _, _, _ in segments.values():
        runs[o].stored.add(r)
    covered = {k for k, (_, _, _, _, m) in segments.items() for k in range(k, k + m)}
    read = [name for k, name in enumerate(live) if k not in covered]
    unpack = _reads(stmts, index, operands, owner, runs, read)
    rolled = _with_calls(stmts, operands, owner, runs, unpack, helpers)
    _set_returns(rolled, live_out, live, segments, runs)
    return rolled


def _rolling_order(
    stmts: list[Stmt],
    forms: list[int],
    operands: list[list[int]],
    index: dict[str, int],
    live_out: Sequence[str],
    movable: Sequence[bool] | None,
    options: Options,
) -> tuple[list[Stmt], list[int], list[list[int]], dict[str, int], Windows]:
    """The statements in the order to roll them, their forms, operands and index, and windows.

    Where ``movable`` statements' forms come again further on than a short
    body would (`_repeats_far`), joins sink after the bodies they join
    (`sink`); after that reordering, ``index`` holds only the outputs.
    """
    windows = Windows(forms, next_same(forms), options)
    if movable is None or not _repeats_far(windows, movable, options.max_period):
        return stmts, forms, operands, index, windows
    order = sink(forms, operands, movable)
    if order is None:
        return stmts, forms, operands, index, windows
    stmts, forms, operands, at = permute(order, stmts, forms, operands)
    # only the outputs are looked up by name from here on
    index = {name: at[index[name]] for name in _names(live_out) if name in index}
    windows = Windows(forms, next_same(forms), options, windows.count)  # the same forms
    return stmts, forms, operands, index, windows


def _names(live_out: Sequence[str]) -> list[str]:
    """The outputs' names (of an expression: the template itself, no statement's name).

    Asked only where a run or a new order needs them: a program may return 100,000.
    """
    return [named(t) or t for t in live_out]


def _find_runs(
    forms: list[int], operands: list[list[int]], windows: Windows, options: Options
) -> tuple[list[int], list[Run]]:
    """The run each statement is in (-1: none), and the runs, found left to right.

    Where a run starts, the search goes on after it; elsewhere `Options.stride` on.
    """
    n = len(forms)
    owner = [-1] * n
    runs: list[Run] = []
    least, most = options.min_reps, options.min_statements
    i = 0
    while i < n:
        run = best_run(i, forms, operands, windows.nxt, owner, runs, least, most, options, windows)
        if run is None:
            i += options.stride
            continue
        end = run.start + run.period * run.count
        owner[run.start : end] = [len(runs)] * (end - run.start)
        runs.append(run)
        i = end
    return owner, runs


def _with_calls(
    stmts: list[Stmt],
    operands: list[list[int]],
    owner: list[int],
    runs: list[Run],
    unpack: list[list[int]],
    helpers: dict[str, object],
) -> Rolled:
    """``stmts`` with each run replaced by a call of its loop, compiled with ``helpers``.

    After a call, statements set the names of the run's statements read later
    (``unpack``, per run) from what the loop returns (`_unpacking`).
    """
    out: list[Stmt] = []
    rolled = Rolled(out, {}, [])
    i = 0
    while i < len(stmts):
        o = owner[i]
        if o < 0:
            out.append(stmts[i])
            i += 1
            continue
        run = runs[o]
        src, args = _loop_source(o, run, runs, stmts, operands)
        namespace = dict(helpers)
        exec(compile(src, "<autograd.jit loop>", "exec"), namespace)
        rolled.loops[f"loop{o}"] = namespace.pop(f"loop{o}")
        rolled.sources.append(src)
        uses = reads(args)
        rolled.reads_r = rolled.reads_r or "R" in args
        out.append((f"l{o}", f"loop{o}({', '.join(args)})", uses))
        out += _unpacking(o, run, unpack[o], stmts)
        i = run.start + run.period * run.count
    return rolled


def _unpacking(o: int, run: Run, reads: list[int], stmts: list[Stmt]) -> list[Stmt]:
    """Statements setting the names of statements ``reads`` of run ``o`` from its loop's result.

    The loop returns its lists (`Run.stored`), then its last values (`Run.finals`).
    """
    lists, finals = sorted(run.stored), sorted(run.finals)
    out: list[Stmt] = []
    for j in reads:
        q, r = run.where(j)
        if q == run.count - 1 and r in run.finals:
            expr = f"{{l{o}}}[{len(lists) + finals.index(r)}]"
        else:
            expr = f"{{l{o}}}[{lists.index(r)}][{q}]"
        out.append((stmts[j][0], expr, (f"l{o}",)))
    return out


def _set_returns(
    rolled: Rolled,
    live_out: Sequence[str],
    live: Sequence[str],
    segments: dict[int, tuple[int, int, int, int, int]],
    runs: list[Run],
) -> None:
    """Fill `Rolled.returns` and `Rolled.spliced`: each output as it was, a segment as a slice.

    ``live_out``: the outputs' templates; ``live``: their names.
    """
    k = 0
    while k < len(live_out):
        if k not in segments:
            rolled.returns.append(live_out[k])
            k += 1
            continue
        o, r, q, step, m = segments[k]
        whole = f"{{l{o}}}[{sorted(runs[o].stored).index(r)}]"
        rolled.returns.append(f"*{whole}{_slice(q, step, m, runs[o].count)}")
        rolled.spliced += [(live[k + e], f"{whole}[{q + step * e}]", (f"l{o}",)) for e in range(m)]
        k += m


def _segments(
    live_out: Sequence[str],
    index: dict[str, int],
    owner: list[int],
    runs: list[Run],
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


def _repeats_far(windows: Windows, movable: Sequence[bool], max_period: int) -> bool:
    """Whether forms at one of `_SINK_PROBES` movable places come again over ``max_period`` on.

    That is a long body repeating (not a short body many times over), which
    `sink` may let roll. Code that repeats nothing, or only short bodies (a
    chain), is not worth its cost.
    """
    n = len(movable)
    for i in range(0, n, max(1, n // _SINK_PROBES)):
        if not movable[i]:
            continue
        found = list(islice(windows.periods(i), LONG_CANDIDATES))
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
    get, intern = index.get, ids.setdefault
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
        ops = []
        forms.append(intern(expr.format_map(Fields(partial(_operand, get, ops))), len(ids)))
        operands.append(ops)
    return forms, operands


def _operand(index: Callable[[str], int | None], ops: list[int], name: str) -> str:
    """A name of a statement's template in its form: which operand it is, or itself.

    ``index``: the statement setting a name, if any; ``ops`` gets each operand once.
    """
    j = index(name)
    if j is None and name[0] == "a":  # an input
        j = -1 - int(name[1:])
    if j is None:  # a constant: part of the form
        return "{" + name + "}"
    if j not in ops:
        ops.append(j)
    return f"{{_{ops.index(j)}}}"


def _name(j: int, stmts: list[Stmt]) -> str:
    """The name of operand ``j``: a statement's target, or an input."""
    return stmts[j][0] if j >= 0 else f"a{-1 - j}"


def _reads(
    stmts: list[Stmt],
    index: dict[str, int],
    operands: list[list[int]],
    owner: list[int],
    runs: list[Run],
    live_out: Sequence[str],
) -> list[list[int]]:
    """Per run, its statements read by name after its loop (in order); marks what it keeps.

    A later run's iterations read a whole run's slot as a list (`LIST`);
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
            for where in slot:
                if where[0] == FIXED:
                    read(where[1])
                elif where[0] == CARRIED:
                    read(where[2])
                elif where[0] == LIST:
                    runs[where[1]].stored.add(where[2])
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
    run: Run,
    runs: list[Run],
    stmts: list[Stmt],
    operands: list[list[int]],
) -> tuple[str, list[str]]:
    """``def loop{o}(...)`` and the argument expressions of its call (`loops.Loop`).

    The body is the run's second iteration with each operand replaced by
    where it lives (a carried one starts as the value before the loop).
    Parameters are numbered in the order they are first needed: carried
    values' first values, the sequences iterated, then the body's.
    """
    loop = Loop(f"loop{o}", run.count)
    carried = _carried(run, stmts, loop)
    streams = _streams(run)
    for where, local in streams.items():
        loop.stream(where, local, _stream_items(where, run, runs, loop))
    _body(run, stmts, operands, carried, streams, loop)
    lists = sorted(run.stored)
    for r in lists:
        loop.keep(f"_l{r}", f"_s{r}")
    returns = [f"_l{r}" for r in lists] + [f"_s{r}" for r in sorted(run.finals)]
    return loop.source(returns), list(loop.params)


def _carried(run: Run, stmts: list[Stmt], loop: Loop) -> dict[tuple[int, int], str]:
    """The loop's carried values' locals, by (slot, the statement its first value is).

    Before the loop, each carried value's local takes its first value (a
    parameter); at the end of an iteration, it takes the slot's new value,
    unless it is the slot's own local ``_s{slot}``.
    """
    readers: dict[int, list[int]] = {}  # carried slot -> the slots reading it
    inits: dict[int, dict[int, None]] = {}  # carried slot -> the statements its first reads
    for r, slot in enumerate(run.refs):
        for where in slot:
            if where[0] == CARRIED:
                readers.setdefault(where[1], []).append(r)
                inits.setdefault(where[1], {})[where[2]] = None
    carried: dict[tuple[int, int], str] = {}
    for rr in sorted(inits):
        # a slot read only by itself and slots before it still holds last iteration's value
        reuse = len(inits[rr]) == 1 and all(r <= rr for r in readers[rr])
        for init in inits[rr]:
            local = f"_s{rr}" if reuse else f"_c{len(carried)}"
            carried[(rr, init)] = local
            loop.carry(local, ref(_name(init, stmts)), None if reuse else f"_s{rr}")
    return carried


def _streams(run: Run) -> dict[tuple[int, ...], str]:
    """The sequences the loop iterates (an earlier run's values, inputs), each as a local."""
    streams: dict[tuple[int, ...], str] = {}
    for slot in run.refs:
        for where in slot:
            if where[0] == LIST or where[0] == INPUTS:
                streams.setdefault(where, f"_e{len(streams)}")
    return streams


def _stream_items(stream: tuple[int, ...], run: Run, runs: list[Run], loop: Loop) -> str:
    """The expression of the items a stream gives the loop's iterations, in order."""
    if stream[0] == INPUTS:  # R: the inputs first (a lone chunk's R is the inputs list)
        _, first, step = stream
        return items(loop.param("R"), first, step, run.count)
    _, o2, r2, first, step = stream
    other = runs[o2]
    whole = loop.param(f"{{l{o2}}}[{sorted(other.stored).index(r2)}]")
    return items(whole, first, step, run.count, other.count)


def _body(
    run: Run,
    stmts: list[Stmt],
    operands: list[list[int]],
    carried: dict[tuple[int, int], str],
    streams: dict[tuple[int, ...], str],
    loop: Loop,
) -> None:
    """The loop body: the run's second iteration, each name replaced by its place.

    Every operand's kind is fixed at the second iteration.
    """
    base = run.start + run.period
    for r in range(run.period):
        i = base + r
        names = [_name(j, stmts) for j in operands[i]]
        place = partial(_place, loop, carried, streams, stmts, names, run.refs[r])
        loop.assign(r, stmts[i][1].format_map(Fields(place)))


def _place(
    loop: Loop,
    carried: dict[tuple[int, int], str],
    streams: dict[tuple[int, ...], str],
    stmts: list[Stmt],
    names: list[str],
    refs: list[tuple[int, ...]],
    name: str,
) -> str:
    """Where a name of a run's body statement lives in the loop, by its operand's ref."""
    if name not in names:  # an input or a constant: the same at every iteration
        return loop.param(ref(name))
    where = refs[names.index(name)]
    if where[0] == LOCAL:
        return f"_s{where[1]}"
    if where[0] == CARRIED:
        return carried[(where[1], where[2])]
    if where[0] == FIXED:
        return loop.param(ref(_name(where[1], stmts)))
    return streams[where]
