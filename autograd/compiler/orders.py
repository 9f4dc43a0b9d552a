"""Orders of a program's statements that roll into loops better (`reroll`).

A graph's trace is a depth-first walk, and depth first hides repetition in
two common programs: a wide sum (`ag.dot`), whose balanced tree's additions
fall between the products they add, and a loss over data points, whose
balanced sum's additions fall between the points' networks. `by_depth`
orders the first by depth; `sink` moves the second's additions after the
points. Statements are pure, so any order that computes every operand
first computes the same values.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

from autograd.compiler.stmts import Stmt


def by_depth(stmts: Sequence[Stmt], force: bool = False) -> list[int] | None:
    """An order of ``stmts`` by depth if a quarter of them are at one depth; else None.

    Depth: one more than the deepest operand's; the order is stable. A
    quarter at one depth: a wide sum's products.

    A graph's trace is a depth-first walk: a balanced sum's additions fall
    between the products they add (p0 p1 a01 p2 p3 a23 a0123 ...), so nothing
    repeats in order. By depth, the products come first, then each level of
    the tree, each a run. Any order computing operands first computes the
    same values: statements are pure (a guard raises or not, anywhere). A
    chain, or a network over data points, has few statements a depth: it is
    rolled as traced. The first and the last `SAMPLE` statements tell most
    programs (the last ones' depths counted from the statements before them
    as 0): a network over data points looks wide at its start, where the
    first layer's products are, and not at its end.
    ``force``: the order whatever the depths.
    """
    if not force and not (wide(depths(stmts[:SAMPLE])) and wide(depths(stmts[-SAMPLE:]))):
        return None
    depth = depths(stmts)
    if not force and not wide(depth):
        return None
    return sorted(range(len(stmts)), key=depth.__getitem__)


SAMPLE = 20_000
"""Statements `by_depth` looks at first: most programs are not wide there already."""


def wide(depth: list[int], part: int = 4) -> bool:
    """Whether a quarter (``1 / part``) of the depths are one: a wide sum's products."""
    most = max(collections.Counter(depth).values(), default=0)
    return most * part >= len(depth) >= 4


def equation_depths(operands: Sequence[Sequence[int]], start: int = 0) -> list[int]:
    """Each equation's depth: one more than its deepest operand's (inputs: 0).

    ``operands``: per equation from position ``start`` on, the positions of
    the equations it reads (an input's is negative), as `equations.Walk.operands`
    holds them; one before ``start`` counts as an input.
    """
    depth: list[int] = []
    for ops in operands:
        d = 0
        for j in ops:
            if j >= start and depth[j - start] > d:
                d = depth[j - start]
        depth.append(d + 1)
    return depth


def wide_equations(operands: Sequence[Sequence[int]]) -> bool:
    """`by_depth`'s first test on equations: whether their first and last `SAMPLE` look wide.

    The last ones' depths are counted from the equations before them as
    inputs. A sample looks wide with a fifth at one depth: a sum of terms of
    three equations has a quarter in all, and a sample cut inside a term a
    little less (`ForwardPass._by_depth` then tests the whole for a quarter).
    """
    n = len(operands)
    tail = max(0, n - SAMPLE)
    head, last = equation_depths(operands[:SAMPLE]), equation_depths(operands[tail:], tail)
    return wide(head, 5) and wide(last, 5)


def depths(stmts: Sequence[Stmt]) -> list[int]:
    """Each statement's depth: one more than its deepest operand's (inputs and constants: 0)."""
    at: dict[str, int] = {}  # a statement's target: its depth
    get = at.get
    depth: list[int] = []
    for t, _, uses in stmts:  # a plain loop: this runs once a statement of a big program
        d = 0
        for u in uses:
            du = get(u, 0)
            if du > d:
                d = du
        depth.append(d + 1)
        at[t] = d + 1
    return depth


def sink(
    forms: list[int],
    operands: list[list[int]],
    movable: Sequence[bool],
    joinable: Sequence[bool] | None = None,
    most: int | None = None,
) -> list[int] | None:
    """An order with joins moved as late as they can go; None if no join, or over ``most``.

    A forward traced depth first puts a balanced sum's additions between the
    terms they add (a data point's network, the next one's, their sum, ...),
    so the points' statements do not follow one another. A join is a
    ``movable`` statement (and ``joinable``, if given) reading two or more
    statements of one shape (forms and operands, inputs aside), or all joins
    (or would-be joins but for ``joinable``). Each goes just before the first
    statement reading it (a join: just before that one's place; none: the
    end), so the networks follow one another and the sum comes after them.
    Statements are pure: any order computing operands first gives the same values.
    """
    n = len(forms)
    shape = _shapes(forms, operands, movable)
    join = [False] * n
    like = [False] * n  # a join but for ``joinable``: what reads it may be one
    for i in range(n):
        if not movable[i]:
            continue
        ops = operands[i]
        read = [j for j in ops if j >= 0]
        if len(read) < 2:
            continue
        first = shape[read[0]]
        like[i] = all(shape[j] == first for j in read) or all(like[j] for j in read)
        join[i] = like[i] and (joinable is None or joinable[i])
    if not any(join) or (most is not None and sum(join) > most):
        return None
    place = [n] * n  # a join's: the statement it goes before (n: the end)
    for i in range(n - 1, -1, -1):
        at = place[i] if join[i] else i
        for j in operands[i]:
            if j >= 0 and join[j] and at < place[j]:
                place[j] = at
    before: dict[int, list[int]] = {}
    for i in range(n):
        if join[i]:
            before.setdefault(place[i], []).append(i)
    order: list[int] = []
    for i in range(n):
        order += before.get(i, ())
        if not join[i]:
            order.append(i)
    order += before.get(n, ())
    return order


SHAPE_DEPTH = 4
"""How deep `sink` compares two statements' expressions: a chain's states (an RNN's)
differ in their whole trees, not in their last few levels."""


def _shapes(forms: list[int], operands: list[list[int]], movable: Sequence[bool]) -> list[int]:
    """Each movable statement's shape: its expression's `SHAPE_DEPTH` levels.

    Inputs aside: equal numbers, equal shapes. Other statements are their own shape.
    """
    n = len(forms)
    own = list(range(-2, -2 - n, -1))
    shapes: dict[tuple[int, ...], int] = {}
    intern = shapes.setdefault
    shape = [intern((forms[i],), len(shapes)) if movable[i] else own[i] for i in range(n)]
    for _ in range(SHAPE_DEPTH):
        below = shape
        shape = [
            intern((forms[i], *[below[j] if j >= 0 else -1 for j in operands[i]]), len(shapes))
            if movable[i]
            else own[i]
            for i in range(n)
        ]
    return shape


def permute(
    order: list[int], stmts: list[Stmt], forms: list[int], operands: list[list[int]]
) -> tuple[list[Stmt], list[int], list[list[int]], list[int]]:
    """The statements, forms and operands in ``order``, and each one's new place.

    Operands are renumbered to the new places.
    """
    at = [0] * len(order)
    for new, old in enumerate(order):
        at[old] = new
    return (
        [stmts[i] for i in order],
        [forms[i] for i in order],
        [[at[j] if j >= 0 else j for j in operands[i]] for i in order],
        at,
    )
