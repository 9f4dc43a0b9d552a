"""Linking: a program's statements rolled, packed, cut into chunks and compiled.

`Linker.link` is the last stage of `codegen.Program`: the loops of rolled
runs are written and compiled (`periods`), long runs of the statements left
are rolled into loops (`reroll`, by depth or as traced), a batch's parallel
statements packed (`pack`), and the statements cut into `chunks.Chunk`s,
each compiled by `exec`. Outputs that are items of loops' lists are returned
as slices of them. Every step iterates lists and insertion-ordered dicts, so
the generated source is the same under every hash seed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import cast

import attrs

from autograd.compiler import orders, pack, periods, reroll
from autograd.compiler.chunks import (
    ChunkFunction,
    build_chunk,
    chunk_loads,
    chunk_stores,
    input_runs,
    run_chunks,
)
from autograd.compiler.stmts import ref
from autograd.compiler.writer import Dialect, Writer
from autograd.core.sym import HELPERS, literal


def interleaved(*lists: list[float]) -> Iterator[float]:
    """The items of equally long ``lists`` in turn: a program's gradients from several loops.

    A global of a scalar program that returns them (`Linker.link`), not one of the
    `HELPERS`, which a batch's code has NumPy twins of.
    """
    return itertools.chain.from_iterable(zip(*lists, strict=True))


class Linker(Writer):
    """The linker of `codegen.Program`: its statements as one compiled function."""

    def link(self, outputs: Sequence[str]) -> Callable[[list[float]], tuple[float, ...]]:
        """Compile the statements into chunks of `Options.chunk`; the result maps inputs to outputs.

        Long runs of statements are rolled into loops first (`reroll`); a
        batch's parallel statements are packed (`pack`).

        Outputs may repeat, and may be inputs, constants or the literal ``0.0``:
        each is read from the name that holds it, never stored twice. Every
        step iterates lists and insertion-ordered dicts, so the generated source
        is the same under every hash seed.
        """
        names = [self.const(0.0) if o == "0.0" else o for o in outputs]
        self.sources.clear()
        namespace = self._loop_functions()
        if self.elements:
            namespace["interleaved"] = interleaved
        spliced = self._element_returns(names)  # what a lone chunk returns
        if self.batch is not None:
            namespace, returns = self._roll_batch(self.batch, names, spliced)
        else:
            returns = self._roll(spliced, namespace)
        if len(self.stmts) > self.options.chunk:  # so do a loop's list's items
            for name in dict.fromkeys(n for n in names if n in self.elements):
                if name not in self._unpacked:
                    values, at = self.elements[name]
                    self.emit(name, f"{ref(values)}[{at}]", (values,))
        self._check(0, self.budget)
        return self._compile(names, returns, namespace)

    def _roll_batch(
        self, batch: Dialect, names: list[str], spliced: list[str]
    ) -> tuple[dict[str, object], list[str]]:
        """A batch's runs rolled (a chain's steps over arrays), what is left packed.

        Returns the globals the statements read (the array twins, the loops,
        the packs' index arrays), and what a lone chunk returns.
        """
        namespace, varying, returns = batch.helpers(), set(self.varying), spliced
        packable = self.packable
        start = calls = len(self.stmts)
        if len(self.stmts) >= self.options.reroll_from:
            helpers = {**HELPERS, **namespace}  # the loops call the array twins
            written = {st[0]: st for st in self.stmts}
            looped = reroll.reroll(self.stmts, spliced, helpers, self.written, None, self.options)
            returns = self._adopt(looped, namespace, returns)
            # a rolled statement's name is now set from its loop's result: not packable
            packable = {
                st[0]: packable[st[0]]
                for st in self.stmts
                if st[0] in packable and written.get(st[0]) is st
            }
        if batch.index is not None and batch.pack_rows >= pack.MIN_ROWS:
            # what is left straight: its parallel statements packed (a loop's call is not)
            straight = len(self.stmts)
            self.stmts, packed = pack.pack(
                self.stmts, packable, varying, names, batch.index, batch.pack_rows
            )
            namespace.update(packed)
            calls -= straight - len(self.stmts)  # a loop runs as many calls as it rolled
        self.calls = (calls, start)
        return namespace, returns

    def _roll(self, spliced: list[str], namespace: dict[str, object]) -> list[str]:
        """A scalar program's runs rolled, by depth (a wide sum's levels) or as traced.

        Returns what a lone chunk returns; the loops are added to ``namespace``.
        """
        opts = self.options
        if len(self.stmts) < opts.reroll_from or not self.reroll_left:
            return spliced
        rolled = None
        order = orders.by_depth(self.stmts, force=opts.depth_always)
        if order is not None:  # a wide sum: by depth, its levels roll
            stmts = [self.stmts[i] for i in order]
            written = [self.written[i] for i in order]
            deep = reroll.reroll(stmts, spliced, HELPERS, written, options=opts)
            if opts.depth_always or len(deep.stmts) < len(self.stmts) * opts.depth_gain:
                rolled = deep
        if rolled is None:
            movable = [False] * len(self.stmts)
            for start, end in self.spans:
                movable[start:end] = [True] * (end - start)
            rolled = reroll.reroll(self.stmts, spliced, HELPERS, self.written, movable, opts)
        return self._adopt(rolled, namespace, spliced)

    def _compile(
        self, names: list[str], returns: list[str], namespace: dict[str, object]
    ) -> Callable[[list[float]], tuple[float, ...]]:
        """The statements as chunks (`chunks.Chunk`), each compiled; the program running them."""
        per_chunk = self.options.chunk
        starts = range(0, len(self.stmts), per_chunk)
        chunks = [self.stmts[i : i + per_chunk] for i in starts] or [[]]
        literals = self._literals(namespace) if len(chunks) == 1 else {}
        # the list R: inputs (first: `reroll`'s loops read them as slices of R), constants,
        # then names crossing chunks
        slots: dict[str, int] = {}
        const_names = [f"k{i}" for i in range(len(self.const_values))]
        for name in (*self.input_names, *(k for k in const_names if k not in literals)):
            slots[name] = len(slots)
        if len(chunks) == 1:
            returns = input_runs(returns, len(self.input_names))
            self.reads_r = self.reads_r or any(r.startswith("*R[") for r in returns)
        loads = [chunk_loads(chunk, returns if len(chunks) == 1 else ()) for chunk in chunks]
        stores = chunk_stores(chunks, loads, names if len(chunks) > 1 else [], slots)
        fns = []
        # a dead array of a large batch is memory to give back; small ones are not worth a `del`
        release = max(self.sizes, default=0) >= self.options.release_size
        lone = returns if len(chunks) == 1 else None
        for ci, chunk in enumerate(chunks):
            made = build_chunk(ci, chunk, loads[ci], stores[ci], lone, slots, literals, release)
            src = made.source()
            self.sources.append(src)
            self.lone = attrs.evolve(made, reads_r=self.reads_r) if len(chunks) == 1 else None
            scope = {
                **HELPERS,
                **namespace,
            }  # one chunk at a time: CPython compiles big modules slowly
            exec(compile(src, "<autograd.jit>", "exec"), scope)
            # popped: left in its own globals, a function makes a cycle only the collector frees
            fns.append(cast(ChunkFunction, scope.pop(f"chunk{ci}")))
        if len(chunks) == 1:
            # reads R only: the caller's fresh list of inputs is R (a list of floats is one)
            return cast(Callable[[list[float]], tuple[float, ...]], fns[0])
        return run_chunks(fns, list(self.const_values), len(slots), [slots[o] for o in names])

    def _literals(self, namespace: dict[str, object]) -> dict[str, str]:
        """A lone chunk's constants, each written into its source (or a global of it).

        R is then the inputs list itself: no list is built per call.
        """
        literals: dict[str, str] = {}
        for i, v in enumerate(self.const_values):
            k = f"k{i}"
            if math.isfinite(v):
                literals[k] = literal(v)  # repr round-trips; CPython folds `-0.0`'s sign in
            else:  # a global of the chunk: the very object, NaN payload and sign included
                literals[k] = k
                namespace[k] = v
        return literals

    def _adopt(
        self, rolled: reroll.Rolled, namespace: dict[str, object], returns: list[str]
    ) -> list[str]:
        """Take ``rolled``'s statements and loops; what a lone chunk returns then."""
        self.stmts = rolled.stmts
        self.reads_r = self.reads_r or rolled.reads_r
        namespace.update(rolled.loops)
        self.sources += rolled.sources
        if len(self.stmts) <= self.options.chunk:
            return rolled.returns
        # outputs cross chunks in R by name; one a statement reads is set already
        defined = {t for t, _, _ in self.stmts}
        self.stmts += [st for st in rolled.spliced if st[0] not in defined]
        return returns

    def _element_returns(self, names: list[str]) -> list[str]:
        """``names`` as templates, each run of items of loops' lists a slice (``*{g7}[4:0:-1]``).

        A run takes items from ``r`` lists in turn (parameters laid out as
        ``[w0, b0, w1, b1, ...]``), each list's index moving by one the same
        way: ``*interleaved(g7[0:30:1], g9[0:30:1])``. An item outside such a
        run gets a statement of its own. A program of several chunks returns
        names only: `link` then names every item.
        """
        out: list[str] = []
        elements = self.elements
        k = 0
        while k < len(names):
            name = names[k]
            if name not in elements:  # most outputs: no run starts here (`_element_run`)
                out.append(ref(name))
                k += 1
                continue
            run = self._element_run(names, k)
            if run is None:
                if name not in self._unpacked:
                    self._unpacked.add(name)
                    values, i = self.elements[name]
                    self.emit(name, f"{ref(values)}[{i}]", (values,))
                out.append(ref(name))
                k += 1
                continue
            starts, step, m = run
            slices = [f"{ref(values)}[{_slice(first, step, m)}]" for values, first in starts]
            out.append(
                f"*{slices[0]}" if len(slices) == 1 else f"*interleaved({', '.join(slices)})"
            )
            k += len(starts) * m
        return out

    def _element_run(
        self, names: list[str], k: int
    ) -> tuple[list[tuple[str, int]], int, int] | None:
        """The run of list items from output ``k`` (`_element_returns`), if long enough.

        Its lists with their first indices, the step (1 or -1), and the items it
        takes from each.
        """
        at = self.elements.get
        first = at(names[k])
        if first is None:
            return None
        starts = [first]
        while k + len(starts) < len(names) and len(starts) <= 8:
            here = at(names[k + len(starts)])
            if here is None or here[0] == first[0]:
                break
            starts.append(here)
        r = len(starts)
        after = at(names[k + r]) if k + r < len(names) else None
        if len({v for v, _ in starts}) < r or after is None or after[0] != first[0]:
            return None
        step = after[1] - first[1]
        if step not in (1, -1):
            return None
        m = 1
        while k + (m + 1) * r <= len(names) and all(
            at(names[k + m * r + c]) == (v, i + step * m) for c, (v, i) in enumerate(starts)
        ):
            m += 1
        return (starts, step, m) if m * r >= self.options.splice else None

    def _loop_functions(self) -> dict[str, object]:
        """The loops of rolled runs (`periods`), compiled: globals their calls read."""
        out: dict[str, object] = {}
        for name, write in self.loops.items():
            src = write()
            namespace = {**HELPERS, **periods.LOOP_GLOBALS}
            exec(compile(src, "<autograd.jit loop>", "exec"), namespace)
            out[name] = namespace.pop(name)
            self.sources.append(src)
        return out


def _slice(first: int, step: int, count: int) -> str:
    """The slice taking ``count`` items from ``first`` by ``step`` (1 or -1)."""
    last = first + step * (count - 1)
    stop = last + 1 if step > 0 else last - 1 if last else ""
    return f"{first}:{stop}:{step}"
