"""The backward sweep: statements for the cotangents, each node's own rule run on `Sym`.

A node's ``vjp`` rule runs on `Sym` (so it is the rule, not a copy), node by
node, in the order the eager sweep (`_trace.backward`) visits them and
accumulates cotangents. Choices inside rules (relu's mask, pow's exponent-0
case) are `where`s, so they become conditional expressions on run-time
values, never decisions frozen from the trace. A run the forward pass rolled
is swept as a call of one loop too (`periods.BackwardLoop`); in a batch, the
cotangents per example of what is one number for all are summed over it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from typing import cast

from autograd.compiler import periods
from autograd.compiler.stmts import Stmt, reads, ref
from autograd.compiler.writer import (
    Elementwise,
    Form,
    FormElementwise,
    Ordered,
    Writer,
    alias_slot,
    form_elementwise,
    named_elementwise,
    to_form,
)
from autograd.core.nodes import Node
from autograd.core.sym import Sym, arrays, sym

_SUM = "prev + (...)"
"""Marks the form of a sweep's sum ``prev + (contribution)`` built on a contribution's form."""

_Left = tuple[periods.Role | str | None, ...]
"""Per node, the role of the cotangent an iteration's sweep leaves it (None: none)."""

_Contribution = tuple[Form, FormElementwise | None]
"""A rule's contribution to an input's cotangent: its `Form`, and in a batch what it says
of itself."""

_Swept = dict[int, tuple[int, list[str | None], list[str | None]]]
"""Per tail iteration of a run: where its sweep began, and the cotangents the one after
left (`Sweep._loop_backward`)."""


class Sweep(Writer):
    """The backward sweep of `codegen.Program`."""

    def backward(self, root: Node, wrt: Sequence[Node]) -> list[str]:
        """Statements for the cotangents of ``wrt``, in the eager sweep's order.

        Returns, per variable, the name holding its cotangent (``0.0`` if none).
        """
        if self.stacks:  # a sweep over a run whose values other runs read: not written
            raise periods.Unrolled(root)
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
            self._sweep(end, self.rolled, cot, needs)
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
        at: _Swept = {}
        order, forms = self.walk.order, self.walk.forms
        p = end
        for e in [*sorted(marks, reverse=True), -1]:
            for i in range(p - 1, e, -1):
                node, ins = order[i]
                if node in needs and node in cot:  # not in cot: only a comparison reads it
                    self._vjp(node, ins, forms[i], cot, needs)
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
        order: list[Ordered],
        per: periods.Period,
        at: _Swept,
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
        t = per.count - periods.TAIL  # the template, swept last
        roles, state, grads = self._backward_template(order, per, at, needs)
        assert per.loop is not None  # `forward` rolled it
        forward, call = per.loop
        heads = [self.names[x] for x in self._iteration(order, per, periods.HEAD - 1)]
        template = self._swept(at, t)
        back = periods.BackwardLoop(
            f"bwd_loop{len(self.loops)}", template, roles, forward, call, heads
        )
        finals = list(dict.fromkeys(back.expr(r) for r in state if type(r) is tuple))
        # a variable's cotangent the sweep of the iteration after set (``c``): that one keeps it
        kept = [back.keep(("s", r[1]) if r[0] == "c" else r) for r in grads if type(r) is tuple]
        self.loops[back.name] = functools.partial(back.write, finals)
        target = f"g{len(self.stmts)}"
        args = list(back.params)
        self.reads_r = self.reads_r or "R" in args
        self.emit(target, f"{back.name}({', '.join(args)})", reads(args))
        names = [name for name, _, _ in template]
        self._looped_variables(per, grads, kept, names, target, len(finals), cot)
        self._left_by_loop(order, per, state, back, finals, target, cot)

    def _swept(self, at: _Swept, q: int) -> list[Stmt]:
        """The statements of tail iteration ``q``'s sweep."""
        return self.stmts[at[q][0] : at[q - 1][0]]

    def _backward_template(
        self, order: list[Ordered], per: periods.Period, at: _Swept, needs: set[Node]
    ) -> tuple[dict[str, periods.Role], _Left, _Left]:
        """The template's roles, and those of the cotangents it leaves: or `periods.Unrolled`.

        Returns the roles of the template's names, and of the cotangents it
        leaves its nodes and the fixed ones (the loop's state), and its variables.
        """
        names, t = self.names, per.count - periods.TAIL

        def roles(q: int) -> dict[str, periods.Role]:
            return periods.backward_roles(
                self._swept(at, q),
                self._swept(at, q + 1),
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
            shapes.append((periods.shape(self._swept(at, q), rs), left, needed, grads))
        state, grads = shapes[1][1], shapes[1][3]
        if shapes[0] != shapes[1] or any(type(r) is tuple and r[0] == "c" for r in state):
            raise periods.Unrolled
        looped = [x in needs for x, _ in order[per.first(periods.HEAD) : per.first(t)]]
        if looped != shapes[1][2] * per.looped:
            raise periods.Unrolled
        return rs, state, grads

    def _left_by_loop(
        self,
        order: list[Ordered],
        per: periods.Period,
        state: _Left,
        back: periods.BackwardLoop,
        finals: list[str],
        target: str,
        cot: dict[Node, str],
    ) -> None:
        """The cotangents a run's loop leaves the last head iteration and the fixed nodes."""
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
                    self.emit(name, f"{ref(target)}[{finals.index(e)}]", (target,))
                cot[x] = name

    def _looped_variables(
        self,
        per: periods.Period,
        grads: _Left,
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
            self.emit(values, f"{ref(call)}[{lists_at + next(streams)}]", (call,))
            if role[0] == "c":
                cot[xs.pop()] = template[role[1]]
            for k, x in enumerate(reversed(xs)):
                name = f"e{len(self.elements)}"
                self.elements[name] = (values, k)
                cot[x] = name

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
        names, forms = self._rule(node, ins, key, cot[node])
        for x, form in zip(ins, forms, strict=True):
            if form is None or x not in needs:
                continue
            (fmt, at), each = form
            per_example = b and x not in self.batch_of
            if not per_example and x not in cot and (i := alias_slot(fmt)) is not None:
                cot[x] = names[i]  # ``{name}``: a name passed on as it is (`Add`'s ``g``)
                continue
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

    def _rule(
        self, node: Node, ins: tuple[Node, ...], eqn_key: int, g: str
    ) -> tuple[list[str], list[_Contribution | None]]:
        """The node's ``vjp`` rule run on `Sym`: the names its code reads, each input's code.

        Each input's contribution is a `Form` over the names (None: none), and in
        a batch what it says of itself (`FormElementwise`).

        The rule runs once per key (its equation's, `equations.walk`, and what else
        the code depends on), on stand-ins for its slots (`Writer._slot_syms`) and
        the cotangent ``g`` after them; nodes with the same key reuse its code
        with their own names. In a batch, each contribution also says what it
        is (`Elementwise`), which depends on which names are arrays.
        """
        names = [self.names[x] for x in ins]
        own = node in self.names  # a rule may read the node's own value
        if own:
            names.append(self.names[node])
        names.append(g)
        unit = g == self.seed
        batched = self._batched(names)
        key = (eqn_key, own, unit, self._arrays_among(names) if batched else False)
        forms = self._rule_forms.get(key)
        if forms is None:
            eager, syms = self._slot_syms(node, ins, names, own)
            n = len(names)
            f = f"_{n - 1}"
            gs = Sym(ref(f), (f,), unit=unit, array=g in self.surely)
            with arrays() if batched else contextlib.nullcontext():
                rule = eager.vjp(gs, syms.__getitem__)
            outs = [None if o is None else sym(o) for o in rule]
            forms = self._rule_forms[key] = [
                None
                if o is None
                else (to_form(o.src, o.uses), form_elementwise(o) if batched else None)
                for o in outs
            ]
        return names, forms


def _sum_group(size: int, values: int) -> int:
    """How many complete variables one `batch_sums` statement sums, for a batch of ``size``.

    ``values``: `Options.sum_group`; 0 sums each variable on its own.
    """
    return max(8, values // size) if values else 1
