"""Programs as data: an expression, its inputs, its reference results, and their JSON form.

This module needs nothing beyond the engine (no hypothesis), so the command
line can print the same objects (``autograd grad --json``) that the testing
kit (`autograd.testing`) reads and writes. The schema is documented in
``docs/reference-testing.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final, Protocol, TypeAlias, assert_never, cast

import attrs

from autograd.core.nodes import Node
from autograd.expr import (
    FUNCTIONS,
    Binary,
    Call,
    Expr,
    Function,
    Neg,
    Num,
    Var,
    evaluate,
    names,
    parse,
    postorder,
    to_source,
)
from autograd.transforms.grad import value_and_grad

FORMAT: Final = "typed-autograd/grad@1"

JSON: TypeAlias = bool | int | float | str | list["JSON"] | dict[str, "JSON"] | None
"""A value that `json.dumps` writes (with ``allow_nan=False``) and `json.loads` reads."""

_BINARY_OPS: Final = ("+", "-", "*", "/", "**")
_SPECIAL: Final[dict[str, float]] = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


@attrs.frozen(repr=False)
class Program:
    """An expression with input values and the reference results of this engine.

    Attributes:
        expr: the expression (a tree; a subexpression object used twice is shared).
        inputs: a value for each variable, in order of first appearance.
        value: the expression's value at ``inputs``.
        gradients: the partial derivative with respect to each input.
    """

    expr: Expr
    inputs: Mapping[str, float]
    value: float
    gradients: Mapping[str, float]

    def __repr__(self) -> str:
        source = to_source(self.expr)
        if len(source) > 200:
            source = f"{source[:200]}... ({len(source)} characters)"
        return (
            f"Program({source!r}, inputs={dict(self.inputs)!r}, value={self.value!r}, "
            f"gradients={dict(self.gradients)!r})"
        )

    def _repr_pretty_(self, printer: _Printer, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis and IPython print this, not the deep tree


class _Printer(Protocol):
    def text(self, s: str) -> None: ...


def reference(expr: Expr, inputs: Mapping[str, float]) -> Program:
    """Evaluate ``expr`` and its gradient with this engine.

    Args:
        expr: the expression.
        inputs: a value for every variable of ``expr``; extra names get a
            zero gradient.

    Returns:
        The `Program` holding the reference value and gradients.

    Raises:
        ValueError: if a variable of ``expr`` has no value in ``inputs``.

    >>> p = reference(parse("x * y + exp(x)"), {"x": 0.0, "y": 2.0})
    >>> p.value, p.gradients
    (1.0, {'x': 3.0, 'y': 0.0})
    """
    missing = [n for n in names(expr) if n not in inputs]
    if missing:
        raise ValueError(f"no value for variable(s) {', '.join(missing)}")
    env = {name: float(v) for name, v in inputs.items()}

    def fn(variables: Mapping[str, Node]) -> float | Node:
        return evaluate(expr, variables)

    value, grads = value_and_grad(fn)(env)
    return Program(expr, env, value, grads)


def encode_float(v: float) -> float | str:
    """A float as JSON allows it: ``inf``, ``-inf`` and ``nan`` become strings, ``-0.0`` stays."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def decode_float(v: object) -> float:
    """The inverse of `encode_float` (JSON integers are accepted too).

    Raises:
        ValueError: for anything that is not a number or one of the three strings.
    """
    if isinstance(v, str) and v in _SPECIAL:
        return _SPECIAL[v]
    if isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    raise ValueError(f"expected a number or one of 'inf', '-inf', 'nan', got {v!r:.60}")


def expr_to_tree(expr: Expr) -> list[JSON]:
    """The expression as a flat list of nodes, inputs before users, the root last.

    Each node is ``{"op": "var", "name": n}``, ``{"op": "num", "value": v}`` or
    ``{"op": op, "args": [i, ...]}`` where ``op`` is one of ``+ - * / ** neg``
    or a function name and each ``i`` indexes an earlier node. A subexpression
    object used twice appears once (the list is a DAG).

    >>> expr_to_tree(parse("-x * 2"))
    [{'op': 'var', 'name': 'x'}, {'op': 'neg', 'args': [0]}, {'op': 'num', 'value': 2.0}, \
{'op': '*', 'args': [1, 2]}]
    """
    index: dict[int, int] = {}
    nodes: list[JSON] = []
    for e in postorder(expr):  # iterative: deep chains are fine
        index[id(e)] = len(nodes)
        nodes.append(_tree_node(e, index))
    return nodes


def _tree_node(e: Expr, index: Mapping[int, int]) -> JSON:
    match e:
        case Num(value=v):
            return {"op": "num", "value": encode_float(v)}
        case Var(name=name):
            return {"op": "var", "name": name}
        case Neg(x=x):
            return {"op": "neg", "args": [index[id(x)]]}
        case Call(fn=fn, x=x):
            return {"op": fn, "args": [index[id(x)]]}
        case Binary(op=op, x=x, y=y):
            return {"op": op, "args": [index[id(x)], index[id(y)]]}
        case _:
            assert_never(e)


def expr_from_tree(tree: object) -> Expr:
    """The inverse of `expr_to_tree` (shared nodes become shared objects).

    Raises:
        ValueError: naming the first malformed node.
    """
    if not isinstance(tree, list) or not tree:
        raise ValueError("a tree is a non-empty list of nodes")
    built: list[Expr] = []
    for i, node in enumerate(tree):
        try:
            built.append(_from_node(node, built))
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise ValueError(f"tree node {i} ({node!r:.80}): {e}") from None
    return built[-1]


def _from_node(node: object, built: list[Expr]) -> Expr:
    if not isinstance(node, dict):
        raise TypeError("a node is an object")
    op = node["op"]
    if op == "num":
        return Num(decode_float(node["value"]))
    if op == "var":
        name = node["name"]
        if not isinstance(name, str) or not name:
            raise TypeError("a variable name is a non-empty string")
        return Var(name)
    args = node["args"]
    if not isinstance(args, list) or not all(type(a) is int and 0 <= a < len(built) for a in args):
        raise ValueError("args must index earlier nodes")
    kids = [built[a] for a in args]
    arity = 1 if op == "neg" or op in FUNCTIONS else 2 if op in _BINARY_OPS else 0
    if arity == 0:
        raise ValueError(f"unknown op {op!r}")
    if len(kids) != arity:
        raise ValueError(f"{op!r} takes {arity} argument(s)")
    if op == "neg":
        return Neg(kids[0])
    if op in FUNCTIONS:
        return Call(cast(Function, op), kids[0])
    return Binary(op, kids[0], kids[1])


def program_to_json(program: Program, *, tree: bool = True) -> dict[str, JSON]:
    """The ``typed-autograd/grad@1`` object for a program (what ``autograd grad --json`` prints).

    Args:
        program: the program and its results.
        tree: include the ``"tree"`` field (the expression as a node list);
            consumers that cannot parse expression text need it.

    >>> import json
    >>> obj = program_to_json(reference(parse("1 / x"), {"x": -0.0}), tree=False)
    >>> print(json.dumps(obj, allow_nan=False))
    {"format": "typed-autograd/grad@1", "expression": "1.0 / x", "inputs": {"x": -0.0}, \
"value": "-inf", "gradients": {"x": "-inf"}}
    """
    obj: dict[str, JSON] = {
        "format": FORMAT,
        "expression": to_source(program.expr),
        "inputs": {k: encode_float(v) for k, v in program.inputs.items()},
        "value": encode_float(program.value),
        "gradients": {k: encode_float(v) for k, v in program.gradients.items()},
    }
    if tree:
        obj["tree"] = expr_to_tree(program.expr)
    return obj


def grad_result(expr: Expr, inputs: Mapping[str, float], *, tree: bool = True) -> dict[str, JSON]:
    """Evaluate with this engine and return the JSON object: `reference` then `program_to_json`."""
    return program_to_json(reference(expr, inputs), tree=tree)


def program_from_json(obj: object) -> Program:
    """Read a ``typed-autograd/grad@1`` object (as `json.loads` returns it).

    The ``"tree"`` field, when present, gives the expression (sharing kept);
    otherwise the ``"expression"`` text is parsed. Results are taken as
    stored, not recomputed.

    Raises:
        ValueError: if the object is not of this format.
    """
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT!r} object")
    try:
        expr = expr_from_tree(obj["tree"]) if "tree" in obj else parse(obj["expression"])
        inputs = _float_map(obj["inputs"])
        gradients = _float_map(obj["gradients"])
        value = decode_float(obj["value"])
    except KeyError as e:
        raise ValueError(f"missing field {e}") from None
    except TypeError as e:
        raise ValueError(str(e)) from None
    return Program(expr, inputs, value, gradients)


def _float_map(obj: object) -> dict[str, float]:
    if not isinstance(obj, dict):
        raise ValueError("inputs and gradients are objects mapping names to numbers")
    return {str(k): decode_float(v) for k, v in obj.items()}
