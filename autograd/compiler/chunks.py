"""Statements as generated functions: chunks of them, their registers, and R between them.

`link.Linker` cuts a program's statements into chunks of `Options.chunk`,
each ``def chunk{index}(R)``: it loads what it reads from the list ``R``
(inputs first, then constants, then names crossing chunks), runs its
statements on local names reused as registers once a value is dead, and
stores in ``R`` what a later chunk reads. A lone chunk returns the outputs and
reads its constants as literals: the caller's list of inputs is its R.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import attrs

from autograd.compiler.stmts import Stmt, fields, named


@attrs.frozen
class Chunk:
    """One generated function, ``def chunk{index}(R)``, as data.

    `source` renders it; a call's fast path (`dispatch.fast_path`) writes its
    statements into its own body.
    """

    index: int
    loads: tuple[tuple[str, int | str], ...]
    """Registers set first: each from ``R[slot]`` (an int), or a constant's literal (a str)."""
    body: tuple[str, ...]
    """The statements, one a line, unindented: ``r1 = (r0 * r0)``, ``del r3``."""
    stores: tuple[tuple[int, str], ...]
    """``R[slot] = register`` at the end: values a later chunk reads."""
    returns: str | None
    """What a lone chunk returns, a tuple's text (``(r1, r0, )``); None for the others."""
    reads_r: bool = False
    """Whether a statement or the return reads ``R`` whole (loops read slices of the inputs)."""

    def source(self) -> str:
        """The function's text, as compiled."""
        lines = [f"    {r} = {f'R[{at}]' if type(at) is int else at}" for r, at in self.loads]
        lines += [f"    {line}" for line in self.body]
        lines += [f"    R[{at}] = {r}" for at, r in self.stores]
        if self.returns is not None:
            lines.append(f"    return {self.returns}")
        return f"def chunk{self.index}(R):\n" + "\n".join(lines or ["    pass"])


ChunkFunction = Callable[[list[object]], tuple[float, ...]]
"""A generated function: reads and writes the list ``R``; a lone chunk returns the outputs."""

_INPUT_RUN = 4
"""Consecutive inputs returned in a row from this many on are one slice of R."""


def input_runs(returns: Sequence[str], inputs: int) -> list[str]:
    """``returns`` (templates) with each run of consecutive inputs as a splice of R (``*R[3:9]``).

    A lone chunk's R is its inputs, first: returning the gradient of a wide
    sum, which is the other factor of each product, loads no register per input.
    """
    out: list[str] = []
    first = end = 0  # the run of inputs ``first`` to ``end`` (excluded) being read
    following = ""  # the template of input ``end``, once a run is read: most returns are it
    for r in returns:
        i = end if r == following else _input(r, inputs)
        if i == end and end > first:  # the run goes on
            end += 1
        else:
            _flush(out, first, end)
            first, end = (i, i + 1) if i >= 0 else (0, 0)
            if i < 0:
                out.append(r)
        following = f"{{a{end}}}" if first < end < inputs else ""
    _flush(out, first, end)
    return out


def _input(template: str, inputs: int) -> int:
    """Which input ``template`` reads alone (``{a3}``: 3), or -1."""
    name = named(template) or ""
    if name[:1] == "a" and name[1:].isdigit() and int(name[1:]) < inputs:
        return int(name[1:])
    return -1


def _flush(out: list[str], first: int, end: int) -> None:
    """Inputs ``first`` to ``end`` (excluded), read in a row: one splice from `_INPUT_RUN` on."""
    if end - first >= _INPUT_RUN:
        out.append(f"*R[{first}:{end}]")
    else:
        out.extend(f"{{a{i}}}" for i in range(first, end))


def chunk_loads(chunk: list[Stmt], returns: Sequence[str]) -> list[str]:
    """Names a chunk reads but does not set, in order of first use, each once.

    ``returns``: the templates it returns (`reroll.Rolled`).
    """
    own = {t for t, _, _ in chunk}
    used = dict.fromkeys(u for _, _, uses in chunk for u in uses)
    used.update(dict.fromkeys(u for r in returns for u in fields(r)))
    return [u for u in used if u not in own]


def chunk_stores(
    chunks: list[list[Stmt]], loads: list[list[str]], outputs: list[str], slots: dict[str, int]
) -> list[list[str]]:
    """Per chunk, the names it stores in R: those a later chunk loads, and ``outputs``.

    Each gets a slot of R (added to ``slots``).
    """
    home = {t: ci for ci, chunk in enumerate(chunks) for t, _, _ in chunk}
    stores: list[dict[str, None]] = [{} for _ in chunks]
    for name in (*(n for read in loads for n in read), *outputs):
        if name in home:  # set by an earlier chunk: it stores it for this one
            stores[home[name]][name] = None
            slots.setdefault(name, len(slots))
    return [list(s) for s in stores]


def build_chunk(
    ci: int,
    chunk: list[Stmt],
    loads: list[str],
    stores: list[str],
    returns: Sequence[str] | None,
    slots: dict[str, int],
    literals: dict[str, str],
    release: bool = False,
) -> Chunk:
    """Chunk ``ci``: load from R, run the statements, store to R; a lone chunk returns.

    A constant in ``literals`` is loaded from its literal instead of from R.
    With ``release``, a register whose value is dead and that the next
    statement does not reuse is cleared (``del``): a batch's arrays are large.
    """
    dead: list[list[str]] = [[] for _ in chunk]
    read = [u for r in returns or () for u in fields(r)]
    reg = _registers(chunk, loads, [*stores, *read], dead)
    loaded = tuple([(reg[u], literals[u] if u in literals else slots[u]) for u in loads])
    body: list[str] = []
    for i, (t, e, _) in enumerate(chunk):
        body.append(f"{reg[t]} = {e.format_map(reg)}")
        if release and dead[i]:
            body.append(f"del {', '.join(dead[i])}")
    stored = tuple([(slots[s], reg[s]) for s in stores])
    returned = None
    if returns is not None:
        returned = f"({''.join(o.format_map(reg) + ', ' for o in returns)})"
    return Chunk(ci, loaded, tuple(body), stored, returned)


def _registers(
    chunk: list[Stmt],
    loads: list[str],
    live_out: list[str],
    dead: list[list[str]] | None = None,
) -> dict[str, str]:
    """Local names for a chunk, a register reused once the value in it is dead.

    CPython compiles a function with fewer distinct locals about twice as fast.
    Register names come from a counter and registers are freed in statement
    order, so no live value is ever overwritten and the result is deterministic.
    ``dead[i]``, if given, gets the registers that statement ``i`` leaves
    holding a dead value: freed there and not reused by it.
    """
    end = len(chunk)
    last_use: dict[str, int] = {}
    for i, (_, _, uses) in enumerate(chunk):
        for u in uses:
            last_use[u] = i
    for u in live_out:
        last_use[u] = end
    reg: dict[str, str] = {}
    free: list[str] = []
    fresh = (f"r{i}" for i in itertools.count())
    for u in loads:
        reg[u] = next(fresh)
    for i, (target, _, uses) in enumerate(chunk):
        freed = [reg[u] for u in dict.fromkeys(uses) if last_use[u] == i]
        free += freed
        reg[target] = free.pop() if free else next(fresh)
        if target not in last_use:  # never read
            free.append(reg[target])
        if dead is not None:
            dead[i] = [r for r in freed if r != reg[target]]
    return reg


def run_chunks(
    fns: list[ChunkFunction], consts: list[float], size: int, out: list[int]
) -> Callable[[list[float]], tuple[float, ...]]:
    """A program of several chunks: R built per call, each chunk run on it, outputs read."""

    def run(inputs: list[float]) -> tuple[float, ...]:
        r: list[object] = [*inputs, *consts]  # inputs first, as `reroll`'s loops read them
        r.extend([None] * (size - len(r)))
        for fn in fns:
            fn(r)
        return tuple([r[i] for i in out])  # type: ignore[misc]  # every output slot holds a float

    return run
