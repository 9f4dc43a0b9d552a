"""The package's layout: imports flow one way, nothing is imported inside a function, and
docs/design.md describes every module there is."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autograd"
LAZY_ALLOWED = {("autograd.demo", "autograd.plots")}  # matplotlib is an optional extra


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(path: Path) -> tuple[set[str], set[str]]:
    """The package modules ``path`` imports at module level, and those it imports in functions."""
    top: set[str] = set()
    inner: set[str] = set()
    tree = ast.parse(path.read_text())

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue  # annotations only: no run-time edge
            nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                targets = {child.module} | {f"{child.module}.{a.name}" for a in child.names}
                found = {t for t in targets if t in MODULES and t != "autograd"}
                (inner if nested else top).update(found)
            elif isinstance(child, ast.Import):
                found = {a.name for a in child.names if a.name in MODULES}
                (inner if nested else top).update(found)
            visit(child, nested)

    visit(tree, False)
    return top, inner


GRAPH = {name: imports(path) for name, path in MODULES.items()}


def test_no_relative_imports_so_every_edge_is_seen() -> None:
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        relative = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert not relative, f"{name} imports relatively at lines {relative}"


def test_no_module_imports_the_package_inside_a_function() -> None:
    lazy = {(name, target) for name, (_, inner) in GRAPH.items() for target in inner}
    assert lazy <= LAZY_ALLOWED, lazy - LAZY_ALLOWED


def test_imports_have_no_cycles() -> None:
    order: list[str] = []
    state: dict[str, int] = {}  # 1 entered, 2 done
    for start in GRAPH:
        stack = [(start, iter(sorted(GRAPH[start][0])))]
        if state.get(start):
            continue
        state[start] = 1
        while stack:
            name, edges = stack[-1]
            for target in edges:
                if state.get(target) == 1:
                    cycle = [n for n, _ in stack] + [target]
                    pytest.fail(f"import cycle: {' -> '.join(cycle[cycle.index(target) :])}")
                if not state.get(target):
                    state[target] = 1
                    stack.append((target, iter(sorted(GRAPH[target][0]))))
                    break
            else:
                state[name] = 2
                order.append(name)
                stack.pop()
    assert len(order) == len(GRAPH)


LAYERS = [
    {
        "autograd.core.floats",
        "autograd.core.sym",
        "autograd.core.pickling",
        "autograd.core.holders",
        "autograd.core.convert",
    },
    {"autograd.core.context"},
    {"autograd.core.rulegen"},
    {"autograd.core.base"},
    {"autograd.core.define"},
    {"autograd.core.rules"},
    {"autograd.core.ops"},
    {"autograd.core.more_ops"},
    {"autograd.core.nodes"},
    {"autograd.core.batching"},
    {"autograd.core.functions", "autograd.debug"},
    {"autograd.walks", "autograd.pytree"},
]


def test_the_graph_layer_imports_nothing_above_it() -> None:
    below: set[str] = {"autograd.core"}
    for layer in LAYERS:
        for name in layer:
            above = GRAPH[name][0] - below - layer
            assert not above, f"{name} imports {above}, above its layer"
        below |= layer


def test_design_doc_names_every_module() -> None:
    text = (ROOT / "docs" / "design.md").read_text()
    named = set(re.findall(r"`autograd/([\w/]+\.py)`", text))
    actual = {str(p.relative_to(PACKAGE)) for p in MODULES.values()}
    assert actual - named == set(), f"design.md does not describe {sorted(actual - named)}"
    assert named - actual == set(), f"design.md describes missing modules: {named - actual}"


COMPILER = sorted((PACKAGE / "compiler").glob("*.py"))


@pytest.mark.parametrize("path", COMPILER, ids=lambda p: p.name)
def test_the_compiler_reads_no_code_as_text(path: Path) -> None:
    """Statements are data (`compiler.stmts`): no pass parses generated code again."""
    tree = ast.parse(path.read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not imported & {"re", "ast"}


@pytest.mark.parametrize("path", COMPILER, ids=lambda p: p.name)
def test_the_compilers_modules_and_functions_are_small(path: Path) -> None:
    """A module a newcomer can read: at most 600 lines, no function over 60."""
    text = path.read_text()
    assert text.count("\n") <= 600
    long = [
        f"{n.name}: {n.end_lineno - n.lineno + 1}"  # type: ignore[operator]  # set by ast.parse
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.end_lineno - n.lineno + 1 > 60  # type: ignore[operator]  # set by ast.parse
    ]
    assert long == []
