"""The graph: `Leaf`, `Const` and one frozen class per op, each holding its rules.

Every op class carries its forward rule (the ``value`` default, computed when
the node is built) and its derivative rule (``vjp``). A rule is written once,
generic over the scalar type ``S``: the first-order sweep runs it on floats
(fast, nothing recorded); a sweep whose result will be differentiated again
runs it on nodes, so the derivative is itself a graph. Rules use only the
operations nodes have (``+``, ``*``, `divide`, `power`, ...), never Python's
``/`` on floats (it raises on zero) or ``math`` on ``.value``, so the two
instantiations give bit-identical numbers.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Self, SupportsIndex, TypeAlias, TypeVar, cast, final, overload

import attrs

from . import _pickling

_INF = math.inf
_NAN = math.nan
_Number = numbers.Number  # float, int, bool, complex, Fraction, Decimal, NumPy scalars


# --- float64 arithmetic that never raises (IEEE-754, as PyTorch's CPU kernels) ---


def int_to_float(i: int) -> float:
    """``float(i)``, with overflow to a signed infinity instead of ``OverflowError``."""
    try:
        return float(i)
    except OverflowError:
        return _INF if i > 0 else -_INF


def div_float(a: float, b: float) -> float:
    """IEEE ``a / b``: a zero divisor gives a signed infinity or nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0.0 or a != a:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def sqrt_float(x: float) -> float:
    """IEEE sqrt: ``sqrt(-0.0) == -0.0``, negative numbers give nan."""
    return math.sqrt(x) if x >= 0.0 or x != x else _NAN


def _is_odd_integer(y: float) -> bool:
    return y % 2.0 == 1.0  # false for inf/nan and for every float above 2**53


def pow_float(x: float, y: float) -> float:
    """C99/IEEE ``pow`` (PyTorch's tensor-exponent ``pow``), never raising.

    >>> pow_float(0.0, -1.0), pow_float(-8.0, 1 / 3), pow_float(-10.0, 401.0)
    (inf, nan, -inf)
    """
    try:
        return math.pow(x, y)
    except OverflowError:
        return -_INF if x < 0.0 and _is_odd_integer(y) else _INF
    except ValueError:
        if x == 0.0:  # zero to a negative power: the sign survives only for odd y
            return math.copysign(_INF, x) if _is_odd_integer(y) else _INF
        return _NAN  # negative base, non-integer exponent: no complex results


def pow_scalar_float(x: float, c: float) -> float:
    """``x ** c`` for a constant exponent, as PyTorch's ``pow(Tensor, Scalar)``.

    PyTorch evaluates these exponents with cheaper, differently rounded
    formulas (``x*x*x``, ``1/sqrt(x)``); matching them keeps our values bitwise
    equal to PyTorch's and gives its special values (``(-0.0) ** 0.5 == -0.0``).
    """
    if c == 2.0:
        return x * x
    if c == 3.0:
        return x * x * x
    if c == 0.5:
        return sqrt_float(x)
    if c == -1.0:
        return div_float(1.0, x)
    if c == -2.0:
        return div_float(1.0, x * x)
    if c == -0.5:
        return div_float(1.0, sqrt_float(x))
    return pow_float(x, c)


def exp_float(x: float) -> float:
    """``e ** x``: overflow gives ``inf``."""
    try:
        return math.exp(x)
    except OverflowError:
        return _INF if x > 0.0 else 0.0  # x < 0 only for an int beyond float range


def as_float(x: float) -> float:
    """A public function's float argument: an ``int`` as `int_to_float` makes it.

    ``math`` converts ints itself but raises `OverflowError` beyond float range
    (``math.tanh(10**400)``) or keeps their exactness (``math.log(10**400)`` is
    finite, where ``log(Leaf(10**400))`` is ``log(inf)``); callers test
    ``type(x) is float`` first, so floats pay one comparison.
    """
    return int_to_float(x) if isinstance(x, int) else x


def log_float(x: float) -> float:
    """Natural log: ``log(±0.0) == -inf``, negative numbers give nan."""
    if x > 0.0:
        return math.log(x)
    return -_INF if x == 0.0 else _NAN


def sigmoid_float(x: float) -> float:
    """``1 / (1 + exp(-x))``, PyTorch's formula: no overflow, a few ulps."""
    return 1.0 / (1.0 + exp_float(-x))  # the divisor is >= 1 or nan: never zero


def relu_float(x: float) -> float:
    """``max(x, 0)`` keeping nan and ``-0.0``, as ``torch.relu``."""
    return 0.0 if x < 0.0 else x


def produced_nan(node: object) -> None:
    """Called by a forward rule whose result is nan: report it under `debug_nans`."""
    from ._debug import forward_nan  # lazy: _debug imports this module; only reached on nan

    forward_nan(node)


# --- the nodes ---


class _Arith:
    """Operator sugar shared by every node class; holds no data."""

    __slots__ = ()
    __array_ufunc__ = None  # numpy scalars on the left defer to our reflected operators

    # The hot paths: a node operand skips `lift`, and nodes are built by `_build`.
    def __add__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _add(self, y)

    def __radd__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _add(x, self)

    def __sub__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _add(self, _mul(y, MINUS_ONE))

    def __rsub__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _add(x, _mul(self, MINUS_ONE))

    def __mul__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _mul(self, y)

    def __rmul__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _mul(x, self)

    # One IEEE division, as torch.div: `x * (1 / y)` rounds twice, and `1 / y`
    # overflows for a subnormal y (then 0 / 1e-310 would be nan, not 0).
    def __truediv__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _div(self, y)

    def __rtruediv__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _div(x, self)

    def __pow__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _pow(self, y)

    def __rpow__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _pow(x, self)

    def __neg__(self) -> Node:
        return _mul(self, MINUS_ONE)

    def __pos__(self) -> Node:
        return _self(self)

    # A node is immutable and *is* its variable: a copy is the node itself, so a
    # copied parameter keeps its gradient (JAX treats a copy as the identity).
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[object, ...]:
        # pickle's default recursion goes one C frame set per node: walk the graph instead
        return _pickling.reduce_node(self, protocol, _inputs)

    if not TYPE_CHECKING:  # hidden from mypy, so `node < 1` and `float(node)` stay type errors

        def _refuse(self, *_: object) -> bool:
            raise TypeError(
                f"{self!r} is a graph node, not a number: compare or convert its "
                "`.value`, and use autograd.exp/log/tanh/... instead of math.*"
            )

        __bool__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
        __float__ = __int__ = __index__ = __complex__ = __round__ = _refuse

        # Between two nodes `==` is identity (two leaves are two variables), as dict keys
        # need. Against a number it would be an identity test too, always False: the
        # other branch of `0.0 if x == 0.0 else x` taken silently under a transform.
        def __eq__(self, other: object) -> bool:
            if isinstance(other, _Number):
                self._refuse()
            return self is other

        def __ne__(self, other: object) -> bool:
            if isinstance(other, _Number):
                self._refuse()
            return self is not other

        __hash__ = object.__hash__


def _inputs(node: _Arith) -> tuple[_Arith, ...]:
    """A node's inputs, for any node class: its fields that take nodes, in order."""
    get = _input_getters.get(type(node))
    if get is None:  # first use of the class: its fields with the `_input` converter
        fields = attrs.fields(type(node))  # type: ignore[arg-type]  # every _Arith is attrs
        names = [f.name for f in fields if f.converter is _input]
        get = _input_getters[type(node)] = _getter(names)
    return get(node)


def _getter(names: list[str]) -> Callable[[_Arith], tuple[_Arith, ...]]:
    if not names:
        return lambda node: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda node: (one(node),)
    return operator.attrgetter(*names)


_input_getters: dict[type, Callable[[_Arith], tuple[_Arith, ...]]] = {}


def _self(node: _Arith) -> Node:
    # Every subclass of _Arith is a member of the closed union `Node`
    # (tests/test_nodes.py checks this against get_args(Node)).
    return cast("Node", node)


def lift(v: object) -> Node | None:
    """A node for an operand: nodes as they are, numbers as `Const`, else None.

    Raises:
        ValueError: for a real number float64 does not hold exactly (`to_float`):
            ``node + Fraction(1, 3)`` would otherwise round silently.
    """
    t = type(v)
    if t is float:
        return _const(v)  # type: ignore[arg-type]  # mypy does not narrow on `type(v) is`
    if isinstance(v, _Arith):
        return _self(v)
    if t is int:
        return _const(int_to_float(cast(int, v)))
    if isinstance(v, float):  # numpy.float64 and other float subclasses
        return _const(float(v))
    if isinstance(v, int) and not isinstance(v, bool):
        return _const(int_to_float(v))
    try:  # the rare operands: NumPy scalars, Fraction, Decimal, bool, complex
        return _const(to_float(v))
    except TypeError:  # Python then tries the other operand, and says "unsupported operand"
        return None
    except ValueError as e:
        raise ValueError(f"an operand {type(v).__name__} {v!r:.60}: {e}") from None


class NotANumber(TypeError):
    """Raised by `to_float` for an object that is not a number at all."""


def _is_numpy_bool(v: object) -> bool:
    t = type(v)  # duck typing: numpy is not a dependency, so it is never imported here
    return t.__module__ == "numpy" and t.__name__ in ("bool", "bool_")


def to_float(v: object) -> float:
    """``v`` as the float64 it equals: the one place a number becomes a float.

    Floats and ints as always (ints beyond float64 overflow to a signed
    infinity); other real numbers (NumPy scalars, `fractions.Fraction`,
    `decimal.Decimal`) only when float64 holds them exactly, so a rounding
    never happens behind the user's back.

    Raises:
        TypeError: the reason, for a bool, a complex number or a string;
            `NotANumber` for anything else that is not a number.
        ValueError: the reason, for a real number float64 does not hold.

    >>> from fractions import Fraction
    >>> to_float(Fraction(1, 2)), to_float(10**400)
    (0.5, inf)
    >>> to_float(Fraction(1, 3))
    Traceback (most recent call last):
    ...
    ValueError: float64 cannot hold it exactly (the nearest float is 0.3333333333333333): ...
    """
    if isinstance(v, bool) or _is_numpy_bool(v):
        raise TypeError("booleans are not differentiable; pass 1.0 or 0.0")
    if isinstance(v, float):
        return float(v)
    if isinstance(v, int | numbers.Integral):  # numpy.int64 is Integral, not an int
        return int_to_float(operator.index(v))
    if isinstance(v, complex | numbers.Complex) and not isinstance(v, numbers.Real):
        raise TypeError("only real numbers are differentiable")
    if isinstance(v, str):
        raise TypeError("strings are not numbers; convert with float()")
    if not isinstance(v, numbers.Number):
        raise NotANumber(f"{type(v).__name__} is not a number")
    return _exact_float(v)


def _exact_float(v: numbers.Number) -> float:
    try:
        f = float(v)  # type: ignore[arg-type]  # Number does not declare __float__
        x: object = v  # Number declares no comparisons; every real number has them
        exact = bool(f == x or (f != f and x != x))  # nan stays nan; numpy returns its own bool
    except (TypeError, ValueError, ArithmeticError) as e:  # Decimal('sNaN'), Fraction(10**400)
        raise ValueError(f"it has no float64 value ({e})") from None
    if not exact:
        raise ValueError(
            f"float64 cannot hold it exactly (the nearest float is {f!r}): "
            "pass float(...) yourself if that rounding is intended"
        )
    return f


def _as_float(v: float) -> float:
    """Normalise a `Leaf`/`Const` value to a plain float; refuse non-numbers."""
    if type(v) is float:
        return v
    try:
        return to_float(v)
    except TypeError:
        raise TypeError(
            f"a node value must be a float or an int, got {type(v).__name__} {v!r:.60}"
        ) from None
    except ValueError as e:
        raise ValueError(f"a node value of {type(v).__name__} {v!r:.60}: {e}") from None


def _check_input(v: Node, self: object, field: attrs.Attribute[Node]) -> Node:
    # The signature says Node, but a direct `Add(1.0, 2.0)` is untyped user code.
    if not isinstance(cast(object, v), _Arith):
        raise TypeError(
            f"{type(self).__name__}({field.name}=...) needs a node, got {type(v).__name__} "
            f"{v!r:.60}: wrap numbers in Const(...), or use the operators (node + 1.0), "
            "which lift them"
        )
    return v


# The converter of every op's input fields: it names the class and field of a
# non-node. Only a direct ``Add(x, y)`` runs it; the operators' fast builders
# take nodes they lifted. mypy's attrs plugin reads only named functions as
# converters, so it is shown one with the same types (the __init__ takes Node).
if TYPE_CHECKING:

    def _input(v: Node) -> Node: ...

else:
    _input = attrs.Converter(_check_input, takes_self=True, takes_field=True)


S = TypeVar("S", float, "Scalar")
"""The scalar a rule computes with: float in a first-order sweep, `Scalar` in one
that is differentiated again."""


@final
@attrs.frozen(eq=False)
class Leaf(_Arith):
    """An input variable: ``Leaf(2.0)``. Two leaves are two variables."""

    value: float = attrs.field(converter=_as_float)
    name: str | None = attrs.field(default=None, kw_only=True, repr=False)

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[()]:
        return ()

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        return None  # no inputs: a zero tangent unless a transform seeds this node


@final
@attrs.frozen(eq=False)
class Const(_Arith):
    """A constant: a number folded into the graph, or a `stop_gradient` result."""

    value: float = attrs.field(converter=_as_float)

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[()]:
        return ()

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        return None  # no inputs: a zero tangent unless a transform seeds this node


@final
@attrs.frozen(eq=False)
class Add(_Arith):
    """x + y; derivatives 1 and 1."""

    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = self.x.value + self.y.value
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S, S]:
        return g, g

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx, dy = t.get(self.x), t.get(self.y)
        return dy if dx is None else dx if dy is None else dx + dy


@final
@attrs.frozen(eq=False)
class Mul(_Arith):
    """x * y; derivatives y and x."""

    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = self.x.value * self.y.value
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S, S]:
        return g * p(self.y), g * p(self.x)

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx, dy = t.get(self.x), t.get(self.y)
        tx = None if dx is None else dx * p(self.y)
        ty = None if dy is None else dy * p(self.x)
        return ty if tx is None else tx if ty is None else tx + ty


@final
@attrs.frozen(eq=False)
class Div(_Arith):
    """x / y, one IEEE division; derivatives 1/y and -(x/y)/y, in PyTorch's order.

    torch's ``div_tensor_self_backward`` is ``g / y`` and ``div_tensor_other_backward``
    is ``-g * ((x / y) / y)``: two divisions, never ``y * y`` (which overflows for
    ``|y| > 1.34e154``, where ``-(x / y) / y`` is still finite).
    """

    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = div_float(self.x.value, self.y.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S, S]:
        y = p(self.y)
        return divide(g, y), -g * divide(p(self), y)  # x / y is this node's own value

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx, dy = t.get(self.x), t.get(self.y)
        if dy is None:
            return None if dx is None else divide(dx, p(self.y))
        # torch's forward formula for div.Tensor: (dx - dy * result) / y
        ty = dy * p(self)
        return divide(-ty if dx is None else dx - ty, p(self.y))


@final
@attrs.frozen(eq=False)
class Pow(_Arith):
    """x ** y; derivatives y * x**(y-1) and x**y * log(x), PyTorch's special cases.

    A `Const` exponent takes PyTorch's scalar-exponent path (``x ** 0.5`` is
    ``sqrt``); a node exponent is C's ``pow``.
    """

    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        if type(self.y) is Const:
            v = pow_scalar_float(self.x.value, self.y.value)
        else:
            v = pow_float(self.x.value, self.y.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S, S]:
        y = self.y.value
        if type(self.y) is Const:
            # torch pow_backward: zero for exponent 0 (even at x = 0 or nan)
            gx = g * (y * power(p(self.x), y - 1.0)) if y != 0.0 else 0.0
            return gx, 0.0
        # torch pow_backward_self / pow_backward_exponent, with their masks
        gx = g * (p(self.y) * power_var(p(self.x), p(self.y) + -1.0)) if y != 0.0 else 0.0
        masked = self.x.value == 0.0 and y >= 0.0
        # torch multiplies the mask's 0 by g: -0.0 for a negative g, nan for an infinite one
        gy = g * 0.0 if masked else g * (p(self) * log(p(self.x)))
        return gx, gy

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx, dy = t.get(self.x), t.get(self.y)
        # The backward formulas applied to the tangents, with the same masks. A
        # mask that drops g in `vjp` (exponent 0) gives no tangent at all, not a
        # 0.0: reverse mode never multiplies the dropped g by anything, so neither
        # may forward mode (at (-2, 0) a 0.0 here meets log(-2) downstream and
        # becomes nan, where reverse gives torch's -0.5).
        y = self.y.value
        const = type(self.y) is Const
        tx: S | None = None
        if dx is not None and y != 0.0:
            if const:
                tx = dx * (y * power(p(self.x), y - 1.0))
            else:
                tx = dx * (p(self.y) * power_var(p(self.x), p(self.y) + -1.0))
        ty: S | None = None
        if dy is not None and not const:
            masked = self.x.value == 0.0 and y >= 0.0
            ty = dy * 0.0 if masked else dy * (p(self) * log(p(self.x)))  # vjp's `g * 0.0`
        return ty if tx is None else tx if ty is None else tx + ty


@final
@attrs.frozen(eq=False)
class Exp(_Arith):
    """exp(x); derivative exp(x), taken from the output."""

    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = exp_float(self.x.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S]:
        return (g * p(self),)

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx = t.get(self.x)
        return None if dx is None else dx * p(self)


@final
@attrs.frozen(eq=False)
class Log(_Arith):
    """log(x); derivative 1/x (``log(0) == -inf``, negative x gives nan)."""

    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = log_float(self.x.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S]:
        return (divide(g, p(self.x)),)  # torch: grad / self

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx = t.get(self.x)
        return None if dx is None else divide(dx, p(self.x))


@final
@attrs.frozen(eq=False)
class Tanh(_Arith):
    """tanh(x); derivative 1 - y*y with y = tanh(x) (see `tanh_slope`), exactly 0 once saturated."""

    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = math.tanh(self.x.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S]:
        return (g * tanh_slope(p(self), self.value),)

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx = t.get(self.x)
        return None if dx is None else dx * tanh_slope(p(self), self.value)


@final
@attrs.frozen(eq=False)
class Relu(_Arith):
    """max(x, 0); derivative 0 where the output is <= 0 (so relu'(0) == 0), else 1."""

    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = relu_float(self.x.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S]:
        # torch threshold_backward: nan passes the gradient through (nan <= 0 is false)
        return (0.0 if self.value <= 0.0 else g,)

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx = t.get(self.x)  # an absent tangent is zero
        # torch: relu's forward formula is threshold_backward(dx, result, 0), the same mask
        return dx if dx is None or not self.value <= 0.0 else 0.0


@final
@attrs.frozen(eq=False)
class Sigmoid(_Arith):
    """1 / (1 + exp(-x)); derivative s * (1 - s) from the output s (tanh'(x/2)/4 near 0)."""

    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False)

    @value.default
    def _forward(self) -> float:
        v = sigmoid_float(self.x.value)
        if v != v:
            produced_nan(self)
        return v

    def vjp(self, g: S, p: Callable[[Node], S]) -> tuple[S]:
        if 0.0 < abs(self.x.value) < 0.5:  # at 0: torch's form, for its +0.0 sigmoid''
            return (g * sigmoid_slope_near_zero(p(self.x)),)
        s = p(self)
        return (g * (1.0 - s) * s,)  # torch sigmoid_backward's order of operations

    def jvp(self, t: Mapping[Node, S], p: Callable[[Node], S]) -> S | None:
        dx = t.get(self.x)
        if dx is None:
            return None
        if 0.0 < abs(self.x.value) < 0.5:  # at 0: torch's form, for its +0.0 sigmoid''
            return dx * sigmoid_slope_near_zero(p(self.x))
        s = p(self)
        return dx * (1.0 - s) * s


Node: TypeAlias = Leaf | Const | Add | Mul | Div | Pow | Exp | Log | Tanh | Relu | Sigmoid
"""The closed union of node classes: `match` on it is checked for exhaustiveness."""

Scalar: TypeAlias = float | Node
"""What ops and loss functions take and return: a plain number or a node."""


# --- fast construction ---
# `Add(x, y)` runs attrs' generated __init__, which sets each field through
# `object.__setattr__` and then calls the `value` default. The operators build
# the same objects with the fields' own slot setters and the class's own
# `_forward`: the same node, about a third cheaper (see bench/README.md).
_new = object.__new__
on_build: Callable[[_Arith], None] | None = None
"""Set by `debug_nans()` while a block is open, to record where ops are built."""
_B = TypeVar("_B", Add, Mul, Div, Pow)
_U = TypeVar("_U", Exp, Log, Tanh, Relu, Sigmoid)


def _build2(cls: type[_B]) -> Callable[[_Arith, _Arith], _B]:
    set_x, set_y = _slot_setter(cls, "x"), _slot_setter(cls, "y")
    set_value, forward = _slot_setter(cls, "value"), cls._forward

    def build(x: _Arith, y: _Arith) -> _B:  # every _Arith is a Node
        node = _new(cls)
        set_x(node, x)
        set_y(node, y)
        set_value(node, forward(node))
        if on_build is not None:
            on_build(node)
        return node

    return build


def _build1(cls: type[_U]) -> Callable[[_Arith], _U]:
    set_x, set_value, forward = _slot_setter(cls, "x"), _slot_setter(cls, "value"), cls._forward

    def build(x: _Arith) -> _U:
        node = _new(cls)
        set_x(node, x)
        set_value(node, forward(node))
        if on_build is not None:
            on_build(node)
        return node

    return build


def _const(value: float) -> Const:
    """``Const(value)`` for a value that is already a plain float (no converter to run)."""
    node = _new(Const)
    _set_const_value(node, value)
    return node


def _slot_setter(cls: type, name: str) -> Callable[[object, object], None]:
    setter: Callable[[object, object], None] = cls.__dict__[name].__set__  # attrs slots=True
    return setter


_set_const_value = _slot_setter(Const, "value")
_add, _mul, _div, _pow = _build2(Add), _build2(Mul), _build2(Div), _build2(Pow)
_exp, _log, _tanh = _build1(Exp), _build1(Log), _build1(Tanh)
_relu, _sigmoid = _build1(Relu), _build1(Sigmoid)

MINUS_ONE = Const(-1.0)  # shared by every `-x` and `x - y`: nodes are immutable
VARIABLE_ONE = Const(1.0)
"""A transform's variable for a node it is given is ``Mul(node, VARIABLE_ONE)``: `jit` reads
this mark to know the variable is a node in the eager call, whatever its input is."""


@overload
def power(x: float, c: float) -> float: ...
@overload
def power(x: Scalar, c: float) -> Scalar: ...
def power(x: Scalar, c: float) -> Scalar:
    """``x ** c`` for a constant ``c`` inside a rule: floats give the `Pow` node's value."""
    return _pow(x, Const(c)) if isinstance(x, _Arith) else pow_scalar_float(x, c)


@overload
def power_var(x: float, y: float) -> float: ...
@overload
def power_var(x: Scalar, y: Scalar) -> Scalar: ...
def power_var(x: Scalar, y: Scalar) -> Scalar:
    """``x ** y`` for a variable exponent inside a rule (C ``pow``, not the scalar path)."""
    if isinstance(x, _Arith) or isinstance(y, _Arith):
        return _pow(_lift_scalar(x), _lift_scalar(y))
    return pow_float(x, y)


@overload
def divide(x: float, y: float) -> float: ...
@overload
def divide(x: Scalar, y: Scalar) -> Scalar: ...
def divide(x: Scalar, y: Scalar) -> Scalar:
    """``x / y`` inside a rule: IEEE division on floats, a `Div` node otherwise."""
    if isinstance(x, _Arith) or isinstance(y, _Arith):
        return _div(_lift_scalar(x), _lift_scalar(y))
    return div_float(x, y)


@overload
def log(x: float) -> float: ...
@overload
def log(x: Node) -> Node: ...
@overload
def log(x: Scalar) -> Scalar: ...
def log(x: Scalar) -> Scalar:
    """Natural logarithm of a float or a node (IEEE: ``log(0.0) == -inf``)."""
    if isinstance(x, _Arith):
        return _log(x)
    return log_float(x if type(x) is float else as_float(x))


@overload
def tanh_slope(y: float, v: float) -> float: ...
@overload
def tanh_slope(y: Scalar, v: float) -> Scalar: ...
def tanh_slope(y: Scalar, v: float) -> Scalar:
    """The derivative of tanh from its output ``y`` (value ``v``), in a form chosen by ``v``.

    torch computes ``1 - y*y`` with one rounding (a fused multiply-add). Two
    roundings lose up to 3e7 ulps of it near saturation, where ``(1 - y)(1 + y)``
    stays within 1 ulp; but differentiated, ``(1 - y)(1 + y)`` gives
    ``(1 - y) - (1 + y)``, which cancels near 0 (tanh''(1e-12) was
    -2.00007e-12, and 0.0 below 1e-16), where ``1 - y*y`` gives ``-2y`` exactly.
    For ``|y| < 0.5`` both forms are within 1 ulp of the fused one.
    """
    return 1.0 - y * y if -0.5 < v < 0.5 else (1.0 - y) * (1.0 + y)


@overload
def sigmoid_slope_near_zero(x: float) -> float: ...
@overload
def sigmoid_slope_near_zero(x: Scalar) -> Scalar: ...
def sigmoid_slope_near_zero(x: Scalar) -> Scalar:
    """sigmoid'(x) for ``|x| < 0.5``, as ``tanh'(x / 2) / 4``.

    torch's ``s * (1 - s)`` differentiates to ``1 - 2s``, which cancels near 0:
    sigmoid''(1e-12) is -1.25011e-13 there (exact: -1.25e-13), 27 ulps off at
    0.1 and 8 at 0.25. This form's derivative has no cancellation; its value is
    within 1 ulp of the exact one, and so within 2 ulps of torch's.
    """
    t = _tanh(x * 0.5) if isinstance(x, _Arith) else math.tanh(x * 0.5)
    return 0.25 * (1.0 - t * t)


def _lift_scalar(v: Scalar) -> Node:
    node = lift(v)
    assert node is not None, "rules only combine floats and nodes"
    return node
