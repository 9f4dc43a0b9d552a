"""Expressions as data: a small typed tree, parsed from text without ``eval``.

The command line (``autograd grad EXPR``) and the testing kit share this
grammar: numbers, ASCII names, ``+ - * / **``, unary minus, parentheses and
calls of ``exp log tanh relu sigmoid``. Text is parsed with `ast` and checked
against that whitelist; nothing the user writes is ever executed. Literals
become floats at once, so ``9**9**9`` is ``inf``, computed instantly.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from typing import Final, Literal, TypeAlias, assert_never, get_args

import attrs

from . import _ops
from ._nodes import Scalar, int_to_float

BinaryOp: TypeAlias = Literal["+", "-", "*", "/", "**"]
Function: TypeAlias = Literal["exp", "log", "tanh", "relu", "sigmoid"]

FUNCTIONS: Final[tuple[Function, ...]] = get_args(Function)
MAX_CHARS: Final = 10_000
MAX_NODES: Final = 2_000
MAX_DEPTH: Final = 100

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_NUMBER = re.compile(r"(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\Z")
_OPS: Final[dict[type[ast.operator], BinaryOp]] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
}


class ExprError(ValueError):
    """Text that is not an expression of the grammar, or is over a size limit."""


@attrs.frozen
class Num:
    """A number literal (always a float)."""

    value: float


@attrs.frozen
class Var:
    """A named input."""

    name: str


@attrs.frozen
class Neg:
    """``-x``."""

    x: Expr


@attrs.frozen
class Binary:
    """``x op y`` for one of ``+ - * / **``."""

    op: BinaryOp
    x: Expr
    y: Expr


@attrs.frozen
class Call:
    """``fn(x)`` for one of ``exp log tanh relu sigmoid``."""

    fn: Function
    x: Expr


Expr: TypeAlias = Num | Var | Neg | Binary | Call


def parse(text: str) -> Expr:
    """Parse expression text into an `Expr`, refusing anything outside the grammar.

    >>> parse("tanh(x + 1)")
    Call(fn='tanh', x=Binary(op='+', x=Var(name='x'), y=Num(value=1.0)))

    Raises:
        ExprError: with a one-line message saying what is wrong.
    """
    if not text.strip():
        raise ExprError("empty expression")
    if len(text) > MAX_CHARS:
        raise ExprError(f"expression longer than {MAX_CHARS} characters")
    if not text.isascii():
        raise ExprError("expression must be ASCII (names like 'x1', operators + - * / **)")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as e:
        message = str(getattr(e, "msg", e))
        if "leading zeros" in message:  # Python's hint about octal would mislead here
            message = "a whole number cannot start with 0 (write 7, not 07)"
        raise ExprError(f"not an expression: {message}") from None
    except (RecursionError, MemoryError):
        raise ExprError("expression nested too deeply") from None
    return _convert(tree.body, text)


def _convert(root: ast.expr, text: str) -> Expr:
    """Check size and depth, then convert bottom-up: an explicit stack, never recursion."""
    preorder: list[ast.expr] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExprError(f"expression nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.Call):  # refuse the call itself before looking at its arguments
            _check_call(node)
        preorder.append(node)
        if len(preorder) > MAX_NODES:
            raise ExprError(f"expression has more than {MAX_NODES} parts")
        stack.extend((k, depth + 1) for k in _children(node))
    done: dict[int, Expr] = {}
    for node in reversed(preorder):  # every node after all of its children
        done[id(node)] = _one(node, [done[id(k)] for k in _children(node)], text)
    return done[id(root)]


def _children(node: ast.expr) -> list[ast.expr]:
    match node:
        case ast.BinOp(left=left, right=right):
            return [left, right]
        case ast.UnaryOp(operand=operand):
            return [operand]
        case ast.Call(args=args):
            return list(args)
        case _:
            return []


def _check_call(node: ast.Call) -> None:
    match node:
        case ast.Call(func=ast.Name(id=fn), args=[arg], keywords=[]) if fn in FUNCTIONS:
            if isinstance(arg, ast.Starred):
                raise ExprError(f"{fn}() takes one plain argument")
        case _:
            name = node.func.id if isinstance(node.func, ast.Name) else ast.dump(node.func)[:40]
            allowed = ", ".join(FUNCTIONS)
            raise ExprError(f"cannot call {name!r}: functions are {allowed}, one argument each")


def _one(node: ast.expr, kids: list[Expr], text: str) -> Expr:
    """One ast node, its children already converted; anything else is refused."""
    match node:
        case ast.BinOp(op=op) if type(op) in _OPS:
            return Binary(_OPS[type(op)], kids[0], kids[1])
        case ast.UnaryOp(op=ast.USub()):
            return Neg(kids[0])
        case ast.UnaryOp(op=ast.UAdd()):
            return kids[0]
        case ast.Call(func=ast.Name(id=fn)):  # checked by _check_call
            return Call(fn, kids[0])  # type: ignore[arg-type]  # fn is one of FUNCTIONS
        case ast.Name(id=name) if _NAME.match(name) and name not in FUNCTIONS:
            if name.startswith("__"):
                raise ExprError(f"name {name!r} is not allowed")
            return Var(name)
        case ast.Constant(value=int() | float() as value) if not isinstance(value, bool):
            source = ast.get_source_segment(text, node) or ""
            if not _NUMBER.match(source):
                raise ExprError(f"number {source!r}: write plain decimals like 2, 0.5 or 1e-3")
            return Num(int_to_float(value) if isinstance(value, int) else value)
        case _:
            what = type(node).__name__
            segment = (ast.get_source_segment(text, node) or what)[:40]
            raise ExprError(
                f"{segment!r} is not allowed: use numbers, names, + - * / **, "
                f"parentheses and {', '.join(FUNCTIONS)}"
            )


def names(expr: Expr) -> list[str]:
    """The variable names in ``expr``, in order of first appearance (left to right)."""
    seen: dict[str, None] = {}
    stack = [expr]
    while stack:
        e = stack.pop()
        match e:
            case Var(name=name):
                seen.setdefault(name)
            case Num():
                pass
            case Neg(x=x) | Call(x=x):
                stack.append(x)
            case Binary(x=x, y=y):
                stack.extend((y, x))
            case _:
                assert_never(e)
    return list(seen)


_BINARY: Final[dict[BinaryOp, Callable[[Scalar, Scalar], Scalar]]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
}
_CALLS: Final[dict[Function, Callable[[Scalar], Scalar]]] = {
    "exp": _ops.exp,
    "log": _ops.log,
    "tanh": _ops.tanh,
    "relu": _ops.relu,
    "sigmoid": _ops.sigmoid,
}


def evaluate(expr: Expr, env: Mapping[str, Scalar]) -> Scalar:
    """Evaluate with the engine's ops; a subexpression object used twice is built once.

    Numbers become `Const` nodes, so ``2 ** 0.5`` takes the same paths as in
    user code. Raises `KeyError` for a name missing from ``env``.

    >>> from autograd import Leaf
    >>> evaluate(parse("x * x + 1"), {"x": Leaf(3.0)})
    Add(value=10.0)
    """
    from ._nodes import Const  # a literal is a graph constant, as `x * 2` makes one

    memo: dict[int, Scalar] = {}
    for e in postorder(expr):
        match e:
            case Num(value=v):
                memo[id(e)] = Const(v)
            case Var(name=name):
                memo[id(e)] = env[name]
            case Neg(x=x):
                memo[id(e)] = -memo[id(x)]
            case Binary(op=op, x=x, y=y):
                memo[id(e)] = _BINARY[op](memo[id(x)], memo[id(y)])
            case Call(fn=fn, x=x):
                memo[id(e)] = _CALLS[fn](memo[id(x)])
            case _:
                assert_never(e)
    return memo[id(expr)]


def postorder(expr: Expr) -> list[Expr]:
    """Each distinct subexpression object of ``expr`` once, operands (left to right) first.

    Iterative, so a chain of any depth is fine; the root comes last.

    >>> [to_source(e) for e in postorder(parse("-x * 2"))]
    ['x', '-x', '2.0', '-x * 2.0']
    """
    order: list[Expr] = []
    done: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(expr, False)]
    while stack:
        e, expanded = stack.pop()
        if id(e) in done:
            continue
        if expanded:  # its operands are all in `order` already
            done.add(id(e))
            order.append(e)
        else:
            stack.append((e, True))
            stack.extend((k, False) for k in reversed(children(e)) if id(k) not in done)
    return order


def children(e: Expr) -> tuple[Expr, ...]:
    """The operands of ``e``, left to right."""
    match e:
        case Num() | Var():
            return ()
        case Neg(x=x) | Call(x=x):
            return (x,)
        case Binary(x=x, y=y):
            return (x, y)
        case _:
            assert_never(e)


_PRECEDENCE: Final[dict[BinaryOp, int]] = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4}


def to_source(expr: Expr) -> str:
    """Text that `parse` reads back as an equal `Expr` (fully parenthesised where needed).

    >>> to_source(parse("-(x + 1) * 2 ** -y"))
    '-(x + 1.0) * 2.0 ** -y'
    """
    out: dict[int, tuple[str, int]] = {}  # id -> (text, precedence)
    for e in postorder(expr):
        out[id(e)] = _render(e, out)
    return out[id(expr)][0]


def _render(e: Expr, out: Mapping[int, tuple[str, int]]) -> tuple[str, int]:
    match e:
        case Num(value=v):
            if v >= 0.0 and math.copysign(1.0, v) > 0:  # parse only makes these: -2 is Neg(2)
                return ("1e999" if v == math.inf else repr(v)), 9
            return f"({_num_source(v)})", 9
        case Var(name=name):
            return name, 9
        case Call(fn=fn, x=x):
            return f"{fn}({out[id(x)][0]})", 9
        case Neg(x=x):
            text, prec = out[id(x)]
            return "-" + (text if prec >= 3 else f"({text})"), 3
        case Binary(op=op, x=x, y=y):
            p = _PRECEDENCE[op]
            (lt, lp), (rt, rp) = out[id(x)], out[id(y)]
            right_assoc = op == "**"
            left = lt if (lp > p or (lp == p and not right_assoc)) else f"({lt})"
            right = (
                rt
                if (rp > p or (rp == p and right_assoc) or (op == "**" and rp == 3))
                else f"({rt})"
            )
            return f"{left} {op} {right}", p
        case _:
            assert_never(e)


def _num_source(v: float) -> str:
    """Text with the value of a float that no literal spells: nan, negatives, -0.0."""
    if v != v:
        return "0 * 1e999"  # 0 * inf is nan in IEEE arithmetic
    return "-1e999" if v == -math.inf else f"-{-v!r}"
