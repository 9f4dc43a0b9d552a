"""Expressions as data: a small typed tree, parsed from text without ``eval``.

The command line (``autograd grad EXPR``) and the testing kit share this
grammar: decimal numbers, the constants ``inf`` and ``nan``, ASCII names,
``+ - * / **``, unary signs, parentheses, calls of the one-input ops
(`FUNCTIONS`: ``exp``, ``log``, ``sqrt``, ...) and of the two-input ops
(`BINARY_FUNCTIONS`: ``arctan2``, ``hypot``, ``maximum``, ``minimum``), and
``where(cmp(a, b), x, y)`` with a comparison ``cmp`` (`COMPARISONS`: ``lt``,
``le``, ``gt``, ``ge``, ``eq``, ``ne``) as its first argument and nowhere
else, with Python's precedence. The
parser is an operator-precedence parser over explicit stacks: nothing the user
writes is executed, and no input makes it recurse. Literals become floats at once, so ``9**9**9`` is
``inf``, computed instantly; a literal that float64 cannot hold (``1e400``,
``1e-400``) is refused rather than silently made ``inf`` or ``0``.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal, TypeAlias, assert_never

import attrs

from autograd.core.functions import BINARY_FUNCTIONS as BINARY_FUNCTIONS
from autograd.core.functions import FUNCTIONS as FUNCTIONS
from autograd.core.functions import Comparison, eq, ge, gt, le, lt, ne, where
from autograd.core.nodes import Const, Scalar

BinaryOp: TypeAlias = Literal["+", "-", "*", "/", "**"]
Function: TypeAlias = str
"""The name of a one-input op: a key of `FUNCTIONS`, read from the op definitions."""
Function2: TypeAlias = str
"""The name of a two-input op: a key of `BINARY_FUNCTIONS`, read from the op definitions."""
CompareName: TypeAlias = Literal["lt", "le", "gt", "ge", "eq", "ne"]
"""A comparison ``where`` tests: ``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``."""

COMPARISONS: Final[dict[CompareName, Comparison]] = {
    "lt": lt,
    "le": le,
    "gt": gt,
    "ge": ge,
    "eq": eq,
    "ne": ne,
}
"""The comparisons ``where`` may test, by name (the engine's public functions)."""
WHERE: Final = "where"

CONSTANTS: Final[dict[str, float]] = {"inf": math.inf, "nan": math.nan}
MAX_CHARS: Final = 10_000
MAX_PARTS: Final = 2_000  # numbers and names
MAX_DEPTH: Final = 100  # parentheses, calls and signs around any part
MAX_SHOWN: Final = 40  # characters of user text a message echoes

# Tokens, tried in order; the last alternative takes any other character (or `//`).
_TOKEN = re.compile(
    r"(?P<space>[ \t\r\n]+)"
    r"|(?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>\*\*|/(?!/)|[-+*(),])"
    r"|(?P<other>//|.)",
    re.DOTALL,
)
_NUMBER_TAIL = re.compile(r"[A-Za-z0-9_.]*")  # what makes `0x10`, `1_000`, `1j`, `1.2.3` bad
_PRECEDENCE: Final[dict[BinaryOp, int]] = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4}
_SIGN_PRECEDENCE: Final = 3  # `-x ** 2` is `-(x ** 2)`, `-x * 2` is `(-x) * 2`, as in Python


def _grammar() -> str:
    calls = ", ".join([*FUNCTIONS, *BINARY_FUNCTIONS])
    return f"use numbers, names, + - * / **, parentheses, {calls} and where(lt(a, b), x, y)"


def _arity(fn: str) -> int:
    """How many arguments a call of ``fn`` takes (0: ``fn`` is not callable)."""
    if fn in FUNCTIONS:
        return 1
    if fn in BINARY_FUNCTIONS or fn in COMPARISONS:
        return 2
    return 3 if fn == WHERE else 0


class ExprError(ValueError):
    """Text that is not an expression of the grammar, or is over a size limit."""


def shown(text: str, limit: int = MAX_SHOWN) -> str:
    """User text quoted for a one-line message: ASCII only (escapes shown), and short.

    >>> shown("x" * 50)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (50 characters)"
    """
    if len(text) <= limit:
        return ascii(text)
    return f"{text[:limit]!a}... ({len(text):,} characters)"


def literal_value(text: str, label: str | None = None) -> float:
    """The float64 of a decimal literal (``2``, ``-0.5``, ``1e-3``) that float64 can hold.

    Args:
        text: a decimal literal, already checked to be one (an optional sign,
            digits, a point, an exponent).
        label: how a message names it (default ``number '1e400'``).

    Returns:
        The nearest float64, as ``float(text)``.

    Raises:
        ExprError: if it overflows to infinity, or a non-zero literal rounds to zero.

    >>> literal_value("5e-324"), literal_value("-0.0")
    (5e-324, -0.0)
    """
    value = float(text)
    label = f"number {shown(text)}" if label is None else label
    if math.isinf(value):
        raise ExprError(
            f"{label} is beyond the float64 range "
            "(the largest is 1.7976931348623157e308; write inf for infinity)"
        )
    if value == 0.0 and re.search("[1-9]", re.split("[eE]", text)[0]):
        raise ExprError(
            f"{label} is too small for float64: it would round to 0 (the smallest is 5e-324)"
        )
    return value


class _Value:
    """Equality, hash and repr by value, as attrs makes them, but without recursion.

    A flat sum of 2,000 terms parses to a tree 2,000 deep; attrs' generated
    methods would recurse once per level and overflow the stack.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Value):
            return NotImplemented
        stack: list[tuple[Expr, Expr]] = [(_expr(self), _expr(other))]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or _fields(a) != _fields(b):
                return False
            stack.extend(zip(children(a), children(b), strict=True))
        return True

    def __hash__(self) -> int:
        hashes: dict[int, int] = {}
        for e in postorder(_expr(self)):
            kids = tuple(hashes[id(k)] for k in children(e))
            hashes[id(e)] = hash((type(e).__name__, _fields(e), kids))
        return hashes[id(self)]

    def __repr__(self) -> str:
        texts: dict[int, str] = {}
        for e in postorder(_expr(self)):
            texts[id(e)] = _repr(e, texts)
        return texts[id(self)]


def _repr(e: Expr, texts: Mapping[int, str]) -> str:
    match e:
        case Num(value=value):
            return f"Num(value={value!r})"
        case Var(name=name):
            return f"Var(name={name!r})"
        case Neg(x=x):
            return f"Neg(x={texts[id(x)]})"
        case Binary(op=op, x=x, y=y):
            return f"Binary(op={op!r}, x={texts[id(x)]}, y={texts[id(y)]})"
        case Call(fn=fn, x=x):
            return f"Call(fn={fn!r}, x={texts[id(x)]})"
        case Call2(fn=fn, x=x, y=y):
            return f"Call2(fn={fn!r}, x={texts[id(x)]}, y={texts[id(y)]})"
        case Where(cmp=cmp, a=a, b=b, x=x, y=y):
            a_, b_, x_, y_ = (texts[id(v)] for v in (a, b, x, y))
            return f"Where(cmp={cmp!r}, a={a_}, b={b_}, x={x_}, y={y_})"
        case _:
            assert_never(e)


def _expr(v: _Value) -> Expr:
    assert isinstance(v, Num | Var | Neg | Binary | Call | Call2 | Where), "the Expr classes"
    return v


def _fields(e: Expr) -> tuple[object, ...]:
    """The fields of ``e`` that are not subexpressions."""
    match e:
        case Num(value=value):
            return (repr(value),)  # by value: every nan alike, -0.0 apart from 0.0
        case Var(name=name):
            return (name,)
        case Neg():
            return ()
        case Binary(op=op):
            return (op,)
        case Call(fn=fn) | Call2(fn=fn):
            return (fn,)
        case Where(cmp=cmp):
            return (cmp,)
        case _:
            assert_never(e)


@attrs.frozen(eq=False, repr=False)
class Num(_Value):
    """A number literal (always a float)."""

    value: float


@attrs.frozen(eq=False, repr=False)
class Var(_Value):
    """A named input."""

    name: str


@attrs.frozen(eq=False, repr=False)
class Neg(_Value):
    """``-x``."""

    x: Expr


@attrs.frozen(eq=False, repr=False)
class Binary(_Value):
    """``x op y`` for one of ``+ - * / **``."""

    op: BinaryOp
    x: Expr
    y: Expr


@attrs.frozen(eq=False, repr=False)
class Call(_Value):
    """``fn(x)`` for a one-input op ``fn`` (a key of `FUNCTIONS`)."""

    fn: Function
    x: Expr


@attrs.frozen(eq=False, repr=False)
class Call2(_Value):
    """``fn(x, y)`` for a two-input op ``fn``: a key of `BINARY_FUNCTIONS`.

    Those are arctan2, hypot, maximum and minimum, read from the op definitions.
    """

    fn: Function2
    x: Expr
    y: Expr


@attrs.frozen(eq=False, repr=False)
class Where(_Value):
    """``where(cmp(a, b), x, y)``: ``x`` where the comparison holds, else ``y``."""

    cmp: CompareName
    a: Expr
    b: Expr
    x: Expr
    y: Expr


Expr: TypeAlias = Num | Var | Neg | Binary | Call | Call2 | Where


def parse(text: str) -> Expr:
    """Parse expression text into an `Expr`, refusing anything outside the grammar.

    >>> parse("tanh(x + 1)")
    Call(fn='tanh', x=Binary(op='+', x=Var(name='x'), y=Num(value=1.0)))

    Limits: `MAX_CHARS` characters, `MAX_PARTS` numbers and names, and
    `MAX_DEPTH` levels of nesting, counting each enclosing parenthesis, call
    and sign; a flat ``a + b + c`` or ``a ** b ** c`` does not nest.

    Raises:
        ExprError: with a one-line message saying what is wrong, and where.
    """
    if not text.strip():
        raise ExprError("empty expression")
    if len(text) > MAX_CHARS:
        raise ExprError(f"expression longer than {MAX_CHARS:,} characters ({len(text):,})")
    if not text.isascii():
        raise ExprError("expression must be ASCII (names like 'x1', operators + - * / **)")
    return _Parser(text).run(_tokens(text))


@attrs.frozen
class _Token:
    kind: str  # a group name of _TOKEN
    text: str
    column: int  # 1-based, for messages


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None, "`other` matches any character"
        kind = m.lastgroup or "other"
        if kind == "number":
            tail = _NUMBER_TAIL.match(text, m.end())
            end = m.end() if tail is None else tail.end()
            if end > m.end():
                bad = text[pos:end]
                raise ExprError(
                    f"number {shown(bad)} at column {pos + 1}: "
                    "write plain decimals like 2, 0.5 or 1e-3"
                )
        if kind != "space":
            tokens.append(_Token(kind, m.group(), pos + 1))
        pos = m.end()
    return tokens


@attrs.define
class _Open:
    """A ``(`` not closed yet: grouping (``fn`` None), or the call of ``fn``.

    ``args`` counts the call's arguments begun so far (a ``,`` begins the next).
    """

    fn: str | None
    column: int
    args: int = 1


@attrs.frozen
class _Test:
    """A comparison's result on the operand stack: only ``where``'s first argument takes it."""

    cmp: CompareName
    a: Expr
    b: Expr
    column: int


@attrs.frozen
class _Sign:
    """A unary ``-`` or ``+`` waiting for its operand."""

    op: str


@attrs.frozen
class _Infix:
    """A binary operator waiting for its right operand."""

    op: BinaryOp


def _precedence(p: _Sign | _Infix) -> int:
    return _SIGN_PRECEDENCE if isinstance(p, _Sign) else _PRECEDENCE[p.op]


class _Parser:
    """Operator precedence over two explicit stacks: operands built, operators pending.

    The pending stack holds what encloses the current position, so its count
    of parentheses and signs is the nesting depth there.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.operands: list[Expr | _Test] = []
        self.pending: list[_Open | _Sign | _Infix] = []
        self.depth = 0
        self.parts = 0

    def run(self, tokens: Sequence[_Token]) -> Expr:
        want_operand, i = True, 0
        while i < len(tokens):
            if want_operand:
                want_operand, i = self.operand(tokens, i)
            else:
                want_operand, i = self.operator(tokens[i]), i + 1
        if want_operand:
            last = tokens[-1]
            raise ExprError(
                f"expression ends after {shown(last.text)} at column {last.column}: "
                "a number, name or '(' should follow"
            )
        self.reduce(0, right=False)
        if self.pending:
            top = self.pending[-1]
            assert isinstance(top, _Open), "reduce leaves only parentheses"
            raise ExprError(f"'(' at column {top.column} is never closed")
        assert len(self.operands) == 1, "every operator took its operands"
        return self.expr(self.operands[0])

    def expr(self, e: Expr | _Test) -> Expr:
        """``e``, which must not be a comparison: those go in ``where``'s first argument only."""
        if isinstance(e, _Test):
            raise ExprError(
                f"{e.cmp}() at column {e.column} is a comparison: "
                f"use it as where's first argument, as in where({e.cmp}(a, b), x, y)"
            )
        return e

    def operand(self, tokens: Sequence[_Token], i: int) -> tuple[bool, int]:
        """Read an operand or a prefix (sign, '(' or a call); return (want_operand, next i)."""
        tok = tokens[i]
        if tok.kind == "name" and i + 1 < len(tokens) and tokens[i + 1].text == "(":
            self.open(_Open(_function(tok), tok.column))
            return True, i + 2
        match tok.kind, tok.text:
            case "number", text:
                self.push(Num(_number(text, tok.column)))
            case "name", text:
                self.push(_name(text, tok.column))
            case "op", "(":
                self.open(_Open(None, tok.column))
                return True, i + 1
            case "op", "-" | "+":
                self.open(_Sign(tok.text))
                return True, i + 1
            case "op", "," | ")":
                raise self.misplaced(tok)
            case "op", text:
                raise ExprError(
                    f"{shown(text)} at column {tok.column}: expected a number, name or '('"
                )
            case _:
                raise _not_allowed(tok)
        return False, i + 1

    def operator(self, tok: _Token) -> bool:
        """Read what follows an operand: a binary operator or ')'; return want_operand."""
        match tok.kind, tok.text:
            case "op", ("+" | "-" | "*" | "/" | "**") as op:
                self.reduce(_PRECEDENCE[op], right=op == "**")
                self.pending.append(_Infix(op))
                return True
            case "op", ")":
                self.close(tok)
                return False
            case "op", ",":
                self.next_argument(tok)
                return True
            case ("number" | "name", _) | ("op", "("):
                raise ExprError(
                    f"{shown(tok.text)} at column {tok.column} follows an operand: "
                    "expected an operator (+ - * / **) or ')'"
                )
            case _:
                raise _not_allowed(tok)

    def push(self, e: Expr) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise ExprError(f"expression has more than {MAX_PARTS:,} numbers and names")
        self.operands.append(e)

    def open(self, p: _Open | _Sign) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExprError(
                f"expression nested deeper than {MAX_DEPTH} levels (parentheses, calls and signs)"
            )
        self.pending.append(p)

    def next_argument(self, tok: _Token) -> None:
        """A ``,`` after an operand: the call it is in takes one more argument."""
        self.reduce(0, right=False)
        top = self.pending[-1] if self.pending else None
        if not isinstance(top, _Open) or top.fn is None or top.args >= _arity(top.fn):
            raise self.misplaced(tok)
        top.args += 1

    def close(self, tok: _Token) -> None:
        self.reduce(0, right=False)
        if not self.pending:
            raise ExprError(f"')' at column {tok.column} has no '(' to close")
        top = self.pending.pop()
        assert isinstance(top, _Open), "reduce leaves only parentheses"
        self.depth -= 1
        if top.fn is None:
            return
        if top.args < _arity(top.fn):
            raise ExprError(
                f"{top.fn}() takes exactly {_ARGUMENTS[_arity(top.fn)]} "
                f"(')' at column {tok.column} after {_ARGUMENTS[top.args]})"
            )
        args = self.operands[len(self.operands) - top.args :]
        del self.operands[len(self.operands) - top.args :]
        self.operands.append(self.call(top, args))

    def call(self, top: _Open, args: Sequence[Expr | _Test]) -> Expr | _Test:
        """The node of a closed call of ``top.fn`` on ``args`` (as many as it takes)."""
        fn = top.fn
        assert fn is not None, "a call names its function"
        if fn == WHERE:
            test = args[0]
            if not isinstance(test, _Test):
                raise ExprError(
                    f"where() at column {top.column} tests a comparison first: "
                    f"where(lt(a, b), x, y), with one of {', '.join(COMPARISONS)}"
                )
            return Where(test.cmp, test.a, test.b, self.expr(args[1]), self.expr(args[2]))
        kids = [self.expr(a) for a in args]
        if fn in COMPARISONS:
            return _Test(fn, kids[0], kids[1], top.column)
        if fn in BINARY_FUNCTIONS:
            return Call2(fn, kids[0], kids[1])
        return Call(fn, kids[0])

    def reduce(self, precedence: int, *, right: bool) -> None:
        """Apply the pending operators that bind tighter than one of ``precedence``."""
        while self.pending and not isinstance(top := self.pending[-1], _Open):
            p = _precedence(top)
            if p < precedence or (p == precedence and right):
                return
            self.pending.pop()
            x = self.expr(self.operands.pop())
            if isinstance(top, _Sign):
                self.depth -= 1
                self.operands.append(Neg(x) if top.op == "-" else x)
            else:
                self.operands.append(Binary(top.op, self.expr(self.operands.pop()), x))

    def misplaced(self, tok: _Token) -> ExprError:
        """The error for a ',' anywhere, or a ')' where an operand should be."""
        calls = [p.fn for p in self.pending if isinstance(p, _Open)]
        if calls and calls[-1] is not None:
            at = f"{tok.text!r} at column {tok.column}"
            return ExprError(f"{calls[-1]}() takes exactly {_ARGUMENTS[_arity(calls[-1])]} ({at})")
        if tok.text == ")":
            return ExprError(f"')' at column {tok.column}: expected a number, name or '('")
        return _not_allowed(tok)


_ARGUMENTS: Final = {0: "no argument", 1: "one argument", 2: "two arguments", 3: "three arguments"}


def _function(tok: _Token) -> str:
    """The function a call names, or an error saying which ones there are."""
    if _arity(tok.text):
        return tok.text
    raise ExprError(
        f"cannot call {shown(tok.text)} (column {tok.column}): "
        f"functions are {', '.join(FUNCTIONS)} (one argument each), "
        f"{', '.join(BINARY_FUNCTIONS)} (two each) and where(lt(a, b), x, y)"
    )


def _name(text: str, column: int) -> Expr:
    if text in CONSTANTS:
        return Num(CONSTANTS[text])
    if text in COMPARISONS:
        raise ExprError(
            f"{text} at column {column} is a comparison: "
            f"use it as where's first argument, as in where({text}(a, b), x, y)"
        )
    if _arity(text):
        example = {1: "(x)", 2: "(x, y)"}.get(_arity(text), "(lt(a, b), x, y)")
        raise ExprError(f"{text} at column {column} is a function: call it, as in {text}{example}")
    if keyword.iskeyword(text) or text.startswith("__"):
        raise ExprError(f"name {shown(text)} at column {column} is not allowed")
    return Var(text)


def _number(text: str, column: int) -> float:
    if re.fullmatch("0+[0-9]*[1-9][0-9]*", text):  # Python reads `07` as an octal typo too
        raise ExprError(
            f"number {shown(text)} at column {column}: "
            "a whole number cannot start with 0 (write 7, not 07)"
        )
    return literal_value(text, f"number {shown(text)} at column {column}")


def _not_allowed(tok: _Token) -> ExprError:
    return ExprError(f"{shown(tok.text)} at column {tok.column} is not allowed: {_grammar()}")


def names(expr: Expr) -> list[str]:
    """The variable names in ``expr``, in order of first appearance (left to right)."""
    # postorder meets the leaves left to right, and a shared subexpression once
    return list(dict.fromkeys(e.name for e in postorder(expr) if isinstance(e, Var)))


_BINARY: Final[dict[BinaryOp, Callable[[Scalar, Scalar], Scalar]]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
}


def evaluate(expr: Expr, env: Mapping[str, Scalar]) -> Scalar:
    """Evaluate with the engine's ops; a subexpression object used twice is built once.

    Numbers become `Const` nodes, so ``2 ** 0.5`` takes the same paths as in
    user code; a signed number too (``x ** -0.5`` has the constant exponent
    ``-0.5``, as Python compiles it). Raises `KeyError` for a name missing
    from ``env``.

    >>> from autograd import Leaf
    >>> evaluate(parse("x * x + 1"), {"x": Leaf(3.0)})
    Add(value=10.0)
    """
    memo: dict[int, Scalar] = {}
    for e in postorder(expr):
        match e:
            case Num(value=v):
                memo[id(e)] = Const(v)
            case Var(name=name):
                memo[id(e)] = env[name]
            case Neg(x=Num(value=v)):  # a signed literal: one number, as Python compiles it
                memo[id(e)] = Const(-v)
            case Neg(x=x):
                memo[id(e)] = -memo[id(x)]
            case Binary(op=op, x=x, y=y):
                memo[id(e)] = _BINARY[op](memo[id(x)], memo[id(y)])
            case Call(fn=fn, x=x):
                memo[id(e)] = FUNCTIONS[fn](memo[id(x)])
            case Call2(fn=fn, x=x, y=y):
                memo[id(e)] = BINARY_FUNCTIONS[fn](memo[id(x)], memo[id(y)])
            case Where(cmp=cmp, a=a, b=b, x=x, y=y):
                test = COMPARISONS[cmp](memo[id(a)], memo[id(b)])
                memo[id(e)] = where(test, memo[id(x)], memo[id(y)])
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
        case Binary(x=x, y=y) | Call2(x=x, y=y):
            return (x, y)
        case Where(a=a, b=b, x=x, y=y):
            return (a, b, x, y)
        case _:
            assert_never(e)


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
            if v != v or math.copysign(1.0, v) > 0:  # parse only makes these: -2 is Neg(2)
                return repr(v), 9  # repr spells inf and nan as the grammar's constants
            return f"(-{-v!r})", 9
        case Var(name=name):
            return name, 9
        case Call(fn=fn, x=x):
            return f"{fn}({out[id(x)][0]})", 9
        case Call2(fn=fn, x=x, y=y):
            return f"{fn}({out[id(x)][0]}, {out[id(y)][0]})", 9
        case Where(cmp=cmp, a=a, b=b, x=x, y=y):
            test = f"{cmp}({out[id(a)][0]}, {out[id(b)][0]})"
            return f"where({test}, {out[id(x)][0]}, {out[id(y)][0]})", 9
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
