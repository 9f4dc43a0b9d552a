"""The arithmetic ops and the first functions: `Add`, `Mul`, `Div`, `Pow`, `Exp`, `Log`, ...

One frozen class per op, holding its forward (``impl`` or ``infix``) and its
derivative rule (``vjp``, written once over the scalar ``S`` with the
vocabulary of `autograd.core.rules`); `define` derives the rest. The order of
definition (this module, then `autograd.core.more_ops`) is `OPS`'s order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, final

import attrs

from autograd.core.base import Const, Op, Primal, S, _forwarded, _input, produced_nan
from autograd.core.context import trace_state
from autograd.core.define import define
from autograd.core.floats import (
    abs_float,
    cos_float,
    div_float,
    exp_float,
    log_float,
    pow_float,
    pow_scalar_float,
    relu_float,
    sigmoid_float,
    sin_float,
    sqrt_float,
)
from autograd.core.rules import (
    _pow_is_scalar_path,
    apply,
    both,
    constant,
    divide,
    eq,
    le,
    log,
    lt,
    ne,
    plain_in_eager,
    pow_scalar_source,
    power,
    power_var,
    sigmoid_slope_near_zero,
    tanh_slope,
    where,
)
from autograd.core.sym import Sym, call

if TYPE_CHECKING:
    from autograd.core.nodes import Node


@final
@define
@attrs.frozen(eq=False)
class Add(Op):
    """x + y; derivatives 1 and 1."""

    name = "add"
    label = "+"
    infix = "+"
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return g, g


@final
@define
@attrs.frozen(eq=False)
class Mul(Op):
    """x * y; derivatives y and x."""

    name = "mul"
    label = "*"
    infix = "*"
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return g * p(self.y), g * p(self.x)


@final
@define
@attrs.frozen(eq=False)
class Div(Op):
    """x / y, one IEEE division; derivatives 1/y and -(x/y)/y, in PyTorch's order.

    torch's ``div_tensor_self_backward`` is ``g / y`` and ``div_tensor_other_backward``
    is ``-g * ((x / y) / y)``: two divisions, never ``y * y`` (which overflows for
    ``|y| > 1.34e154``, where ``-(x / y) / y`` is still finite).
    """

    name = "div"
    label = "/"
    impl = div_float
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        y = p(self.y)
        return divide(g, y), -g * divide(p(self), y)  # x / y is this node's own value


@final
@define
@attrs.frozen(eq=False)
class Pow(Op):
    """x ** y; derivatives y * x**(y-1) and x**y * log(x), PyTorch's special cases.

    A `Const` exponent takes PyTorch's scalar-exponent path (``x ** 0.5`` is
    ``sqrt``); a node exponent is C's ``pow``. torch's ``pow_backward`` masks:
    no gradient for exponent 0 (even at x = 0 or nan), and none for the
    exponent where the base is 0 and the exponent >= 0 (its 0 times g: -0.0 for
    a negative g, nan for an infinite one).
    """

    name = "pow"
    label = "**"
    impl = pow_float
    const_variant = 1
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def _forward(self) -> float:
        x, y = self.x, self.y
        # `_pow_is_scalar_path`'s common case first, inline: a constant exponent, no trace
        if (type(y) is Const and type(x) is not Const and trace_state.get() is None) or (
            _pow_is_scalar_path(x, y)
        ):
            v = pow_scalar_float(x.value, y.value)
        else:
            v = pow_float(x.value, y.value)
        if v != v:
            produced_nan(self)
        return v

    def float_source(self, xs: Sequence[Sym]) -> Sym:
        return call(pow_float, *xs)  # a ** b of two plain numbers: no scalar-exponent path

    def forward_source(self, xs: Sequence[Sym]) -> Sym:
        if type(self.y) is not Const:
            return call(pow_float, *xs)
        return pow_scalar_source(xs[0], xs[1])

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        x, y = p(self.x), p(self.y)
        if type(self.y) is Const or plain_in_eager(self.y):  # structure: the scalar path
            c = constant(y)
            return where(ne(c, 0.0), g * (c * power(x, c - 1.0)), 0.0), None
        # Each mask also makes its unselected branch's base safe (1.0, as JAX's pow does
        # before its log): that branch then has finite derivatives of every order where it
        # is masked, so its zero cotangent stays zero in a second derivative instead of
        # meeting log'(0) or 0 ** -1 and making nan (PyTorch's double backward does:
        # d2/dy2 0.0 ** y is nan there, its issue 95180). Where a branch is selected its
        # base is x itself, so first derivatives keep their bits.
        live = ne(y, 0.0)
        gx = where(live, g * (y * power_var(where(live, x, 1.0), y + -1.0)), 0.0)
        zero_base = both(eq(x, 0.0), le(0.0, y))
        slope = g * (p(self) * log(where(zero_base, 1.0, x)))
        gy = where(zero_base, g * 0.0, slope)
        return gx, gy


@final
@define
@attrs.frozen(eq=False)
class Exp(Op):
    """exp(x); derivative exp(x), taken from the output."""

    name = "exp"
    label = "exp"
    impl = exp_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * p(self),)


@final
@define
@attrs.frozen(eq=False)
class Log(Op):
    """log(x); derivative 1/x (``log(0) == -inf``, negative x gives nan)."""

    name = "log"
    label = "log"
    impl = log_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (divide(g, p(self.x)),)  # torch: grad / self


@final
@define
@attrs.frozen(eq=False)
class Sqrt(Op):
    """sqrt(x); derivative 1 / (2 sqrt(x)), from the output as torch (``sqrt'(0) == inf``)."""

    name = "sqrt"
    label = "sqrt"
    impl = sqrt_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (divide(g, 2.0 * p(self)),)  # torch: grad / (2 * result)


@final
@define
@attrs.frozen(eq=False)
class Abs(Op):
    """|x|; derivative sgn(x), with ``abs'(0) == abs'(nan) == 0`` as torch's ``sgn``."""

    name = "abs"
    label = "abs"
    impl = abs_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        x = p(self.x)
        return (g * where(lt(0.0, x), 1.0, where(lt(x, 0.0), -1.0, 0.0)),)


@final
@define
@attrs.frozen(eq=False)
class Sin(Op):
    """sin(x); derivative cos(x). ``sin(inf)`` is nan."""

    name = "sin"
    label = "sin"
    impl = sin_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * apply(Cos, p(self.x)),)  # torch: grad * self.cos()


@final
@define
@attrs.frozen(eq=False)
class Cos(Op):
    """cos(x); derivative -sin(x). ``cos(inf)`` is nan."""

    name = "cos"
    label = "cos"
    impl = cos_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * -apply(Sin, p(self.x)),)  # torch: grad * -self.sin()


@final
@define
@attrs.frozen(eq=False)
class Tanh(Op):
    """tanh(x); derivative 1 - y*y with y = tanh(x) (see `tanh_slope`), exactly 0 once saturated."""

    name = "tanh"
    label = "tanh"
    impl = math.tanh
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * tanh_slope(p(self)),)


@final
@define
@attrs.frozen(eq=False)
class Relu(Op):
    """max(x, 0); derivative 0 where the output is <= 0 (so relu'(0) == 0), else 1."""

    name = "relu"
    label = "relu"
    impl = relu_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        # torch threshold_backward: nan passes the gradient through (nan <= 0 is false)
        return (where(le(p(self), 0.0), 0.0, g),)


@final
@define
@attrs.frozen(eq=False)
class Sigmoid(Op):
    """1 / (1 + exp(-x)); derivative s * (1 - s) from the output s (tanh'(x/2)/4 near 0)."""

    name = "sigmoid"
    label = "sigmoid"
    impl = sigmoid_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        x, s = p(self.x), p(self)
        near = both(
            ne(x, 0.0), both(lt(-0.5, x), lt(x, 0.5))
        )  # at 0: torch's form, its +0.0 sigmoid''
        far = g * (1.0 - s) * s  # torch sigmoid_backward's order of operations
        return (where(near, g * sigmoid_slope_near_zero(x), far),)


# --- issue 14's ops (NumPy names; PyTorch's in each docstring) ---
