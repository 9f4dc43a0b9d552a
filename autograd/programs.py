"""Programs as data: an expression, its inputs, its reference results, and their JSON form.

This module needs nothing beyond the engine (no hypothesis), so the command
line can print the same objects (``autograd grad --json``) that the testing
kit (`autograd.testing`) reads and writes. The schema is documented in
``docs/reference-testing.md``.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Mapping, Sequence
from typing import Final, Protocol, TypeAlias, assert_never, cast

import attrs

from autograd.core.nodes import Node
from autograd.drawing import ALL_OPS, EXPONENTS, SPECIAL_VALUES, Op, build_expression
from autograd.expr import (
    BINARY_FUNCTIONS,
    COMPARISONS,
    FUNCTIONS,
    Binary,
    Call,
    Call2,
    CompareName,
    Expr,
    Function,
    Neg,
    Num,
    Var,
    Where,
    evaluate,
    names,
    parse,
    postorder,
    to_source,
)
from autograd.transforms.grad import grad, value_and_grad
from autograd.transforms.jacobian import jacobian

FORMAT: Final = "typed-autograd/grad@2"
"""The ``format`` this module writes: ``@2`` added two-input ops, ``where`` and ``"hessian"``."""
FORMATS: Final = ("typed-autograd/grad@1", FORMAT)
"""The formats `program_from_json` reads (``@1`` is ``@2`` without the new nodes)."""

Hessian: TypeAlias = tuple[tuple[float, ...], ...]
"""A matrix of second partial derivatives, one row per input: ``h[i][j] = d2f / dxi dxj``."""

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
        hessian: the second partial derivatives, rows and columns in the order
            of ``inputs`` (None when not computed: see `reference`).
    """

    expr: Expr
    inputs: Mapping[str, float]
    value: float
    gradients: Mapping[str, float]
    hessian: Hessian | None = None

    def __repr__(self) -> str:
        source = to_source(self.expr)
        if len(source) > 200:
            source = f"{source[:200]}... ({len(source)} characters)"
        second = "" if self.hessian is None else f", hessian={self.hessian!r}"
        return (
            f"Program({source!r}, inputs={dict(self.inputs)!r}, value={self.value!r}, "
            f"gradients={dict(self.gradients)!r}{second})"
        )

    def _repr_pretty_(self, printer: _Printer, cycle: bool) -> None:
        printer.text(repr(self))  # hypothesis and IPython print this, not the deep tree


class _Printer(Protocol):
    def text(self, s: str) -> None: ...


def reference(expr: Expr, inputs: Mapping[str, float], *, hessian: bool = False) -> Program:
    """Evaluate ``expr`` and its gradient (and Hessian) with this engine.

    Args:
        expr: the expression.
        inputs: a value for every variable of ``expr``; extra names get a
            zero gradient.
        hessian: also compute the second partial derivatives (with
            `autograd.hessian`: the derivative of the gradient).

    Returns:
        The `Program` holding the reference value and derivatives.

    Raises:
        ValueError: if a variable of ``expr`` has no value in ``inputs``.

    >>> p = reference(parse("x * y + exp(x)"), {"x": 0.0, "y": 2.0}, hessian=True)
    >>> p.value, p.gradients, p.hessian
    (1.0, {'x': 3.0, 'y': 0.0}, ((1.0, 1.0), (1.0, 0.0)))
    """
    missing = [n for n in names(expr) if n not in inputs]
    if missing:
        raise ValueError(f"no value for variable(s) {', '.join(missing)}")
    env = {name: float(v) for name, v in inputs.items()}

    def fn(variables: Mapping[str, Node]) -> float | Node:
        return evaluate(expr, variables)

    value, grads = value_and_grad(fn)(env)
    return Program(expr, env, value, grads, _hessian(expr, env) if hessian else None)


def _hessian(expr: Expr, env: Mapping[str, float]) -> Hessian:
    keys = list(env)
    if not keys:
        return ()

    def fn(xs: Sequence[Node]) -> float | Node:
        return evaluate(expr, dict(zip(keys, xs, strict=True)))

    # reverse over reverse, as PyTorch's double backward: forward over reverse (`hessian`)
    # meets inf * 0 where a tangent overflows first (arctan'' at 1.8e308 is nan there)
    rows = jacobian(grad(fn))([env[k] for k in keys])
    return tuple(tuple(float(v) for v in row) for row in rows)


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

    Each node is ``{"op": "var", "name": n}``, ``{"op": "num", "value": v}``,
    ``{"op": op, "args": [i, ...]}`` where ``op`` is one of ``+ - * / ** neg``
    or a one-input function's name, ``{"call2": fn, "x": i, "y": j}`` for a
    two-input function, or ``{"where": cmp, "a": i, "b": j, "x": k, "y": l}``
    for ``where(cmp(a, b), x, y)``; each ``i``, ``j``, ``k``, ``l`` indexes an
    earlier node. A subexpression object used twice appears once (the list is
    a DAG).

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
        case Call2(fn=fn, x=x, y=y):
            return {"call2": fn, "x": index[id(x)], "y": index[id(y)]}
        case Where(cmp=cmp, a=a, b=b, x=x, y=y):
            refs = {k: index[id(v)] for k, v in zip("abxy", (a, b, x, y), strict=True)}
            return {"where": cmp, **refs}
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
    if "call2" in node:
        fn = node["call2"]
        if fn not in BINARY_FUNCTIONS:
            raise ValueError(f"unknown two-input op {fn!r:.40}")
        x, y = _operands(node, "xy", built)
        return Call2(fn, x, y)
    if "where" in node:
        cmp = node["where"]
        if cmp not in COMPARISONS:
            raise ValueError(
                f"unknown comparison {cmp!r:.40} (use one of {', '.join(COMPARISONS)})"
            )
        a, b, x, y = _operands(node, "abxy", built)
        return Where(cast(CompareName, cmp), a, b, x, y)
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


def _operands(node: dict[str, object], keys: str, built: list[Expr]) -> list[Expr]:
    """The earlier nodes that ``node``'s fields ``keys`` index (a KeyError if one is missing)."""
    refs = [node[k] for k in keys]
    if not all(type(r) is int and 0 <= r < len(built) for r in refs):
        raise ValueError(f"{', '.join(keys)} must index earlier nodes")
    return [built[cast(int, r)] for r in refs]


def program_to_json(program: Program, *, tree: bool = True) -> dict[str, JSON]:
    """The ``typed-autograd/grad@2`` object for a program (what ``autograd grad --json`` prints).

    Args:
        program: the program and its results; its Hessian, when computed,
            becomes the ``"hessian"`` field (rows in the order of ``"inputs"``).
        tree: include the ``"tree"`` field (the expression as a node list);
            consumers that cannot parse expression text need it.

    >>> import json
    >>> obj = program_to_json(reference(parse("1 / x"), {"x": -0.0}), tree=False)
    >>> print(json.dumps(obj, allow_nan=False))
    {"format": "typed-autograd/grad@2", "expression": "1.0 / x", "inputs": {"x": -0.0}, \
"value": "-inf", "gradients": {"x": "-inf"}}
    """
    obj: dict[str, JSON] = {
        "format": FORMAT,
        "expression": to_source(program.expr),
        "inputs": {k: encode_float(v) for k, v in program.inputs.items()},
        "value": encode_float(program.value),
        "gradients": {k: encode_float(v) for k, v in program.gradients.items()},
    }
    if program.hessian is not None:
        obj["hessian"] = [[encode_float(v) for v in row] for row in program.hessian]
    if tree:
        obj["tree"] = expr_to_tree(program.expr)
    return obj


def grad_result(
    expr: Expr, inputs: Mapping[str, float], *, tree: bool = True, hessian: bool = False
) -> dict[str, JSON]:
    """Evaluate with this engine and return the JSON object: `reference` then `program_to_json`.

    >>> grad_result(parse("x ** 3"), {"x": 2.0}, tree=False, hessian=True)["hessian"]
    [[12.0]]
    """
    return program_to_json(reference(expr, inputs, hessian=hessian), tree=tree)


def program_from_json(obj: object) -> Program:
    """Read a ``typed-autograd/grad@2`` (or ``@1``) object (as `json.loads` returns it).

    The ``"tree"`` field, when present, gives the expression (sharing kept);
    otherwise the ``"expression"`` text is parsed. Results are taken as
    stored, not recomputed; ``"hessian"`` is optional.

    Raises:
        ValueError: if the object is not of these formats.
    """
    if not isinstance(obj, dict) or obj.get("format") not in FORMATS:
        raise ValueError(f"not a {' or '.join(map(repr, FORMATS))} object")
    try:
        expr = expr_from_tree(obj["tree"]) if "tree" in obj else parse(obj["expression"])
        inputs = _float_map(obj["inputs"])
        gradients = _float_map(obj["gradients"])
        value = decode_float(obj["value"])
        second = _matrix(obj["hessian"], len(inputs)) if "hessian" in obj else None
    except KeyError as e:
        raise ValueError(f"missing field {e}") from None
    except TypeError as e:
        raise ValueError(str(e)) from None
    return Program(expr, inputs, value, gradients, second)


def _matrix(obj: object, n: int) -> Hessian:
    """A ``"hessian"`` field: ``n`` rows of ``n`` numbers, one per input."""
    if not isinstance(obj, list) or len(obj) != n:
        raise ValueError(f"hessian must be a list of {n} rows, one per input")
    if not all(isinstance(row, list) and len(row) == n for row in obj):
        raise ValueError(f"each hessian row must list {n} numbers, one per input")
    return tuple(tuple(decode_float(v) for v in row) for row in obj)


def _float_map(obj: object) -> dict[str, float]:
    if not isinstance(obj, dict):
        raise ValueError("inputs and gradients are objects mapping names to numbers")
    return {str(k): decode_float(v) for k, v in obj.items()}


# --- random programs without hypothesis: seeded, reproducible (``autograd corpus``) ---


def random_program(
    rng: random.Random,
    ops: Sequence[Op] = ALL_OPS,
    *,
    variables: Sequence[str] = ("x", "y", "z"),
    max_nodes: int = 10,
    max_depth: int = 6,
    sharing: bool = True,
    node_exponents: bool = True,
    max_chain: int = 0,
    root: Op | None = None,
    hessian: bool = True,
) -> Program:
    """A random program drawn with ``rng``, with this engine's results.

    The expressions are those of `autograd.testing.expressions` (the same
    builder, `autograd.drawing.build_expression`, makes both), drawn from
    ``rng`` alone: the same state of ``rng`` and the same arguments give the
    same program on every platform and Python version (``random.Random``'s
    generator and its integer draws are documented to be reproducible). No
    hypothesis is needed, and nothing shrinks. Unlike hypothesis' draws,
    which start small, most nodes drawn end up in the expression (``grow``).

    Constants and inputs are a `SPECIAL_VALUES` half the time, otherwise a
    float in [-10, 10] or any float64 bit pattern (nan and infinities
    included); an input often repeats an earlier input's value (ties).

    Args:
        rng: the source of every choice (``random.Random(seed)``).
        ops: see `autograd.testing.expressions`, like the options that follow.
        variables: the names of the inputs.
        max_nodes: the most operations before any chain.
        max_depth: the longest path from the root to a leaf.
        sharing: reuse earlier subexpressions as operands.
        node_exponents: allow ``**`` with a non-constant exponent.
        max_chain: also draw a chain of up to this many links.
        root: the op of the root node (None: drawn like the others).
        hessian: also compute the Hessian.

    >>> p = random_program(random.Random(0), ["*", "maximum"], root="maximum")
    >>> to_source(p.expr).startswith("maximum(")
    True
    >>> again = random_program(random.Random(0), ["*", "maximum"], root="maximum")
    >>> program_to_json(again) == program_to_json(p)  # nan too: JSON spells it "nan"
    True
    """
    if not variables:
        raise ValueError("at least one variable name is needed")
    choices = _Seeded(rng, tuple(variables))
    expr = build_expression(
        choices,
        tuple(ops),
        max_nodes=max_nodes,
        max_depth=max_depth,
        sharing=sharing,
        node_exponents=node_exponents,
        max_chain=max_chain,
        root=root,
        grow=True,
    )
    inputs: dict[str, float] = {}
    for name in names(expr):
        earlier = list(inputs.values())
        tie = bool(earlier) and rng.randrange(4) == 3
        inputs[name] = earlier[rng.randrange(len(earlier))] if tie else choices.constant()
    return reference(expr, inputs, hessian=hessian)


@attrs.frozen
class _Seeded:
    """The choices of `autograd.drawing.build_expression`, drawn from a ``random.Random``."""

    rng: random.Random
    variables: tuple[str, ...]

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def variable(self) -> str:
        return self.variables[self.rng.randrange(len(self.variables))]

    def constant(self) -> float:
        kind = self.rng.randrange(4)
        if kind < 2:
            return SPECIAL_VALUES[self.rng.randrange(len(SPECIAL_VALUES))]
        if kind == 2:
            return self.rng.uniform(-10.0, 10.0)
        bits = self.rng.getrandbits(64).to_bytes(8, "little")
        value: float = struct.unpack("<d", bits)[0]
        return value

    def exponent(self) -> float:
        if self.rng.randrange(2):
            return self.rng.uniform(-4.0, 4.0)
        return EXPONENTS[self.rng.randrange(len(EXPONENTS))]
