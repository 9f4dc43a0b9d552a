"""What users call on ``float | Node``: elementary functions and balanced reductions.

Each function returns the kind it is given: floats in, a float out (so one loss
function runs on plain numbers), a node in, a node out (so it runs under a
transform). The float path is the node's own forward rule, so both agree
bit for bit. Any other number is converted by the one rule (`to_float`: ints as
``float(i)``, beyond float range ``±inf``; other real numbers only when float64
holds them exactly) before anything else, so a result is exactly a `float` (or a
bool, for a comparison of numbers) whatever number came in, and equals what
`Leaf` and `jit` make of the same input. A float argument is tested first with
``type(x) is float``: the hot path pays one comparison for the rule.
"""

from __future__ import annotations

import math
import operator
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol, TypeAlias, cast, overload

from autograd.core.batching import BatchedList, Example, batch_sum, escape
from autograd.core.context import debug_sites
from autograd.core.convert import is_bool, to_float
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
    _const,
    _self,
    compare,
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


_repr = reprlib.Repr()
_repr.maxstring = _repr.maxother = 40


def _number(v: object, fn: str, what: str) -> float:
    """``v`` by the one rule (`to_float`), or its error naming ``what`` (an argument, an item)."""
    try:
        return to_float(v)
    except (TypeError, ValueError) as e:
        if isinstance(v, Example):  # an example of a batched vmap result: jit loops instead
            escape()
        error = ValueError if isinstance(e, ValueError) else TypeError
        raise error(f"{fn}: {what} is a {type(v).__name__} ({_repr.repr(v)}): {e}") from None


def _operand(v: object, fn: str, what: str) -> Node:
    """An input of ``fn`` beside a node: a node as it is, a number a `Const` of its `to_float`."""
    if isinstance(v, _Arith):
        return _self(v)
    return _const(v if type(v) is float else _number(v, fn, what))


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
    bit for bit; any other number is converted by `to_float` (``math`` would take
    an int exactly, or raise `OverflowError`, or keep a Decimal). Under
    `debug_nans`, a nan made from a non-nan float raises.
    """
    build, impl, op, name = BUILD1[cls], cls.impl, cls.__name__, cls.name

    def function(x: Scalar) -> Scalar:
        if isinstance(x, _Arith):
            return cast(Node, build(x))  # every op class is a member of Node
        if type(x) is not float:
            x = _number(x, name, "x")
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

    Two numbers give ``cls.impl``'s float of their `to_float`; if either is a
    node, the other becomes a `Const` as the operators lift it and the node is
    built, so both agree bit for bit. Under `debug_nans`, a nan made from
    non-nan floats raises.
    """
    build, impl, op, name = _build2(cls), cls.impl, cls.__name__, cls.name

    def function(x: Scalar, y: Scalar) -> Scalar:
        if isinstance(x, _Arith) or isinstance(y, _Arith):
            a, b = _operand(x, name, "x"), _operand(y, name, "y")
            return cast(Node, build(a, b))  # every op class is a member of Node
        if type(x) is not float:
            x = _number(x, name, "x")
        if type(y) is not float:
            y = _number(y, name, "y")
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
    order. An empty sum is ``0.0``. Items that are other numbers are converted
    first, each by the one rule (`to_float`), so ``sum([2**53, 1, 1])`` adds
    floats as ``jit`` does; a 1-d NumPy array is the sequence of its items.

    >>> sum([1.0, 2.0, 3.0])
    6.0

    Raises:
        TypeError: naming the item, for one that is neither a number nor a node
            (a list, a str, None, a complex or a bool); for a str, a mapping or a
            NumPy array that is not 1-d real numbers in place of the sequence.
        ValueError: naming the item, for a number float64 does not hold exactly.
    """
    if type(xs) is BatchedList:  # vmap's result in a batched jit trace: one node sums the batch
        return batch_sum(xs.node)
    return _sum(_items(xs, "sum", ""))


def _sum(items: list[Scalar]) -> Scalar:
    """`sum` of items that are floats and nodes only."""
    if not items:
        return 0.0
    if debug_sites.get() is not None:  # debug_nans(): a sum of two floats does not check itself
        _check_pairs(items, "Add")
    level = items
    while len(level) > 1:
        paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


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


def _items(xs: Iterable[Scalar], fn: str, arg: str) -> list[Scalar]:
    """A reduction's argument as a list of floats and nodes, other numbers by `to_float`.

    A list of floats, or of nodes, is returned as it is (never mutated): the
    test is a pass or two over the items' types in C, and a look at each distinct type.
    """
    t = type(xs)
    items: list[object] = (
        cast("list[object]", xs) if t is list else list(xs) if t is tuple else _listed(xs, fn, arg)
    )
    if list(map(type, items)).count(float) == len(items):  # the hot path: floats, ~13 ns each
        return cast("list[Scalar]", items)
    for kind in set(map(type, items)):
        if kind is not float and not issubclass(kind, _Arith):
            at = f" of {arg}" if arg else ""
            return [_item(v, fn, f"item {i}{at}") for i, v in enumerate(items)]
    return cast("list[Scalar]", items)


def _item(v: object, fn: str, what: str) -> Scalar:
    if type(v) is float or isinstance(v, _Arith):
        return v  # a float or a node, as tested
    return _number(v, fn, what)


def _listed(xs: object, fn: str, arg: str) -> list[object]:
    """The items of a reduction's argument that is not a list or a tuple, or why it is refused."""
    what = f"{arg} is" if arg else "its argument is"
    if isinstance(xs, str | bytes | Mapping):  # iterable, but not a sequence of numbers
        hint = ": pass its values, d.values()" if isinstance(xs, Mapping) else ""
        raise TypeError(f"{fn}: {what} a {type(xs).__name__}, not a sequence of numbers{hint}")
    if _is_numpy_array(xs):
        return _array_items(xs, fn, what)
    try:
        return list(cast("Iterable[object]", xs))
    except TypeError:  # not iterable (a number, a node): say what was expected
        raise TypeError(
            f"{fn}: {what} a {type(xs).__name__}, not a sequence of numbers or nodes"
        ) from None


def _is_numpy_array(xs: object) -> bool:
    # numpy is not a dependency, so it is never imported here: its array is known by name
    return any(c.__name__ == "ndarray" and c.__module__ == "numpy" for c in type(xs).__mro__)


def _array_items(xs: object, fn: str, what: str) -> list[object]:
    """A 1-d NumPy array of real numbers as its items: Python floats for a float dtype."""
    ndim, kind = getattr(xs, "ndim", None), getattr(getattr(xs, "dtype", None), "kind", None)
    if ndim != 1 or kind not in ("f", "i", "u"):
        dtype = getattr(xs, "dtype", "?")
        raise TypeError(
            f"{fn}: {what} a {ndim}-d NumPy array of {dtype}: pass a 1-d array of "
            "real numbers, or a sequence of numbers or nodes"
        )
    if kind == "f":  # float16/32/64 become Python floats exactly; longdouble stays itself
        return cast("list[object]", xs.tolist())  # type: ignore[attr-defined]  # an ndarray
    return list(cast("Iterable[object]", xs))  # NumPy ints: each one exact, or refused


@overload
def mean(xs: Sequence[float]) -> float: ...
@overload
def mean(xs: Sequence[Node]) -> Node: ...
@overload
def mean(xs: Sequence[Scalar]) -> Scalar: ...
def mean(xs: Sequence[Scalar]) -> Scalar:
    """Average: the balanced `sum` divided by ``len(xs)``; the mean of nothing is nan.

    Items are taken as `sum` takes them (a 1-d NumPy array included).

    >>> mean([1.0, 2.0, 4.0, 5.0])
    3.0

    Raises:
        TypeError: naming the item, as `sum`.
        ValueError: naming the item, as `sum`.
    """
    if type(xs) is BatchedList:  # vmap's result in a batched jit trace
        return batch_sum(xs.node) / len(xs) if xs else math.nan
    items = _items(xs, "mean", "")
    if not items:
        return math.nan  # as torch.mean and jnp.mean of an empty array
    return _sum(items) / len(items)  # torch.mean: one division (n >= 1, so never by zero)


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

    Items are taken as `sum` takes them (a 1-d NumPy array included).

    >>> dot([1.0, 2.0], [3.0, 4.0])
    11.0

    Raises:
        ValueError: if the lengths differ; naming the item, for a number
            float64 does not hold exactly.
        TypeError: naming the item and the argument (``xs`` or ``ys``), as `sum`.
    """
    a, b = _items(xs, "dot", "xs"), _items(ys, "dot", "ys")
    if len(a) != len(b):
        raise ValueError(f"dot() needs sequences of equal length, got {len(a)} and {len(b)}")
    if debug_sites.get() is not None:  # debug_nans(): a product of two floats does not check itself
        _check_pairs([v for pair in zip(a, b, strict=True) for v in pair], "Mul")
    return _sum([x * y for x, y in zip(a, b, strict=True)])


# --- choices on values that work under every transform and `jit` ---

Cond: TypeAlias = bool | Node
"""A comparison's result: a bool for two numbers, a `Compare` node when a node is compared."""


def _comparison(name: str, op: CompareOp, swap: bool, doc: str) -> Comparison:
    compare_floats = _COMPARE_FLOATS[name]

    def comparison(x: Scalar, y: Scalar) -> Cond:
        if type(x) is float and type(y) is float:
            return compare_floats(x, y)
        if isinstance(x, _Arith) or isinstance(y, _Arith):
            a, b = _operand(x, name, "x"), _operand(y, name, "y")
            result = compare(op, *((b, a) if swap else (a, b)))
            assert not isinstance(result, float | Sym), "two scalars compare to a bool or a node"
            return result
        # two numbers: their floats compared, as a node or jit compares them
        # (eq(2**53 + 1, 2**53) is True, lt(10**400, inf) False, on every path)
        return compare_floats(_number(x, name, "x"), _number(y, name, "y"))

    comparison.__name__ = comparison.__qualname__ = name
    comparison.__doc__ = doc
    return cast(Comparison, comparison)


_COMPARE_FLOATS: dict[str, Callable[[float, float], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,  # y < x, for IEEE floats (nan included)
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


class Comparison(Protocol):
    """The type of `lt`, `le`, `gt`, `ge`, `eq`, `ne`: a bool for numbers, a node for nodes."""

    @overload
    def __call__(self, x: float, y: float, /) -> bool: ...
    @overload
    def __call__(self, x: Scalar, y: Scalar, /) -> Cond: ...


_COMPARE_DOC = """``x {symbol} y`` as a value a transform and `jit` can branch on, through `where`.

    For two numbers it is a bool, comparing their floats (`to_float`: so
    ``eq(2**53 + 1, 2**53)`` is True, as for nodes and under `jit`). When a
    node is compared it is a `Compare` node (1.0 or 0.0), so
    ``where(cond, a, b)`` keeps the choice in the graph: ``jit`` tests it at
    run time, where a Python ``if`` on ``.value`` would be frozen, and ``==``
    between nodes tests identity (as dict keys need), never values.

    >>> {name}(1.0, 2.0)
    {answer}
    """
lt = _comparison("lt", "lt", False, _COMPARE_DOC.format(symbol="<", name="lt", answer="True"))
le = _comparison("le", "le", False, _COMPARE_DOC.format(symbol="<=", name="le", answer="True"))
gt = _comparison("gt", "lt", True, _COMPARE_DOC.format(symbol=">", name="gt", answer="False"))
ge = _comparison("ge", "le", True, _COMPARE_DOC.format(symbol=">=", name="ge", answer="False"))
eq = _comparison("eq", "eq", False, _COMPARE_DOC.format(symbol="==", name="eq", answer="False"))
ne = _comparison("ne", "ne", False, _COMPARE_DOC.format(symbol="!=", name="ne", answer="True"))


@overload
def where(cond: bool, x: float, y: float) -> float: ...
@overload
def where(cond: Cond, x: Scalar, y: Scalar) -> Scalar: ...
def where(cond: Cond, x: Scalar, y: Scalar) -> Scalar:
    """``x`` where ``cond`` holds, else ``y``, as ``jnp.where`` and ``torch.where``.

    A bool (Python's or NumPy's) chooses at once; numbers are converted by the
    one rule (`to_float`), both of them, so the result is a float whichever is
    chosen. A comparison node makes a `Where` node: its value
    is the chosen branch's, and ``jit`` compiles the choice as a run-time
    test. The branch not taken gets a zero gradient, as in PyTorch and JAX:
    if that branch's own derivative is infinite there, the gradient is nan
    (make its input safe with an inner ``where``; docs/numerics.md).

    >>> import autograd as ag
    >>> f = lambda x: ag.where(ag.gt(x, 0.0), x * x, 0.5 * x)
    >>> ag.grad(f)(3.0), ag.grad(f)(-3.0), ag.jit(ag.grad(f))(-3.0)
    (6.0, 0.5, 0.5)

    Raises:
        TypeError: if ``cond`` is not a bool or a node (a comparison's result);
            naming ``x`` or ``y``, if it is not a number or a node.
        ValueError: naming ``x`` or ``y``, for a number float64 does not hold exactly.
    """
    if type(cond) is bool or is_bool(cond):
        if type(x) is float and type(y) is float:
            return x if cond else y
        if isinstance(x, _Arith) or isinstance(y, _Arith):
            # A node branch: a Where node even for a known condition, so the branch not
            # taken gets its zero gradient here as it does when jit compiles the choice
            # (a plain number here is a traced argument there): eager == compiled.
            known = Const(1.0 if cond else 0.0)
            return Where(known, _operand(x, "where", "x"), _operand(y, "where", "y"))
        a, b = _number(x, "where", "x"), _number(y, "where", "y")
        return a if cond else b
    if not isinstance(cond, _Arith):
        raise TypeError(
            f"where() needs a comparison's result (a bool, or a node from lt/le/...), "
            f"got {type(cond).__name__} {_repr.repr(cond)}"
        )
    return Where(cond, _operand(x, "where", "x"), _operand(y, "where", "y"))
