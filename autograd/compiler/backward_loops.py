"""The backward sweep of a rolled run: its forward loop's body transposed, one loop again.

The forward pass wrote a run's looped iterations as one loop (`forward_loops`).
The sweep writes their backward pass as one loop too, from the same
equations: the rules of one iteration's nodes, run in the eager sweep's order
(last node first) on the loop's locals (`BackwardLoops._step`), as JAX
transposes a ``scan``'s body. What one iteration's sweep hands the one before
is its *state*: the cotangents of the previous iteration's nodes, and of the
nodes every iteration reads (a weight), which add up over the run.

Each iteration ends by setting what it hands on in carried locals, one a
slot (`_carried`), so its code depends on its state only through its
*pattern*: which cotangents are present, and which are a name that stands
for itself (the seed ``1.0``, a constant). The tail iterations, swept as
usual, leave the first state; swept on from it, the pattern comes again
after a few iterations (`_settle`). The iterations
before are written straight inside the loop function (its prologue: while
a weight's cotangent is not yet present, its first contribution is
assigned, the next ones added, and ``0.0 + -0.0`` is ``0.0``); the
repeating ones are the loop's body. Either way the loop runs the very
statements the unrolled sweep would, in the very order, so every cotangent
keeps its bits. Each iteration's cotangents of its streamed variables (a
layer's own weight) are kept in lists, whose items are outputs of the
program (`Writer.elements`).

Where the program is written in an order other than the trace's (a sum over
data points, a wide sum by depth), a run's nodes may get cotangents from
outside it (`_outside`: the sum's, one name at every iteration: a parameter),
and a run may read an earlier run's values (`_given`: each iteration gives
its item one name, or the loop is not written and its iterations are swept
node by node).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import cast

from autograd.compiler import periods
from autograd.compiler.backward_source import Source, State, assign
from autograd.compiler.loops import Loop, Piece, items, pieces
from autograd.compiler.stmts import code, reads, ref
from autograd.compiler.writer import Ordered, Writer
from autograd.core.nodes import Node

Slot = tuple[str, int]
"""A cotangent of one iteration's sweep: ``("n", j)`` its node j's, ``("p", j)`` the previous
iteration's node j's, ``("w", i)`` the run's fixed node i's, ``("v", i)`` its variable
stream i's, ``("o", i)`` its item of an earlier run's values i (`Period.lists`)."""

_Outside = tuple[int, str | list[Piece], bool]
"""A run's node j's cotangents from outside it: one name, or a stream in pieces (`pieces`);
and whether a stream's item is its own iteration's (else the iteration before's)."""


_Prior = tuple[int, str | list[Piece]]
"""Variable stream i's cotangents before its loop (`BackwardLoops._prior`): a name, or pieces."""


_node = itemgetter(0)
"""An ordered equation's node."""


class _Run:
    """A rolled run as its backward loop reads it: one iteration's equations, by role."""

    def __init__(self, program: BackwardLoops, order: list[Ordered], per: periods.Period):
        t = per.count - periods.TAIL
        assert per.loop is not None  # `forward` rolled it
        self.forward, self.call = per.loop
        self.size, self.looped = per.size, per.looped
        self.lists = per.lists
        at = per.first(t - 1)  # the last looped iteration stands for every one
        self.body = order[at : at + per.size]
        self.keys = program.walk.forms[at : at + per.size]
        self.fixed = program._fixed(order, per)
        streams = [program.input_nodes[a + b * (t - 1)] for a, b in per.inputs]
        self.variables = [i for i, x in enumerate(streams) if x not in program.plain_inputs]
        self.role: dict[Node, tuple[str, int]] = {x: ("w", i) for i, x in enumerate(self.fixed)}
        self.role.update({x: ("p", j) for j, (x, _) in enumerate(order[per.first(t - 2) : at])})
        self.role.update({x: ("n", j) for j, (x, _) in enumerate(self.body)})
        self.role.update({x: ("in", i) for i, x in enumerate(streams)})
        self.role.update(
            {order[a + b * (t - 1)][0]: ("l", i) for i, (a, b) in enumerate(per.lists)}
        )
        self.heads = [program.names[x] for x in program._iteration(order, per, periods.HEAD - 1)]
        self.outside: list[tuple[Slot, str]] = []  # what a slot starts from: outside the run
        self.loop = Loop(f"bwd_loop{len(program.loops)}", per.looped)
        self.written = 0  # statements written: the next local is ``_s{written}``

    def enter(
        self, outside: list[_Outside], prior: list[_Prior], cot: dict[Node, str]
    ) -> tuple[set[int], State]:
        """Read the cotangents from outside the run (`_outside`), and its variables' (`_prior`).

        Returns the nodes streamed at their own iteration (the first looped
        one's too, so not in the state), and the state the loop starts from.
        """
        self.outside = [
            (
                ("n" if own else "p", j),
                self.param(v) if isinstance(v, str) else self.stream_of(("n", j), v),
            )
            for j, v, own in outside
        ]
        self.outside += [
            (("v", i), self.param(v) if isinstance(v, str) else self.stream_of(("v", i), v))
            for i, v in prior
        ]
        mine = {j for j, _, own in outside if own}
        entry = [None if j in mine else cot.get(x) for j, (x, _) in enumerate(self.body)]
        return mine, entry + [cot.get(x) for x in self.fixed]

    def local(self) -> str:
        """A fresh local of the loop function."""
        self.written += 1
        return f"_s{self.written - 1}"

    def param(self, name: str) -> str:
        """The parameter holding a program's name, the same at every iteration."""
        return self.loop.param(ref(name))

    def stream_of(self, slot: Slot, parts: list[Piece]) -> str:
        """The local holding a slot's cotangent from outside the run, in pieces (`pieces`).

        Node j's (``("n", j)``, `_outside`), or variable stream i's (``("v", i)``, `_prior`).
        """
        exprs: list[str] = []
        for piece in parts:
            if piece[0] == "":
                names = cast("tuple[str, ...]", piece[1:])
                exprs.append(f"({''.join(f'{self.param(n)}, ' for n in names)})")
            else:
                values, first, step, count = cast("tuple[str, int, int, int]", piece)
                exprs.append(items(self.param(values), first, step, count))
        expr = exprs[0] if len(exprs) == 1 else f"_chain({', '.join(exprs)})"
        kind, j = slot
        return self.loop.stream(("g" + kind, j), f"_g{j}" if kind == "n" else f"_u{j}", expr)

    def forward_value(self, role: tuple[str, int]) -> str:
        """The local holding a forward value at the iteration swept: a stream's item.

        ``("n", j)``: its node j's, from the forward loop's list; ``("p", j)``:
        the previous iteration's, the last head iteration's before the first;
        ``("in", i)``: its input of stream i; ``("l", i)``: its item of an
        earlier run's values (`periods.Period.lists`).
        """
        kind, j = role
        count, loop = self.looped, self.loop
        if kind == "in":  # the forward's stream of inputs, last first
            first, step = self.forward.inputs[j]
            last = first + step * (count - 1)
            return loop.stream(role, f"_i{j}", items(loop.param("R"), last, -step, count))
        if kind == "l":  # an earlier run's values, as the forward loop streamed them
            values, first, step = self.forward.lists[j]
            last = first + step * (count - 1)
            return loop.stream(role, f"_x{j}", items(loop.param(values), last, -step, count))
        self.forward.stored.add(j)
        values = loop.param(f"{ref(self.call)}[{self.forward.list_index(j)}]")
        if kind == "n":
            return loop.stream(role, f"_f{j}", f"reversed({values})")
        before = loop.param(ref(self.heads[j]))
        return loop.stream(role, f"_h{j}", f"_chain(reversed({values}[:-1]), ({before},))")

    def slot(self, x: Node, needed: list[bool], needs: set[Node]) -> Slot | None:
        """The cotangent a contribution to ``x`` goes to; None: dead (no variable behind)."""
        role = self.role.get(x)
        if role is None:  # a constant
            return None
        kind, j = role
        if kind in ("n", "p"):
            return role if needed[j] else None
        if x not in needs:  # a plain number
            return None
        return ("v", j) if kind == "in" else ("o", j) if kind == "l" else role


class BackwardLoops(Writer):
    """The step of `sweep.Sweep` that sweeps a rolled run's looped iterations as one loop."""

    def _loop_backward(
        self, order: list[Ordered], per: periods.Period, cot: dict[Node, str], needs: set[Node]
    ) -> bool:
        """Sweep a run's looped iterations, last first, as a call of one loop, if one can.

        ``cot`` holds what the tail's sweep left the last looped iteration's
        nodes and the fixed ones; the call's results replace it with what the
        loop leaves the last head iteration's nodes and the fixed ones, and
        name each looped iteration's cotangents of its variables. False if
        the cotangents from outside the run differ between iterations
        (`_outside`): nothing is written then.
        """
        outside, prior = self._outside(order, per, cot), self._prior(order, per, cot)
        if outside is None or prior is None or not self._lists_free(order, per, cot):
            return False
        t = per.count - periods.TAIL
        entered = [x for x, _ in order[per.first(t - 1) : per.first(t)]]  # the first state
        for x in entered + self._fixed(order, per):
            self._unpend(x, cot)
        run = _Run(self, order, per)
        mine, entry = run.enter(outside, prior, cot)
        needed = _needed(order, per, needs)
        outer = set(self.consts.values()) | {self.names[x] for x in run.fixed}
        state, pre = _carried(entry, lambda v: run.param(v) if v in outer else None, run.param)
        prologue, period = self._settle(run, needed, needs, state)
        run.written = 0  # the search's statements are not the loop's
        source = Source(run.loop, run.looped, len(run.variables), pre)
        for q in range(prologue + period):
            block: list[str] = []
            state, kept, sets = self._iterate(run, needed, needs, state, block)
            (source.prologue if q < prologue else source.body).append((block, kept, sets))
        given = self._given(run, source)
        if given is None:
            return False
        self._consumed(order, per, outside, prior)
        returns, lists = source.returns(state, lambda: run.param(self.const(0.0)))
        target = f"g{len(self.stmts)}"
        if returns:  # else it computes nothing a later statement reads: not written
            text = source.write(returns)
            self.loops[run.loop.name] = lambda: text
            args = list(run.loop.params)
            self.reads_r = self.reads_r or "R" in args
            self.emit(target, f"{run.loop.name}({', '.join(args)})", reads(args))
        names = {p: arg[1:-1] for arg, p in run.loop.params.items() if arg != "R"}
        left = self._iteration(order, per, periods.HEAD - 1) + run.fixed
        for j, (x, v) in enumerate(zip(left, state, strict=True)):
            if j in mine:  # what it got from outside, as before the loop
                continue
            if v is None or x not in needs:
                cot.pop(x, None)
            else:
                cot[x] = names.get(v) or self._item(target, returns.index(v))
        for i, got in zip(run.variables, lists, strict=True):
            if got is not None:
                self._variables_of_loop(order, per, i, got, names, target, returns, cot)
        self._given_back(
            order, per, given, names, lambda v: self._item(target, returns.index(v)), cot
        )
        return True

    def _given_back(
        self,
        order: list[Ordered],
        per: periods.Period,
        given: list[str | None],
        names: dict[str, str],
        result: Callable[[str], str],
        cot: dict[Node, str],
    ) -> None:
        """Name what the loop gave each looped iteration's item of an earlier run.

        One name when it is the same at every iteration, else an item of the
        list the loop returned, named when first read (`pending`).
        """
        t = per.count - periods.TAIL
        looped = range(periods.HEAD, t)
        for (a, b), v in zip(per.lists, given, strict=True):
            if v is None:
                continue
            if v in names:  # each looped iteration's item of that run: one name
                cot.update((order[a + b * q][0], names[v]) for q in looped)
                continue
            values = result(v)  # one an iteration, last first
            self.pending.update((order[a + b * q][0], (values, t - 1 - q)) for q in looped)

    def _unpend(self, x: Node, cot: dict[Node, str]) -> None:
        """Name ``x``'s cotangent if it is an item of a loop's list (`pending`)."""
        got = self.pending.pop(x, None)
        if got is not None:
            values, k = got
            name = cot[x] = f"g{len(self.stmts)}"
            self.emit(name, f"{ref(values)}[{k}]", (values,))

    def _consumed(
        self,
        order: list[Ordered],
        per: periods.Period,
        outside: list[_Outside],
        prior: list[_Prior],
    ) -> None:
        """Forget the pending cotangents the loop streams (`_outside`, `_prior`): it reads them."""
        t = per.count - periods.TAIL
        for i, _ in prior:
            a, b = per.inputs[i]
            for q in range(periods.HEAD, t):
                self.pending.pop(self.input_nodes[a + b * q], None)
        for j, v, own in outside:
            if not isinstance(v, str):
                for q in range(periods.HEAD - 1 + own, t - 1 + own):
                    self.pending.pop(order[per.first(q) + j][0], None)

    def _lists_free(self, order: list[Ordered], per: periods.Period, cot: dict[Node, str]) -> bool:
        """Whether no looped iteration's item of an earlier run's values has a cotangent yet.

        The loop gives each one its first (`_given`): a node the sweep reached
        already would need it added.
        """
        looped = range(periods.HEAD, per.count - periods.TAIL)
        pending = self.pending
        return not any(
            order[a + b * q][0] in cot or order[a + b * q][0] in pending
            for a, b in per.lists
            for q in looped
        )

    def _prior(
        self, order: list[Ordered], per: periods.Period, cot: dict[Node, str]
    ) -> list[_Prior] | None:
        """The cotangents the run's variable streams have before its loop, as it reads them.

        A variable the nodes after the run read too has one (`_streams_roll`):
        each looped iteration's starts there and its run adds to it, as eager
        does. Per stream with them: its index, and one name (a parameter) or
        its items' pieces, last first (`pieces`). None if only some looped
        iterations have one, or the pieces are too many: no loop then.
        """
        looped = range(periods.HEAD, per.count - periods.TAIL)
        pending, plain = self.pending, self.plain_inputs
        out: list[_Prior] = []
        # each input read once (most programs): read by this run alone
        for i, (a, b) in enumerate(per.inputs if self._readers(order).twice else ()):
            xs = [self.input_nodes[a + b * q] for q in reversed(looped)]
            if xs[0] in plain or not self._read_elsewhere(order, xs):
                continue
            seq = [pending.get(x) or cot.get(x) for x in xs]
            first = seq[0]
            if seq.count(first) == len(seq) and not isinstance(first, tuple):
                if first is not None:
                    out.append((i, first))
                continue
            parts = None if None in seq else pieces(cast("list[str | tuple[str, int]]", seq))
            if parts is None:
                return None
            out.append((i, parts))
        return out

    @staticmethod
    def _given(run: _Run, source: Source) -> list[str | None] | None:
        """What each iteration gives its item of each earlier run's values.

        Per earlier run's values: None (nothing), one parameter (a sum's
        ``1.0``), or a list the loop keeps, one item an iteration (a ``tanh``'s
        slope times its cotangent), whose items wait to be read (`pending`).
        None if some iterations give one and others none: the loop is not
        written then, its iterations are swept node by node.
        """
        blocks = source.prologue + source.body
        out: list[str | None] = []
        for i in range(len(run.lists)):
            each = [kept[len(run.variables) + i] for _, kept, _ in blocks]
            got = set(each)
            v = got.pop()
            if not got and (v is None or v.startswith("_p")):
                out.append(v)
            elif None in each:
                return None
            else:
                name = f"_m{len(source.kept)}"
                source.kept[name] = cast("list[str]", each)
                out.append(name)
        return out

    def _outside(
        self, order: list[Ordered], per: periods.Period, cot: dict[Node, str]
    ) -> list[_Outside] | None:
        """The cotangents nodes of the run get from outside it, as the loop reads them.

        Per node j of an iteration: what the sweep of the nodes after the run
        gave it (a sum over data points passes each point's loss one cotangent;
        a later run's loop, an item of its list each: `pending`), before its
        own run adds to it: the carried cotangent of the iteration before
        starts there (`_step`). Read at the iterations the loop hands a
        cotangent to (the last head one's to the one before the last looped),
        last first: one name (a parameter), or pieces of lists and names
        (`pieces`: a stream). A stream for a node no iteration reads of the
        one before is its own iteration's (``own``), read from the last looped
        iteration on. None if some have one and others none, or the pieces are
        too many: no loop then.
        """
        t = per.count - periods.TAIL
        pending = self.pending
        before = {x: j for j, (x, _) in enumerate(order[per.first(t - 2) : per.first(t - 1)])}
        carried = {
            before[x]
            for _, ins in order[per.first(t - 1) : per.first(t)]
            for x in ins
            if x in before
        }
        out: list[_Outside] = []
        size = per.size
        for j in range(size):
            for own in (False, True):  # a parameter, else a stream at its own iteration
                at = per.first(periods.HEAD - 1 + own) + j  # iterations HEAD - 1 to t - 2
                nodes = list(map(_node, order[at : per.first(t - 1 + own) + j : size]))
                nodes.reverse()  # last first  (a long run's every node: at C speed)
                if pending and not pending.keys().isdisjoint(nodes):
                    seq = [pending.get(x) or cot.get(x) for x in nodes]
                else:
                    seq = list(map(cot.get, nodes))
                first = seq[0]
                if not own and seq.count(first) == len(seq) and not isinstance(first, tuple):
                    if first is not None:
                        out.append((j, first, False))
                    break
                if own != (j in carried):
                    parts = (
                        None if None in seq else pieces(cast("list[str | tuple[str, int]]", seq))
                    )
                    if parts is None:
                        return None
                    out.append((j, parts, own))
                    break
        return out

    def _settle(
        self, run: _Run, needed: list[bool], needs: set[Node], state: State
    ) -> tuple[int, int]:
        """The loop's prologue and period: iterations before the pattern repeats, and between.

        The sweep runs on from ``state`` until its state on carried locals
        (its pattern: which cotangents are present, which are a parameter)
        comes again. The prologue is lengthened so that the period divides what is
        left. A pattern that does not come again within `Options.settle`
        iterations leaves every iteration to the prologue.
        """
        seen = [tuple(state)]
        for _ in range(min(self.options.settle, run.looped)):
            state, _, _ = self._iterate(run, needed, needs, state, [])
            if tuple(state) in seen:
                k = seen.index(tuple(state))
                period = len(seen) - k
                k += (run.looped - k) % period
                return (k, period) if k < run.looped else (run.looped, 0)
            seen.append(tuple(state))
        return run.looped, 0

    def _iterate(
        self, run: _Run, needed: list[bool], needs: set[Node], state: State, block: list[str]
    ) -> tuple[State, list[str | None], list[str]]:
        """`_step`, and the statement setting the carried locals to what it leaves.

        Every iteration starts from those (`_carried`): its code is the same
        as another's with the same state, and a stream's item it leaves
        survives the next iteration's, which rebinds the stream's local.
        """
        left, kept = self._step(run, needed, needs, state, block)
        state, sets = _carried(left, lambda v: v if v.startswith("_p") else None, str)
        return state, kept, assign([(c, v) for c, v in sets if c != v])

    def _step(
        self, run: _Run, needed: list[bool], needs: set[Node], state: State, block: list[str]
    ) -> tuple[State, list[str | None]]:
        """One iteration's sweep on the loop's locals: the state it leaves, its variables'.

        Its statements are appended to ``block``: each node's rule, last node
        first, its code the key's (`Sweep._rule_code`), its names where the
        loop holds them. Returns the state the iteration before gets, and the
        cotangent of each of its variable streams, then of its item of each
        earlier run's values (None: none).
        """
        size = run.size
        cot: dict[Slot, str] = {}
        for m, v in enumerate(state):
            if v is not None:
                cot[("n", m) if m < size else ("w", m - size)] = v
        for where, v in run.outside:  # what the nodes after the run gave it, or the one before
            cot[where] = v
        seed = run.loop.params.get(ref(self.seed)) if self.seed is not None else None
        for j in range(size - 1, -1, -1):
            g = cot.get(("n", j))
            if g is None or not needed[j]:
                continue
            node, ins = run.body[j]
            own = node in self.names
            names = [""] * (len(ins) + own) + [g]  # placed as the code reads them (`_fill`)
            forms = self._rule_code(node, ins, run.keys[j], names, own, g == seed)
            for x, form in zip(ins, forms, strict=True):
                slot = run.slot(x, needed, needs)
                if form is None or slot is None:
                    continue
                (fmt, at), _, alias = form
                prev = cot.get(slot)
                if prev is None and alias is not None:
                    self._fill(run, j, ins, names, (alias,))
                    cot[slot] = names[alias]  # a name passed on as it is (`Add`'s ``g``)
                    continue
                self._fill(run, j, ins, names, at)
                expr = code(fmt.format(*names))
                # a fixed node's cotangent adds up in its carried local: nothing else reads it
                carried = f"_c{size + slot[1]}" if slot[0] == "w" else None
                local = cot[slot] = carried if carried and prev == carried else run.local()
                block.append(
                    f"{local} = {expr}" if prev is None else f"{local} = {prev} + ({expr})"
                )
        left: State = [cot.get(("p", j)) for j in range(size)]
        left += [cot.get(("w", i)) for i in range(len(run.fixed))]
        kept = [cot.get(("v", i)) for i in run.variables]
        return left, kept + [cot.get(("o", i)) for i in range(len(run.lists))]

    def _fill(
        self, run: _Run, j: int, ins: tuple[Node, ...], names: list[str], used: Sequence[int]
    ) -> None:
        """Place the names of node ``j``'s code that ``used`` reads (a stream only if read).

        Slot i < len(ins) is input i's forward value, the next the node's own.
        """
        for i in used:
            if names[i]:
                continue
            if i == len(ins):
                names[i] = run.forward_value(("n", j))
                continue
            x = ins[i]
            role = run.role.get(x)
            if role is None or role[0] == "w":  # a constant, or a fixed node: one value for all
                names[i] = run.param(self.names[x])
            else:
                names[i] = run.forward_value(role)

    def _item(self, target: str, at: int) -> str:
        """A name for item ``at`` of a loop call's result."""
        name = f"g{len(self.stmts)}"
        self.emit(name, f"{ref(target)}[{at}]", (target,))
        return name

    def _variables_of_loop(
        self,
        order: list[Ordered],
        per: periods.Period,
        i: int,
        got: str,
        names: dict[str, str],
        target: str,
        returns: list[str],
        cot: dict[Node, str],
    ) -> None:
        """Name each looped iteration's cotangent of variable stream ``i``.

        ``got``: a parameter (each cotangent is its program's name, in
        ``names``), an input stream's item (``_i{j}``: each cotangent is that
        iteration's input's name), or the list the loop kept and returned, one
        item an iteration, last first, each item an output only (`Writer.elements`)
        but where a node before the run reads the variable too: the sweep adds
        to it there, so it waits to be read (`pending`).
        """
        looped = range(periods.HEAD, per.count - periods.TAIL)
        a, b = per.inputs[i]
        xs = [self.input_nodes[a + b * q] for q in looped]
        if got in names:
            cot.update(dict.fromkeys(xs, names[got]))
            return
        if got.startswith("_i"):
            a, b = per.inputs[int(got[2:])]
            cot.update(
                (x, self.names[self.input_nodes[a + b * q]])
                for x, q in zip(xs, looped, strict=True)
            )
            return
        values = self._item(target, returns.index(got))
        elsewhere = self._read_elsewhere(order, xs)
        for k, x in enumerate(reversed(xs)):
            if elsewhere and self._read_before(order, x, per.start):
                cot.pop(x, None)
                self.pending[x] = (values, k)
                continue
            e = f"e{len(self.elements)}"
            self.elements[e] = (values, k)
            cot[x] = e


def _needed(order: list[Ordered], per: periods.Period, needs: set[Node]) -> list[bool]:
    """Per node of an iteration: whether it is needed at some looped iteration.

    Such a node is swept at every looped iteration; what it adds where it is
    not needed is dead.
    """
    lo, hi, size = per.first(periods.HEAD), per.first(per.count - periods.TAIL), per.size
    return [not needs.isdisjoint(map(_node, order[lo + j : hi : size])) for j in range(size)]


def _carried(
    state: Sequence[str | None], outer: Callable[[str], str | None], value: Callable[[str], str]
) -> tuple[State, list[tuple[str, str]]]:
    """``state`` on carried locals: ``_c{m}`` at slot m, but None and what ``outer`` places.

    Returns the state, and the assignments setting each carried local (to
    ``value`` of what the slot held). What ``outer`` places (a parameter, a
    name that stands for itself) is the same at every iteration.
    """
    out: State = []
    sets: list[tuple[str, str]] = []
    for m, v in enumerate(state):
        placed = None if v is None else outer(v)
        if v is None or placed is not None:
            out.append(placed)
        else:
            out.append(f"_c{m}")
            sets.append((f"_c{m}", value(v)))
    return out, sets
