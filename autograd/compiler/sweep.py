"""The backward sweep: statements for the cotangents, each node's own rule run on `Sym`.

A node's ``vjp`` rule runs on `Sym` (so it is the rule, not a copy), node by
node, in the order the eager sweep (`_trace.backward`) visits them and
accumulates cotangents. Choices inside rules (relu's mask, pow's exponent-0
case) are `where`s, so they become conditional expressions on run-time
values, never decisions frozen from the trace. A run the forward pass rolled
is swept as a call of one loop too (`backward_loops`); in a batch, the
cotangents per example of what is one number for all are summed over it.
"""

from __future__ import annotations

from collections.abc import Sequence

from autograd.compiler import periods
from autograd.compiler.backward_loops import BackwardLoops
from autograd.compiler.stmts import ref
from autograd.compiler.writer import (
    Elementwise,
    Ordered,
    named_elementwise,
)
from autograd.core.nodes import Node

_SUM = "prev + (...)"
"""Marks the form of a sweep's sum ``prev + (contribution)`` built on a contribution's form."""


class Sweep(BackwardLoops):
    """The backward sweep of `codegen.Program`."""

    def backward(self, root: Node, wrt: Sequence[Node]) -> list[str]:
        """Statements for the cotangents of ``wrt``, in the eager sweep's order.

        Returns, per variable, the name holding its cotangent (``0.0`` if none).
        """
        wanted = set(wrt)
        w = self.walk
        if root is not self.first_output:
            raise AssertionError("the sweep starts at the first output `forward` walked")
        # the root's equations are the walk's first: `toposort(root)`, the eager sweep's order
        end = w.ends[0]
        order = w.order
        self._check(end // 2)  # a lower bound: sums pass cotangents on for free
        needs = set(wanted)  # nodes with a path to a variable: the rest is dead code
        for node, ins in order[:end]:
            if not needs.isdisjoint(ins):
                needs.add(node)
        if root not in needs:
            return ["0.0"] * len(wrt)
        cot: dict[Node, str] = {root: self.const(1.0)}
        if self.batch is None:  # scalar programs: a batch mean's seed reaches its terms as 1/n
            self.seed = cot[root]
        if not self.batch_of:  # one number per node: the sweep alone
            self._sweep(end, self.rolled if self.sweep_loops else [], cot, needs)
            for x in wrt:  # a loop's cotangent of a variable no node read after it
                if x in self.pending:
                    self._unpend(x, cot)
            return [cot.get(x, "0.0") for x in wrt]
        done = self._completions(order[:end], wanted)
        ready: list[Node] = []  # variables whose cotangents are complete, not yet summed
        group = _sum_group(max(self.sizes, default=1), self.options.sum_group)
        forms = w.forms
        for p in range(end - 1, -1, -1):
            node, ins = order[p]
            if self.vcot:  # a variable's sums wait for the end: nothing reads them before
                self._sum_over_batches(node, cot)
            if node in needs and node in cot:
                self._vjp(node, ins, forms[p], cot, needs)
            ready += done.get(node, ())
            if len(ready) >= group and self.vcot:
                self._sum_variables_over_batches(ready, cot)
                ready.clear()
        if self.vcot:
            self._sum_variables_over_batches(wrt, cot)
        return [cot.get(x, "0.0") for x in wrt]

    def _sweep(
        self, end: int, found: list[periods.Period], cot: dict[Node, str], needs: set[Node]
    ) -> None:
        """The sweep of a scalar program; a run the forward pass rolled is swept by a loop too.

        Its `periods.TAIL` iterations are swept as usual, its looped ones by
        one loop (`BackwardLoops._loop_backward`), its head iterations as usual.
        Looped iterations that cannot be swept by one loop (cotangents from
        outside the run that differ between them) are swept as usual too.
        """
        marks = {per.first(per.count - periods.TAIL) - 1: per for per in found}
        order, forms = self.walk.order, self.walk.forms
        pending = self.pending  # cotangents a loop left in its list: named once read
        p = end
        for e in [*sorted((m for m in marks if m < end), reverse=True), -1]:
            for i in range(p - 1, e, -1):
                node, ins = order[i]
                if pending and node in pending:
                    self._unpend(node, cot)
                if node in needs and node in cot:  # not in cot: only a comparison reads it
                    self._vjp(node, ins, forms[i], cot, needs)
            if e < 0:
                break
            per = marks[e]
            if self._loop_backward(order, per, cot, needs):
                p = per.first(periods.HEAD)
            else:  # its looped iterations swept as usual: `link` rolls them
                p = e + 1
                self.reroll_left = True

    @staticmethod
    def _completions(order: list[Ordered], wanted: set[Node]) -> dict[Node, list[Node]]:
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
                totals,
                f"batch_sums(({', '.join(map(ref, per_example))},), {size})",
                tuple(per_example),
            )
            for i, x in enumerate(keys):
                self._add_sum(x, f"{ref(totals)}[{i}]", (totals,), cot)

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
            self._add_sum(x, f"batch_sum({ref(per_example)}, {size})", (per_example,), cot)

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
            summed = self._plus(prev, (total in self.surely, frozenset()))
            self.emit(target, f"{ref(prev)} + {ref(total)}", (prev, total), None, summed)
            cot[x] = target

    def _plus(self, prev: str, added: Elementwise | None) -> Elementwise | None:
        """What ``prev + (added)`` says of itself (`Elementwise`), if ``added`` says it."""
        if added is None or added[0] is None:
            return None
        return prev in self.surely or added[0], added[1]

    def _vjp(
        self,
        node: Node,
        ins: tuple[Node, ...],
        key: int,
        cot: dict[Node, str],
        needs: set[Node],
    ) -> None:
        """Accumulate ``node``'s contributions into its inputs' cotangents (field order).

        Every statement sets a fresh name, so a contribution that is just a
        name (``Add`` passes ``g`` on) is shared without a copy.
        """
        b = self.batch_of.get(node, 0) if self.batch_of else 0
        g = cot[node]
        own = True  # a rule may read the node's own value: the forward named it, or a loop
        # kept it (`ForwardLoops.element` names it when read)
        # a scalar program's code depends on the key alone: its names are read as needed
        unit = g == self.seed
        names: list[str] | None = None
        forms = None if self.varying else self._rule_forms.get((key, own, unit, False))
        if forms is None:
            names = self._rule_names(node, ins, own, g)
            forms = self._rule_code(node, ins, key, names, own, unit)
        for x, form in zip(ins, forms, strict=True):
            if form is None or x not in needs:
                continue
            if self.pending and x in self.pending:  # what a loop gave it comes first
                self._unpend(x, cot)
            (fmt, at), each, alias = form
            per_example = b and x not in self.batch_of
            if alias is not None and not per_example and x not in cot:
                # ``{name}``: a name passed on as it is (`Add`'s ``g``)
                cot[x] = g if alias == len(ins) + own else self.names[(*ins, node)[alias]]
                continue
            if names is None:
                names = self._rule_names(node, ins, own, g)
            expr = fmt.format(*names)
            uses = (names[at[0]],) if len(at) == 1 else tuple(dict.fromkeys([names[i] for i in at]))
            elementwise = None if each is None else named_elementwise(each, names)
            if per_example:  # one per example, into one number: summed later
                prev_v = self.vcot.get((x, b))
                target = f"g{len(self.stmts)}"
                if prev_v is None:
                    self.emit(target, expr, uses, None, elementwise)
                else:
                    added = self._plus(prev_v, elementwise)
                    self.emit(target, f"{{{prev_v}}} + ({expr})", (prev_v, *uses), None, added)
                self.vcot[x, b] = target
                continue
            prev = cot.get(x)
            target = f"g{len(self.stmts)}"
            if prev is None:
                self.emit(target, expr, uses, form[0], elementwise)
            else:  # the sweep's `prev + gx`
                added = self._plus(prev, elementwise)
                sums = (_SUM, form[0])  # `reroll` needs no parsing
                self.emit(target, f"{{{prev}}} + ({expr})", (prev, *uses), sums, added)
            cot[x] = target

    def _rule_names(self, node: Node, ins: tuple[Node, ...], own: bool, g: str) -> list[str]:
        """The names a node's rule reads: its inputs', its own value's if ``own``, then ``g``."""
        names = [self.names[x] for x in ins]
        if own:
            names.append(self.names[node])
        names.append(g)
        return names


def _sum_group(size: int, values: int) -> int:
    """How many complete variables one `batch_sums` statement sums, for a batch of ``size``.

    ``values``: `Options.sum_group`; 0 sums each variable on its own.
    """
    return max(8, values // size) if values else 1
