"""The forward pass: a statement per node the outputs depend on, inputs first.

Nothing here knows an op: a node's statement is its ``forward_source`` (a
call of the float helper its class computes with), or its float arithmetic
where the eager call holds a plain float. Nodes with the same key
(`Writer._operands`) share their code up to names. In a scalar program, long
runs of repeated nodes are found first (`periods.find`, on `_node_forms`) and
written as a call of one loop (`forward_loops`). `guards` checks the choices
the trace made on plain numbers of the eager call. Constants are passed in as
objects, so ``-0.0``, ``nan`` and ``inf`` keep their bits.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Sequence
from typing import cast

from autograd.compiler import periods, runs
from autograd.compiler.forward_loops import ForwardLoops
from autograd.compiler.stmts import ref
from autograd.compiler.writer import (
    ExternalNodeError,
    GuardFailed,
    NotBatchable,
    Ordered,
    form_elementwise,
    named_elementwise,
    static_values,
    to_form,
)
from autograd.core.batching import is_batch_sum
from autograd.core.nodes import (
    COMPARE_SYMBOLS,
    PLAIN,
    VARIABLE_ONE,
    Const,
    Leaf,
    Node,
    Op,
    kind_in_order,
    parents,
)
from autograd.core.sym import HELPERS, arrays, infix
from autograd.walks import toposort


def check_guard(holds: bool, expected: bool) -> float:
    """A guard statement of compiled code: raise `GuardFailed` unless ``holds`` is as traced."""
    if holds is not expected:
        raise GuardFailed
    return 0.0


HELPERS["check_guard"] = check_guard

_ALIASES = {"{{{" + str(i) + "}}}": i for i in range(8)}
"""A forward whose code is one of its names (``{1}``): a product with ``1.0`` (`Sym.unit`)."""

_NodeForms = tuple[list[int], list[list[int]]]
"""Per node of an order, its form and its operands' positions (`ForwardPass._node_forms`)."""


class ForwardPass(ForwardLoops):
    """The forward pass of `codegen.Program`: its statements, and its guards'."""

    def forward(self, outputs: Sequence[Node], stacked: bool = False) -> None:
        """Statements computing every node the outputs depend on, inputs first.

        With ``stacked`` (a program without a backward sweep), a run whose values
        are read after it, or that reads an earlier run's values at a stride, is
        rolled too: its loop keeps the values read later in lists (a scan's
        stacked outputs), and a node read one by one gets its value from them.
        """
        if stacked:
            self._keep_values()
        names, kinds, plain, floats = self.names, self.kinds, self.plain_inputs, self.floats
        batched = bool(self.batch_of)  # it only grows from the nodes of a vmap's batch
        start = len(self.stmts)
        for out in outputs:
            stop = self._stop()
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

    def _repeats(self, order: list[Ordered]) -> bool:
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
                for run in runs.short_runs(forms, operands, least, least, self.options)
            ):
                return True
        return False

    def _node_forms(self, order: list[Ordered], at: dict[Node, int]) -> _NodeForms:
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
        has_statics = _HasStatics()  # per class: whether its nodes have static fields
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
            if has_statics[kind]:
                key = (key, static_values(node))
            form(intern(key, len(ids)))
            operand(ops)
        return forms, operands

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
                self.emit(v, f"batch_sum({ref(o)}, {self.sizes[self.batch_of[x] - 1]})", (o,))
            case _:
                key, names = self._operands(node, ins, None, own=False)
                batched = self._batched(names)
                if batched:  # what the code says of itself depends on which names are arrays
                    key = (*key, self._arrays_among(names))
                known = self._forward_forms.get(key)
                if known is None:
                    xs = [self._sym(x) for x in ins]
                    with arrays() if batched else contextlib.nullcontext():
                        if node in self.floats:  # Python's float arithmetic, with IEEE results
                            src = cast(Op, node).float_source(xs)  # not a Leaf or Const: an Op
                        else:
                            src = self._as_eager(node)[0].forward_source(xs)
                    try:
                        form = to_form(src.src, src.uses, names)
                    except KeyError:  # it reads a name not among `names`: written each time
                        self.emit(v, src.src, src.uses, None, (src.array, src.fixed))
                        return v
                    each = form_elementwise(src, names) if batched else None
                    known = self._forward_forms[key] = (form, each)
                form, each = known
                if form[0] in _ALIASES:  # ``x * 1.0``: the node is its input's value, by name
                    return names[_ALIASES[form[0]]]
                uses = tuple([names[i] for i in form[1]])
                elementwise = None if each is None else named_elementwise(each, names)
                self.emit(v, form[0].format(*names), uses, form, elementwise)
        return v

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


class _HasStatics(dict[type, bool]):
    """Per node class, whether its nodes have static fields (`Op.static_fields`)."""

    def __missing__(self, kind: type) -> bool:
        statics = self[kind] = bool(cast(type[Op], kind).static_fields)
        return statics


class _Outside(dict[Node, int]):
    """Positions in a window of an order (`ForwardPass._repeats`).

    A node outside the window is somewhere before it, the same place each time.
    """

    def __init__(self, inputs: dict[Node, int]) -> None:
        super().__init__()
        self.inputs = inputs  # `Writer._inputs_at`: read, not copied

    def __missing__(self, node: Node) -> int:
        at = self.inputs.get(node)
        if at is None:
            at = -(1 << 40) - len(self)  # not an input's -1 - index
        self[node] = at
        return at
