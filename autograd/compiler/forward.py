"""The forward pass: a statement per equation the outputs depend on, inputs first.

The traced graph is walked once into equations, each with its structural key
(`equations.walk`). Nothing here knows an op: an equation's statement is its
node's ``forward_source`` (a call of the float helper its class computes
with), or its float arithmetic where the eager call holds a plain float,
written once per key on stand-ins for its input slots (`Writer._slot_syms`)
and filled in with each equation's names. In a scalar program, long runs of
repeated keys are found first (`periods.find`) and written as a call of one
loop (`forward_loops`). `_guards` checks the choices the trace made on plain
numbers of the eager call. Constants are passed in as objects, so ``-0.0``,
``nan`` and ``inf`` keep their bits.
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Sequence
from typing import cast

from autograd.compiler import equations, orders, periods, runs
from autograd.compiler.forward_loops import ForwardLoops
from autograd.compiler.stmts import ref
from autograd.compiler.writer import (
    Form,
    FormElementwise,
    GuardFailed,
    NotBatchable,
    Ordered,
    alias_slot,
    form_elementwise,
    named_elementwise,
    to_form,
)
from autograd.core.batching import is_batch_sum
from autograd.core.nodes import COMPARE_SYMBOLS, Const, Node, Op
from autograd.core.sym import HELPERS, arrays, infix


def check_guard(holds: bool, expected: bool) -> float:
    """A guard statement of compiled code: raise `GuardFailed` unless ``holds`` is as traced."""
    if holds is not expected:
        raise GuardFailed
    return 0.0


HELPERS["check_guard"] = check_guard


class ForwardPass(ForwardLoops):
    """The forward pass of `codegen.Program`: its statements, and its guards'."""

    depth_looped = 0.0
    """The part of the equations `_by_depth` found runs for, if it looked."""

    def forward(
        self,
        outputs: Sequence[Node],
        guards: Sequence[tuple[str, Node, Node, bool]] = (),
        stacked: bool = False,
    ) -> None:
        """Statements computing every node the outputs depend on, inputs first, then guards.

        The traced graph is walked once into equations (`equations.walk`),
        each keyed; a node's statement is written from its key's code. With
        ``stacked`` (a program without a backward sweep), a run whose values
        are read after it, or that reads an earlier run's values at a stride,
        is rolled too: its loop keeps the values read later in lists (a scan's
        stacked outputs), and a node read one by one gets its value from them.
        """
        if stacked:
            self._keep_values()
            self.sweep_loops = False
        compared = [x for _, a, b, _ in guards for x in (a, b)]
        self.first_output = outputs[0] if outputs else None
        w = self.walk = equations.walk(
            self.input_nodes, [*outputs, *compared], self.plain_inputs, self.floats
        )
        for c in w.consts:  # a constant is read by its bits' name
            self.names[c] = self.const(c.value)
        self._check(len(w.order))
        order, forms, found = self._find(stacked, [*outputs, *compared])
        w.operands = []  # read only to find runs
        if not self.stacks:  # `_looped` reads the positions of runs whose values are kept
            w.at = {}
        names, rolled = self.names, self.rolled  # (names kept in lists from `_keep_values` on)
        batched = bool(self.batch_of)  # it only grows from the nodes of a vmap's batch
        start = len(self.stmts)
        marks = {per.first(periods.HEAD): per for per in found}  # where a run's loop goes
        p = 0
        for e in [*sorted(marks), len(order)]:
            for i in range(p, e):
                node, ins = order[i]
                if batched:
                    self._batch(node, ins)
                names[node] = self._forward(node, ins, forms[i], f"v{len(names)}")
            p = e
            per = marks.get(e)
            if per is None:
                continue
            if self._loop_forward(order, forms, per):
                rolled.append(per)
                p = per.first(per.count - periods.TAIL)
        self.spans.append((start, len(self.stmts)))
        self._guards(guards)

    def _find(
        self, stacked: bool, named: list[Node]
    ) -> tuple[list[Ordered], list[int], list[periods.Period]]:
        """The order the equations are written in, their keys' numbers, and its runs.

        In a scalar program from `Options.loops_from` equations (runs of
        `Options.min_run` or more): by depth (a wide sum), as traced, or with a
        sum over data points' joins sunk.
        """
        w = self.walk
        opts = self.options
        if not self.rolls or len(w.order) < opts.loops_from:
            return w.order, w.forms, []
        found = self._runs(stacked, named)
        looped = periods.looped(found)
        # an RNN reading its data (``w * x`` a step) looks wide too, but as traced each step
        # is one iteration: by depth, the products would be a loop of their own
        if opts.depth_always or opts.keep_always or looped < len(w.order) * (1 - opts.depth_gain):
            wide = None if opts.sink_always else self._by_depth(stacked)
            if wide is not None:  # written in depth order, runs' values kept in lists
                return wide
            # a sum of small terms, half of whose equations roll in depth order, has as
            # many joins as terms (a dot): sunk, they would read the loops' lists one by one;
            # one whose sweep by depth would not keep a value's readers in order (a product
            # read at three depths), few joins: sunk, each term is an iteration of one run
            sunk = None if found else self._sunk(few_joins=self.depth_looped >= 0.5)
            if sunk is not None:  # a loss over data points: each point's network a run
                return sunk
            kept = None if stacked else self._kept(named)
            if kept is not None:  # a sweep reading a chain: a Hessian's
                return w.order, w.forms, kept
        if stacked and found:
            self.stacks.append((w.at, self.rolled, w.order))
        return w.order, w.forms, found

    def _kept(self, named: list[Node]) -> list[periods.Period] | None:
        """Runs as traced where a run may read an earlier one's values; None if not worth it.

        A second derivative's trace is a chain, then its backward sweep reading
        the chain's values last first: as traced, the sweep's run reads an
        earlier run, which only a loop keeping that run's values can give it
        (`periods.find`'s ``stacked``). The order stays the trace's, so the
        backward sweep adds every contribution in the eager order, and the
        sweep's loop hands the chain's loop its cotangents as a stream
        (`BackwardLoops._given`, `_outside`). Kept, as `_by_depth`, if the runs
        hold all but `Options.depth_gain` of the equations and the sweep's
        rules read few values one by one (`_reads_few`).
        """
        w, opts = self.walk, self.options
        found = self._runs(True, named)
        if not found:
            return None
        if not opts.keep_always and (
            periods.looped(found) < len(w.order) * (1 - opts.depth_gain)
            or not self._reads_few(self._swept_by_loops(w.order, found))
        ):
            return None
        self._keep_values()
        self.stacks.append((w.at, self.rolled, w.order))
        return found

    def _runs(self, stacked: bool, named: list[Node]) -> list[periods.Period]:
        """Runs of the walk's equations worth a loop (`periods.find`).

        The backward sweep reads the first output's equations, so a run must not
        straddle their end. The outputs and what guards compare are read by name
        (``named``): unless values are kept (``stacked``), a run must not compute
        them in its loop.
        """
        w = self.walk
        if not w.order or not self._repeats():
            return []
        found = periods.find(w.forms, w.operands, self.options, stacked)
        end = w.ends[0]
        read = [] if stacked else sorted(w.at[x] for x in named if w.at.get(x, -1) >= 0)

        def reads_looped(per: periods.Period) -> bool:  # a name read inside the loop
            i = bisect.bisect_left(read, per.first(periods.HEAD - 1))
            return i < len(read) and read[i] < per.first(per.count - periods.TAIL)

        return [
            per
            for per in found
            if not per.start < end < per.first(per.count) and not reads_looped(per)
        ]

    def _by_depth(
        self, stacked: bool
    ) -> tuple[list[Ordered], list[int], list[periods.Period]] | None:
        """A wide program's equations by depth, and its runs there; None if not worth it.

        A graph's trace is a depth-first walk: a balanced sum's additions fall
        between the products they add, so nothing repeats in its order. By
        depth (`orders.by_depth`'s test: a quarter of the equations at one
        depth), the products are one run and each level of the sum another,
        reading the level before at a stride (`Period.lists`). The statements
        are written in that order (they are pure), each run's loop keeping its
        values in lists; a value read on its own is an item of one (`element`).
        The backward sweep goes through that order in reverse if it keeps every
        value's readers in order (`_keeps_readers`), each run by a loop where
        its iterations get one cotangent from outside it and give the earlier
        run they read one too (`BackwardLoops._loop_backward`); else it keeps
        the eager sweep's order, node by node. Tried where a sweep follows
        (not ``stacked``) only if its rules read few equations' values
        (`_reads_few`: a tenth): each may be an item of a loop's list taken on
        its own, where the order as traced names it anyway. Kept if the runs
        hold all but `Options.depth_gain` of the equations.
        """
        w, opts = self.walk, self.options
        if not opts.depth_always and not orders.wide_equations(w.operands):
            return None
        depth = orders.equation_depths(w.operands)
        if not opts.depth_always and not orders.wide(depth):
            return None
        perm = sorted(range(len(depth)), key=depth.__getitem__)
        forms, operands = self._permute(perm)
        found = periods.find(forms, operands, opts, stacked=True)
        looped = periods.looped(found)
        self.depth_looped = looped / max(1, len(perm))
        if not found or (looped < len(perm) * (1 - opts.depth_gain) and not opts.depth_always):
            return None
        order = [w.order[i] for i in perm]
        keeps = not stacked and len(w.ends) == 1 and self._keeps_readers(perm)
        swept = self._swept_by_loops(order, found) if keeps else set()
        if not (stacked or opts.depth_always or self._reads_few(swept)):
            return None
        self._keep_values()
        if keeps:
            # swept in reverse as written: each node's contributions in the eager order
            w.order, w.forms, w.operands = order, forms, operands
            w.at.update((x, i) for i, (x, _) in enumerate(order))
            self.stacks.append((w.at, self.rolled, order))
            return order, forms, found
        self.stacks.append(({x: i for i, (x, _) in enumerate(order)}, self.rolled, order))
        self.sweep_loops = False
        return order, forms, found

    def _swept_by_loops(self, order: list[Ordered], found: list[periods.Period]) -> set[Node]:
        """The looped nodes of the runs whose loops the sweep may stream values to.

        A run whose input streams roll (`_streams_roll`) and whose earlier
        runs' values come from such runs: its backward loop reads the values
        its rules need from the forward loop's lists, not one by one.
        """
        swept: list[periods.Period] = []
        for per in found:
            if self._streams_roll(order, per, kept=True) and all(
                any(r.start <= a < r.first(r.count) for r in swept) for a, _ in per.lists
            ):
                swept.append(per)
        head, tail = periods.HEAD, periods.TAIL
        return {
            order[p][0]
            for per in swept
            for p in range(per.first(head), per.first(per.count - tail))
        }

    def _keeps_readers(self, perm: list[int]) -> bool:
        """Whether the order ``perm`` keeps the order of every value's readers.

        The sweep adds a node's contributions to a value's cotangent in the
        reverse of its readers' order: if ``perm`` keeps that order for every
        value, its reverse sweeps each cotangent in the eager order, bit for
        bit (a balanced sum's readers are one each: any order does).
        """
        operands = self.walk.operands
        at = [0] * len(perm)
        for new, old in enumerate(perm):
            at[old] = new
        last: dict[int, int] = {}  # a value's last reader so far, in ``perm``'s order
        for i, ops in enumerate(operands):
            here = at[i]
            for j in ops:
                if last.get(j, -1) > here:
                    return False
                last[j] = here
        return True

    def _sunk(
        self, few_joins: bool = False
    ) -> tuple[list[Ordered], list[int], list[periods.Period]] | None:
        """A loss over data points' equations with its sum's joins sunk, and its runs there.

        Traced depth first, a balanced sum over data points puts its additions
        between the points' networks, so nothing repeats in order. Moved after
        them (`orders.sink`), each point's network is an iteration of one run
        (a long body: `periods.find`'s ``kept``), whose loop keeps the values the
        sum reads in lists. Only a join whose operands are equations it alone
        reads moves: the reverse of the new order then sweeps every node's
        contributions in the eager order, so the sweep's bits are eager's, and
        its backward loops get each point's cotangent from the sum
        (`BackwardLoops._outside`). Only the first output's equations move. Kept
        if the runs hold all but `Options.sink_gain` of the equations: where
        each point is a few equations (a ``dot``), the sum reads as many items of
        the loops' lists, one by one; `orders.by_depth` serves it better. With
        ``few_joins`` (depth order rolled half the equations or more, but was
        refused), nothing is searched if the joins alone are more than that.
        """
        w = self.walk
        if not w.ends:
            return None
        end, n = w.ends[0], len(w.forms)
        readers = [0] * n
        for ops in w.operands:
            for j in ops:
                if j >= 0:
                    readers[j] += 1
        joinable = [all(j >= 0 and readers[j] == 1 for j in ops) for ops in w.operands[:end]]
        most = int(n * self.options.sink_gain) if few_joins else None
        perm = orders.sink(w.forms[:end], w.operands[:end], [True] * end, joinable, most)
        if perm is None:
            return None
        perm += range(end, n)
        forms, operands = self._permute(perm)
        found = [
            per
            for per in periods.find(forms, operands, self.options, stacked=True, kept=True)
            if per.first(per.count) <= end or per.start >= end
        ]
        looped = periods.looped(found)
        if looped < n * (1 - self.options.sink_gain) and not self.options.sink_always:
            return None  # a sum of many small terms (a dot): its joins are as many, one by one
        order = w.order = [w.order[i] for i in perm]
        w.forms, w.operands = forms, operands
        w.at.update((x, i) for i, (x, _) in enumerate(order))
        self._keep_values()
        self.stacks.append((w.at, self.rolled, order))
        self.reroll_left = False  # the heads and tails of runs: loops of a few iterations
        return order, forms, found

    def _permute(self, perm: list[int]) -> tuple[list[int], list[list[int]]]:
        """The walk's forms and operands in the order ``perm``, operands renumbered."""
        w = self.walk
        at = [0] * len(perm)
        for new, old in enumerate(perm):
            at[old] = new
        forms = [w.forms[i] for i in perm]
        return forms, [[at[j] if j >= 0 else j for j in w.operands[i]] for i in perm]

    def _reads_few(self, swept: set[Node]) -> bool:
        """Whether the backward sweep's rules may read a tenth of the equations' values, or less.

        A node's rule reads the slots its code for each input uses (its key's
        code, `Writer._rule_code`, as the sweep will write it): its inputs'
        values, its own. Every rule counts, needed or not (but one giving a
        constant or a plain number a cotangent): more than is read. But the
        rules of nodes ``swept`` by loops (`_swept_by_loops`): those stream the
        values they read.
        """
        w = self.walk
        used: dict[int, list[int]] = {}
        read: set[Node] = set()
        at, most = w.at, len(w.order) // 10
        for (node, ins), form in zip(w.order, w.forms, strict=True):
            if swept and node in swept:
                continue
            slots = used.get(form)
            if slots is None:
                names = [""] * (len(ins) + 2)
                code = self._rule_code(node, ins, form, names, True, False)
                # input slots, then the node's own value (the cotangent's, after: not a value)
                got = {
                    i
                    for x, c in zip(ins, code, strict=True)
                    if c is not None and not (isinstance(x, Const) or x in self.floats)
                    for i in c[0][1]
                    if i <= len(ins)
                }
                slots = used[form] = sorted(got)
            for i in slots:
                x = ins[i] if i < len(ins) else node
                if at.get(x, -1) >= 0:  # an equation's, not an input's or a constant
                    read.add(x)
            if len(read) > most:
                return False
        return True

    def _repeats(self) -> bool:
        """Whether one of `Options.probes` windows of the equations holds a run worth a loop.

        A run worth rolling is thousands of equations; where the windows find none (a
        wide sum's tree, a network over data points), the whole program is not searched.
        """
        size, probes = self.options.probe_window, self.options.probes
        forms, operands = self.walk.forms, self.walk.operands
        if len(forms) <= size * probes:
            return True  # searched whole, in about as long
        least = periods.HEAD + periods.TAIL + self.options.min_looped
        for k in range(probes):
            a = (len(forms) - size) * k // (probes - 1)
            # an equation before the window is read as one value at every iteration
            window = [
                [j - a if j >= a else j if j < 0 else -(1 << 40) - j for j in ops]
                for ops in operands[a : a + size]
            ]
            if any(
                run[2] >= least
                for run in runs.short_runs(forms[a : a + size], window, least, least, self.options)
            ):
                return True
        return False

    def _batch(self, node: Node, ins: tuple[Node, ...]) -> None:
        """Record the batch ``node`` varies over: its inputs', none for a `batch_sum`."""
        if is_batch_sum(node):
            return
        batches = {self.batch_of[x] for x in ins if x in self.batch_of}
        if len(batches) > 1:  # two vmap calls' examples met without a sum: not one batch
            raise NotBatchable(node)
        if batches:
            self.batch_of[node] = batches.pop()

    def _forward(self, node: Node, ins: tuple[Node, ...], form: int, v: str) -> str:
        """Write ``node``'s statement (``v``), from its key's code; return the name holding it."""
        if self.batch_of and is_batch_sum(node):
            x = ins[0]  # a batch's value: vmap makes a BatchedList of nothing else
            o = self.names[x]
            self.reductions.add(v)
            self.emit(v, f"batch_sum({ref(o)}, {self.sizes[self.batch_of[x] - 1]})", (o,))
            return v
        names = list(map(self.names.__getitem__, ins))  # one per input slot (`slot_syms`)
        varying = self.varying
        batched = bool(varying) and not varying.isdisjoint(names)
        # in a batch, what the code says of itself depends on which names are arrays
        key: object = (form, self._arrays_among(names)) if batched else form
        known = self._forward_forms.get(key)
        if known is None:
            known = self._forward_forms[key] = self._forward_code(node, ins, names, batched)
        code, alias, each = known
        if alias is not None:  # ``x * 1.0``: the node is its input's value
            return names[alias]
        fmt, at = code
        # what it reads, each once: two slots may hold one name (a node and its alias, two
        # constants of the same bits); most read one or two slots, compared, not hashed
        if len(at) == 1:
            uses: tuple[str, ...] = (names[at[0]],)
        elif len(at) == 2:
            first, second = names[at[0]], names[at[1]]
            uses = (first, second) if first != second else (first,)
        else:
            uses = tuple(dict.fromkeys([names[i] for i in at]))
        elementwise = None if each is None else named_elementwise(each, names)
        self.emit(v, fmt.format(*names), uses, code, elementwise)
        return v

    def _forward_code(
        self, node: Node, ins: tuple[Node, ...], names: list[str], batched: bool
    ) -> tuple[Form, int | None, FormElementwise | None]:
        """A key's forward code, written on its slots' stand-ins.

        Its `Form`, the slot it is if it is one alone (`alias_slot`), and in a
        batch what it says of itself. Python's float arithmetic, with IEEE
        results, where the eager call holds a plain float.
        """
        op, syms = self._slot_syms(node, ins, names, own=False)
        xs = [syms[x] for x in ins]
        plain = node in self.floats
        with arrays() if batched else contextlib.nullcontext():
            src = cast(Op, node).float_source(xs) if plain else op.forward_source(xs)
        code = to_form(src.src, src.uses)
        return code, alias_slot(code[0]), form_elementwise(src) if batched else None

    def _guards(self, guards: Sequence[tuple[str, Node, Node, bool]]) -> None:
        """Statements checking the choices the trace made on plain numbers of the eager call.

        Each compares two values computed from the arguments that are not
        differentiated (a rule's test of a plain exponent, say); compiled code
        that finds one going the other way raises `GuardFailed`, and `jit`
        traces again, so the code always follows the eager call's choices.
        """
        for op, x, y, outcome in guards:
            test = infix(self._sym(x), COMPARE_SYMBOLS[op], self._sym(y))
            check = "np_check_guard" if self._batched(test.uses) else "check_guard"
            self.emit(f"g{len(self.stmts)}", f"{check}({test.src}, {outcome})", test.uses)
