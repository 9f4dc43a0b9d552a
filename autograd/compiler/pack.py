"""Packs for batched programs: parallel statements become one 2-d NumPy operation.

A batched program (`compiler.arrays`) runs one NumPy call per statement of the
per-example program. At a hundred examples a call costs more than its
arithmetic: a layer of sixteen neurons is sixteen products, sixteen sums,
sixteen relus, each its own call. Those statements do the same thing to
different values and none reads another, so this pass runs each such group
as one operation on a 2-d array, a row per statement::

    p3 = p1[0:32:2] + p1[1:33:2]      # sixteen sums of the products in p1
    p4 = np_relu_float(p9[32:48] + p3)  # p9: the parameters, a column gathered once

Which statements are grouped: the elementwise statements of the batch at the
same depth (one more than their deepest operand), with the same code up to
names, whose array operands each come from one place: one array for every
row, or rows of one earlier pack (read as a view when they are evenly spaced,
else gathered by an index array). Operands that are one number per row
(parameters) are read as a column: rows of one column of every input that
columns read, gathered once a call. A statement no pack can read as rows
reads its value from ``p3[i]``, a view; a sum of the parameters' per-example
cotangents over the batch (`batch_sums`) reads a pack's rows as one block.

Bits are kept: every element goes through the same operation on the same
operands as before; only how many elements one NumPy call handles changes,
and the order of independent statements (any topological order computes the
same values: statements are pure).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import cast

from autograd.compiler.orders import depths
from autograd.compiler.stmts import Stmt, fields, named, reads, ref

MIN_ROWS = 2
"""Fewest statements a pack is made of."""

_SUMS = "batch_sums(("
"""How a sum over the batch of several variables' per-example cotangents starts (`codegen`)."""

Shape = tuple[str, tuple[int, ...]]
"""A statement's code up to names: a format string with a field per distinct name (in
order of first appearance), and what each of those names holds: 1 surely an array, 2
an array or one number (a select's branch), 0 one number."""

_Shaped = tuple[Shape, list[str], frozenset[int]]
"""A statement's shape, its distinct names, and the fields that must be one value for
every row of a pack."""


def pack(
    stmts: Sequence[Stmt],
    packable: Mapping[str, Collection[str]],
    varying: Collection[str],
    outputs: Collection[str],
    index: Callable[[list[int]], object],
    most: int = 1 << 30,
) -> tuple[list[Stmt], dict[str, object]]:
    """``stmts`` with their parallel elementwise statements packed (see the module docstring).

    ``packable``: the statements that may be packed, by target, each with its
    fixed names: those that surely give an array (one value per example) by an
    operation per element, and the names that must be one value for every row
    of a pack (read by a float helper's call on no array), as the writer knew
    them (`Sym.array`, `Sym.fixed`); a statement not there stays as it is (a
    sum over the batch, a guard, a loop's call, an item of a list).
    ``varying``: the names that may hold an array (one value per example): the
    inputs that do, and the statements reading one, but for sums over the
    batch; ``outputs``: names that must hold their value at the end;
    ``index``: an index array for rows gathered out of order; ``most``: rows
    of one pack at most (a larger group is cut into packs). Returns the
    statements, in an order that computes every value before its use, and
    the globals they read.
    """
    targets = {t for t, _, _ in stmts}
    arrays = {x for x in varying if x not in targets}  # the inputs that are arrays,
    arrays.update(t for t in targets if t in packable)  # and what surely gives one
    shapes = [
        _shape(e, packable[t], varying, arrays) if t in packable else None for t, e, _ in stmts
    ]
    packer = _Packer(stmts, shapes, outputs, index)
    items = packer.group(most)
    return packer.statements([packer.write(item) for item in items]), packer.extra


_Written = int | Stmt | tuple[int, str]
"""A statement kept (its index), a statement rewritten, or (a pack, its expression)."""


class _Packer:
    """One `pack` call's state: the packs made, their rows, and what is needed of them."""

    def __init__(
        self,
        stmts: Sequence[Stmt],
        shapes: list[_Shaped | None],
        outputs: Collection[str],
        index: Callable[[list[int]], object],
    ) -> None:
        self.stmts, self.shapes, self.index = stmts, shapes, index
        self.producer = {t: i for i, (t, _, _) in enumerate(stmts)}
        self.row_of: dict[str, tuple[int, int]] = {}  # a packed statement's target: (pack, row)
        self.packs: list[list[int]] = []
        self.extra: dict[str, object] = {}  # globals: index arrays of gathered rows
        self.needed: set[str] = set(outputs)
        self.numbers: dict[str, int] = {}  # inputs read in columns: their row in one column
        self.moved: dict[str, list[int]] = {}  # a sum of variables: where each result went

    def group(self, most: int) -> list[int | list[int]]:
        """The statements by depth: each kept (its index), or a pack's (their indices)."""
        level = depths(self.stmts)
        by_level: dict[int, list[int]] = {}
        for i in sorted(range(len(self.stmts)), key=level.__getitem__):
            by_level.setdefault(level[i], []).append(i)
        items: list[int | list[int]] = []
        for lv in sorted(by_level):
            groups: dict[object, list[int]] = {}
            for i in by_level[lv]:
                s = self.shapes[i]
                if s is None:
                    items.append(i)
                    continue
                (fmt, kinds), names, _ = s
                # an array operand comes from one place for every row: one array, or one pack
                row_of = self.row_of
                sources = tuple(
                    [
                        row_of[x][0] if x in row_of else x
                        for x, k in zip(names, kinds, strict=True)
                        if k
                    ]
                )
                groups.setdefault((fmt, kinds, sources), []).append(i)
            for group in groups.values():
                for start in range(0, len(group), max(most, 1)):
                    members = group[start : start + most]
                    if not _packable([cast(_Shaped, self.shapes[i]) for i in members]):
                        items.extend(members)
                        continue
                    for r, i in enumerate(members):
                        self.row_of[self.stmts[i][0]] = (len(self.packs), r)
                    items.append(members)
                    self.packs.append(members)
        return items

    def write(self, item: int | list[int]) -> _Written:
        """A kept statement as it is or rewritten to read packs; a pack's expression."""
        if isinstance(item, int):
            return self._kept(item)
        member = [cast(_Shaped, self.shapes[i]) for i in item]
        (fmt, kinds), _, _ = member[0]
        fields = []
        for column, kind in zip(zip(*(m[1] for m in member), strict=True), kinds, strict=True):
            first = column[0]
            if all(x == first for x in column):  # one value for every row: broadcast
                fields.append(ref(first))
                self.needed.add(first)
            elif kind:  # rows of one earlier pack (grouped by where array operands are)
                which = self.row_of[first][0]
                rows = [self.row_of[x][1] for x in column]
                fields.append(_rows(which, rows, len(self.packs[which]), self.extra, self.index))
            else:  # one number per row: a column
                at = len(self.packs)
                fields.append(
                    _column(column, self.producer, self.numbers, at, self.extra, self.index)
                )
        return (self.row_of[self.stmts[item[0]][0]][0], fmt.format(*fields))

    def _kept(self, i: int) -> _Written:
        """Statement ``i``, not packed: a sum over the batch reads packs' rows as blocks."""
        target, expr, uses = self.stmts[i]
        if expr.startswith(_SUMS):
            # a sum of variables over the batch: a pack's rows in order read as one block
            names, size = list(uses), expr.rsplit(", ", 1)[1]  # its uses: the summed
            n = len(self.stmts)  # not in a pack: after the packs, in their order
            order = sorted(range(len(names)), key=lambda m: self.row_of.get(names[m], (n, m)))
            self.moved[target] = [0] * len(names)
            for position, m in enumerate(order):
                self.moved[target][m] = position
            args = _blocks(
                [names[m] for m in order], self.row_of, self.packs, self.extra, self.index
            )
            self.needed.update(x for a in args if (x := named(a)) is not None)
            expr = f"batch_sums(({''.join(a + ', ' for a in args)}), {size}"
            return (target, expr, reads([expr]))
        self.needed.update(uses)
        result = _result(expr, uses)
        if result is not None and result[0] in self.moved:  # one of those sums, moved
            return (target, f"{ref(result[0])}[{self.moved[result[0]][result[1]]}]", uses)
        return i

    def statements(self, written: list[_Written]) -> list[Stmt]:
        """The program: columns gathered first, then each statement, a pack and its rows read."""
        out: list[Stmt] = []
        if self.numbers:  # the inputs columns read, gathered once: each column is rows of it
            expr = f"np_col(({''.join(ref(x) + ', ' for x in self.numbers)}))"
            out.append((f"p{len(self.packs)}", expr, tuple(self.numbers)))
        for w in written:
            if isinstance(w, int):
                out.append(self.stmts[w])
                continue
            if len(w) == 3:
                out.append(w)
                continue
            which, expr = w
            name = f"p{which}"
            out.append((name, expr, reads([expr])))
            for r, i in enumerate(self.packs[which]):
                target = self.stmts[i][0]
                if target in self.needed:
                    out.append((target, f"{ref(name)}[{r}]", (name,)))
        return out


def _result(expr: str, uses: tuple[str, ...]) -> tuple[str, int] | None:
    """``(name, i)`` if the template ``expr`` is ``{name}[i]``, an item of several results."""
    if len(uses) != 1:
        return None
    head = ref(uses[0]) + "["
    at = expr[len(head) : -1]
    if expr.startswith(head) and expr.endswith("]") and at.isdigit():
        return uses[0], int(at)
    return None


def _packable(members: list[_Shaped]) -> bool:
    """Whether statements of one shape, grouped, make a pack.

    Enough of them, not all the same statement (which a pack would compute
    once, not as rows), and one value in every field that must not be a column.
    """
    if len(members) < MIN_ROWS:
        return False
    first = members[0][1]
    if all(m[1] == first for m in members):
        return False
    return all(all(m[1][f] == first[f] for m in members) for f in members[0][2])


def _shape(
    expr: str, fixed: Collection[str], varying: Collection[str], arrays: set[str]
) -> _Shaped:
    """What packing needs to know of a packable statement (``fixed``: its fixed names).

    Only a statement that surely gives an array is packable: a select on one
    number may give a number, and a pack would give an array of it.
    """
    names = list(dict.fromkeys(fields(expr)))
    at = {x: i for i, x in enumerate(names)}
    fmt = expr.format_map({x: "{" + str(i) + "}" for x, i in at.items()})
    kinds = tuple([x in arrays or (x in varying) * 2 for x in names])
    return (fmt, kinds), names, frozenset([at[x] for x in fixed])


def _column(
    names: Sequence[str],
    producer: dict[str, int],
    numbers: dict[str, int],
    at: int,
    extra: dict[str, object],
    index: Callable[[list[int]], object],
) -> str:
    """A column of ``names``, one number each.

    If they are all inputs: rows of ``p{at}``, the column of every input
    columns read (``numbers``: gathered once, at the start).
    """
    if any(x in producer for x in names):
        return f"np_col(({', '.join(map(ref, names))},))"
    for x in names:
        numbers.setdefault(x, len(numbers))
    return _rows(at, [numbers[x] for x in names], -1, extra, index)


def _blocks(
    names: list[str],
    row_of: dict[str, tuple[int, int]],
    packs: list[list[int]],
    extra: dict[str, object],
    index: Callable[[list[int]], object],
) -> list[str]:
    """``names`` with each run of evenly spaced rows of one pack read as one block (2-d)."""
    out: list[str] = []
    i = 0
    while i < len(names):
        j = i + 1
        if names[i] in row_of:
            which = row_of[names[i]][0]
            step = None
            while j < len(names) and names[j] in row_of and row_of[names[j]][0] == which:
                gap = row_of[names[j]][1] - row_of[names[j - 1]][1]
                if gap == 0 or (step is not None and gap != step):
                    break
                step = gap
                j += 1
            if j - i > 1:
                rows = [row_of[x][1] for x in names[i:j]]
                out.append(_rows(which, rows, len(packs[which]), extra, index))
                i = j
                continue
        out.append(ref(names[i]))
        i += 1
    return out


def _rows(
    which: int,
    rows: list[int],
    size: int,
    extra: dict[str, object],
    index: Callable[[list[int]], object],
) -> str:
    """Pack ``which``'s ``rows`` (of ``size``), in order: the pack, a view, or a gather."""
    name = ref(f"p{which}")
    if rows == list(range(size)):
        return name
    step = rows[1] - rows[0]
    start, stop = rows[0], rows[0] + step * len(rows)
    if step != 0 and all(b - a == step for a, b in itertools.pairwise(rows)):
        if step == 1:
            return f"{name}[{start}:{stop}]"
        return f"{name}[{start}:{stop if stop >= 0 else ''}:{step}]"
    gather = f"rows{len(extra)}"
    extra[gather] = index(rows)
    return f"{name}[{gather}]"
