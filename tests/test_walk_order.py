"""The walks' order, against a recursive depth-first post-order written independently.

`toposort`, `postorder` and `backward`'s sweep must visit nodes in exactly the
order of the textbook recursive walk (inputs in field order, each node once,
at its first use): the order fixes how cotangents from several users add up,
so any other order could change gradients in their last bits.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Collection
from typing import ClassVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Const, Leaf, Node
from autograd.core.nodes import (
    OPS,
    Compare,
    Op,
    Primal,
    S,
    Where,
    _forwarded,
    _input,
    define,
    parents,
)
from autograd.walks import ONE, backward, backward_leaves, float_view, postorder, toposort, views


def recursive_order(root: Node, stop: Collection[Node] = ()) -> list[Node]:
    """The oracle: recursion (fine on these small graphs), a set of visited nodes."""
    order: list[Node] = []
    seen: set[Node] = set()

    def visit(node: Node) -> None:
        if node in seen:
            return
        seen.add(node)
        if node not in stop:
            for x in parents(node):
                visit(x)
        order.append(node)

    visit(root)
    return order


def oracle_sweep(root: Node, stop: Collection[Node]) -> dict[Node, float]:
    """Cotangents summed in the oracle's reverse order, each rule run through `vjp`."""
    cot: dict[Node, float] = {root: 1.0}
    for node in reversed(recursive_order(root, stop)):
        g = cot.get(node)
        if g is None or node in stop:
            continue
        for x, gx in zip(parents(node), node.vjp(g, float_view), strict=True):
            if gx is not None:
                cot[x] = gx if x not in cot else cot[x] + gx
    return cot


BUILDERS: list[Callable[[list[Node], random.Random], Node]] = [
    lambda pool, r: r.choice(pool) + r.choice(pool),
    lambda pool, r: r.choice(pool) * r.choice(pool),
    lambda pool, r: r.choice(pool) - r.choice(pool),
    lambda pool, r: ag.tanh(r.choice(pool)),
    lambda pool, r: ag.sin(r.choice(pool)) * 0.5,
    lambda pool, r: ag.relu(r.choice(pool)),
    lambda pool, r: ag.maximum(r.choice(pool), r.choice(pool)),
    lambda pool, r: r.choice(pool) / (1.5 + ag.exp(r.choice(pool))),
]


def random_graph(seed: int, size: int) -> tuple[list[Node], Node]:
    """A DAG with much sharing (every node may be reused by many later ones)."""
    r = random.Random(seed)
    leaves: list[Node] = [Leaf(r.uniform(-1.0, 1.0)) for _ in range(r.randint(1, 4))]
    pool = [*leaves, Const(0.25)]
    for _ in range(size):
        pool.append(r.choice(BUILDERS)(pool, r))
    return leaves, pool[-1]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.booleans())
def test_walks_follow_the_recursive_post_order(seed: int, size: int, stopped: bool) -> None:
    leaves, root = random_graph(seed, size)
    inner = recursive_order(root)[len(leaves) : len(leaves) + 2]  # some inner nodes, maybe
    stop: set[Node] = set(inner) if stopped else set()
    # first, while only the graph holds its inner nodes (postorder reads reference counts)
    got = postorder(root, stop)
    want = recursive_order(root, stop)
    assert list(dict.fromkeys(got)) == want  # the first time each node comes
    again = [n for i, n in enumerate(got) if n in got[:i]]
    assert all(type(n) in (Leaf, Const) for n in again)  # only inputs come again
    assert toposort(root, stop) == [(n, () if n in stop else parents(n)) for n in want]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40))
def test_walks_sharing_seen_list_each_node_once_in_the_post_order(seed: int, size: int) -> None:
    """`toposort` from several roots sharing ``seen``: what the first walks listed (and
    what ``seen`` held at the start) is left out of the later ones, the rest in order."""
    leaves, root = random_graph(seed, size)
    nodes = recursive_order(root)
    roots = [nodes[len(nodes) // 2], nodes[len(nodes) // 3], root]
    seen: set[Node] = set(leaves)
    got = [item for r in roots for item in toposort(r, (), seen)]
    want = list(dict.fromkeys(n for r in roots for n in recursive_order(r)))
    assert got == [(n, parents(n)) for n in want if n not in leaves]
    assert seen == {*nodes, *leaves}


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40))
def test_backward_sums_cotangents_in_the_oracle_order_bit_for_bit(seed: int, size: int) -> None:
    leaves, root = random_graph(seed, size)
    wanted = set(leaves)
    want = oracle_sweep(root, wanted)
    got = backward(root, 1.0, float_view, stop=wanted, keep=wanted)
    assert all(same(got.get(x, 0.0), want.get(x, 0.0)) for x in leaves)
    everything = backward(root, 1.0, float_view)  # no keep: every node's cotangent
    assert list(everything) == list(want)  # written in the same order
    assert all(same(everything[n], want[n]) for n in want)
    nested = backward(root, ONE, views(True), stop=wanted, keep=wanted)  # the rules on nodes
    for x in leaves:
        g = nested.get(x, 0.0)
        assert same(g if isinstance(g, float) else g.value, want.get(x, 0.0))


def same(a: float, b: float) -> bool:
    """Equal bits (so 0.0 and -0.0 differ), or both nan."""
    return (a != a and b != b) or (a == b and math.copysign(1.0, a) == math.copysign(1.0, b))


Take = Callable[[], Node]

TREE_BUILDERS: list[Callable[[Take], Node]] = [
    lambda take: take() + take(),
    lambda take: take() * take(),
    lambda take: take() - take(),
    lambda take: take() / (2.5 + take() * take()),
    lambda take: ag.tanh(take()),
    lambda take: take() ** 2,  # a constant exponent: Pow's other rule
    lambda take: ag.exp(take()) ** take(),  # a node exponent
    lambda take: ag.maximum(take(), take()),
    lambda take: Where(Compare("lt", take(), take()), take(), take()),  # no cotangent for c
    lambda take: ag.sin(take()) * take() + 1.0,
]


def random_tree(seed: int, size: int, share: float) -> tuple[list[Node], Node, list[Node]]:
    """Ops each used once, unless ``share`` (a probability) keeps one for another user.

    Leaves and constants are used freely. Also returns some inner nodes, which the
    caller may hold while it sweeps (then they have a holder besides their users).
    """
    r = random.Random(seed)
    leaves: list[Node] = [Leaf(r.uniform(-2.0, 2.0)) for _ in range(r.randint(1, 4))]
    ops: list[Node] = []

    def take() -> Node:
        k = r.random()
        if k < 0.35 or not ops:
            return r.choice(leaves)
        if k < 0.45:
            return Const(r.choice([0.5, -1.5, 3.0]))
        i = r.randrange(len(ops))
        return ops[i] if r.random() < share else ops.pop(i)

    for _ in range(size):
        ops.append(r.choice(TREE_BUILDERS)(take))
    some = r.sample(ops, min(2, len(ops)))
    root = ops[0]
    for x in ops[1:]:  # every op left gets one more user: the root depends on all of them
        root = root + x
    return leaves, root, some


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.sampled_from([0.0, 0.0, 0.1, 0.4]))
def test_backward_leaves_sums_as_the_oracle_bit_for_bit(seed: int, size: int, share: float) -> None:
    # share 0: a tree of ops, swept off a stack alone; else the rest is walked from a shared node
    leaves, root, _ = random_tree(seed, size, share)
    got = backward_leaves(root)  # first, while only their users hold the inner nodes
    want = oracle_sweep(root, set())
    assert list(got) == [x for x in want if type(x) is Leaf]  # every leaf's, nothing else
    assert all(same(got[x], want[x]) for x in got)
    kept = backward(root, 1.0, float_view, keep=set(leaves))  # the sweep it stands in for
    assert all(same(got.get(x, 0.0), kept.get(x, 0.0)) for x in leaves)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30))
def test_backward_leaves_with_inner_nodes_held_elsewhere(seed: int, size: int) -> None:
    _, root, held = random_tree(seed, size, 0.0)  # a tree, but the caller holds two nodes
    got = backward_leaves(root)
    want = oracle_sweep(root, set())
    assert held  # a second holder: taken as maybe a second user, the rest is walked
    assert all(same(got[x], want[x]) for x in got)
    assert list(got) == [x for x in want if type(x) is Leaf]


@pytest.mark.parametrize("root", [Leaf(2.0), Const(2.0)])
def test_backward_leaves_of_an_input(root: Node) -> None:
    assert backward_leaves(root) == ({root: 1.0} if type(root) is Leaf else {})


@pytest.mark.parametrize("shape", ["one user", "one user twice", "two users", "three users"])
def test_a_node_only_its_users_hold_is_walked_once(shape: str) -> None:
    # postorder takes a node only one object holds as reachable by one path: not two users
    x = Leaf(0.5)
    root: Node = ag.tanh(x)
    for _ in range(200):
        shared = ag.tanh(root)  # after this loop, held by its users only
        if shape == "one user":
            root = shared * 1.5
        elif shape == "one user twice":
            root = shared * shared
        elif shape == "two users":  # met first from one user, before the other is entered
            root = ag.tanh(shared) + ag.sin(shared)
        else:
            root = shared + (shared - shared)
        del shared
    got = postorder(root)
    want = recursive_order(root)
    assert list(dict.fromkeys(got)) == want
    assert [n for n in got if type(n) not in (Leaf, Const)] == [
        n for n in want if type(n) not in (Leaf, Const)
    ]  # every inner node once


def test_deep_chain_walks_without_recursion() -> None:
    assert sys.getrecursionlimit() < 50_000  # deeper than recursion could go
    x = Leaf(0.5)
    y: Node = x
    for _ in range(50_000):
        y = ag.tanh(0.9 * y + 0.1)
    order = postorder(y)
    assert len(order) == 1 + 5 * 50_000  # x, then 0.9, a product, 0.1, a sum and a tanh a step
    # a product's first input is its 0.9: every step's, last step first, then x
    assert all(type(n) is Const and n.value == 0.9 for n in order[:50_000])
    assert order[50_000] is x
    assert order[-1] is y
    # the constants are shared (one 0.9 and one 0.1 for every step): postorder repeats them
    # at each use, toposort keeps the first
    assert [n for n, _ in toposort(y)] == list(dict.fromkeys(order))
    assert len(toposort(y)) == 1 + 2 + 3 * 50_000


@pytest.mark.parametrize("stop_root", [True, False])
def test_a_stopped_root_is_its_own_order(stop_root: bool) -> None:
    x = Leaf(1.0)
    y = x * x
    assert postorder(y, {y} if stop_root else ()) == ([y] if stop_root else [x, x, y])


def twice_float(x: float) -> float:
    return 2.0 * x


def test_an_op_whose_rule_has_the_wrong_length_is_refused_when_defined() -> None:
    # the float sweep zips inputs with a rule's cotangents without zip's strict check
    with pytest.raises(TypeError, match=r"Twice.vjp returns 2 cotangent\(s\) for 1 input\(s\)"):

        @define
        @attrs.frozen(eq=False)
        class Twice(Op):
            name: ClassVar[str] = "twice_wrong"
            label: ClassVar[str] = "twice"
            impl = twice_float
            x: Node = attrs.field(repr=False, converter=_input)
            value: float = attrs.field(
                init=False, default=attrs.Factory(_forwarded, takes_self=True)
            )

            def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
                return (2.0 * g, g)

    assert "twice_wrong" not in OPS
