"""A run of the forward pass written as a call of one loop, and the lists a scan keeps.

`forward.ForwardPass` writes a run's first `periods.HEAD` iterations as
usual; `ForwardLoops._loop_forward` compares the last two of them and, if
they agree, writes the looped iterations as a call of one
`periods.ForwardLoop`, naming the last looped iteration's nodes for the
`periods.TAIL` iterations written after it. In a program without a backward
sweep (``stacked``), a loop keeps in lists the values read after the run; a
later run streams them at a stride (`_list_streams`), and a node read one by
one is named as an item of its run's list (`element`, through `_Names`).
"""

from __future__ import annotations

import collections
import weakref
from typing import cast

from autograd.compiler import periods
from autograd.compiler.stmts import Stmt, reads, ref
from autograd.compiler.writer import Ordered, Writer
from autograd.core.nodes import Node

_Slots = tuple[periods.Role | str, ...]
"""Per node of a run's iteration: its role in the loop, or the name it stands for."""


class ForwardLoops(Writer):
    """The steps of `forward.ForwardPass` that write a run's iterations as one loop."""

    def _keep_values(self) -> None:
        """From now on, a node a loop computed is named when read: an item of its run's list."""
        if type(self.names) is dict:
            self.names = _Names(self, self.names)

    def _loop_forward(self, order: list[Ordered], per: periods.Period, at: dict[int, int]) -> bool:
        """Write a run's looped iterations as a call of one loop, if their statements agree.

        The `HEAD` iterations before are written: the last two must have the same
        `periods.shape`, their nodes the same names' roles and the same kinds.
        Names are given to the last looped iteration's nodes, which the tail reads.
        """
        head = periods.HEAD
        bounds = [at[per.first(q)] for q in range(head + 1)]
        its = [self.stmts[bounds[q] : bounds[q + 1]] for q in range(head)]
        if not self._streams_roll(order, per):
            return False
        template = self._template(order, per, its)
        if template is None:
            return False
        roles, slots = template
        lists = self._list_streams(order, per)
        if lists is None:
            return False
        loop, call = self._call_loop(per, its[head - 1], roles, slots, lists)
        self._name_last_looped(order, per, slots, loop, call)
        return True

    def _template(
        self, order: list[Ordered], per: periods.Period, its: list[list[Stmt]]
    ) -> tuple[dict[str, periods.Role], _Slots] | None:
        """The last head iteration's roles and slots, if the one before agrees with it."""
        head, names = periods.HEAD, self.names
        shapes = []
        roles: dict[str, periods.Role] = {}
        slots: _Slots = ()
        for q in (head - 2, head - 1):  # the template, compared with the iteration before
            nodes = self._iteration(order, per, q)
            roles = periods.own_roles(its[q], its[q - 1])
            roles.update({f"a{a + b * q}": ("in", i) for i, (a, b) in enumerate(per.inputs)})
            roles.update(
                {names[order[a + b * q][0]]: ("l", i) for i, (a, b) in enumerate(per.lists)}
            )
            slots = tuple([roles.get(names[x], names[x]) for x in nodes])
            shapes.append((periods.shape(its[q], roles), slots, [x in self.floats for x in nodes]))
        named_elsewhere = [r for r in slots if type(r) is tuple and r[0] != "s"]
        if shapes[0] != shapes[1] or named_elsewhere:
            return None  # a node named as the previous iteration's value, or as an input
        return roles, slots

    def _call_loop(
        self,
        per: periods.Period,
        template: list[Stmt],
        roles: dict[str, periods.Role],
        slots: _Slots,
        lists: list[tuple[str, int, int]],
    ) -> tuple[periods.ForwardLoop, str]:
        """The statement calling a run's loop; the loop, and the name of its call's result."""
        streams = [(a + b * periods.HEAD, b) for a, b in per.inputs]
        loop = periods.ForwardLoop(
            f"fwd_loop{len(self.loops)}", template, roles, slots, per.looped, streams, lists
        )
        call = f"g{len(self.stmts)}"
        args = list(loop.params)  # names, and R: the inputs (`link`: always R's first items)
        self.reads_r = self.reads_r or "R" in args
        self.emit(call, f"{loop.name}({', '.join(args)})", reads(args))
        self.loops[loop.name] = loop.write  # once the backward sweep chose what it keeps
        per.loop = (loop, call)
        return loop, call

    def _name_last_looped(
        self,
        order: list[Ordered],
        per: periods.Period,
        slots: _Slots,
        loop: periods.ForwardLoop,
        call: str,
    ) -> None:
        """Name the last looped iteration's nodes, which the tail reads: from the loop's finals."""
        names = self.names
        unpacked: dict[int, str] = {}
        for j, node in enumerate(self._iteration(order, per, per.count - periods.TAIL - 1)):
            slot = slots[j]
            if type(slot) is tuple:
                name = unpacked.get(slot[1])
                if name is None:
                    name = unpacked[slot[1]] = f"v{len(names)}"
                    self.emit(name, f"{ref(call)}[{loop.finals.index(slot[1])}]", (call,))
            else:
                name = cast(str, slot)
            names[node] = name

    def _streams_roll(self, order: list[Ordered], per: periods.Period) -> bool:
        """Whether a run's input streams can be looped over.

        A stream of plain numbers always can. A stream of variables (an input
        differentiated, a layer's own weight) can if no node outside its
        iteration reads each variable, so that the loop's cotangent of it is
        the whole of it; the loop keeps those in a list (`_looped_variables`).
        """
        plain = self.plain_inputs
        variables: set[Node] = set()
        for first, step in per.inputs:
            stream = [self.input_nodes[i] for i in range(first, first + step * per.count, step)]
            kinds = {x in plain for x in stream}
            if kinds == {False}:
                variables.update(stream)
            elif kinds != {True}:
                return False  # plain numbers and variables mixed: the iterations differ
        if not variables:
            return True
        readers = collections.Counter(x for _, ins in order for x in ins if x in variables)
        return all(readers[x] == 1 for x in variables)

    def _list_streams(
        self, order: list[Ordered], per: periods.Period
    ) -> list[tuple[str, int, int]] | None:
        """A run's streams of earlier runs' values: (their list, first looped item, step).

        None if one reads a run that was not rolled (its values are names, not a list).
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
        return [(self._stack(run, j, order), i, s) for run, j, i, s in found]

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
        per, q, j, order = found
        values = self._stack(per, j, order)
        name = f"g{len(self.stmts)}"
        self.emit(name, f"{ref(values)}[{q}]", (values,))
        dict.__setitem__(self.names, node, name)
        return name

    def _name_stacked_reads(self, nodes: list[Ordered]) -> None:
        """Name what ``nodes`` read of rolled runs' loops, before they are written.

        A run's first iterations are compared statement by statement: an item
        taken from a list inside one of them would differ from the next's.
        """
        names = self.names
        for _, ins in nodes:
            for x in ins:
                if x not in names and self._looped(x) is not None:
                    names[x]  # named as an item (`_Names`)


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
