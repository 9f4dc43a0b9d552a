"""A run of the forward pass written as a call of one loop, and the lists a scan keeps.

`forward.ForwardPass` writes a run's first `periods.HEAD` iterations as
usual; `ForwardLoops._loop_forward` writes the looped iterations as a call
of one `periods.ForwardLoop`, whose body is one iteration's equations, each
from its key's code with its names placed in the loop (`_loop_body`), and
names the last looped iteration's nodes for the `periods.TAIL` iterations
written after it. In a program without a backward
sweep (``stacked``), a loop keeps in lists the values read after the run; a
later run streams them at a stride (`_list_streams`), and a node read one by
one is named as an item of its run's list (`element`, through `_Names`).
"""

from __future__ import annotations

import collections
import weakref
from typing import cast

from autograd.compiler import periods
from autograd.compiler.stmts import Fields, reads, ref
from autograd.compiler.writer import Form, Ordered, Writer
from autograd.core.nodes import Node

_Value = tuple[str, int | str]
"""A node's value in a loop's iteration: ``("s", k)`` its statement k's, ``("name", n)`` the
program's name ``n``, the same at every iteration."""

_Statement = tuple[Form, tuple[Node, ...]]
"""A statement of a loop's body: its code's `Form`, and the nodes its input slots read."""


class ForwardLoops(Writer):
    """The steps of `forward.ForwardPass` that write a run's iterations as one loop."""

    def _keep_values(self) -> None:
        """From now on, a node a loop computed is named when read: an item of its run's list."""
        if type(self.names) is dict:
            self.names = _Names(self, self.names)

    def _loop_forward(self, order: list[Ordered], forms: list[int], per: periods.Period) -> bool:
        """Write a run's looped iterations as a call of one loop, if they can be.

        The loop's body is one iteration's equations, each written from its
        key's code with its names placed in the loop (`_loop_body`); its
        carried values start as the last head iteration's. Names are given to
        the last looped iteration's nodes, which the tail reads.
        """
        if not self._streams_roll(order, per):
            return False
        body = self._iteration_code(order, forms, per)
        if body is None:
            return False
        lists = self._list_streams(order, per)
        if lists is None:
            return False
        streams = [(a + b * periods.HEAD, b) for a, b in per.inputs]
        loop = periods.ForwardLoop(f"fwd_loop{len(self.loops)}", per.looped, streams, lists)
        self._loop_body(order, per, loop, *body)
        call = f"g{len(self.stmts)}"
        args = list(loop.loop.params)  # names, and R: the inputs (`link`: always R's first items)
        self.reads_r = self.reads_r or "R" in args
        self.emit(call, f"{loop.name}({', '.join(args)})", reads(args))
        self.loops[loop.name] = loop.write  # once the backward sweep chose what it keeps
        per.loop = (loop, call)
        self._name_last_looped(order, per, loop, call)
        return True

    def _iteration_code(
        self, order: list[Ordered], forms: list[int], per: periods.Period
    ) -> tuple[dict[Node, periods.Role], list[_Value], list[_Statement]] | None:
        """One iteration's equations as the loop runs them: or None if a loop cannot.

        Returns where each node the last head iteration reads lives (`periods.Role`),
        and per node of it, its value: statement k of the body, or a name that
        stands for itself (its code is its input's: ``x * 1.0`` of a weight);
        and per statement, its code's `Form` and inputs. A node whose value is
        the previous iteration's or a stream's cannot be looped over.
        """
        t = periods.HEAD - 1
        at = per.first(t)
        role: dict[Node, periods.Role] = {
            self.input_nodes[a + b * t]: ("in", i) for i, (a, b) in enumerate(per.inputs)
        }
        role.update({order[a + b * t][0]: ("l", i) for i, (a, b) in enumerate(per.lists)})
        role.update({x: ("p", j) for j, (x, _) in enumerate(order[per.first(t - 1) : at])})
        role.update({x: ("n", j) for j, (x, _) in enumerate(order[at : at + per.size])})
        iteration = order[at : at + per.size]
        codes = [self._forward_forms[f] for f in forms[at : at + per.size]]
        known: list[_Value | None] = [None] * per.size
        statements: list[_Statement] = []
        for j, (_, ins) in enumerate(iteration):
            if codes[j][1] is None:
                known[j] = ("s", len(statements))
                statements.append((codes[j][0], ins))
        # a node that is its input's value (``x * 1.0``) is what that input is, once known
        changed = True
        while changed:
            changed = False
            for j, (_, ins) in enumerate(iteration):
                alias = codes[j][1]
                if alias is None or known[j] is not None:
                    continue
                x = ins[alias]
                where = role.get(x)
                if where is None or where == ("p", j):  # the same node at every iteration,
                    known[j] = ("name", self.names[x])  # or its own previous value: one before it
                elif where[0] in ("n", "p") and known[where[1]] is not None:
                    known[j] = known[where[1]]
                    if where[0] == "p" and known[j][0] == "s":  # type: ignore[index]  # just set
                        return None  # the previous iteration's value
                elif where[0] not in ("n", "p"):  # a stream's item
                    return None
                changed = changed or known[j] is not None
        values = [v for v in known if v is not None]
        if len(values) < per.size:  # such nodes in a cycle over iterations: not rolled
            return None
        return role, values, statements

    def _loop_body(
        self,
        order: list[Ordered],
        per: periods.Period,
        loop: periods.ForwardLoop,
        role: dict[Node, periods.Role],
        values: list[_Value],
        statements: list[_Statement],
    ) -> None:
        """Write the loop's body: each statement's code, its inputs placed in the loop.

        A value of the previous iteration is carried: the local of its
        statement if nothing reads it after that statement's turn, else a
        copy made at the end of each iteration. Either starts as the last
        head iteration's value.
        """
        readers: dict[int, int] = {}  # a carried statement -> the last statement reading it
        for m, ((_, at), ins) in enumerate(statements):
            for i in at:
                r = role.get(ins[i])
                if r is not None and r[0] == "p" and values[r[1]][0] == "s":
                    readers[int(values[r[1]][1])] = m
        carried = {k: f"_s{k}" if m <= k else f"_c{k}" for k, m in sorted(readers.items())}
        t = periods.HEAD - 1
        names = [self.names[x] for x, _ in order[per.first(t) : per.first(t + 1)]]
        first = {int(v[1]): names[j] for j, v in enumerate(values) if v[0] == "s"}
        for k, c in carried.items():
            loop.loop.carry(c, ref(first[k]), None if c == f"_s{k}" else f"_s{k}")

        def place(x: Node) -> str:
            r = role.get(x)
            if r is None:  # the same at every iteration
                return loop.param(ref(self.names[x]))
            if r[0] in ("in", "l"):
                return loop.stream(r)
            v = values[r[1]]
            if v[0] == "name":
                return loop.param(ref(str(v[1])))
            return f"_s{v[1]}" if r[0] == "n" else carried[int(v[1])]

        for m, ((fmt, _), ins) in enumerate(statements):
            slots = Fields(lambda i: place(ins[int(i[1:])]))  # noqa: B023  # used at once
            loop.loop.assign(m, fmt.format(*[f"_{i}" for i in range(len(ins))]).format_map(slots))
        for i in range(len(per.inputs)):
            loop.stream(("in", i))  # each input stream, read or not: the call's arguments
        for i in range(len(per.lists)):
            loop.stream(("l", i))
        loop.values = [f"_s{v[1]}" if v[0] == "s" else loop.param(ref(str(v[1]))) for v in values]
        loop.finals = sorted({int(v[1]) for v in values if v[0] == "s"})

    def _name_last_looped(
        self, order: list[Ordered], per: periods.Period, loop: periods.ForwardLoop, call: str
    ) -> None:
        """Name the last looped iteration's nodes, which the tail reads: from the loop's finals."""
        names = self.names
        unpacked: dict[str, str] = {}
        params = {p: arg[1:-1] for arg, p in loop.loop.params.items()}
        for j, node in enumerate(self._iteration(order, per, per.count - periods.TAIL - 1)):
            value = loop.values[j]
            if value in params:
                names[node] = params[value]
                continue
            name = unpacked.get(value)
            if name is None:
                name = unpacked[value] = f"v{len(names)}"
                k = int(value[2:])
                self.emit(name, f"{ref(call)}[{loop.finals.index(k)}]", (call,))
            names[node] = name

    def _streams_roll(self, order: list[Ordered], per: periods.Period, kept: bool = False) -> bool:
        """Whether a run's input streams can be looped over.

        A stream of plain numbers always can. A stream of variables (an input
        differentiated, a layer's own weight) can if no backward loop follows
        (`sweep_loops`), or if no node outside its iteration reads each
        variable, so that the backward loop's cotangent of it is the whole of
        it; that loop keeps those in a list (`BackwardLoops._variables_of_loop`).
        Where the forward's values are ``kept`` (or already: `_keep_values`), one
        iteration of the run reading each, through one stream, is enough: the
        backward loop's cotangent of it starts from what the nodes after the
        run gave it (`BackwardLoops._prior`), and waits for the nodes before it
        to add theirs (`pending`); if it cannot, the iterations are swept one
        by one on the kept values. A wide sum by depth reads ``p`` in one run
        and ``log(p)`` in the next.
        """
        plain = self.plain_inputs
        variables: collections.Counter[Node] = collections.Counter()
        for first, step in per.inputs:
            stream = [self.input_nodes[i] for i in range(first, first + step * per.count, step)]
            kinds = {x in plain for x in stream}
            if kinds == {False}:
                variables.update(stream)
            elif kinds != {True}:
                return False  # plain numbers and variables mixed: the iterations differ
        if not variables or not self.sweep_loops:
            return True
        readers = self._input_readers(order)
        if all(readers[x] == 1 for x in variables):
            return True
        if not (kept or type(self.names) is not dict):
            return False
        fixed = {self.input_nodes[-1 - j] for j in per.fixed if j < 0}
        return all(n == 1 for n in variables.values()) and fixed.isdisjoint(variables)

    def _list_streams(
        self, order: list[Ordered], per: periods.Period
    ) -> list[tuple[str, int, int]] | None:
        """A run's streams of earlier runs' values: (a list, its first looped item, step).

        The list, as a template, is the earlier loop's own if the looped
        iterations read its looped ones only; else all its iterations' values
        (`_stack`). None if one reads a run that was not rolled (its values are
        names, not a list).
        """
        found = []
        for first, step in per.lists:
            run = self._rolled_at(order, first)
            if run is None or step % run.size:
                return None
            i, j = divmod(first - run.start, run.size)
            s = step // run.size
            if not 0 <= i + s * (per.count - 1) < run.count:
                return None
            found.append((run, j, i + s * periods.HEAD, s))
        streams = []
        for run, j, i, s in found:
            ends = (i, i + s * (per.looped - 1))
            if min(ends) >= periods.HEAD and max(ends) < run.count - periods.TAIL:
                loop, call = cast("tuple[periods.ForwardLoop, str]", run.loop)
                loop.stored.add(j)  # the loop keeps it: its items are the looped iterations'
                streams.append((f"{ref(call)}[{loop.list_index(j)}]", i - periods.HEAD, s))
            else:
                streams.append((ref(self._stack(run, j, order)), i, s))
        return streams

    def _rolled_at(self, order: list[Ordered], p: int) -> periods.Period | None:
        """The rolled run of ``order`` holding position ``p``, if any."""
        for _, rolled, of in self.stacks:
            if of is order:
                for per in rolled:
                    if per.start <= p < per.first(per.count):
                        return per
        return None

    def _looped(self, node: Node) -> tuple[periods.Period, int, int, list[Ordered]] | None:
        """Where ``node`` is if a rolled run's loop computed it unnamed: run, iteration, slot."""
        for where, rolled, order in self.stacks:
            p = where.get(node)
            if p is None or p < 0:
                continue
            for per in rolled:  # the last looped iteration's nodes are named (`_loop_forward`)
                if per.first(periods.HEAD) <= p < per.first(per.count - periods.TAIL - 1):
                    q, j = divmod(p - per.start, per.size)
                    return per, q, j, order
            return None
        return None

    def _stack(self, per: periods.Period, j: int, order: list[Ordered]) -> str:
        """A name for the list of node ``j``'s values over every iteration of a rolled run."""
        key = (id(per), j)
        name = self._stacked.get(key)
        if name is not None:
            return name
        loop, call = cast("tuple[periods.ForwardLoop, str]", per.loop)
        loop.stored.add(j)  # the loop keeps it
        items: list[str] = []
        uses: list[str] = []
        for q in range(per.count):
            if q == periods.HEAD:
                items.append(f"*{ref(call)}[{loop.list_index(j)}]")
                uses.append(call)
            if not periods.HEAD <= q < per.count - periods.TAIL:
                uses.append(self.names[order[per.first(q) + j][0]])
                items.append(ref(uses[-1]))
        name = self._stacked[key] = f"g{len(self.stmts)}"
        self.emit(name, f"[{', '.join(items)}]", tuple(dict.fromkeys(uses)))
        return name

    def element(self, node: Node) -> str:
        """Name a node a rolled run's loop computed: an item of its list (`_Names`)."""
        found = self._looped(node)
        if found is None:
            raise KeyError(node)
        per, q, j, _ = found
        loop, call = cast("tuple[periods.ForwardLoop, str]", per.loop)
        loop.stored.add(j)  # the loop keeps it: item q - HEAD of its list
        name = f"g{len(self.stmts)}"
        self.emit(name, f"{ref(call)}[{loop.list_index(j)}][{q - periods.HEAD}]", (call,))
        dict.__setitem__(self.names, node, name)
        return name


class _Names(dict[Node, str]):
    """`Program.names` once runs are rolled with their values kept (`ForwardPass.forward`).

    A node a loop computed has no name until it is read one by one: then it is
    named as an item of its run's list (`ForwardLoops.element`).
    """

    def __init__(self, program: ForwardLoops, names: dict[Node, str]) -> None:
        super().__init__(names)
        self.program = weakref.ref(program)  # no cycle: a program is freed at once

    def __missing__(self, node: Node) -> str:
        program = self.program()
        if program is None:
            raise KeyError(node)
        return program.element(node)
