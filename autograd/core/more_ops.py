"""The other ops: trigonometric and hyperbolic functions, `Sign`, `Hypot`, `Maximum`, ...

Defined as in `autograd.core.ops`, after it. `Compare` and `Where` are the ops a
rule's choice on values builds (`autograd.core.rules.where`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, final

import attrs

from autograd.core.base import Op, Primal, S, _forwarded, _input
from autograd.core.define import define
from autograd.core.floats import (
    arccos_float,
    arcsin_float,
    arctan2_float,
    arctan_float,
    cosh_float,
    exp2_float,
    expm1_float,
    hypot_float,
    log1p_float,
    log2_float,
    log10_float,
    maximum_float,
    minimum_float,
    sign_float,
    sinh_float,
    tan_float,
)
from autograd.core.ops import Sqrt
from autograd.core.rules import (
    _COMPARISONS,
    CompareOp,
    apply,
    divide,
    eq,
    lt,
    where,
)
from autograd.core.sym import Sym, infix, select

if TYPE_CHECKING:
    from autograd.core.nodes import Node

LN2 = 0.6931471805599453
"""ln 2, as PyTorch's ``exp2`` and ``log2`` derivatives write it."""
LN10 = 2.3025850929940456
"""ln 10 as PyTorch's ``log10`` derivative writes it: the float 1 ulp below the nearest to ln 10."""


@final
@define
@attrs.frozen(eq=False)
class Tan(Op):
    """tan(x) (torch.tan); derivative 1 + y*y from the output y. ``tan(inf)`` is nan."""

    name = "tan"
    label = "tan"
    impl = tan_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        y = p(self)
        return (g * (1.0 + y * y),)  # torch: grad * (1 + result.pow(2))


@final
@define
@attrs.frozen(eq=False)
class Sinh(Op):
    """sinh(x) (torch.sinh); derivative cosh(x)."""

    name = "sinh"
    label = "sinh"
    impl = sinh_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * apply(Cosh, p(self.x)),)  # torch: grad * self.cosh()


@final
@define
@attrs.frozen(eq=False)
class Cosh(Op):
    """cosh(x) (torch.cosh); derivative sinh(x)."""

    name = "cosh"
    label = "cosh"
    impl = cosh_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * apply(Sinh, p(self.x)),)  # torch: grad * self.sinh()


@final
@define
@attrs.frozen(eq=False)
class Arcsin(Op):
    """asin(x) (torch.asin, torch.arcsin); derivative 1 / sqrt(1 - x*x): ``inf`` at ±1."""

    name = "arcsin"
    label = "arcsin"
    impl = arcsin_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        x = p(self.x)
        # torch: grad * (-self * self + 1).rsqrt(); rsqrt(v) is 1 / sqrt(v) (nan for v < 0)
        return (g * divide(1.0, apply(Sqrt, 1.0 - x * x)),)


@final
@define
@attrs.frozen(eq=False)
class Arccos(Op):
    """acos(x) (torch.acos, torch.arccos); derivative -1 / sqrt(1 - x*x): ``-inf`` at ±1."""

    name = "arccos"
    label = "arccos"
    impl = arccos_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        x = p(self.x)
        # torch: grad * -((-self * self + 1).rsqrt())
        return (g * -divide(1.0, apply(Sqrt, 1.0 - x * x)),)


@final
@define
@attrs.frozen(eq=False)
class Arctan(Op):
    """atan(x) (torch.atan, torch.arctan); derivative 1 / (x*x + 1)."""

    name = "arctan"
    label = "arctan"
    impl = arctan_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        x = p(self.x)
        return (divide(g, x * x + 1.0),)  # torch: grad / (self * self + 1)


@final
@define
@attrs.frozen(eq=False)
class Log1p(Op):
    """log(1 + x) (torch.log1p); derivative 1 / (x + 1). ``log1p(-1) == -inf``."""

    name = "log1p"
    label = "log1p"
    impl = log1p_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (divide(g, p(self.x) + 1.0),)  # torch log1p_backward: grad / (self + 1)


@final
@define
@attrs.frozen(eq=False)
class Expm1(Op):
    """exp(x) - 1 (torch.expm1); derivative y + 1 from the output y."""

    name = "expm1"
    label = "expm1"
    impl = expm1_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * (p(self) + 1.0),)  # torch: grad * (result + 1)


@final
@define
@attrs.frozen(eq=False)
class Log2(Op):
    """log2(x) (torch.log2); derivative 1 / (x ln 2)."""

    name = "log2"
    label = "log2"
    impl = log2_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (divide(g, p(self.x) * LN2),)  # torch: grad / (self * 0.6931471805599453)


@final
@define
@attrs.frozen(eq=False)
class Log10(Op):
    """log10(x) (torch.log10); derivative 1 / (x ln 10), with PyTorch's constant for ln 10."""

    name = "log10"
    label = "log10"
    impl = log10_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (divide(g, p(self.x) * LN10),)  # torch: grad / (self * 2.3025850929940456)


@final
@define
@attrs.frozen(eq=False)
class Exp2(Op):
    """2 ** x (torch.exp2); derivative y ln 2 from the output y."""

    name = "exp2"
    label = "exp2"
    impl = exp2_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (g * p(self) * LN2,)  # torch: grad * result * M_LN2


@final
@define
@attrs.frozen(eq=False)
class Sign(Op):
    """-1, 0 or 1 (torch.sign; ``sign(nan) == 0.0``); no derivative: its gradient is 0."""

    name = "sign"
    label = "sign"
    impl = sign_float
    x: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return (where(True, 0.0, g),)  # torch: zeros_like(grad), a 0.0 that flows on (0 * inf: nan)


@final
@define
@attrs.frozen(eq=False)
class Arctan2(Op):
    """atan2(x, y), the angle of the point (y, x) (torch.atan2, torch.arctan2).

    Derivatives y / (x*x + y*y) and -x / (x*x + y*y), as torch's ``atan2_backward``,
    which masks the reciprocal to 0 where the denominator is 0 (the origin).
    """

    name = "arctan2"
    label = "arctan2"
    impl = arctan2_float
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        a, b = p(self.x), p(self.y)
        d = a * a + b * b
        recip = where(eq(d, 0.0), 0.0, divide(1.0, d))  # torch: masked_fill_(denom == 0, 0)
        return g * b * recip, g * -a * recip


@final
@define
@attrs.frozen(eq=False)
class Hypot(Op):
    """sqrt(x*x + y*y) without overflow (torch.hypot); derivatives x / h and y / h."""

    name = "hypot"
    label = "hypot"
    impl = hypot_float
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        h = p(self)
        return divide(g * p(self.x), h), divide(g * p(self.y), h)  # torch: grad * self / result


@final
@define
@attrs.frozen(eq=False)
class Maximum(Op):
    """The larger of x and y, nan if either is (torch.maximum).

    Derivatives as torch's: the gradient goes to the larger input, half to each
    at a tie, and all of it to both where either is nan.
    """

    name = "maximum"
    label = "maximum"
    impl = maximum_float
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        a, b = p(self.x), p(self.y)
        share = where(eq(a, b), g * 0.5, g)  # torch: where(self == other, grad / 2, grad)
        return where(lt(a, b), 0.0, share), where(lt(b, a), 0.0, share)  # .masked_fill_(...)


@final
@define
@attrs.frozen(eq=False)
class Minimum(Op):
    """The smaller of x and y, nan if either is (torch.minimum); derivatives as `Maximum`'s."""

    name = "minimum"
    label = "minimum"
    impl = minimum_float
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        a, b = p(self.x), p(self.y)
        share = where(eq(a, b), g * 0.5, g)  # torch: where(self == other, grad / 2, grad)
        return where(lt(b, a), 0.0, share), where(lt(a, b), 0.0, share)  # .masked_fill_(...)


@final
@define
@attrs.frozen(eq=False)
class Compare(Op):
    """1.0 where ``x op y`` holds, else 0.0 (op: lt, le, eq, ne); no derivative.

    Built by a rule's comparison of nodes (relu's mask, pow's zero cases), so a
    choice on values stays a test in the graph, and in the code `jit` compiles.
    """

    name = "compare"
    label = "cmp"
    op: CompareOp = attrs.field()
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def _forward(self) -> float:
        return 1.0 if _COMPARISONS[self.op][1](self.x.value, self.y.value) else 0.0

    def forward_source(self, xs: Sequence[Sym]) -> Sym:
        return select(infix(xs[0], _COMPARISONS[self.op][0], xs[1]), 1.0, 0.0)

    def vjp_float(self, g: float) -> tuple[float | None, ...]:
        return None, None

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return None, None


@final
@define
@attrs.frozen(eq=False)
class Where(Op):
    """x where the condition c is non-zero, else y; derivatives where(c, 1, 0) and where(c, 0, 1).

    As ``torch.where``: the branch not taken gets a zero cotangent, so an
    infinite partial behind it gives nan in a second derivative, as in PyTorch and JAX.
    """

    name = "where"
    label = "where"
    c: Node = attrs.field(repr=False, converter=_input)
    x: Node = attrs.field(repr=False, converter=_input)
    y: Node = attrs.field(repr=False, converter=_input)
    value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

    def _forward(self) -> float:
        return self.x.value if self.c.value else self.y.value

    def forward_source(self, xs: Sequence[Sym]) -> Sym:
        return select(xs[0], xs[1], xs[2])

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        c = p(self.c)
        return None, where(c, g, 0.0), where(c, 0.0, g)
