"""`to_dot`: DOT text that parses back to the graph it draws; rendering with `dot`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import autograd as ag
from autograd import Node
from autograd.core.nodes import parents
from autograd.viz import GraphvizNotFoundError, render

NODE_STMT = re.compile(r'^  (n\d+|more) \[label="((?:[^"\\]|\\.)*)".*\];$')
EDGE_STMT = re.compile(r"^  (n\d+|more) -> (n\d+);$")


def graph_counts(root: Node) -> tuple[int, int]:
    """Distinct nodes and edges (one per input use) behind ``root``: the oracle."""
    seen = {root}
    stack = [root]
    edges = 0
    while stack:
        ins = parents(stack.pop())
        edges += len(ins)
        for p in ins:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return len(seen), edges


def parse_dot(text: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Node statements (id -> label) and edge statements of `to_dot` output."""
    lines = text.splitlines()
    assert lines[0] == "digraph autograd {"
    assert lines[-1] == "}"
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in lines[1:-1]:
        if m := NODE_STMT.match(line):
            assert m.group(1) not in nodes, f"node {m.group(1)} declared twice"
            nodes[m.group(1)] = m.group(2)
        elif m := EDGE_STMT.match(line):
            edges.append((m.group(1), m.group(2)))
    for a, b in edges:
        assert a in nodes, f"edge {a} -> {b} to an undeclared node"
        assert b in nodes, f"edge {a} -> {b} to an undeclared node"
    return nodes, edges


def sample_graphs() -> list[Node]:
    x, y = ag.Leaf(2.0, name="x"), ag.Leaf(-3.0, name="y")
    shared = x * y  # used twice: a diamond
    return [
        x,
        x * x,  # one input used twice: two edges
        ag.tanh(shared + shared * 2.0) / (y**2.0 + ag.exp(x)),
        ag.sum([ag.relu(x * float(i)) + ag.sigmoid(y) for i in range(20)]),
        ag.log(x) ** y - 1.0,
    ]


@pytest.mark.parametrize("root", sample_graphs(), ids=lambda n: type(n).__name__)
def test_dot_has_one_statement_per_node_and_per_edge(root: Node) -> None:
    nodes, edges = parse_dot(ag.to_dot(root))
    assert (len(nodes), len(edges)) == graph_counts(root)


def test_every_node_shows_its_value_and_gradient() -> None:
    x, y = ag.Leaf(2.0, name="x"), ag.Leaf(-3.0, name="y")
    out = x * y + x
    grads = ag.gradients(out)
    nodes, _ = parse_dot(ag.to_dot(out, grads))
    assert nodes["n0"] == "+\\nvalue -4\\ngrad 1"
    labels = set(nodes.values())
    assert "x\\nvalue 2\\ngrad -2" in labels  # d/dx (x y + x) = y + 1
    assert "y\\nvalue -3\\ngrad 2" in labels
    assert "const\\nvalue -1" not in labels  # no Const in x*y + x
    assert all("\\ngrad " in label for label in labels)


def test_edges_run_from_inputs_to_users() -> None:
    x = ag.Leaf(1.0, name="x")
    out = ag.exp(x)
    nodes, edges = parse_dot(ag.to_dot(out))
    ids = {label.split("\\n")[0]: i for i, label in nodes.items()}
    assert edges == [(ids["x"], ids["exp"])]


def test_quotes_in_leaf_names_are_escaped() -> None:
    x = ag.Leaf(1.0, name='a "b" \\ c')
    nodes, _ = parse_dot(ag.to_dot(x * 2.0))
    assert any(label.startswith('a \\"b\\" \\\\ c') for label in nodes.values())


def chain(n: int) -> Node:
    node: Node = ag.Leaf(0.5, name="x")
    for _ in range(n):
        node = ag.tanh(node)
    return node


def test_large_graph_is_summarised_and_says_so() -> None:
    root = chain(100_000)  # far past the recursion limit: the walk must be iterative
    text = ag.to_dot(root, max_nodes=50)
    nodes, edges = parse_dot(text)
    assert len(nodes) == 51  # the budget, plus the box that stands for the rest
    assert nodes["more"] == "... 99951 more nodes"
    assert "// summarised: 50 of 100001 nodes shown" in text
    assert len(edges) == 50


def test_graph_within_budget_is_not_summarised() -> None:
    text = ag.to_dot(chain(10), max_nodes=11)
    assert "summarised" not in text
    assert "more" not in text


def test_refuses_non_nodes_and_bad_budgets() -> None:
    with pytest.raises(TypeError, match="needs a Node"):
        ag.to_dot(1.0)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(ValueError, match="max_nodes"):
        ag.to_dot(ag.Leaf(1.0), max_nodes=0)


def test_render_writes_dot_text_without_graphviz(tmp_path: Path) -> None:
    path = render(ag.to_dot(chain(3)), tmp_path / "g.dot")
    assert path.read_text().startswith("digraph")


def test_render_says_clearly_when_dot_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda _: None)
    with pytest.raises(GraphvizNotFoundError, match=r"Graphviz's `dot` program.*apt-get install"):
        render(ag.to_dot(chain(3)), tmp_path / "g.svg")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's `dot` is not installed")
@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_dot_program_accepts_the_output(tmp_path: Path, suffix: str) -> None:
    x = ag.Leaf(0.5, name="x")
    out = ag.tanh(x * 2.0 + 1.0)
    path = render(ag.to_dot(out, ag.gradients(out)), tmp_path / f"g.{suffix}")
    data = path.read_bytes()
    if suffix == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert b"<svg" in data
        assert b"tanh" in data


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's `dot` is not installed")
def test_dot_program_parses_a_summarised_graph(tmp_path: Path) -> None:
    done = subprocess.run(
        ["dot", "-Tsvg"],
        input=ag.to_dot(chain(1000), max_nodes=20),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "more nodes" in done.stdout
