"""The vocabulary rules are written in, and how the eager call holds a traced value.

A rule (an op's ``vjp``) computes only with this vocabulary and the operators,
so one rule serves three scalars: on floats it computes (the first-order
sweep), on nodes it builds nodes (a derivative differentiated again), on `Sym`
it writes code (`jit`, and the compiled float rules). A choice on values is
`where` over a comparison: decided at once on floats and constants, a `Where`
node over a `Compare` node otherwise, a conditional expression in code.

`eager_kind` says whether a traced value is a node or a plain number in the
eager call `jit` traces, so the compiled code computes and chooses as it does.

The op classes this module builds are above it (`autograd.core.nodes` fills
`CLASSES` with them once they exist), as are the operators' builders (`base`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Container, Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias, cast, overload

from autograd.core import base
from autograd.core.base import (
    RESULT_ONE,
    VARIABLE_ONE,
    Const,
    Leaf,
    Op,
    S,
    _Arith,
    _const,
    _lift_scalar,
    _self,
    parents,
)
from autograd.core.context import nesting, trace_state
from autograd.core.define import BUILD1
from autograd.core.floats import div_float, pow_float, pow_scalar_float
from autograd.core.sym import Sym, call, conjunction, infix, select

if TYPE_CHECKING:
    from autograd.core.context import TraceState
    from autograd.core.more_ops import Compare, Where
    from autograd.core.nodes import Node, Scalar
    from autograd.core.ops import Log, Mul, Tanh


class _Classes:
    """The op classes the vocabulary and `eager_kind` name; `nodes` sets them once defined."""

    mul: type[Mul]
    log: type[Log]
    tanh: type[Tanh]
    compare: type[Compare]
    where: type[Where]


CLASSES = _Classes()


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
        elif type(x) is CLASSES.mul and (x.y is VARIABLE_ONE or x.y is RESULT_ONE):
            memo[x] = _marked_kind(x)
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
    if type(node) is CLASSES.mul and (node.y is VARIABLE_ONE or node.y is RESULT_ONE):
        k = memo[node] = _marked_kind(node)
    else:
        k = memo[node] = _combined_kind(kinds)
    return k


def _marked_kind(x: Mul) -> int:
    """An inner transform's variable is a node in the eager call, its float result a float."""
    return NODE if x.y is VARIABLE_ONE else PLAIN


def floats_in_eager(level: int, variables: Sequence[Node], given: Sequence[object] = ()) -> bool:
    """Whether the eager call of the function `jit` is tracing gets floats from a transform.

    The transform is called at nesting ``level`` on ``variables`` (`Arguments.variables`;
    a node argument's is ``x * VARIABLE_ONE``) and ``given`` (tangents, cotangents):
    the eager call gets floats where no transform is around it and it is given no
    node. Its results are nodes in the trace, marked so by `float_result`.
    """
    state = trace_state.get()
    if state is None or not state.top or level != state.level:
        return False
    floats, memo = state.floats, state.known
    for v in variables:
        if type(v) is CLASSES.mul and v.y is VARIABLE_ONE and eager_kind(v.x, floats, memo) == NODE:
            return False
    return not any(isinstance(x, _Arith) and eager_kind(x, floats, memo) == NODE for x in given)


def float_result(x: object) -> object:
    """A transform's result as the eager call holds it, a float (`floats_in_eager`).

    A node becomes ``x * RESULT_ONE``: the same value, computed on as a float
    (`eager_kind` `PLAIN`); `jit` writes no statement for it (``x * 1.0`` is ``x``).
    """
    return CLASSES.mul(x, RESULT_ONE) if isinstance(x, _Arith) else x


def _source_kind(x: Node, plain_inputs: Collection[Node]) -> int:
    """The kind of a node with no inputs: a constant, or a traced argument (plain or not)."""
    if type(x) is Const:
        return CONST
    return PLAIN if x in plain_inputs else NODE


def _combined_kind(kinds: list[int]) -> int:
    """The kind of an op from its inputs': a node if any is, a constant if all are."""
    return NODE if NODE in kinds else CONST if kinds.count(CONST) == len(kinds) else PLAIN


def reaches(node: Node, targets: Container[Node], memo: dict[Node, bool]) -> bool:
    """Whether ``node`` is one of ``targets`` or depends on one (iterative, memoised)."""
    stack = [node]
    while stack:
        x = stack[-1]
        if x in memo:
            stack.pop()
            continue
        if x in targets:
            memo[x] = True
            stack.pop()
            continue
        ins = parents(x)
        pending = [i for i in ins if i not in memo]
        if pending:
            stack.extend(pending)
            continue
        memo[x] = any(memo[i] for i in ins)
        stack.pop()
    return memo[node]


def number_in_eager(node: Node, state: TraceState) -> bool:
    """Whether the eager call holds ``node`` as a number where a transform hands it back.

    That is, unless it reaches a variable of the arguments the trace
    differentiates (``state.variables``): an inner transform's own variables
    are nodes only inside it (there, `eager_kind` decides), and what it
    returns is a number again.
    """
    if nesting.get() > 0:  # inside an inner transform: its own variables are nodes there
        return eager_kind(node, state.floats, state.known) != NODE
    return not reaches(node, state.variables, state.reaching)


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
    return _binary(div_float, lambda a, b: base._div(a, b), x, y)  # read when called


def _binary(
    fn: Callable[[float, float], float],
    build: Callable[[_Arith, _Arith], _Arith],
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
        return base._pow(_lift_scalar(x), c)
    return base._pow(x, _const(c)) if isinstance(x, _Arith) else pow_scalar_float(x, c)


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
    return _binary(pow_float, lambda a, b: base._pow(a, b), x, y)  # as divide


@overload
def log(x: float) -> float: ...
@overload
def log(x: Scalar) -> Scalar: ...
@overload
def log(x: Sym) -> Sym: ...
def log(x: Scalar | Sym) -> Scalar | Sym:
    """Natural logarithm inside a rule (IEEE: ``log(0.0) == -inf``)."""
    return apply(CLASSES.log, x)


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
    return CLASSES.compare(op, xn, yn)


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
        return conjunction(_cond(c), _cond(d))  # in a batch, element-wise (`sym.arrays`)
    return base._mul(cast(_Arith, c), cast(_Arith, d))  # 1.0 * 1.0: both hold


def _cond(c: Cond) -> Sym:
    assert isinstance(c, Sym), "a condition in code is code"
    return c


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
    return CLASSES.where(c, _lift_scalar(_no_sym(a)), _lift_scalar(_no_sym(b)))


def _no_node(v: object) -> float | Sym:
    assert not isinstance(v, _Arith), "code and nodes do not mix in a rule"
    return cast("float | Sym", v)


def _no_sym(v: object) -> Scalar:
    assert not isinstance(v, Sym), "code and nodes do not mix in a rule"
    return cast("Scalar", v)


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
    t = apply(CLASSES.tanh, x * 0.5)
    return 0.25 * (1.0 - t * t)
