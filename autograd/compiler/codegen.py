"""Compile a traced graph to straight-line Python: one statement per node.

Nothing here knows an op: the forward pass is each node's ``forward_source``
(a call of the float helper its class computes with), the backward pass is
each node's own ``vjp`` rule run on `Sym` (so it is the rule, not a copy),
node by node, in the order the eager sweep (`_trace.backward`) visits them and
accumulates cotangents. Choices inside rules (relu's mask, pow's exponent-0
case) are `where`s, so they become conditional expressions on run-time
values, never decisions frozen from the trace. Constants are passed in as
objects, so ``-0.0``, ``nan`` and ``inf`` keep their bits.
"""

from __future__ import annotations

import bisect
import collections
import contextlib
import functools
import itertools
import math
import re
import struct
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import cast

import attrs

from autograd.compiler import orders, pack, periods, reroll
from autograd.compiler.equations import as_eager
from autograd.compiler.options import Options
from autograd.compiler.stmts import NAME, Stmt
from autograd.core.batching import is_batch_sum
from autograd.core.nodes import (
    COMPARE_SYMBOLS,
    PLAIN,
    VARIABLE_ONE,
    Const,
    Leaf,
    Node,
    Op,
    eager_kind,
    kind_in_order,
    parents,
)
from autograd.core.sym import HELPERS, Sym, arrays, infix, literal, sym
from autograd.walks import toposort


@attrs.frozen
class Dialect:
    """How a batched program differs: which inputs vary, and the code for them."""

    varying: frozenset[int]
    """Positions of the inputs that hold a batch (an array)."""
    helpers: Callable[[], dict[str, object]]
    """The globals the rewritten expressions call (``batch_sum(x, size)`` too)."""
    batch_of: dict[Node, int] = attrs.field(factory=dict)
    """Variables standing for a column of a `vmap` call inside the trace: that call (1, 2, ...)."""
    sizes: tuple[int, ...] = ()
    """The number of examples of each such call."""
    arrays: frozenset[int] = frozenset()
    """The calls with a NumPy array among their mapped leaves: their results are arrays."""
    index: Callable[[list[int]], object] | None = None
    """An index array of rows, if parallel statements are packed into 2-d operations
    (`compiler.pack`: where a NumPy call costs more than its arithmetic)."""
    pack_rows: int = 0
    """The most statements one pack holds (its rows times the batch: a cache's worth)."""


class NotBatchable(Exception):
    """A batched trace mixes what one batched program cannot compute: `jit` loops instead."""


class ExternalNodeError(Exception):
    """The graph reaches a variable that is not one of the traced inputs."""


class GraphTooBigError(Exception):
    """The graph needs more statements than the budget allows."""


class GuardFailed(Exception):
    """A choice the trace made on plain numbers of the eager call goes the other way now."""


def check_guard(holds: bool, expected: bool) -> float:
    """A guard statement of compiled code: raise `GuardFailed` unless ``holds`` is as traced."""
    if holds is not expected:
        raise GuardFailed
    return 0.0


HELPERS["check_guard"] = check_guard


def interleaved(*lists: list[float]) -> Iterator[float]:
    """The items of equally long ``lists`` in turn: a program's gradients from several loops.

    A global of a scalar program that returns them (`Program.link`), not one of the
    `HELPERS`, which a batch's code has NumPy twins of.
    """
    return itertools.chain.from_iterable(zip(*lists, strict=True))


class Program:
    """The statements of one compiled graph, and the constants they read."""

    def __init__(
        self,
        inputs: Sequence[Node],
        options: Options,
        floats: Sequence[Node] = (),
        batch: Dialect | None = None,
        rolls: bool = True,
    ) -> None:
        """Statements over ``inputs``; ``floats`` are those that are plain numbers when eager.

        With ``rolls``, a scalar program's long runs of repeated nodes are written
        as loops from the start (`compiler.periods`).

        Compiled code reproduces the eager call: what is a float there (a
        non-differentiated argument, anything computed from floats alone) is
        computed as Python computes floats, with IEEE results where Python
        would raise; what is a node there is computed by the node's rules.
        The difference is visible in `Pow`: ``x ** c`` for a node ``x`` and a
        number ``c`` takes PyTorch's scalar-exponent path, ``c ** d`` is C ``pow``.
        """
        self.options = options
        self.budget = budget = options.budget
        self.batch = batch
        # statements written before `reroll` rolls runs into loops (a batch's are not rolled)
        self.limit = budget if batch is not None else max(budget, options.trace_limit)
        self.batch_of: dict[Node, int] = dict(batch.batch_of) if batch is not None else {}
        """A node's batch (the vmap call whose examples it varies over); absent: one number."""
        self.sizes = batch.sizes if batch is not None else ()
        self.array_batches = batch.arrays if batch is not None else frozenset()
        self.reductions: set[str] = set()  # statements summing a batch: one number again
        self.vcot: dict[tuple[Node, int], str] = {}  # cotangents still one per example
        self.floats: set[Node] = set(floats)  # membership only: never iterated
        self.plain_inputs = frozenset(floats)
        self.kinds: dict[Node, int] = {}  # memo of eager_kind
        for x in inputs:  # a walk stops at inputs: their kinds are known before any is met
            eager_kind(x, self.plain_inputs, self.kinds)
        self.names: dict[Node, str] = {x: f"a{i}" for i, x in enumerate(inputs)}
        self.input_nodes = list(inputs)
        self.input_names = [f"a{i}" for i in range(len(inputs))]
        self.varying: set[str] = (
            {self.input_names[i] for i in batch.varying} if batch is not None else set()
        )
        """In a batch, the names holding arrays: its varying inputs, and what reads them."""
        self.consts: dict[bytes, str] = {}
        self.seed: str | None = None
        """The seed cotangent 1.0's name: a product with it is the other factor (`Sym.unit`)."""
        self.const_values: list[float] = []
        self.stmts: list[Stmt] = []
        self.orders: dict[Node, list[tuple[Node, tuple[Node, ...]]]] = {}
        self.sources: list[str] = []  # the generated chunks, once linked (for tests and debugging)
        self.lone: Chunk | None = None  # the program, once linked, if one chunk
        self.reads_r = False  # whether a statement passes R whole (a loop reads inputs' slices)
        self.written: list[object] = []  # per statement: the shared form it came from, or None
        self.spans: list[tuple[int, int]] = []  # the statements `forward` wrote (`orders.sink`)
        self._forward_forms: dict[tuple[object, ...], _Form] = {}  # see `_operands`
        self.rolls = rolls and batch is None
        self.periods: dict[Node, list[periods.Period]] = {}  # per output: the runs it rolled
        self.loops: dict[str, Callable[[], str]] = {}  # their loops' sources, written at `link`
        self._const_at: list[int] = []  # where the order with periods has constants
        self._input_at: dict[Node, int] | None = None  # memo of `_inputs_at`
        self._rule_forms: dict[tuple[object, ...], list[_Form | None]] = {}
        self.elements: dict[str, tuple[str, int]] = {}
        """Outputs that are items of a loop's list (`_looped_variables`): the list's name, where."""
        self._unpacked: set[str] = set()  # the items `link` gave a statement of their own
        self.stacks: list[tuple[dict[Node, int], list[periods.Period], list[Ordered]]] = []
        """Per order whose runs were rolled with their values kept (`forward`'s ``stacked``):
        where its nodes are, and its rolled runs (`_looped`)."""
        self._stacked: dict[tuple[int, int], str] = {}  # (run's id, slot) -> its values' list

    def const(self, value: float) -> str:
        """A name for a constant, shared by every constant with the same bits."""
        key = struct.pack("<d", value)
        name = self.consts.get(key)
        if name is None:
            name = self.consts[key] = f"k{len(self.const_values)}"
            self.const_values.append(value)
        return name

    def _check(self, more: int, cap: int | None = None) -> None:
        """Raise `GraphTooBigError` if ``more`` statements would pass ``cap`` (the trace limit)."""
        cap = self.limit if cap is None else cap
        if len(self.stmts) + more > cap:
            raise GraphTooBigError(
                f"{len(self.stmts) + more:,} statements, over the {cap:,} allowed"
            )

    def emit(self, target: str, expr: str, uses: tuple[str, ...], form: object = None) -> None:
        """Append a statement; ``form``: the shared `_Form` it was written from, if any.

        In a batch, a statement that reads an array holds one (`varying`), but a
        reduction (a sum over the batch), which is one number again.
        """
        self.stmts.append((target, expr, uses))
        self.written.append(form)
        varying = self.varying
        if varying and target not in self.reductions and not varying.isdisjoint(uses):
            varying.add(target)

    def _batched(self, names: Sequence[str]) -> bool:
        """Whether code reading ``names`` runs over a batch: written in its NumPy dialect."""
        return bool(self.varying) and not self.varying.isdisjoint(names)

    def forward(self, outputs: Sequence[Node], stacked: bool = False) -> None:
        """Statements computing every node the outputs depend on, inputs first.

        With ``stacked`` (a program without a backward sweep), a run whose values
        are read after it, or that reads an earlier run's values at a stride, is
        rolled too: its loop keeps the values read later in lists (a scan's
        stacked outputs), and a node read one by one gets its value from them.
        """
        if stacked and type(self.names) is dict:
            self.names = _Names(self, self.names)
        names, kinds, plain, floats = self.names, self.kinds, self.plain_inputs, self.floats
        batched = bool(self.batch_of)  # it only grows from the nodes of a vmap's batch
        start = len(self.stmts)
        for out in outputs:
            stop = names.keys() if not self.stacks else _Stop(self)
            order = toposort(out, stop=stop)
            found: list[periods.Period] = []
            rolled: list[periods.Period] = []
            if len(names) == len(self.input_names):  # stopped only at inputs: reusable
                self.orders[out] = order
                if self.rolls and len(order) >= self.options.loops_from and self._repeats(order):
                    where = dict(self._inputs_at())
                    found = periods.find(
                        *self._node_forms(order, where), self.options, stacked=stacked
                    )
                    if stacked and found:
                        self.stacks.append((where, rolled, order))
            self._check(len(order))
            # where a run's first iterations start: their statements are compared there
            marks = {per.first(q): per for per in found for q in range(periods.HEAD + 1)}
            at: dict[int, int] = {}
            p = 0
            for e in [*sorted(marks), len(order)]:
                for node, ins in order[p:e]:
                    if node in names:
                        continue
                    if not ins and self.stacks and node in stop:  # a rolled run's value
                        names[node]  # named from its run's list (`_Names`)
                        continue
                    # how the eager call holds it (`nodes.eager_kind`): a plain float, or not
                    if kind_in_order(node, ins, plain, kinds) == PLAIN and ins:
                        floats.add(node)
                    if batched and ins:
                        self._batch(node, ins)
                    names[node] = self._forward(node, ins, f"v{len(names)}")
                p = e
                per = marks.get(e)
                if per is None:
                    continue
                if self.stacks and e == per.first(0):  # before the iterations compared
                    self._name_stacked_reads(order[e : per.first(periods.HEAD)])
                at[e] = len(self.stmts)
                if e == per.first(periods.HEAD) and self._loop_forward(order, per, at):
                    rolled.append(per)
                    p = per.first(per.count - periods.TAIL)
            if rolled:
                self.periods[out] = rolled
        self.spans.append((start, len(self.stmts)))

    def _repeats(self, order: list[tuple[Node, tuple[Node, ...]]]) -> bool:
        """Whether one of `Options.probes` windows of ``order`` holds a run worth a loop.

        A run worth rolling is thousands of nodes; where the windows find none (a
        wide sum's tree, a network over data points), the whole order is not searched.
        """
        size, probes = self.options.probe_window, self.options.probes
        if len(order) <= size * probes:
            return True  # searched whole, in about as long
        least = periods.HEAD + periods.TAIL + self.options.min_looped
        for k in range(probes):
            a = (len(order) - size) * k // (probes - 1)
            window = order[a : a + size]
            forms, operands = self._node_forms(window, _Outside(self._inputs_at()))
            if any(
                run[2] >= least
                for run in reroll.short_runs(forms, operands, least, least, self.options)
            ):
                return True
        return False

    def _inputs_at(self) -> dict[Node, int]:
        """Each input as an operand of `_node_forms`: ``-1 - index``, as `reroll`'s."""
        if self._input_at is None:
            self._input_at = {x: -1 - i for i, x in enumerate(self.input_nodes)}
        return self._input_at

    def _node_forms(
        self, order: list[tuple[Node, tuple[Node, ...]]], at: dict[Node, int]
    ) -> tuple[list[int], list[list[int]]]:
        """Per node of ``order``, its form and its operands' positions: what `periods.find` reads.

        The form is what the node's statements depend on but its operands' names.
        ``at``: the inputs' operands (`_inputs_at`), filled in with the nodes' positions
        (`_Outside` for a window of an order: the nodes before it, too).
        """
        inputs = self._inputs_at()
        ids: dict[object, int] = {}
        intern = ids.setdefault
        # a constant is its bits (an inner transform's 1.0 is not any 1.0), not a position:
        # equal constants are one name to the statements, however many nodes hold them
        consts: dict[Node, str] = {}
        self._const_at = []
        forms: list[int] = []
        operands: list[list[int]] = []
        form, operand = forms.append, operands.append
        has_statics: dict[type, bool] = {}  # per class: whether its nodes have static fields
        for p, (node, ins) in enumerate(order):
            kind = type(node)
            if kind is Const:
                self._const_at.append(p)
                consts[node] = "k" + str(
                    intern((struct.pack("<d", node.value), node is VARIABLE_ONE), len(ids))
                )
                form(intern(consts[node], len(ids)))
                operand([])
                continue
            if not ins:  # an input (or a node from outside: never the same)
                key: object = ("input", node in self.plain_inputs) if node in inputs else -1 - p
                form(intern(key, len(ids)))
                operand([])
                continue
            at[node] = p
            ops: list[int]
            if len(ins) == 1:  # most nodes: one input, or two, one a constant
                (x,) = ins
                c = consts.get(x)
                key, ops = ((kind, c), []) if c is not None else (kind, [at[x]])
            elif len(ins) == 2 and (x := ins[1]) in consts and ins[0] not in consts:
                key, ops = (kind, consts[x]), [at[ins[0]]]
            else:
                ops = []
                places: list[object] = []
                for x in ins:
                    c = consts.get(x)
                    if c is not None:
                        places.append(c)
                        continue
                    j = at[x]
                    if j not in ops:
                        ops.append(j)
                    places.append(ops.index(j))
                key = (kind, tuple(places))
            statics = has_statics.get(kind)
            if statics is None:
                statics = has_statics[kind] = bool(cast(Op, node).static_fields)
            if statics:
                key = (key, _static(node))
            form(intern(key, len(ids)))
            operand(ops)
        return forms, operands

    def _iteration(
        self, order: list[tuple[Node, tuple[Node, ...]]], per: periods.Period, q: int
    ) -> list[Node]:
        return [x for x, _ in order[per.first(q) : per.first(q + 1)]]

    def _loop_forward(
        self, order: list[tuple[Node, tuple[Node, ...]]], per: periods.Period, at: dict[int, int]
    ) -> bool:
        """Write a run's looped iterations as a call of one loop, if their statements agree.

        The `HEAD` iterations before are written: the last two must have the same
        `periods.shape`, their nodes the same names' roles and the same kinds.
        Names are given to the last looped iteration's nodes, which the tail reads.
        """
        head, names, inputs = periods.HEAD, self.names, self._inputs_at()
        bounds = [at[per.first(q)] for q in range(head + 1)]
        its = [self.stmts[bounds[q] : bounds[q + 1]] for q in range(head)]
        if not self._streams_roll(order, per):
            return False
        shapes = []
        roles: dict[str, periods.Role] = {}
        slots: tuple[periods.Role | str, ...] = ()
        for q in (head - 2, head - 1):  # the template, compared with the iteration before
            nodes = self._iteration(order, per, q)
            roles = periods.own_roles(its[q], its[q - 1])
            roles.update({f"a{a + b * q}": ("in", i) for i, (a, b) in enumerate(per.inputs)})
            roles.update(
                {names[order[a + b * q][0]]: ("l", i) for i, (a, b) in enumerate(per.lists)}
            )
            # an input's own node is named already; readers find it by its stream's role
            slots = tuple([_INPUT if x in inputs else roles.get(names[x], names[x]) for x in nodes])
            shapes.append((periods.shape(its[q], roles), slots, [x in self.floats for x in nodes]))
        named_elsewhere = [r for r in slots if type(r) is tuple and r[0] != "s" and r != _INPUT]
        if shapes[0] != shapes[1] or named_elsewhere:
            return False  # a node named as the previous iteration's value, or as an input
        lists = self._list_streams(order, per)
        if lists is None:
            return False
        streams = [(a + b * head, b) for a, b in per.inputs]
        loop = periods.ForwardLoop(
            f"fwd_loop{len(self.loops)}", its[head - 1], roles, slots, per.looped, streams, lists
        )
        call = f"g{len(self.stmts)}"
        args = list(loop.params)  # names, and R: the inputs (`link`: always R's first items)
        self.reads_r = self.reads_r or "R" in args
        uses = tuple(dict.fromkeys(u for a in args for u in NAME.findall(a)))
        self.emit(call, f"{loop.name}({', '.join(args)})", uses)
        self.loops[loop.name] = loop.write  # once the backward sweep chose what it keeps
        per.loop = (loop, call)
        # a constant is read by its bits' name: one in a looped iteration may be read later
        lo, hi = per.first(head), per.first(per.count - periods.TAIL)
        for p in self._const_at[bisect.bisect_left(self._const_at, lo) :]:
            if p >= hi:
                break
            c = order[p][0]
            names[c] = self.const(cast(Const, c).value)
            self.kinds[c] = eager_kind(c, self.plain_inputs, self.kinds)
        unpacked: dict[int, str] = {}
        like = self._iteration(order, per, head - 1)
        for j, node in enumerate(self._iteration(order, per, per.count - periods.TAIL - 1)):
            slot = slots[j]
            if slot == _INPUT:  # an input: named already
                continue
            if type(slot) is tuple:
                name = unpacked.get(slot[1])
                if name is None:
                    name = unpacked[slot[1]] = f"v{len(names)}"
                    self.emit(name, f"{call}[{loop.finals.index(slot[1])}]", (call,))
            else:
                name = cast(str, slot)
            names[node] = name
            self.kinds[node] = self.kinds[like[j]]
            if like[j] in self.floats:
                self.floats.add(node)
        return True

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
            if not 0 <= i + s * (per.count - 1) < run.count or run.loop[0].slots[j] == _INPUT:  # type: ignore[index]  # rolled
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
                items.append(f"*{call}[{loop.list_index(j)}]")
                uses.append(call)
            if not periods.HEAD <= q < per.count - periods.TAIL:
                items.append(self.names[order[per.first(q) + j][0]])
                uses.append(items[-1])
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
        self.emit(name, f"{values}[{q}]", (values,))
        dict.__setitem__(self.names, node, name)
        like = order[per.first(periods.HEAD - 1) + j][0]  # the loop's template
        self.kinds[node] = self.kinds[like]
        if like in self.floats:
            self.floats.add(node)
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

    def _fixed(self, order: list[tuple[Node, tuple[Node, ...]]], per: periods.Period) -> list[Node]:
        """The nodes every iteration of a run reads (their cotangents add up over it)."""
        return [order[f][0] if f >= 0 else self.input_nodes[-1 - f] for f in per.fixed]

    def _streams_roll(
        self, order: list[tuple[Node, tuple[Node, ...]]], per: periods.Period
    ) -> bool:
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

    def _variables(self, per: periods.Period, q: int) -> list[Node]:
        """Iteration ``q``'s streamed variables (differentiated inputs), one per such stream."""
        if not 0 <= q < per.count:
            return []
        xs = [self.input_nodes[a + b * q] for a, b in per.inputs]
        return [x for x in xs if x not in self.plain_inputs]

    def _looped_variables(
        self,
        per: periods.Period,
        grads: tuple[periods.Role | str | None, ...],
        kept: list[int],
        template: list[str],
        call: str,
        lists_at: int,
        cot: dict[Node, str],
    ) -> None:
        """Name the looped iterations' cotangents of their variables (`_loop_backward`).

        ``grads``: per variable stream, the role of its cotangent in the
        template (the first tail iteration, whose statements are ``template``):
        a list the loop kept, at ``kept``; a name that stands for itself; or
        None. Items of a list are outputs only: each gets a name in `elements`,
        which `link` returns as a slice of the list (the loop ran last
        iteration first). A cotangent the iteration after set (``c``) is one
        iteration behind: the last looped one's is the template's statement.
        """
        t = per.count - periods.TAIL
        streams = iter(kept)
        looped = [self._variables(per, q) for q in range(periods.HEAD, t)]
        for i, role in enumerate(grads):
            if role is None:
                continue
            xs = [variables[i] for variables in looped]
            if isinstance(role, str):
                cot.update(dict.fromkeys(xs, role))
                continue
            values = f"g{len(self.stmts)}"
            self.emit(values, f"{call}[{lists_at + next(streams)}]", (call,))
            if role[0] == "c":
                cot[xs.pop()] = template[role[1]]
            for k, x in enumerate(reversed(xs)):
                name = f"e{len(self.elements)}"
                self.elements[name] = (values, k)
                cot[x] = name

    def _streamed(self, per: periods.Period) -> Iterator[int]:
        """The indices of the inputs a run's iterations read, one an iteration per stream."""
        for first, step in per.inputs:
            yield from range(first, first + step * per.count, step)

    def _batch(self, node: Node, ins: tuple[Node, ...]) -> None:
        """Record the batch ``node`` varies over: its inputs', none for a `batch_sum`."""
        if is_batch_sum(node):
            return
        batches = {self.batch_of[x] for x in ins if x in self.batch_of}
        if len(batches) > 1:  # two vmap calls' examples met without a sum: not one batch
            raise NotBatchable(node)
        if batches:
            self.batch_of[node] = batches.pop()

    def _forward(self, node: Node, ins: tuple[Node, ...], v: str) -> str:
        match node:
            case Const():
                return self.const(node.value)
            case Leaf():
                raise ExternalNodeError(node)
            case _ if self.batch_of and is_batch_sum(node):
                x = parents(node)[0]  # a batch's value: vmap makes a BatchedList of nothing else
                o = self.names[x]
                self.reductions.add(v)
                self.emit(v, f"batch_sum({o}, {self.sizes[self.batch_of[x] - 1]})", (o,))
            case _:
                key, names = self._operands(node, ins, None, own=False)
                batched = self._batched(names)
                if batched:
                    key = (*key, batched)
                form = self._forward_forms.get(key)
                if form is None:
                    xs = [self._sym(x) for x in ins]
                    with arrays() if batched else contextlib.nullcontext():
                        if node in self.floats:  # Python's float arithmetic, with IEEE results
                            src = cast(Op, node).float_source(xs)  # not a Leaf or Const: an Op
                        else:
                            src = self._as_eager(node)[0].forward_source(xs)
                    try:
                        form = self._forward_forms[key] = _form(src.src, src.uses, names)
                    except KeyError:  # it reads a name not among `names`: written each time
                        self.emit(v, src.src, src.uses)
                        return v
                if form[0] in _ALIASES:  # ``x * 1.0``: the node is its input's value, by name
                    return names[_ALIASES[form[0]]]
                self.emit(v, form[0].format(*names), tuple([names[i] for i in form[1]]), form)
        return v

    def _operands(
        self, node: Node, ins: tuple[Node, ...], g: str | None, own: bool
    ) -> tuple[tuple[object, ...], list[str]]:
        """The names a node's code reads, and all else its code depends on.

        The names: ``g`` (a cotangent) if given, the inputs', the node's own if
        ``own``; each once, in that order. The key: the node's class, whether
        it is a plain float, per input which of the names it is and what a
        rule can see of it (a constant's bits, or whether it is a plain float,
        which `_as_eager` lifts to a `Const`), and its fields that are not
        inputs (`Compare`'s operator). Nodes with equal keys get the same
        code, up to the names (`_form`).
        """
        known, floats = self.names, self.floats
        names = [] if g is None else [g]  # a few names: a list's scan beats a dict
        per = []
        for x in ins:
            name = known[x]
            if name in names:
                i = names.index(name)
            else:
                i = len(names)
                names.append(name)
            # a constant's name stands for its bits (`const`)
            per.append((i, name if type(x) is Const else x in floats))
        oi = -1
        if own:
            name = known[node]
            if name in names:
                oi = names.index(name)
            else:
                oi = len(names)
                names.append(name)
        gi = -1 if g is None else 0
        return (type(node), node in floats, tuple(per), gi, oi, _static(node)), names

    def _sym(self, node: Node) -> Sym:
        name = self.names[node]
        if type(node) is not Const:
            return Sym(name, (name,))
        # a scalar program's 1.0 (an inner transform's seed, a variable's mark) multiplies nothing
        return Sym(name, (name,), node.value, node.value == 1.0 and self.batch is None)

    def _as_eager(self, node: Node) -> tuple[Op, dict[Node, Sym]]:
        """``node`` as the eager call built it, and the names its rule reads.

        An input that is a plain number in the eager call was lifted to a
        `Const` there (``x ** c`` takes PyTorch's scalar path); here it is a
        traced input, so the rule runs on a copy with a stand-in `Const`.
        """
        op = cast(Op, node)  # only nodes with inputs get here
        ins = parents(node)
        names = {x: self._sym(x) for x in ins}
        if node in self.names:  # a rule reads the node's own value (the forward does not)
            names[node] = self._sym(node)
        i = op.const_variant
        if i is None or ins[i] not in self.floats:
            return op, names
        return as_eager(op, i, names), names

    def guards(self, guards: Sequence[tuple[str, Node, Node, bool]]) -> None:
        """Statements checking the choices the trace made on plain numbers of the eager call.

        Each compares two values computed from the arguments that are not
        differentiated (a rule's test of a plain exponent, say); compiled code
        that finds one going the other way raises `GuardFailed`, and `jit`
        traces again, so the code always follows the eager call's choices.
        """
        for _, x, y, _ in guards:
            self.forward([x, y])
        for op, x, y, outcome in guards:
            test = infix(self._sym(x), COMPARE_SYMBOLS[op], self._sym(y))
            check = "np_check_guard" if self._batched(test.uses) else "check_guard"
            self.emit(f"g{len(self.stmts)}", f"{check}({test.src}, {outcome})", test.uses)

    def backward(self, root: Node, wrt: Sequence[Node]) -> list[str]:
        """Statements for the cotangents of ``wrt``, in the eager sweep's order.

        Returns, per variable, the name holding its cotangent (``0.0`` if none).
        """
        if self.stacks:  # a sweep over a run whose values other runs read: not written
            raise periods.Unrolled(root)
        wanted = set(wrt)
        # Variables are leaves: stopping at them changes nothing, so `forward`'s walk
        # from the root, which stopped only at the inputs, is the sweep's order too.
        order = self.orders.get(root) or toposort(root, stop=wanted)
        self._check(len(order) // 2)  # a lower bound: sums pass cotangents on for free
        needs: set[Node] = set()  # nodes with a path to a variable: the rest is dead code
        for node, ins in order:
            if node in wanted or not needs.isdisjoint(ins):
                needs.add(node)
        if root not in needs:
            return ["0.0"] * len(wrt)
        cot: dict[Node, str] = {root: self.const(1.0)}
        if self.batch is None:  # scalar programs: a batch mean's seed reaches its terms as 1/n
            self.seed = cot[root]
        done = self._completions(order, wanted) if self.batch_of else {}
        ready: list[Node] = []  # variables whose cotangents are complete, not yet summed
        group = _sum_group(max(self.sizes, default=1), self.options.sum_group)
        if not self.batch_of:  # one number per node: the sweep alone
            found = self.periods.get(root, [])
            if self.periods and not (found and order is self.orders.get(root)):
                raise periods.Unrolled  # this sweep reaches nodes the forward pass rolled
            self._sweep(order, found, cot, needs)
            return [cot.get(x, "0.0") for x in wrt]
        for node, ins in reversed(order):
            if ins and self.vcot:  # a variable's sums wait for the end: nothing reads them before
                self._sum_over_batches(node, cot)
            if ins and node in needs and node in cot:
                self._vjp(node, ins, cot, needs)
            ready += done.get(node, ())
            if len(ready) >= group and self.vcot:
                self._sum_variables_over_batches(ready, cot)
                ready.clear()
        if self.vcot:
            self._sum_variables_over_batches(wrt, cot)
        return [cot.get(x, "0.0") for x in wrt]

    def _sweep(
        self,
        order: list[tuple[Node, tuple[Node, ...]]],
        found: list[periods.Period],
        cot: dict[Node, str],
        needs: set[Node],
    ) -> None:
        """The sweep of a scalar program; a run the forward pass rolled is rolled here too.

        Its `TAIL` iterations are swept as usual; where each begins, the
        cotangents the iteration after it left are recorded (`_loop_backward`).
        """
        tail = periods.TAIL
        marks = {
            per.first(q + 1) - 1: (per, q)  # the sweep of iteration q starts at its last node
            for per in found
            for q in range(per.count - tail - 1, per.count)
        }
        at: dict[int, tuple[int, list[str | None], list[str | None]]] = {}
        p = len(order)
        for e in [*sorted(marks, reverse=True), -1]:
            for node, ins in reversed(order[e + 1 : p]):
                if ins and node in needs and node in cot:  # not in cot: only a comparison reads it
                    self._vjp(node, ins, cot, needs)
            p = e + 1
            if e < 0:
                break
            per, q = marks[e]
            left = [cot.get(x) for x in self._iteration(order, per, q)]
            left += [cot.get(x) for x in self._fixed(order, per)]
            at[q] = (len(self.stmts), left, [cot.get(x) for x in self._variables(per, q + 1)])
            if q == per.count - tail - 1:
                self._loop_backward(order, per, at, cot, needs)
                p = per.first(periods.HEAD)

    def _loop_backward(
        self,
        order: list[tuple[Node, tuple[Node, ...]]],
        per: periods.Period,
        at: dict[int, tuple[int, list[str | None], list[str | None]]],
        cot: dict[Node, str],
        needs: set[Node],
    ) -> None:
        """Sweep a run's looped iterations as a call of one loop, or raise `periods.Unrolled`.

        ``at[q]``: where iteration q's sweep began, the cotangents the one
        after it left (its nodes', the fixed nodes'), and that one's streamed
        variables' (`_variables`), complete once it is swept. The first two
        tail iterations must have the same `periods.shape`, leave cotangents
        of the same roles, and need the same nodes as every looped one. The
        loop keeps each iteration's cotangents of its variables in lists,
        whose items stand for them (`elements`).
        """
        names, t = self.names, per.count - periods.TAIL  # t: the template, swept last

        def stmts(q: int) -> list[Stmt]:
            return self.stmts[at[q][0] : at[q - 1][0]]

        def roles(q: int) -> dict[str, periods.Role]:
            return periods.backward_roles(
                stmts(q),
                stmts(q + 1),
                [names[x] for x in self._iteration(order, per, q)],
                [names[x] for x in self._iteration(order, per, q - 1)],
                [f"a{a + b * q}" for a, b in per.inputs],
            )

        shapes = []
        rs: dict[str, periods.Role] = {}
        for q in (t + 1, t):  # the template last: its roles are the loop's
            rs = roles(q)
            left = tuple([None if g is None else rs.get(g, g) for g in at[q - 1][1]])
            grads = tuple([None if g is None else rs.get(g, g) for g in at[q - 1][2]])
            needed = [x in needs for x in self._iteration(order, per, q)]
            shapes.append((periods.shape(stmts(q), rs), left, needed, grads))
        state, grads = shapes[1][1], shapes[1][3]
        if shapes[0] != shapes[1] or any(type(r) is tuple and r[0] == "c" for r in state):
            raise periods.Unrolled
        looped = [x in needs for x, _ in order[per.first(periods.HEAD) : per.first(t)]]
        if looped != shapes[1][2] * per.looped:
            raise periods.Unrolled
        assert per.loop is not None  # `forward` rolled it
        forward, call = per.loop
        heads = [names[x] for x in self._iteration(order, per, periods.HEAD - 1)]
        back = periods.BackwardLoop(
            f"bwd_loop{len(self.loops)}", stmts(t), rs, forward, call, heads
        )
        finals = list(dict.fromkeys(back.expr(r) for r in state if type(r) is tuple))
        # a variable's cotangent the sweep of the iteration after set (``c``): that one keeps it
        kept = [back.keep(("s", r[1]) if r[0] == "c" else r) for r in grads if type(r) is tuple]
        self.loops[back.name] = functools.partial(back.write, finals)
        target = f"g{len(self.stmts)}"
        args = list(back.params)
        self.reads_r = self.reads_r or "R" in args
        uses = tuple(dict.fromkeys(u for a in args for u in NAME.findall(a)))
        self.emit(target, f"{back.name}({', '.join(args)})", uses)
        template = [name for name, _, _ in stmts(t)]
        self._looped_variables(per, grads, kept, template, target, len(finals), cot)
        got: dict[str, str] = {}
        nodes = self._iteration(order, per, periods.HEAD - 1) + self._fixed(order, per)
        for x, r in zip(nodes, state, strict=True):
            if r is None:
                cot.pop(x, None)
            elif type(r) is str:
                cot[x] = r
            else:
                e = back.expr(cast(periods.Role, r))
                name = got.get(e)
                if name is None:
                    name = got[e] = f"g{len(self.stmts)}"
                    self.emit(name, f"{target}[{finals.index(e)}]", (target,))
                cot[x] = name

    @staticmethod
    def _completions(
        order: list[tuple[Node, tuple[Node, ...]]], wanted: set[Node]
    ) -> dict[Node, list[Node]]:
        """The variables whose cotangent is complete once the sweep has passed each node.

        The sweep runs the order backwards: a variable's last contribution comes
        from its first user in the order.
        """
        first: dict[Node, Node] = {}
        for node, ins in order:
            for x in ins:
                if x in wanted and x not in first:
                    first[x] = node
        done: dict[Node, list[Node]] = {}
        for x, node in first.items():
            done.setdefault(node, []).append(x)
        return done

    def _sum_variables_over_batches(self, wrt: Sequence[Node], cot: dict[Node, str]) -> None:
        """`_sum_over_batches` for variables whose cotangents are complete: one statement.

        Each variable's per-example cotangents are summed over the batch in
        the same balanced order as `batch_sum`, then added to the rest. The
        sweep sums them in groups as they complete (`Options.sum_group`), so a
        large batch does not hold every variable's per-example values at once.
        """
        for b, size in enumerate(self.sizes, start=1):
            keys = [x for x in dict.fromkeys(wrt) if (x, b) in self.vcot]
            if not keys:
                continue
            per_example = [self.vcot.pop((x, b)) for x in keys]
            totals = f"g{len(self.stmts)}"
            self.reductions.add(totals)
            self.emit(
                totals, f"batch_sums(({', '.join(per_example)},), {size})", tuple(per_example)
            )
            for i, x in enumerate(keys):
                self._add_sum(x, f"{totals}[{i}]", (totals,), cot)

    def _sum_over_batches(self, x: Node, cot: dict[Node, str]) -> None:
        """Add to ``x``'s cotangent the per-example ones from each batch, summed over it.

        ``x`` is one number for all examples; nodes of a batch that read it gave
        it one cotangent per example. The sum over the batch is balanced (the
        order `autograd.sum` adds a list in), then added to the rest.
        """
        for b, size in enumerate(self.sizes, start=1):
            per_example = self.vcot.pop((x, b), None)
            if per_example is None:
                continue
            self._add_sum(x, f"batch_sum({per_example}, {size})", (per_example,), cot)

    def _add_sum(self, x: Node, expr: str, uses: tuple[str, ...], cot: dict[Node, str]) -> None:
        """Add a sum over a batch (one number: a reduction) to the rest of ``x``'s cotangent."""
        total = f"g{len(self.stmts)}"
        self.reductions.add(total)
        self.emit(total, expr, uses)
        prev = cot.get(x)
        if prev is None:
            cot[x] = total
        else:
            target = f"g{len(self.stmts)}"
            self.emit(target, f"{prev} + {total}", (prev, total))
            cot[x] = target

    def _vjp(
        self, node: Node, ins: tuple[Node, ...], cot: dict[Node, str], needs: set[Node]
    ) -> None:
        """Accumulate ``node``'s contributions into its inputs' cotangents (field order).

        Every statement sets a fresh name, so a contribution that is just a
        name (``Add`` passes ``g`` on) is shared without a copy.
        """
        b = self.batch_of.get(node, 0) if self.batch_of else 0
        for x, contribution in zip(ins, self._rule(node, ins, cot[node]), strict=True):
            if x not in needs or contribution is None:
                continue
            expr, uses, form = contribution
            if b and x not in self.batch_of:  # one per example, into one number: summed later
                key = (x, b)
                prev_v = self.vcot.get(key)
                target = f"g{len(self.stmts)}"
                if prev_v is None:
                    self.emit(target, expr, uses)
                else:
                    self.emit(target, f"{prev_v} + ({expr})", (prev_v, *uses))
                self.vcot[key] = target
                continue
            prev = cot.get(x)
            if prev is None and expr.isidentifier():
                cot[x] = expr
                continue
            target = f"g{len(self.stmts)}"
            if prev is None:
                self.emit(target, expr, uses, form)
            else:  # the sweep's `prev + gx`
                summed = None if form is None else (_SUM, form)  # `reroll` needs no parsing
                self.emit(target, f"{prev} + ({expr})", (prev, *uses), summed)
            cot[x] = target

    def _rule(
        self, node: Node, ins: tuple[Node, ...], g: str
    ) -> list[tuple[str, tuple[str, ...], _Form | None] | None]:
        """The node's ``vjp`` rule run on `Sym`: each input's contribution and its `_Form`.

        The rule runs once per key (`_operands`); nodes with the same key reuse
        its code with their own names.
        """
        key, names = self._operands(node, ins, g, own=node in self.names)
        unit = g == self.seed
        batched = self._batched(names)
        if unit or batched:
            key = (*key, unit, batched)
        forms = self._rule_forms.get(key)
        if forms is None:
            eager, syms = self._as_eager(node)
            gs = Sym(g, (g,), unit=unit)
            with arrays() if batched else contextlib.nullcontext():
                rule = eager.vjp(gs, syms.__getitem__)
            outs = [None if o is None else sym(o) for o in rule]
            code = [None if o is None else (o.src, o.uses) for o in outs]  # a constant: a literal
            try:
                forms = self._rule_forms[key] = [
                    None if c is None else _form(*c, names) for c in code
                ]
            except KeyError:  # one reads a name not among `names`: written each time
                return [None if c is None else (*c, None) for c in code]
        return [
            None if f is None else (f[0].format(*names), tuple([names[i] for i in f[1]]), f)
            for f in forms
        ]

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
                    self.emit(name, f"{values}[{at}]", (values,))
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
        if len(self.stmts) >= self.options.reroll_from:
            helpers = {**HELPERS, **namespace}  # the loops call the array twins
            looped = reroll.reroll(self.stmts, spliced, helpers, self.written, None, self.options)
            returns = self._adopt(looped, namespace, returns)
        if batch.index is not None and batch.pack_rows >= pack.MIN_ROWS:
            # what is left straight: its parallel statements packed (a loop's call is not)
            self.stmts, packed = pack.pack(self.stmts, varying, names, batch.index, batch.pack_rows)
            namespace.update(packed)
        return namespace, returns

    def _roll(self, spliced: list[str], namespace: dict[str, object]) -> list[str]:
        """A scalar program's runs rolled, by depth (a wide sum's levels) or as traced.

        Returns what a lone chunk returns; the loops are added to ``namespace``.
        """
        opts = self.options
        if len(self.stmts) < opts.reroll_from:
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
        """The statements as chunks (`Chunk`), each compiled; the program running them."""
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
            returns = _input_runs(returns, len(self.input_names))
            self.reads_r = self.reads_r or any(r.startswith("*R[") for r in returns)
        loads = [_loads(chunk, returns if len(chunks) == 1 else ()) for chunk in chunks]
        stores = _stores(chunks, loads, names if len(chunks) > 1 else [], slots)
        fns = []
        # a dead array of a large batch is memory to give back; small ones are not worth a `del`
        release = max(self.sizes, default=0) >= self.options.release_size
        lone = returns if len(chunks) == 1 else None
        for ci, chunk in enumerate(chunks):
            made = _chunk(ci, chunk, loads[ci], stores[ci], lone, slots, literals, release)
            src = made.source()
            self.sources.append(src)
            self.lone = attrs.evolve(made, reads_r=self.reads_r) if len(chunks) == 1 else None
            scope = {
                **HELPERS,
                **namespace,
            }  # one chunk at a time: CPython compiles big modules slowly
            exec(compile(src, "<autograd.jit>", "exec"), scope)
            # popped: left in its own globals, a function makes a cycle only the collector frees
            fns.append(cast(_Chunk, scope.pop(f"chunk{ci}")))
        if len(chunks) == 1:
            # reads R only: the caller's fresh list of inputs is R (a list of floats is one)
            return cast(Callable[[list[float]], tuple[float, ...]], fns[0])
        return _run_chunks(fns, list(self.const_values), len(slots), [slots[o] for o in names])

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
        """``names`` with each run of items of loops' lists as slices of them (``*g7[4:0:-1]``).

        A run takes items from ``r`` lists in turn (parameters laid out as
        ``[w0, b0, w1, b1, ...]``), each list's index moving by one the same
        way: ``*interleaved(g7[0:30:1], g9[0:30:1])``. An item outside such a
        run gets a statement of its own. A program of several chunks returns
        names only: `link` then names every item.
        """
        out: list[str] = []
        k = 0
        while k < len(names):
            run = self._element_run(names, k)
            if run is None:
                name = names[k]
                if name in self.elements and name not in self._unpacked:
                    self._unpacked.add(name)
                    values, i = self.elements[name]
                    self.emit(name, f"{values}[{i}]", (values,))
                out.append(name)
                k += 1
                continue
            starts, step, m = run
            slices = [f"{values}[{_slice(first, step, m)}]" for values, first in starts]
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


def _static(node: Node) -> tuple[object, ...]:
    """The values of ``node``'s `Op.static_fields` (floats as bits): what else its rules see."""
    names = cast(Op, node).static_fields
    if not names:
        return ()
    values = [getattr(node, name) for name in names]
    return tuple([struct.pack("<d", v) if type(v) is float else v for v in values])


class _Outside(dict[Node, int]):
    """Positions in a window of an order (`Program._repeats`).

    A node outside the window is somewhere before it, the same place each time.
    """

    def __init__(self, inputs: dict[Node, int]) -> None:
        super().__init__()
        self.inputs = inputs  # `Program._inputs_at`: read, not copied

    def __missing__(self, node: Node) -> int:
        at = self.inputs.get(node)
        if at is None:
            at = -(1 << 40) - len(self)  # not an input's -1 - index
        self[node] = at
        return at


class _Names(dict[Node, str]):
    """`Program.names` once runs are rolled with their values kept (`Program.forward`).

    A node a loop computed has no name until it is read one by one: then it is
    named as an item of its run's list (`Program.element`).
    """

    def __init__(self, program: Program, names: dict[Node, str]) -> None:
        super().__init__(names)
        self.program = weakref.ref(program)  # no cycle: a program is freed at once

    def __missing__(self, node: Node) -> str:
        program = self.program()
        if program is None:
            raise KeyError(node)
        return program.element(node)


class _Stop:
    """What a later walk stops at once runs are rolled: named nodes, and looped ones."""

    def __init__(self, program: Program) -> None:
        self.program = program

    def __contains__(self, node: object) -> bool:
        return node in self.program.names or self.program._looped(node) is not None  # type: ignore[arg-type]  # a node, from `toposort`


Ordered = tuple[Node, tuple[Node, ...]]
"""A node of a `toposort` order, with its inputs."""

_INPUT: periods.Role = ("in", -1)
"""The role of a node of a run's iteration that is an input (its readers name it by stream)."""

_ALIASES = {f"{{{i}}}": i for i in range(8)}
"""A forward whose code is one of its names (``{1}``): a product with ``1.0`` (`Sym.unit`)."""

_SUM = "prev + (...)"
"""Marks the form of a sweep's sum ``prev + (contribution)`` built on a contribution's form."""

_Form = tuple[str, tuple[int, ...]]
"""A statement's code up to names: a `str.format` string of name numbers, and the numbers
its uses are."""


def _form(src: str, uses: tuple[str, ...], names: list[str]) -> _Form:
    """``src`` and ``uses`` with each of ``names`` replaced by its number.

    `KeyError` if ``src`` reads a name not among ``names``, or ``uses`` does not
    list each name ``src`` reads (`reroll` reads a formed statement's operands
    from its uses).
    """
    at = {name: i for i, name in enumerate(names)}
    if set(NAME.findall(src)) != set(uses):
        raise KeyError(src)
    fmt = NAME.sub(lambda m: f"{{{at[m[0]]}}}", src.replace("{", "{{").replace("}", "}}"))
    return fmt, tuple([at[u] for u in uses])


def _sum_group(size: int, values: int) -> int:
    """How many complete variables one `batch_sums` statement sums, for a batch of ``size``.

    ``values``: `Options.sum_group`; 0 sums each variable on its own.
    """
    return max(8, values // size) if values else 1


_INPUT_RUN = 4
"""Consecutive inputs returned in a row from this many on are one slice of R."""


def _slice(first: int, step: int, count: int) -> str:
    """The slice taking ``count`` items from ``first`` by ``step`` (1 or -1)."""
    last = first + step * (count - 1)
    stop = last + 1 if step > 0 else last - 1 if last else ""
    return f"{first}:{stop}:{step}"


def _input_runs(returns: Sequence[str], inputs: int) -> list[str]:
    """``returns`` with each run of consecutive inputs as a splice of R (``*R[3:9]``).

    A lone chunk's R is its inputs, first: returning the gradient of a wide
    sum, which is the other factor of each product, loads no register per input.
    """
    out: list[str] = []
    run: list[int] = []

    def flush() -> None:
        if len(run) >= _INPUT_RUN:
            out.append(f"*R[{run[0]}:{run[-1] + 1}]")
        else:
            out.extend(f"a{i}" for i in run)
        run.clear()

    for r in returns:
        i = int(r[1:]) if r[:1] == "a" and r[1:].isdigit() and int(r[1:]) < inputs else -1
        if i >= 0 and run and i == run[-1] + 1:
            run.append(i)
            continue
        flush()
        if i >= 0:
            run.append(i)
        else:
            out.append(r)
    flush()
    return out


def _loads(chunk: list[Stmt], returns: Sequence[str]) -> list[str]:
    """Names a chunk reads but does not set, in order of first use, each once.

    ``returns``: what it returns, names or expressions reading them (`reroll.Rolled`).
    """
    own = {t for t, _, _ in chunk}
    used = dict.fromkeys(u for _, _, uses in chunk for u in uses)
    used.update(dict.fromkeys(u for r in returns for u in NAME.findall(r)))
    return [u for u in used if u not in own]


def _stores(
    chunks: list[list[Stmt]], loads: list[list[str]], outputs: list[str], slots: dict[str, int]
) -> list[list[str]]:
    """Per chunk, the names it stores in R: those a later chunk loads, and ``outputs``.

    Each gets a slot of R (added to ``slots``).
    """
    home = {t: ci for ci, chunk in enumerate(chunks) for t, _, _ in chunk}
    stores: list[dict[str, None]] = [{} for _ in chunks]
    for name in (*(n for chunk_loads in loads for n in chunk_loads), *outputs):
        if name in home:  # set by an earlier chunk: it stores it for this one
            stores[home[name]][name] = None
            slots.setdefault(name, len(slots))
    return [list(s) for s in stores]


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


def _chunk(
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
    read = [u for r in returns or () for u in NAME.findall(r)]
    reg = _registers(chunk, loads, [*stores, *read], dead)
    rename = functools.partial(_rename, reg)
    loaded = tuple([(reg[u], literals[u] if u in literals else slots[u]) for u in loads])
    body: list[str] = []
    for i, (t, e, _) in enumerate(chunk):
        body.append(f"{reg[t]} = {NAME.sub(rename, e)}")
        if release and dead[i]:
            body.append(f"del {', '.join(dead[i])}")
    stored = tuple([(slots[s], reg[s]) for s in stores])
    returned = None
    if returns is not None:
        returned = f"({''.join(NAME.sub(rename, o) + ', ' for o in returns)})"
    return Chunk(ci, loaded, tuple(body), stored, returned)


def _rename(reg: dict[str, str], m: re.Match[str]) -> str:
    return reg[m[0]]


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


_Chunk = Callable[[list[object]], tuple[float, ...]]
"""A generated function: reads and writes the list ``R``; a lone chunk returns the outputs."""


def _run_chunks(
    fns: list[_Chunk], consts: list[float], size: int, out: list[int]
) -> Callable[[list[float]], tuple[float, ...]]:
    def run(inputs: list[float]) -> tuple[float, ...]:
        r: list[object] = [*inputs, *consts]  # inputs first, as `reroll`'s loops read them
        r.extend([None] * (size - len(r)))
        for fn in fns:
            fn(r)
        return tuple([r[i] for i in out])  # type: ignore[misc]  # every output slot holds a float

    return run
