"""The ops: one frozen class per op, each holding its rules, and the `Node` union.

`Leaf`, `Const`, the `Op` base class and the operators every node shares are
in `autograd.core.base`; this module re-exports them, so ``nodes`` names the
whole graph.

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
import operator
from collections.abc import Callable, Collection, Sequence
from typing import (
    Literal,
    TypeAlias,
    TypeVar,
    cast,
    final,
    overload,
)

import attrs

from autograd.core import base, rulegen
from autograd.core.base import _KIT as _KIT
from autograd.core.base import _VALUE_SLOTS as _VALUE_SLOTS
from autograd.core.base import MINUS_ONE as MINUS_ONE
from autograd.core.base import OPS as OPS
from autograd.core.base import PARENTS as PARENTS
from autograd.core.base import SHARED as SHARED
from autograd.core.base import VARIABLE_ONE as VARIABLE_ONE
from autograd.core.base import CompareDotValue as CompareDotValue
from autograd.core.base import Const as Const
from autograd.core.base import Leaf as Leaf
from autograd.core.base import Op as Op
from autograd.core.base import Primal as Primal
from autograd.core.base import Push as Push
from autograd.core.base import S as S
from autograd.core.base import V as V
from autograd.core.base import _Arith as _Arith
from autograd.core.base import _const as _const
from autograd.core.base import _forwarded as _forwarded
from autograd.core.base import _input as _input
from autograd.core.base import _input_getters as _input_getters
from autograd.core.base import _inputs as _inputs
from autograd.core.base import _lift_scalar as _lift_scalar
from autograd.core.base import _self as _self
from autograd.core.base import fresh_leaf as fresh_leaf
from autograd.core.base import guard_values as guard_values
from autograd.core.base import lift as lift
from autograd.core.base import parents as parents
from autograd.core.base import produced_nan as produced_nan
from autograd.core.context import trace_state
from autograd.core.convert import NotANumber as NotANumber
from autograd.core.convert import to_float as to_float
from autograd.core.floats import (
    abs_float,
    arccos_float,
    arcsin_float,
    arctan2_float,
    arctan_float,
    cos_float,
    cosh_float,
    div_float,
    exp2_float,
    exp_float,
    expm1_float,
    hypot_float,
    log1p_float,
    log2_float,
    log10_float,
    log_float,
    maximum_float,
    minimum_float,
    pow_float,
    pow_scalar_float,
    relu_float,
    sigmoid_float,
    sign_float,
    sin_float,
    sinh_float,
    sqrt_float,
    tan_float,
)
from autograd.core.sym import Sym, call, infix, select

NODE, PLAIN, CONST = 0, 1, 2
"""How the eager call holds a traced value (`eager_kind`)."""


def eager_kind(node: Node, plain_inputs: Collection[Node], memo: dict[Node, int]) -> int:
    """How the eager call of a traced function holds ``node``.

    `CONST` for a constant or what is computed from constants alone, `PLAIN`
    for a plain number (from the arguments ``plain_inputs``, which are not
    differentiated, and constants), else `NODE`. Python computes `PLAIN`
    values with its float arithmetic; `jit` must compile them so, and a rule
    must choose on them as the eager call does. Iterative, memoised in ``memo``.
    """
    stack = [node]
    while stack:
        x = stack[-1]
        if x in memo:
            stack.pop()
            continue
        if type(x) is Const or type(x) is Leaf:
            memo[x] = _source_kind(x, plain_inputs)
        elif type(x) is Mul and x.y is VARIABLE_ONE:  # an inner transform's variable
            memo[x] = NODE
        else:
            ins = parents(x)
            pending = [i for i in ins if i not in memo]
            if pending:
                stack.extend(pending)
                continue
            memo[x] = _combined_kind([memo[i] for i in ins])
        stack.pop()
    return memo[node]


def kind_in_order(
    node: Node, ins: tuple[Node, ...], plain_inputs: Collection[Node], memo: dict[Node, int]
) -> int:
    """`eager_kind` for a walk in topological order: one step from the inputs' memoised kinds.

    Any input not memoised yet (a node met before the walk) takes `eager_kind`'s walk.
    """
    if not ins:
        k = memo[node] = _source_kind(node, plain_inputs)
        return k
    try:
        kinds = [memo[i] for i in ins]
    except KeyError:
        return eager_kind(node, plain_inputs, memo)
    if type(node) is Mul and node.y is VARIABLE_ONE:  # an inner transform's variable
        k = memo[node] = NODE
    else:
        k = memo[node] = _combined_kind(kinds)
    return k


def _source_kind(x: Node, plain_inputs: Collection[Node]) -> int:
    """The kind of a node with no inputs: a constant, or a traced argument (plain or not)."""
    if type(x) is Const:
        return CONST
    return PLAIN if x in plain_inputs else NODE


def _combined_kind(kinds: list[int]) -> int:
    """The kind of an op from its inputs': a node if any is, a constant if all are."""
    return NODE if NODE in kinds else CONST if kinds.count(CONST) == len(kinds) else PLAIN


def plain_in_eager(node: Node) -> bool:
    """Whether ``node`` is a number (`PLAIN` or `CONST`) in the eager call `jit` is tracing.

    Never outside a trace.
    """
    state = trace_state.get()
    return state is not None and eager_kind(node, state.floats, state.known) != NODE


def _pow_is_scalar_path(x: Node, y: Node) -> bool:
    """Whether ``x ** y`` takes PyTorch's scalar-exponent path, as the eager call computes it."""
    if type(y) is Const and type(x) is not Const:
        return trace_state.get() is None or not plain_in_eager(x)  # a float base: Python's pow
    state = trace_state.get()
    if state is None:
        return type(y) is Const
    kx, ky = eager_kind(x, state.floats, state.known), eager_kind(y, state.floats, state.known)
    return ky != NODE and (kx == NODE or kx == ky == CONST)


_OpT = TypeVar("_OpT", bound=Op)


def define(cls: type[_OpT]) -> type[_OpT]:
    """Complete an op class from its definition (see `Op`)."""
    fields = attrs.fields(cast("type[attrs.AttrsInstance]", cls))  # define follows attrs.frozen
    cls.inputs = tuple(f.name for f in fields if f.converter is _input)
    cls.static_fields = tuple(
        f.name for f in fields if f.converter is not _input and f.name != "value"
    )
    OPS[cls.name] = cls
    if _all_defined:  # an op defined after this module (a user's): complete it now
        try:
            _complete(cls)
        except Exception:  # a rule that does not compile: the op is not defined
            undefine(cls)
            raise
    return cls


_all_defined = False  # this module's ops refer to each other: completed together, at its end


def _complete(cls: type[Op]) -> None:
    """Compile an op's float forward and float rule from its definition; make its builder."""
    kit = _KIT
    if "_forward" not in cls.__dict__:
        cls._forward = rulegen.compiled_forward(cls, kit)  # type: ignore[method-assign, assignment]  # filled in once
    if "vjp_float" in cls.__dict__:  # a hand-written float rule: the sweeps' forms call it
        cls.vjp_accumulate, cls.vjp_push = _accumulate_rule, _push_rule  # type: ignore[method-assign]  # filled in once
    else:
        cls.vjp_float = rulegen.compiled_rule(cls, kit)  # type: ignore[method-assign, assignment]  # filled in once
        cls.vjp_accumulate = rulegen.compiled_accumulate(cls, kit, push=False)  # type: ignore[method-assign]  # filled in once
        cls.vjp_push = rulegen.compiled_accumulate(cls, kit, push=True)  # type: ignore[method-assign]  # filled in once
    if len(cls.inputs) == 1:
        BUILD1[cls] = _build1(cls)


def undefine(cls: type[Op]) -> None:
    """Forget an op defined after import (a test's throwaway op): the registries drop it."""
    OPS.pop(cls.name, None)
    BUILD1.pop(cls, None)
    rulegen.COMPILED_FORWARDS.pop(cls, None)
    _input_getters.pop(cls, None)
    _VALUE_SLOTS.pop(cls, None)


_compiled_forwards = rulegen.COMPILED_FORWARDS
"""The ops whose ``_forward`` `define` compiled: their builders have its text written in."""

_B = TypeVar("_B", bound=Op)


def _build2(cls: type[_B]) -> Callable[[_Arith, _Arith], _B]:
    """The fast builder of a two-input op (`rulegen.build2`)."""
    return rulegen.build2(cls, _KIT)


def _build1(cls: type[_B]) -> Callable[[_Arith], _B]:
    """The fast builder of a one-input op (`rulegen.build1`)."""
    return rulegen.build1(cls, _KIT)


def _accumulate_rule(self: Op, g: float, cotangents: dict[Node, float]) -> None:
    """``vjp_accumulate`` of an op that writes its own ``vjp_float``: that rule, added in."""
    for x, gx in zip(_inputs(self), self.vjp_float(g)):  # noqa: B905  # lengths as the op's inputs
        if gx is not None and type(x) is not Const:  # a constant's cotangent is never read
            prev = cotangents.get(_self(x))
            cotangents[_self(x)] = gx if prev is None else prev + gx


def _push_rule(self: Op, g: float, cotangents: dict[Node, float], push: Push) -> None:
    """``vjp_push`` of an op that writes its own ``vjp_float``: every op input as shared."""
    _accumulate_rule(self, g, cotangents)
    for x in _inputs(self):
        if type(x) is not Const and type(x) is not Leaf:
            push(x)
            push(SHARED)


_COMPARISONS: dict[str, tuple[str, Callable[[float, float], bool]]] = {
    "lt": ("<", operator.lt),
    "le": ("<=", operator.le),
    "eq": ("==", operator.eq),
    "ne": ("!=", operator.ne),
}
CompareOp: TypeAlias = Literal["lt", "le", "eq", "ne"]
COMPARE_SYMBOLS: dict[str, str] = {op: symbol for op, (symbol, _) in _COMPARISONS.items()}
"""A `Compare` node's operator as written: ``<``, ``<=``, ``==``, ``!=``."""


# --- the vocabulary of rules: each function takes floats, nodes or `Sym` ---
# On floats it computes (the first-order sweep); on nodes it builds nodes (a
# derivative that is differentiated again); on `Sym` it writes code (`jit`, and
# the compiled float rules). A choice on values is `where` over a comparison:
# decided at once on floats and constants, a `Where` node over a `Compare` node
# otherwise, a conditional expression in code.


@overload
def apply(cls: type[Op], x: float) -> float: ...
@overload
def apply(cls: type[Op], x: Scalar) -> Scalar: ...
@overload
def apply(cls: type[Op], x: Sym) -> Sym: ...
def apply(cls: type[Op], x: Scalar | Sym) -> Scalar | Sym:
    """The one-input op ``cls`` on ``x`` inside a rule."""
    if isinstance(x, _Arith):
        return _self(BUILD1[cls](x))
    if isinstance(x, Sym):
        return call(cls.impl, x)
    return cls.impl(x)


@overload
def divide(x: float, y: float) -> float: ...
@overload
def divide(x: Scalar, y: Scalar) -> Scalar: ...
@overload
def divide(x: Sym, y: Sym | float) -> Sym: ...
@overload
def divide(x: float, y: Sym) -> Sym: ...
def divide(x: Scalar | Sym, y: Scalar | Sym) -> Scalar | Sym:
    """``x / y`` inside a rule: IEEE division on floats, a `Div` node otherwise."""
    return _binary(div_float, lambda a, b: _div(a, b), x, y)  # _div is made after the rules


def _binary(
    fn: Callable[[float, float], float],
    build: Callable[[_Arith, _Arith], Op],
    x: Scalar | Sym,
    y: Scalar | Sym,
) -> Scalar | Sym:
    """A two-input op inside a rule: ``fn`` on floats, its code on `Sym`, ``build`` on nodes."""
    if isinstance(x, Sym) or isinstance(y, Sym):
        return call(fn, _no_node(x), _no_node(y))
    if isinstance(x, _Arith) or isinstance(y, _Arith):
        return _self(build(_lift_scalar(x), _lift_scalar(y)))
    return fn(x, y)


@overload
def power(x: float, c: float) -> float: ...
@overload
def power(x: Scalar, c: Scalar) -> Scalar: ...
@overload
def power(x: Sym, c: Sym | float) -> Sym: ...
@overload
def power(x: float, c: Sym) -> Sym: ...
def power(x: Scalar | Sym, c: Scalar | Sym) -> Scalar | Sym:
    """``x ** c`` for a constant ``c`` inside a rule: floats give the `Pow` node's value."""
    if isinstance(x, Sym):
        return pow_scalar_source(x, _no_node(c))
    if isinstance(c, Sym):
        return call(pow_scalar_float, _no_node(x), c)
    if isinstance(c, _Arith):  # a traced number of the eager call: its Pow is a constant's
        return _pow(_lift_scalar(x), c)
    return _pow(x, _const(c)) if isinstance(x, _Arith) else pow_scalar_float(x, c)


def pow_scalar_source(x: Sym, c: Sym | float) -> Sym:
    """`pow_scalar_float` as generated code, its commonest cases inlined.

    ``c == 2`` is ``x * x``, ``c == 3`` is ``x * x * x`` and ``c == 1`` is
    ``x``: the very operations `pow_scalar_float` does for them, so the same
    bits, without a call.
    """
    k = c.value if isinstance(c, Sym) else c
    if k == 2.0:
        return infix(x, "*", x)
    if k == 3.0:
        return infix(infix(x, "*", x), "*", x)
    if k == 1.0:
        return x
    return call(pow_scalar_float, x, c)


@overload
def power_var(x: float, y: float) -> float: ...
@overload
def power_var(x: Scalar, y: Scalar) -> Scalar: ...
@overload
def power_var(x: Sym, y: Sym | float) -> Sym: ...
@overload
def power_var(x: float, y: Sym) -> Sym: ...
def power_var(x: Scalar | Sym, y: Scalar | Sym) -> Scalar | Sym:
    """``x ** y`` for a variable exponent inside a rule (C ``pow``, not the scalar path)."""
    return _binary(pow_float, lambda a, b: _pow(a, b), x, y)  # as divide


@overload
def log(x: float) -> float: ...
@overload
def log(x: Scalar) -> Scalar: ...
@overload
def log(x: Sym) -> Sym: ...
def log(x: Scalar | Sym) -> Scalar | Sym:
    """Natural logarithm inside a rule (IEEE: ``log(0.0) == -inf``)."""
    return apply(Log, x)


@overload
def constant(x: float) -> float: ...
@overload
def constant(x: Scalar) -> Scalar: ...
@overload
def constant(x: Sym) -> Sym: ...
def constant(x: Scalar | Sym) -> Scalar | Sym:
    """A constant input inside a rule: a `Const`'s value, known now.

    In a `jit` trace it may also be the traced node of a plain number of the
    eager call, whose value varies by call.
    """
    if isinstance(x, _Arith):
        if type(x) is Const:
            return x.value
        assert plain_in_eager(_self(x)), "constant() reads constants of the eager call only"
        return _self(x)  # a number of the eager call, traced: its value varies by call
    if isinstance(x, Sym) and x.value is not None:  # a constant of the graph jit compiles
        return x.value
    return x


Cond: TypeAlias = "bool | float | Node | Sym"
"""A condition: a comparison's bool (floats, constants), a `Compare` node or its value, or code."""


def _decided(v: Scalar | Sym) -> float | None:
    """The value of a float or a `Const`, known now; None for a node or code."""
    if isinstance(v, _Arith):
        return v.value if type(v) is Const else None
    return None if isinstance(v, Sym) else v


def compare(op: CompareOp, x: Scalar | Sym, y: Scalar | Sym) -> Cond:
    """``x op y`` for op in lt, le, eq, ne: decided at once when both sides are known."""
    if isinstance(x, Sym) or isinstance(y, Sym):
        return infix(_no_node(x), _COMPARISONS[op][0], _no_node(y))
    a, b = _decided(x), _decided(y)
    if a is not None and b is not None:
        return _COMPARISONS[op][1](a, b)
    xn, yn = _lift_scalar(x), _lift_scalar(y)
    if plain_in_eager(xn) and plain_in_eager(yn):  # in a trace: decide as eager does, guarded
        outcome = _COMPARISONS[op][1](xn.value, yn.value)
        state = trace_state.get()
        assert state is not None, "plain_in_eager is true only in a trace"
        state.guards.append((op, xn, yn, outcome))
        return outcome
    return Compare(op, xn, yn)


def lt(x: Scalar | Sym, y: Scalar | Sym) -> Cond:
    """``x < y`` (see `compare`)."""
    return compare("lt", x, y)


def le(x: Scalar | Sym, y: Scalar | Sym) -> Cond:
    """``x <= y`` (see `compare`)."""
    return compare("le", x, y)


def eq(x: Scalar | Sym, y: Scalar | Sym) -> Cond:
    """``x == y`` (see `compare`)."""
    return compare("eq", x, y)


def ne(x: Scalar | Sym, y: Scalar | Sym) -> Cond:
    """``x != y`` (see `compare`)."""
    return compare("ne", x, y)


def both(c: Cond, d: Cond) -> Cond:
    """``c and d``: decided at once when either is a known bool."""
    if type(c) is bool:
        return d if c else False
    if type(d) is bool:
        return c if d else False
    if isinstance(c, Sym) or isinstance(d, Sym):
        return Sym(f"({_cond_src(c)} and {_cond_src(d)})", _uses(c) + _uses(d))
    return _mul(cast(_Arith, c), cast(_Arith, d))  # 1.0 * 1.0: both hold


def _cond_src(c: Cond) -> str:
    assert isinstance(c, Sym), "a condition in code is code"
    return c.src


def _uses(c: Cond) -> tuple[str, ...]:
    return c.uses if isinstance(c, Sym) else ()


@overload
def where(c: Cond, a: float, b: float) -> float: ...
@overload
def where(c: Cond, a: Scalar, b: Scalar) -> Scalar: ...
@overload
def where(c: Cond, a: Sym, b: Sym | float) -> Sym: ...
@overload
def where(c: Cond, a: float, b: Sym) -> Sym: ...
def where(c: Cond, a: Scalar | Sym, b: Scalar | Sym) -> Scalar | Sym:
    """``a`` if ``c`` holds, else ``b``: at once if ``c`` is known, else a `Where` node or code."""
    if isinstance(c, bool | float):  # a comparison of floats, or a Compare's value
        return a if c else b
    if isinstance(c, Sym):
        return select(c, _no_node(a), _no_node(b))
    if type(c) is Const:
        return a if c.value else b
    return Where(c, _lift_scalar(_no_sym(a)), _lift_scalar(_no_sym(b)))


def _no_node(v: object) -> float | Sym:
    assert not isinstance(v, _Arith), "code and nodes do not mix in a rule"
    return cast("float | Sym", v)


def _no_sym(v: object) -> Scalar:
    assert not isinstance(v, Sym), "code and nodes do not mix in a rule"
    return cast(Scalar, v)


@overload
def tanh_slope(y: float) -> float: ...
@overload
def tanh_slope(y: Scalar) -> Scalar: ...
@overload
def tanh_slope(y: Sym) -> Sym: ...
def tanh_slope(y: Scalar | Sym) -> Scalar | Sym:
    """The derivative of tanh from its output ``y``, in a form chosen by ``y``.

    torch computes ``1 - y*y`` with one rounding (a fused multiply-add). Two
    roundings lose up to 3e7 ulps of it near saturation, where ``(1 - y)(1 + y)``
    stays within 1 ulp; but differentiated, ``(1 - y)(1 + y)`` gives
    ``(1 - y) - (1 + y)``, which cancels near 0 (tanh''(1e-12) was
    -2.00007e-12, and 0.0 below 1e-16), where ``1 - y*y`` gives ``-2y`` exactly.
    For ``|y| < 0.5`` both forms are within 1 ulp of the fused one.
    """
    near = both(lt(-0.5, y), lt(y, 0.5))
    if isinstance(y, Sym):  # the three branches only tell mypy each instantiation's type
        return where(near, 1.0 - y * y, (1.0 - y) * (1.0 + y))
    if isinstance(y, float):
        return where(near, 1.0 - y * y, (1.0 - y) * (1.0 + y))
    return where(near, 1.0 - y * y, (1.0 - y) * (1.0 + y))


def sigmoid_slope_near_zero(x: S) -> S:
    """sigmoid'(x) for ``|x| < 0.5``, as ``tanh'(x / 2) / 4``.

    torch's ``s * (1 - s)`` differentiates to ``1 - 2s``, which cancels near 0:
    sigmoid''(1e-12) is -1.25011e-13 there (exact: -1.25e-13), 27 ulps off at
    0.1 and 8 at 0.25. This form's derivative has no cancellation; its value is
    within 1 ulp of the exact one, and so within 2 ulps of torch's.
    """
    t = apply(Tanh, x * 0.5)
    return 0.25 * (1.0 - t * t)


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
        gx = where(ne(y, 0.0), g * (y * power_var(x, y + -1.0)), 0.0)
        slope = g * (p(self) * log(x))
        gy = where(both(eq(x, 0.0), le(0.0, y)), g * 0.0, slope)
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


Node: TypeAlias = (
    Leaf
    | Const
    | Add
    | Mul
    | Div
    | Pow
    | Exp
    | Log
    | Sqrt
    | Abs
    | Sin
    | Cos
    | Tanh
    | Relu
    | Sigmoid
    | Tan
    | Sinh
    | Cosh
    | Arcsin
    | Arccos
    | Arctan
    | Log1p
    | Expm1
    | Log2
    | Log10
    | Exp2
    | Sign
    | Arctan2
    | Hypot
    | Maximum
    | Minimum
    | Compare
    | Where
)
"""The closed union of node classes: `match` on it is checked for exhaustiveness."""

Scalar: TypeAlias = float | Node
"""What ops and loss functions take and return: a plain number or a node."""


BUILD1: dict[type[Op], Callable[[_Arith], Op]] = {}
"""The fast builder of each one-input op."""
for _cls in OPS.values():
    _complete(_cls)
_all_defined = True
_add, _mul, _div, _pow = _build2(Add), _build2(Mul), _build2(Div), _build2(Pow)
base._add, base._mul, base._div, base._pow = _add, _mul, _div, _pow  # the operators'
