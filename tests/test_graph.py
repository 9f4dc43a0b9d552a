"""Graph properties: depth, sharing, memory, determinism and threads.

Work is counted (rules run, nodes walked), never timed.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Sequence

import pytest

import autograd as ag
import autograd.walks as trace
from autograd import Add, Const, Div, Exp, Leaf, Log, Mul, Node, Pow, Relu, Scalar, Sigmoid, Tanh
from autograd.core.nodes import parents

NODE_CLASSES = (Leaf, Const, Add, Mul, Div, Pow, Exp, Log, Tanh, Relu, Sigmoid)


def test_grad_of_million_node_chain() -> None:
    assert sys.getrecursionlimit() == 1000  # CPython's default: nothing here raises it
    n = 1_000_000
    one = Const(1.0)
    built: list[Node] = []

    def chain(x: Node) -> Node:
        for _ in range(n):
            x = x + one  # one Add node per step
        built.append(x)
        return x

    value, g = ag.value_and_grad(chain)(0.0)
    assert (value, g) == (1e6, 1.0)
    assert repr(built[0]) == "Add(value=1000000.0)"  # short: not the million-node subgraph
    built.clear()  # dropping the chain frees a million nested nodes without recursing


@pytest.fixture
def rule_calls(monkeypatch: pytest.MonkeyPatch) -> list[Node]:
    """Every node whose ``vjp`` rule runs (on floats or nodes), in order."""
    calls: list[Node] = []
    for cls in NODE_CLASSES:
        rule, rule_float = cls.vjp, cls.vjp_float
        rule_into, rule_push = cls.vjp_accumulate, cls.vjp_push

        def counted(self: Node, g: object, p: object, rule: Callable[..., object] = rule) -> object:
            calls.append(self)
            return rule(self, g, p)

        def counted_float(
            self: Node, g: object, rule: Callable[..., object] = rule_float
        ) -> object:
            calls.append(self)
            return rule(self, g)

        def counted_into(
            self: Node, g: object, c: object, rule: Callable[..., object] = rule_into
        ) -> object:
            calls.append(self)
            return rule(self, g, c)

        def counted_push(
            self: Node, g: object, c: object, push: object, rule: Callable[..., object] = rule_push
        ) -> object:
            calls.append(self)
            return rule(self, g, c, push)

        monkeypatch.setattr(cls, "vjp", counted)
        monkeypatch.setattr(cls, "vjp_float", counted_float)
        monkeypatch.setattr(cls, "vjp_accumulate", counted_into)  # grad's float sweep
        monkeypatch.setattr(cls, "vjp_push", counted_push)
    return calls


def distinct_nodes(root: Node) -> int:
    seen = {id(root)}
    stack = [root]
    while stack:
        for p in parents(stack.pop()):
            if id(p) not in seen:
                seen.add(id(p))
                stack.append(p)
    return len(seen)


def test_doubling_chain_with_2_to_1000_paths_is_swept_once_per_node(rule_calls: list[Node]) -> None:
    # y = y + y, 1000 times: 1001 nodes but 2**1000 paths from the output to x
    def doubling(x: Node) -> Node:
        y = x
        for _ in range(1000):
            y = y + y
        return y

    assert ag.grad(doubling)(1.0) == 2.0**1000
    adds = [n for n in rule_calls if type(n) is Add]
    assert len(adds) == 1000
    assert len(set(adds)) == 1000  # each rule ran once


def test_subgraph_shared_1000_times_costs_linear_work(rule_calls: list[Node]) -> None:
    x = Leaf(0.5)
    shared: Node = x
    for _ in range(100):
        shared = ag.tanh(shared * 1.1 + 0.1)  # a 400-node subgraph
    out = ag.sum([shared * float(i) for i in range(1000)])  # used 1000 times
    order = trace.toposort(out)
    assert len(order) == distinct_nodes(out)
    assert len({id(node) for node, _ in order}) == len(order)  # no node visited twice
    g = ag.gradients(out)
    with_inputs = [node for node, ins in order if ins]
    assert rule_calls == with_inputs[::-1]  # one rule per node, in reverse order, not per path
    assert len(g) == len(order)
    # derivative of sum(i * s) is s' * sum(i): compare with a sweep of s alone
    assert g[x] == pytest.approx(ag.gradients(shared)[x] * sum(range(1000)), rel=1e-12)


def ten_thousand_node_loss(ws: Sequence[Scalar]) -> Scalar:
    # 1000 parameters, about 10 nodes each
    return ag.mean([ag.tanh(w * 0.5 + 1.0) ** 2 + ag.sigmoid(-w) * ag.exp(w * 0.1) for w in ws])


WS = [i / 1000 - 0.5 for i in range(1000)]


def test_grad_on_10000_node_graph_leaves_nothing_for_the_cycle_collector() -> None:
    x = Leaf(0.0)
    assert distinct_nodes(as_node(ten_thousand_node_loss([x * 1.0 for _ in WS]))) > 10_000
    df = ag.grad(ten_thousand_node_loss)
    df(WS)  # warm caches (imports, signatures) outside the measurement
    gc.collect()
    gc.disable()  # an automatic collection would hide cycles made below
    try:
        grads = df(WS)
        found = gc.collect()
    finally:
        gc.enable()
    assert found == 0, f"{found} objects were only freed by the cycle collector"
    assert len(grads) == len(WS)


def as_node(x: Scalar) -> Node:
    assert isinstance(x, Node)
    return x


def shuffled_accumulation_loss(ws: Sequence[Scalar]) -> Scalar:
    # every weight feeds many terms, so its gradient is a long floating-point sum
    # whose value depends on the order in which cotangents are added
    terms = [ws[i % len(ws)] * ws[(7 * i + 3) % len(ws)] * (1 + i / 3) for i in range(3000)]
    return ag.sum(terms) / 3


def test_two_calls_of_grad_are_bit_identical() -> None:
    first = ag.grad(shuffled_accumulation_loss)(WS)
    junk = [Leaf(float(i)) for i in range(10_000)]  # different addresses next time
    second = ag.grad(shuffled_accumulation_loss)(WS)
    del junk
    assert [g.hex() for g in first] == [g.hex() for g in second]


SCRIPT = """
import autograd as ag
ws = [i / 1000 - 0.5 for i in range(300)]
def loss(p):
    return ag.sum([p[str(i % 300)] * p[str((7 * i + 3) % 300)] * (1 + i / 3) for i in range(900)])
g = ag.grad(loss)({str(i): w for i, w in enumerate(ws)})
print([v.hex() for v in g.values()])
"""


def test_grad_is_bit_identical_across_processes_and_hash_seeds() -> None:
    outputs = [
        subprocess.run(
            [sys.executable, "-c", SCRIPT],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "12345")
    ]
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith("['")


def second_derivative_sum(ws: Sequence[Scalar]) -> Scalar:
    # nested transforms inside each thread: the nesting level lives in a contextvar
    def f(x: Scalar) -> Scalar:
        return ag.tanh(x) * ag.exp(x * 0.3)

    d1: Callable[[Scalar], Scalar] = ag.grad(f)
    d2: Callable[[Scalar], Scalar] = ag.grad(d1)
    return ag.sum([d2(w) * w for w in ws])


def test_8_threads_running_grad_agree_with_a_sequential_run() -> None:
    ws = WS[:40]
    expected = ag.grad(second_derivative_sum)(ws)
    shared_x = Leaf(0.25)
    shared_out = ten_thousand_node_loss([shared_x * w for w in WS[:200]])  # read by all
    expected_shared = ag.gradients(as_node(shared_out))[shared_x]
    barrier = threading.Barrier(8)
    results: list[object] = [None] * 8

    def work(k: int) -> None:
        barrier.wait()
        out: list[object] = []
        for _ in range(3):
            out.append(ag.grad(second_derivative_sum)(ws))
            out.append(ag.gradients(as_node(shared_out))[shared_x])
        results[k] = out

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in results:
        assert out == [expected, expected_shared] * 3
        assert isinstance(out, list)
        first = out[0]
        assert isinstance(first, list)
        assert all(type(g) is float for g in first)  # no thread saw another's nesting


def test_dropped_graph_is_freed_by_reference_counting_alone() -> None:
    gc.disable()  # only reference counting may free it
    try:
        x = Leaf(1.0)
        out: Node = x
        for _ in range(1000):
            out = ag.tanh(out * 0.5) + out
        inner = weakref.ref(trace.toposort(out)[500][0])
        ag.gradients(out)
        assert inner() is not None
        del out
        assert inner() is None
    finally:
        gc.enable()
