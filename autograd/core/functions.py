"""What users call on ``float | Node``: elementary functions and balanced reductions.

Each function returns the kind it is given: floats in, a float out (so one loss
function runs on plain numbers), a node in, a node out (so it runs under a
transform). The float path is the node's own forward rule, so both agree
bit for bit.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeAlias, cast, overload

from autograd.core.batching import BatchedList, batch_sum
from autograd.core.context import debug_sites
from autograd.core.floats import as_float, int_to_float
from autograd.core.nodes import (
    BUILD1,
    Abs,
    Arccos,
    Arcsin,
    Arctan,
    Arctan2,
    CompareOp,
    Const,
    Cos,
    Cosh,
    Exp,
    Exp2,
    Expm1,
    Hypot,
    Log,
    Log1p,
    Log2,
    Log10,
    Maximum,
    Minimum,
    Node,
    Op,
    Relu,
    Scalar,
    Sigmoid,
    Sign,
    Sin,
    Sinh,
    Sqrt,
    Tan,
    Tanh,
    Where,
    _Arith,
    _build2,
    compare,
    lift,
)
from autograd.core.sym import Sym
from autograd.debug import float_nan

__all__ = [
    "BINARY_FUNCTIONS",
    "FUNCTIONS",
    "Binary",
    "Comparison",
    "Cond",
    "Elementwise",
    "abs",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "binary",
    "cos",
    "cosh",
    "dot",
    "elementwise",
    "eq",
    "exp",
    "exp2",
    "expm1",
    "ge",
    "gt",
    "hypot",
    "le",
    "log",
    "log1p",
    "log2",
    "log10",
    "lt",
    "maximum",
    "mean",
    "minimum",
    "ne",
    "relu",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "sum",
    "tan",
    "tanh",
    "where",
]


class Elementwise(Protocol):
    """The type of every one-input op function: a float in, a float out; a node in, a node out."""

    __name__: str

    @overload
    def __call__(self, x: float, /) -> float: ...
    @overload
    def __call__(self, x: Node, /) -> Node: ...
    @overload
    def __call__(self, x: Scalar, /) -> Scalar: ...


FUNCTIONS: dict[str, Elementwise] = {}
"""Every one-input op's public function by name, in definition order: the words the
expression grammar, the command line and `autograd.testing` accept."""


def elementwise(cls: type[Op], doc: str) -> Elementwise:
    """The public function of the one-input op ``cls``: its float forward, or its node.

    The float path is the node's own forward rule (``cls.impl``), so both agree
    bit for bit; an int is converted as `as_float` does (beyond float range, to
    a signed infinity). Under `debug_nans`, a nan made from a non-nan float raises.
    """
    build, impl, op = BUILD1[cls], cls.impl, cls.__name__

    def function(x: Scalar) -> Scalar:
        if isinstance(x, _Arith):
            return cast(Node, build(x))  # every op class is a member of Node
        if type(x) is not float:
            x = as_float(x)
        v = impl(x)
        if v != v and debug_sites.get() is not None:
            float_nan(op, (x,))
        return v

    function.__name__ = function.__qualname__ = cls.name
    function.__doc__ = doc
    function.__module__ = "autograd"
    FUNCTIONS[cls.name] = public = cast(Elementwise, function)
    return public


exp = elementwise(
    Exp,
    """``e ** x``; overflows to ``inf``, never raises.

    >>> exp(0.0), exp(1000.0)
    (1.0, inf)
    """,
)
log = elementwise(
    Log,
    """Natural logarithm; ``log(0.0) == -inf`` and a negative number gives nan, never raising.

    >>> log(1.0), log(0.0), log(-1.0)
    (0.0, -inf, nan)
    """,
)
sqrt = elementwise(
    Sqrt,
    """Square root, as ``torch.sqrt``: ``sqrt(-0.0) == -0.0``, a negative number gives nan.

    Its derivative at 0 is ``inf`` (``-inf`` at ``-0.0``).

    >>> sqrt(4.0), sqrt(-0.0), sqrt(-1.0)
    (2.0, -0.0, nan)
    """,
)
abs = elementwise(  # the name NumPy and PyTorch users reach for
    Abs,
    """Absolute value; its derivative is ``sgn(x)``, so ``abs'(0) == 0`` as in PyTorch.

    >>> abs(-2.0), abs(-0.0)
    (2.0, 0.0)
    """,
)
sin = elementwise(
    Sin,
    """Sine; ``sin(inf)`` is nan, never raising.

    >>> sin(0.0), sin(float("inf"))
    (0.0, nan)
    """,
)
cos = elementwise(
    Cos,
    """Cosine; ``cos(inf)`` is nan, never raising.

    >>> cos(0.0), cos(float("inf"))
    (1.0, nan)
    """,
)
tanh = elementwise(
    Tanh,
    """Hyperbolic tangent; its gradient is exactly ``0.0`` once the output rounds to ±1.

    >>> tanh(0.0), tanh(1000.0)
    (0.0, 1.0)
    """,
)
relu = elementwise(
    Relu,
    """``max(x, 0)``, keeping nan and ``-0.0`` (as ``torch.relu``); ``relu'(0) == 0``.

    >>> relu(-2.0), relu(3.0)
    (0.0, 3.0)
    """,
)
sigmoid = elementwise(
    Sigmoid,
    """Logistic function ``1 / (1 + exp(-x))``, never overflowing.

    >>> sigmoid(0.0), sigmoid(-1000.0)
    (0.5, 0.0)
    """,
)

tan = elementwise(
    Tan,
    """Tangent (``torch.tan``); ``tan(inf)`` is nan, never raising; ``tan' == 1 + tan**2``.

    >>> tan(0.0), tan(float("inf"))
    (0.0, nan)
    """,
)
sinh = elementwise(
    Sinh,
    """Hyperbolic sine (``torch.sinh``); overflows to ``±inf``, never raises.

    >>> sinh(0.0), sinh(1000.0), sinh(-1000.0)
    (0.0, inf, -inf)
    """,
)
cosh = elementwise(
    Cosh,
    """Hyperbolic cosine (``torch.cosh``); overflows to ``inf``, never raises.

    >>> cosh(0.0), cosh(-1000.0)
    (1.0, inf)
    """,
)
arcsin = elementwise(
    Arcsin,
    """Inverse sine (NumPy's name; ``torch.asin``): nan outside ``[-1, 1]``, ``arcsin'(±1) == inf``.

    >>> arcsin(1.0), arcsin(2.0)
    (1.5707963267948966, nan)
    """,
)
arccos = elementwise(
    Arccos,
    """Inverse cosine (NumPy's name; ``torch.acos``): nan outside ``[-1, 1]``, ``-inf`` slope at ±1.

    >>> arccos(1.0), arccos(-2.0)
    (0.0, nan)
    """,
)
arctan = elementwise(
    Arctan,
    """Inverse tangent (NumPy's name; ``torch.atan``); ``arctan(inf) == pi / 2``.

    >>> arctan(1.0), arctan(float("inf"))
    (0.7853981633974483, 1.5707963267948966)
    """,
)
log1p = elementwise(
    Log1p,
    """``log(1 + x)``, exact near 0 (``torch.log1p``); ``log1p(-1.0) == -inf``, below -1 nan.

    >>> log1p(1e-20), log1p(-1.0), log1p(-2.0)
    (1e-20, -inf, nan)
    """,
)
expm1 = elementwise(
    Expm1,
    """``exp(x) - 1``, exact near 0 (``torch.expm1``); overflows to ``inf``, never raises.

    >>> expm1(1e-20), expm1(1000.0), expm1(-1000.0)
    (1e-20, inf, -1.0)
    """,
)
log2 = elementwise(
    Log2,
    """Base-2 logarithm (``torch.log2``); ``log2(0.0) == -inf``, a negative number gives nan.

    >>> log2(8.0), log2(0.0), log2(-1.0)
    (3.0, -inf, nan)
    """,
)
log10 = elementwise(
    Log10,
    """Base-10 logarithm (``torch.log10``); ``log10(0.0) == -inf``, a negative number gives nan.

    >>> log10(1000.0), log10(0.0), log10(-1.0)
    (3.0, -inf, nan)
    """,
)
exp2 = elementwise(
    Exp2,
    """``2 ** x`` (``torch.exp2``); overflows to ``inf``, never raises.

    >>> exp2(10.0), exp2(2000.0)
    (1024.0, inf)
    """,
)
sign = elementwise(
    Sign,
    """-1.0, 0.0 or 1.0, as ``torch.sign``: ``sign(-0.0) == sign(nan) == 0.0``; its gradient is 0.

    (NumPy's ``sign(nan)`` is nan; PyTorch's is 0.0, and ours follows PyTorch.)

    >>> sign(-3.0), sign(-0.0), sign(float("nan"))
    (-1.0, 0.0, 0.0)
    """,
)


class Binary(Protocol):
    """The type of every two-input op function: floats in, a float out; a node in, a node out."""

    __name__: str

    @overload
    def __call__(self, x: float, y: float, /) -> float: ...
    @overload
    def __call__(self, x: Node, y: Scalar, /) -> Node: ...
    @overload
    def __call__(self, x: Scalar, y: Node, /) -> Node: ...
    @overload
    def __call__(self, x: Scalar, y: Scalar, /) -> Scalar: ...


BINARY_FUNCTIONS: dict[str, Binary] = {}
"""Every two-input op's public function by name, in definition order. The expression
grammar calls one-input functions only (`FUNCTIONS`): these are for Python code."""


def binary(cls: type[Op], doc: str) -> Binary:
    """The public function of the two-input op ``cls``: its float forward, or its node.

    Two numbers give ``cls.impl``'s float; if either is a node, the other is lifted
    as the operators lift it (a `Const`) and the node is built, so both agree bit
    for bit. Under `debug_nans`, a nan made from non-nan floats raises.
    """
    build, impl, op = _build2(cls), cls.impl, cls.__name__

    def function(x: Scalar, y: Scalar) -> Scalar:
        if isinstance(x, _Arith) or isinstance(y, _Arith):
            a, b = lift(x), lift(y)
            if a is None or b is None:
                bad = y if a is not None else x
                raise TypeError(f"{cls.name}() takes numbers or nodes, got {type(bad).__name__}")
            return cast(Node, build(a, b))  # every op class is a member of Node
        if type(x) is not float:
            x = as_float(x)
        if type(y) is not float:
            y = as_float(y)
        v = impl(x, y)
        if v != v and debug_sites.get() is not None:
            float_nan(op, (x, y))
        return v

    function.__name__ = function.__qualname__ = cls.name
    function.__doc__ = doc
    function.__module__ = "autograd"
    BINARY_FUNCTIONS[cls.name] = public = cast(Binary, function)
    return public


arctan2 = binary(
    Arctan2,
    """The angle of the point ``(x2, x1)``: ``atan2(x1, x2)`` (NumPy's name; ``torch.atan2``).

    The signs of zeros choose the quadrant, as in C: ``arctan2(0.0, -0.0) == pi``.
    The derivatives are ``x2 / (x1**2 + x2**2)`` and ``-x1 / (x1**2 + x2**2)``,
    0 at the origin (PyTorch masks them there).

    >>> arctan2(1.0, 1.0), arctan2(0.0, -0.0), arctan2(-0.0, -1.0)
    (0.7853981633974483, 3.141592653589793, -3.141592653589793)
    """,
)
hypot = binary(
    Hypot,
    """``sqrt(x1**2 + x2**2)`` without overflow (``torch.hypot``); ``hypot(inf, nan) == inf``.

    The derivatives are ``x1 / hypot`` and ``x2 / hypot``: nan at the origin, as PyTorch's.

    >>> hypot(3.0, 4.0), hypot(1e308, 1e308), hypot(float("inf"), float("nan"))
    (5.0, 1.4142135623730951e+308, inf)
    """,
)
maximum = binary(
    Maximum,
    """The larger of two, nan if either is nan (``torch.maximum``, ``numpy.maximum``).

    The gradient goes to the larger input; at a tie each gets half, as in PyTorch.

    >>> maximum(1.0, 2.0), maximum(1.0, float("nan"))
    (2.0, nan)
    """,
)
minimum = binary(
    Minimum,
    """The smaller of two, nan if either is nan (``torch.minimum``, ``numpy.minimum``).

    The gradient goes to the smaller input; at a tie each gets half, as in PyTorch.

    >>> minimum(1.0, 2.0), minimum(float("nan"), 1.0)
    (1.0, nan)
    """,
)


@overload
def sum(xs: Iterable[float]) -> float: ...
@overload
def sum(xs: Iterable[Node]) -> Node: ...
@overload
def sum(xs: Iterable[Scalar]) -> Scalar: ...
def sum(xs: Iterable[Scalar]) -> Scalar:
    """Sum as a balanced tree of additions, so the graph depth is ``log2(n)``.

    Floats and nodes give the same bits: both are added in the same tree
    order. An empty sum is ``0.0``.

    >>> sum([1.0, 2.0, 3.0])
    6.0
    """
    if type(xs) is BatchedList:  # vmap's result in a batched jit trace: one node sums the batch
        return batch_sum(xs.node)
    items = list(xs)
    if not items:
        return 0.0
    if debug_sites.get() is not None:  # debug_nans(): a sum of two floats does not check itself
        _check_pairs(items, "Add")
    level = items
    try:
        while len(level) > 1:
            paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
            if len(level) % 2:
                paired.append(level[-1])
            level = paired
    except OverflowError:  # an int beyond float range met a float: promote it, as float(i)
        return sum(_promoted(items))
    return _num(level[0])  # a sum of ints only is an int: promoted once, at the end


def _pairwise(level: list[Scalar]) -> list[Scalar]:
    """One level of the balanced sum: neighbours added, an odd last item carried up."""
    paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
    if len(level) % 2:
        paired.append(level[-1])
    return paired


def _check_pairs(items: list[Scalar], op: str) -> None:
    """Report the first float addition (or product) of `sum` (or `dot`) that makes nan."""
    level = items
    while len(level) > 1:
        for a, b in zip(level[0::2], level[1::2], strict=False):
            if type(a) is float and type(b) is float:
                v = a * b if op == "Mul" else a + b
                if v != v:
                    float_nan(op, (a, b))
        if op == "Mul":
            return  # dot's products: one level
        level = _pairwise(level)


@overload
def mean(xs: Sequence[float]) -> float: ...
@overload
def mean(xs: Sequence[Node]) -> Node: ...
@overload
def mean(xs: Sequence[Scalar]) -> Scalar: ...
def mean(xs: Sequence[Scalar]) -> Scalar:
    """Average: the balanced `sum` divided by ``len(xs)``; the mean of nothing is nan.

    >>> mean([1.0, 2.0, 4.0, 5.0])
    3.0
    """
    if not xs:
        return math.nan  # as torch.mean and jnp.mean of an empty array
    return sum(xs) / len(xs)  # torch.mean: one division (n >= 1, so never by zero)


@overload
def dot(xs: Sequence[float], ys: Sequence[float]) -> float: ...
@overload
def dot(xs: Sequence[Node], ys: Sequence[Scalar]) -> Node: ...
@overload
def dot(xs: Sequence[Scalar], ys: Sequence[Node]) -> Node: ...
@overload
def dot(xs: Sequence[Scalar], ys: Sequence[Scalar]) -> Scalar: ...
def dot(xs: Sequence[Scalar], ys: Sequence[Scalar]) -> Scalar:
    """``sum(x * y)`` over two sequences of equal length, as a balanced tree.

    >>> dot([1.0, 2.0], [3.0, 4.0])
    11.0

    Raises:
        ValueError: if the lengths differ.
    """
    if len(xs) != len(ys):
        raise ValueError(f"dot() needs sequences of equal length, got {len(xs)} and {len(ys)}")
    if debug_sites.get() is not None:  # debug_nans(): a product of two floats does not check itself
        _check_pairs([v for pair in zip(xs, ys, strict=True) for v in pair], "Mul")
    try:
        return sum([x * y for x, y in zip(xs, ys, strict=True)])
    except OverflowError:  # an int beyond float range met a float: promote it, as float(i)
        return sum([x * y for x, y in zip(_promoted(xs), _promoted(ys), strict=True)])


def _promoted(xs: Iterable[Scalar]) -> list[Scalar]:
    """Items of `sum` or `dot`, ints as `int_to_float` makes them (10**400 * 1.0 raises)."""
    return [_num(x) for x in xs]


def _num(x: Scalar) -> Scalar:
    item: object = x  # mypy counts an int as a float: test the runtime type
    return int_to_float(item) if type(item) is int else x


# --- choices on values that work under every transform and `jit` ---

Cond: TypeAlias = bool | Node
"""A comparison's result: a bool for two numbers, a `Compare` node when a node is compared."""


def _comparison(op: CompareOp, swap: bool, doc: str) -> Comparison:
    def comparison(x: Scalar, y: Scalar) -> Cond:
        a, b = (y, x) if swap else (x, y)
        if not isinstance(a, _Arith) and not isinstance(b, _Arith):
            return bool(_COMPARE_FLOATS[op](a, b))  # two numbers: Python's own comparison
        a, b = _lifted(a), _lifted(b)
        result = compare(op, a, b)
        assert not isinstance(result, float | Sym), "two scalars compare to a bool or a node"
        return result

    comparison.__doc__ = doc
    return cast(Comparison, comparison)


_COMPARE_FLOATS = {"lt": operator.lt, "le": operator.le, "eq": operator.eq, "ne": operator.ne}


class Comparison(Protocol):
    """The type of `lt`, `le`, `gt`, `ge`, `eq`, `ne`: a bool for numbers, a node for nodes."""

    @overload
    def __call__(self, x: float, y: float, /) -> bool: ...
    @overload
    def __call__(self, x: Scalar, y: Scalar, /) -> Cond: ...


_COMPARE_DOC = """``x {symbol} y`` as a value a transform and `jit` can branch on, through `where`.

    For two numbers it is a bool. When a node is compared it is a `Compare`
    node (1.0 or 0.0), so ``where(cond, a, b)`` keeps the choice in the
    graph: ``jit`` tests it at run time, where a Python ``if`` on ``.value``
    would be frozen, and ``==`` between nodes tests identity (as dict keys
    need), never values.

    >>> {name}(1.0, 2.0)
    {answer}
    """
lt = _comparison("lt", False, _COMPARE_DOC.format(symbol="<", name="lt", answer="True"))
le = _comparison("le", False, _COMPARE_DOC.format(symbol="<=", name="le", answer="True"))
gt = _comparison("lt", True, _COMPARE_DOC.format(symbol=">", name="gt", answer="False"))
ge = _comparison("le", True, _COMPARE_DOC.format(symbol=">=", name="ge", answer="False"))
eq = _comparison("eq", False, _COMPARE_DOC.format(symbol="==", name="eq", answer="False"))
ne = _comparison("ne", False, _COMPARE_DOC.format(symbol="!=", name="ne", answer="True"))


@overload
def where(cond: bool, x: float, y: float) -> float: ...
@overload
def where(cond: Cond, x: Scalar, y: Scalar) -> Scalar: ...
def where(cond: Cond, x: Scalar, y: Scalar) -> Scalar:
    """``x`` where ``cond`` holds, else ``y``, as ``jnp.where`` and ``torch.where``.

    A bool chooses at once. A comparison node makes a `Where` node: its value
    is the chosen branch's, and ``jit`` compiles the choice as a run-time
    test. The branch not taken gets a zero gradient, as in PyTorch and JAX:
    if that branch's own derivative is infinite there, the gradient is nan
    (make its input safe with an inner ``where``; docs/numerics.md).

    >>> import autograd as ag
    >>> f = lambda x: ag.where(ag.gt(x, 0.0), x * x, 0.5 * x)
    >>> ag.grad(f)(3.0), ag.grad(f)(-3.0), ag.jit(ag.grad(f))(-3.0)
    (6.0, 0.5, 0.5)

    Raises:
        TypeError: if ``cond`` is not a bool or a node (a comparison's result).
    """
    if isinstance(cond, bool):
        if isinstance(x, _Arith) or isinstance(y, _Arith):
            # A node branch: a Where node even for a known condition, so the branch not
            # taken gets its zero gradient here as it does when jit compiles the choice
            # (a plain number here is a traced argument there): eager == compiled.
            known = Const(1.0 if cond else 0.0)
            return Where(known, _lifted(x), _lifted(y))
        return x if cond else y
    if not isinstance(cond, _Arith):
        raise TypeError(
            f"where() needs a comparison's result (a bool, or a node from lt/le/...), "
            f"got {type(cond).__name__}"
        )
    return Where(cond, _lifted(x), _lifted(y))


def _lifted(v: Scalar) -> Node:
    node = lift(v)
    if node is None:
        raise TypeError(f"expected numbers or nodes, got {type(v).__name__} {v!r:.40}")
    return node
