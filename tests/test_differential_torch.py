"""Differential tests: random programs, values and first and second derivatives vs PyTorch float64.

Each program is built twice with the same structure: by this engine from the
`Expr`, and by PyTorch (a constant operand is a Python float, a constant
exponent a Python float exponent, so ``x ** 2.0`` is ``pow(Tensor, Scalar)``
as ours is; a node exponent is a tensor). Values, the gradient and the full
Hessian are compared.

Agreement is exact for nan (nan only where PyTorch has nan), for infinities
(same sign) and for zeros computed without rounding (same sign). Other numbers
must agree within twice a first-order bound on the rounding error of our
graph (a running error analysis: each op adds one ulp of its result, two for
transcendental functions, and propagates its inputs' bounds through its
partial derivatives) plus two ulps. The bound is what makes cancellation in
second derivatives comparable: PyTorch's 0-d ``exp``, ``tanh`` and ``x ** 0.5``
are not always correctly rounded (1 ulp off), and such differences grow
through ``a - b`` or ``exp``.

Documented deviations (docs/reference-testing.md, "Differential testing"):

- Division is one IEEE division, as ``torch.div``. PyTorch's Python operator
  ``float / Tensor`` is not: it computes ``reciprocal(y) * c`` (two roundings,
  and ``0.0 / tensor(1e-310)`` is nan), so a constant numerator is made a
  tensor and divided with ``torch.div``.
- Where a value inside the program is infinite or nan (an input, an overflow),
  PyTorch's backward formulas can meet ``0 * inf`` and give nan second
  derivatives where ours are finite (``relu(x ** 2.0)`` at ``x = 9e307``:
  ours 2.0, PyTorch nan). Second derivatives are not compared in such
  programs.
- Where a value inside the program is subnormal (``5e-324 * (x / y)``),
  PyTorch's double backward multiplies in another order and its
  intermediates round at subnormal magnitudes, where the relative error is
  unbounded (there: d2/dy2 ``1.386e-132`` against the exact ``2.773e-132``,
  which is ours). Second derivatives are not compared in such programs.
- A number whose error bound is infinite (an infinite partial derivative
  meets an inexact input, e.g. ``z * (z / z)`` at ``1e200``, where
  ``z ** -2`` underflows to 0) is not compared: the bound says nothing.
- ``x ** y`` with a node exponent masks two branches as PyTorch does (the
  derivative in ``x`` is 0 where ``y == 0``; in ``y`` it is 0 where
  ``x == 0 <= y``). PyTorch masks with ``where``, whose backward multiplies
  the masked branch's own derivative (``1 / x`` at 0: ``inf``) by 0, so its
  second derivatives there are nan; ours are constants, so ours are 0. For
  programs that take a masked branch only values and first derivatives are
  compared. ``relu`` at an input ``<= 0`` is the same case: PyTorch's double
  backward multiplies its mask's 0 by the cotangent (nan times 0 is nan in
  ``(-1.0) ** y * relu(x)`` at ``x = 0``), ours selects 0.
- A derivative that is zero by structure (no path from the input, or a
  mask such as ``relu`` at a negative input) is a float 0.0 in ours; PyTorch
  may return ``-0.0`` there (``0 * -1`` in its backward graph). Likewise a
  zero from cancellation (``a + (-a)``, and what is computed from it) has
  the sign of however the negations are arranged: PyTorch's second
  derivative of ``sigmoid(x) - sigmoid(x)`` is ``-0.0``, ours ``0.0``.
  Either zero is accepted for these; other zeros must match in sign.
- ``sigmoid''`` near 0: PyTorch differentiates ``(1 - s) * s`` to ``1 - 2s``,
  which cancels (``sigmoid''(1e-12)`` is ``-1.25011e-13``, exact ``-1.25e-13``;
  0.0 below 1e-16); ours is ``tanh'(x / 2) / 4`` there, exact to a few ulps
  (tests/test_numerics.py checks it against mpmath). Second derivatives of
  programs with a sigmoid input ``0 < |x| < 0.5`` are not compared.
- Programs where rounding can move an input across a branch point (the base
  of ``pow`` or the input of ``log``/``relu``/``sqrt``/``abs`` within its error bound of 0, a
  negative base with an inexact exponent) are not compared: the two engines
  may legitimately take different branches. They are rejected with
  ``assume``, so the ``max_examples`` programs are all compared.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, assert_never, cast

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import autograd
from autograd import Const, Div, Leaf, Log, Node, Pow, Relu
from autograd.core.nodes import Add, Exp, Mul, Sigmoid, Tanh
from autograd.expr import (
    Binary,
    Call,
    Call2,
    Expr,
    Neg,
    Num,
    Var,
    Where,
    evaluate,
    names,
    postorder,
    to_source,
)
from autograd.testing import (
    ALL_OPS,
    BINARY_FUNCTIONS,
    COMPARISONS,
    expressions,
    floats,
    reference,
)
from autograd.walks import backward, float_view, node_view, toposort

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # torch warns at import when numpy is absent; we use none
    torch = pytest.importorskip(
        "torch", reason="PyTorch is the oracle: pip install -e '.[oracle]' (torch==2.13.0, CPU)"
    )

if TYPE_CHECKING:
    from torch import Tensor

PROGRAMS = 2000
MAX = sys.float_info.max
ROUNDING_SLACK_ULPS = 2.0

# ---- PyTorch side --------------------------------------------------------------


def _tensor(v: float) -> Tensor:
    t: Tensor = torch.tensor(v, dtype=torch.float64)
    return t


def torch_eval(expr: Expr, env: Mapping[str, Tensor]) -> Tensor | float:
    """``expr`` with PyTorch ops, shared subexpressions built once; constants stay floats."""
    memo: dict[int, Tensor | float] = {}
    for e in postorder(expr):
        memo[id(e)] = _torch_one(e, memo, env)
    return memo[id(expr)]


_TORCH_FNS: dict[str, Callable[[Tensor], Tensor]] = {
    "exp": torch.exp,
    "log": torch.log,
    "tanh": torch.tanh,
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "sqrt": torch.sqrt,
    "abs": torch.abs,
    "sin": torch.sin,
    "cos": torch.cos,
    # issue 14's one-input ops: NumPy's names, PyTorch's functions
    "tan": torch.tan,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "arcsin": torch.asin,
    "arccos": torch.acos,
    "arctan": torch.atan,
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "log2": torch.log2,
    "log10": torch.log10,
    "exp2": torch.exp2,
    "sign": torch.sign,
}


def _torch_one(
    e: Expr, memo: Mapping[int, Tensor | float], env: Mapping[str, Tensor]
) -> Tensor | float:
    match e:
        case Num(value=v):
            return v
        case Var(name=name):
            return env[name]
        case Neg(x=x):
            a = memo[id(x)]
            return -a
        case Call(fn=fn, x=x):
            a = memo[id(x)]
            return _TORCH_FNS[fn](_tensor(a) if isinstance(a, float) else a)
        case Binary(op=op, x=x, y=y):
            a, b = memo[id(x)], memo[id(y)]
            if isinstance(a, float) and isinstance(b, float):  # Python floats would raise
                a = _tensor(a)
            return _torch_binary(op, a, b)
        case Call2() | Where():
            raise NotImplementedError("OPS leaves them out: `autograd conform torch` checks them")
        case _:
            assert_never(e)


def _torch_binary(op: str, a: Tensor | float, b: Tensor | float) -> Tensor:
    if op == "+":
        return cast("Tensor", a + b)  # one operand is a tensor (Any without torch)
    if op == "-":
        return cast("Tensor", a - b)  # one operand is a tensor (Any without torch)
    if op == "*":
        return cast("Tensor", a * b)  # one operand is a tensor (Any without torch)
    if op == "/":  # torch.div: `float / Tensor` would be reciprocal(b) * a
        quotient: Tensor = torch.div(_tensor(a) if isinstance(a, float) else a, b)
        return quotient
    return a**b  # a float exponent is pow(Tensor, Scalar), as our Const exponent


def _f(t: Tensor | float) -> float:
    return t if isinstance(t, float) else float(t.detach())


def torch_results(
    expr: Expr, inputs: Mapping[str, float]
) -> tuple[float, list[float], list[list[float]]]:
    """Value, gradient and Hessian (in ``inputs`` order) computed by PyTorch."""
    leaves = [_tensor(v).requires_grad_() for v in inputs.values()]
    out = torch_eval(expr, dict(zip(inputs, leaves, strict=True)))
    n = len(leaves)
    if isinstance(out, float) or not out.requires_grad:
        return _f(out), [0.0] * n, [[0.0] * n for _ in range(n)]
    g1 = torch.autograd.grad(out, leaves, create_graph=True, allow_unused=True)
    hessian = []
    for g in g1:
        if g is None or not g.requires_grad:
            hessian.append([0.0] * n)
            continue
        g2 = torch.autograd.grad(g, leaves, retain_graph=True, allow_unused=True)
        hessian.append([0.0 if h is None else _f(h) for h in g2])
    return _f(out), [0.0 if g is None else _f(g) for g in g1], hessian


# ---- our side, with error bounds ------------------------------------------------

Ours = tuple[Node, list[Node | float], list[list[Node | float]]]


def our_graphs(expr: Expr, inputs: Mapping[str, float]) -> Ours:
    """Value, gradient and Hessian as graphs (a sweep that builds nodes, as grad(grad) does)."""
    leaves = [Leaf(v) for v in inputs.values()]
    out = evaluate(expr, dict(zip(inputs, leaves, strict=True)))
    assert not isinstance(out, float), "an expression with a variable is a node"
    g1map: dict[Node, Node | float] = backward(out, 1.0, node_view)
    g1 = [g1map.get(leaf, 0.0) for leaf in leaves]
    hessian: list[list[Node | float]] = []
    for g in g1:
        g2map: dict[Node, Node | float] = {}
        if not isinstance(g, float):
            g2map = backward(g, 1.0, node_view)
        hessian.append([g2map.get(leaf, 0.0) for leaf in leaves])
    return out, g1, hessian


def _op_classes(*names: str) -> tuple[type[Node], ...]:
    """The node classes of ops that exist (sqrt, abs, sin and cos are joining `Node`)."""
    return tuple(getattr(autograd, name) for name in names if hasattr(autograd, name))


_MORE = ("Tan", "Sinh", "Cosh", "Arcsin", "Arccos", "Arctan", "Log1p", "Expm1", "Log2", "Log10")
_TRANSCENDENTAL = (Exp, Log, Tanh, Sigmoid, Pow, *_op_classes("Sin", "Cos", *_MORE, "Exp2"))
_KINK_AT_ZERO = _op_classes("Sqrt", "Abs", "Sign", "Log2", "Log10")
"""Ops whose value or derivative jumps at an input of 0 (sqrt: nan below, inf at 0;
abs: the derivative's sign; sign: its value; log2, log10: -inf at 0, nan below), so
rounding that moves the input across 0 changes the branch."""
_KINK_AT_MINUS_ONE = _op_classes("Log1p", "Arcsin", "Arccos")
"""log1p: -inf at -1, nan below; arcsin, arccos: an infinite slope at -1."""
_KINK_AT_ONE = _op_classes("Arcsin", "Arccos")
"""arcsin, arccos: an infinite slope at 1, nan beyond."""


_LEAST = math.ulp(0.0)
"""The least positive float: what an error bound too small to be a float rounds up to."""


def error_bounds(roots: Iterable[Node]) -> dict[Node, float]:
    """A first-order bound on each node's rounding error (running error analysis)."""
    bound: dict[Node, float] = {}
    for root in roots:
        for node, ins in toposort(root):
            if node in bound:
                continue
            if not ins:
                bound[node] = 0.0
                continue
            v = node.value
            local = 0.0 if _exact(node) or not math.isfinite(v) else math.ulp(v)
            local *= 2.0 if isinstance(node, _TRANSCENDENTAL) else 1.0
            partials = (1.0,) if isinstance(node, Relu) else node.vjp(1.0, float_view)
            propagated = sum(  # rounded up: a bound that underflows is the least float,
                max(abs(d) * bound[x], _LEAST)  # not zero (a zero's sign is then unsure)
                for x, d in zip(ins, partials, strict=True)
                if d and bound[x] != 0.0
            )
            bound[node] = local + propagated if not math.isnan(propagated) else math.inf
    return bound


def cancelled_zeros(roots: Iterable[Node]) -> set[Node]:
    """Zeros whose sign depends on how the sum was arranged.

    ``a + (-a)`` is ``+0.0``, but ``-(a - a)``, an equally valid way to compute
    the same derivative, is ``-0.0``; so is ``-0.0 + 0.0`` against ``-0.0 * (a - a)``.
    A structural zero (a mask's constant 0.0) carried into a graph is one too.
    """
    unsure: set[Node] = set()
    for root in roots:
        for node, ins in toposort(root):
            if node.value != 0.0 or node in unsure:
                continue
            cancels = isinstance(node, Add) and not (
                node.x.value == 0.0 == node.y.value  # zeros of one sign keep it
                and math.copysign(1.0, node.x.value) == math.copysign(1.0, node.y.value)
            )
            masked = any(isinstance(x, Const) and x.value == 0.0 for x in ins)  # a mask's 0.0
            if cancels or masked or any(x in unsure for x in ins):
                unsure.add(node)
    return unsure


def _exact(node: Node) -> bool:
    """Whether an Add or Mul of finite numbers is exact (no rounding error at all)."""
    if not isinstance(node, Add | Mul) or not math.isfinite(node.value):
        return False
    a, b = Fraction(node.x.value), Fraction(node.y.value)
    return (a + b if isinstance(node, Add) else a * b) == Fraction(node.value)


def branch_point_within_error(roots: Iterable[Node], bound: Mapping[Node, float]) -> bool:
    """Whether rounding could send some input across a branch of pow, log or relu, or onto
    a pole of a division (``x / log1p(5e-324)``: torch's log1p gives 0 there, ours 5e-324)."""
    for root in roots:
        for node, ins in toposort(root):
            for kinds, at in (
                (_KINK_AT_ZERO, 0.0),
                (_KINK_AT_MINUS_ONE, -1.0),
                (_KINK_AT_ONE, 1.0),
            ):
                if isinstance(node, kinds):
                    x_bound = bound[ins[0]]
                    if x_bound > 0.0 and abs(ins[0].value - at) <= x_bound:
                        return True
            match node:
                case Relu(x=x) | Log(x=x) if bound[x] > 0.0 and abs(x.value) <= bound[x]:
                    return True
                case Div(y=y) if 0.0 < abs(y.value) <= bound[y]:
                    return True  # a pole within error: 0 / y is 0 or nan, x / y is +-inf
                case Pow(x=x, y=y):
                    ex, ey = bound[x], bound[y]
                    if ex > 0.0 and abs(x.value) <= ex:
                        return True
                    if ey > 0.0 and (x.value < 0.0 or abs(y.value) <= ey):
                        return True
                case _:
                    pass
    return False


def pow_mask_taken(roots: Iterable[Node]) -> bool:
    """Whether a node-exponent ``pow`` takes a masked branch (``y == 0``, or ``x == 0 <= y``)."""
    for root in roots:
        for node, _ in toposort(root):
            if isinstance(node, Pow) and not isinstance(node.y, Const):
                x, y = node.x.value, node.y.value
                if y == 0.0 or (x == 0.0 and y >= 0.0):
                    return True
    return False


def relu_mask_taken(roots: Iterable[Node]) -> bool:
    """Whether a ``relu`` takes its masked branch (an input ``<= 0``)."""
    return any(
        isinstance(node, Relu) and node.x.value <= 0.0
        for root in roots
        for node, _ in toposort(root)
    )


def not_finite_inside(root: Node) -> bool:
    """Whether some value in the graph is ``±inf`` or nan (an input, or an op's result)."""
    return any(not math.isfinite(node.value) for node, _ in toposort(root))


def sigmoid_near_zero(root: Node) -> bool:
    """Whether some ``sigmoid`` has an input ``0 < |x| < 0.5``, where PyTorch's ``s''`` cancels."""
    return any(
        isinstance(node, Sigmoid) and 0.0 < abs(node.x.value) < 0.5 for node, _ in toposort(root)
    )


def subnormal_inside(root: Node) -> bool:
    """Whether some value in the graph is subnormal (below 2**-1022 in magnitude, not 0)."""
    return any(0.0 < abs(node.value) < sys.float_info.min for node, _ in toposort(root))


# ---- comparison ------------------------------------------------------------------


def agree(ours: float, theirs: float, err: float) -> bool:
    """The agreement rule of the module docstring; ``err`` bounds our rounding error."""
    if math.isnan(ours) or math.isnan(theirs):
        return math.isnan(ours) and math.isnan(theirs)
    if ours == theirs:
        return err > 0.0 or math.copysign(1.0, ours) == math.copysign(1.0, theirs)
    if math.isinf(ours) or math.isinf(theirs):
        finite = theirs if math.isinf(ours) else ours
        if not math.isfinite(finite):
            return False
        tol = 2.0 * err + ROUNDING_SLACK_ULPS * math.ulp(finite)
        return abs(finite) + tol >= MAX  # rounding across the overflow threshold
    tol = 2.0 * err + ROUNDING_SLACK_ULPS * math.ulp(max(abs(ours), abs(theirs)))
    return abs(ours - theirs) <= tol


def _value(x: Node | float) -> float:
    return x if isinstance(x, float) else x.value


def check_program(expr: Expr, inputs: Mapping[str, float]) -> bool:
    """Compare with PyTorch; False if the program is not compared (a branch point within error)."""
    out, g1, hess = our_graphs(expr, inputs)
    roots = [x for x in [out, *g1, *(h for row in hess for h in row)] if not isinstance(x, float)]
    bound = error_bounds(roots)
    unsure = cancelled_zeros(roots)
    if branch_point_within_error(roots, bound):
        return False
    value, grads, hessian = torch_results(expr, inputs)
    names_ = list(inputs)
    rows: list[tuple[str, Node | float, float]] = [("value", out, value)]
    rows += [(f"d/d{a}", g, t) for a, g, t in zip(names_, g1, grads, strict=True)]
    masked = (
        pow_mask_taken([out])
        or relu_mask_taken([out])
        or not_finite_inside(out)
        or subnormal_inside(out)
        or sigmoid_near_zero(out)
    )
    rows += [
        (f"d2/d{a}d{b}", hess[i][j], hessian[i][j])
        for i, a in enumerate(names_)
        for j, b in enumerate(names_)
        if not masked
    ]
    bad = [f"program: {to_source(expr)} at {dict(inputs)} (masked: {masked})"]
    for label, ours, theirs in rows:
        if (isinstance(ours, float) or ours in unsure) and _value(ours) == 0.0 == theirs:
            continue  # a structural or cancelled zero: its sign is bookkeeping
        err = 0.0 if isinstance(ours, float) else bound[ours]
        if not math.isfinite(err):
            continue  # no bound on our rounding error: the comparison would say nothing
        if not agree(_value(ours), theirs, err):
            bad.append(f"{label}: ours {_value(ours)!r}, torch {theirs!r}, error bound {err!r}")
    assert len(bad) == 1, "\n".join(bad)
    return True


# ---- the tests ---------------------------------------------------------------------

VARIABLES = ("x", "y", "z")
# The one-input and arithmetic ops: the error bounds and masks above are written for them.
# The two-input ops and where are compared with PyTorch by `autograd conform torch`.
OPS = [op for op in ALL_OPS if op not in (*BINARY_FUNCTIONS, "where", *COMPARISONS)]


@st.composite
def programs_with_inputs(draw: st.DrawFn) -> tuple[Expr, dict[str, float]]:
    expr = draw(expressions(ops=OPS, variables=VARIABLES, max_nodes=8, max_depth=5))
    return expr, {name: draw(floats()) for name in names(expr)}


@settings(
    max_examples=PROGRAMS,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(programs_with_inputs())
@example(  # d/dx of c / x underflows to a zero; torch.div's Hessian has 0.0, ours -0.0 (the
    # true value's sign): an error bound rounded up to the least float, not to zero
    (Call("sigmoid", Binary("/", Num(-2.2250738585072014e-308), Var("x"))), {"x": 1e200})
)
def test_values_gradients_and_hessians_match_pytorch(case: tuple[Expr, dict[str, float]]) -> None:
    assume(check_program(*case))


@settings(max_examples=200)
@given(programs_with_inputs())
def test_first_order_node_sweep_equals_the_public_float_api(
    case: tuple[Expr, dict[str, float]],
) -> None:
    # The bounds above are computed on node graphs; this ties them to what users get.
    expr, inputs = case
    out, g1, _ = our_graphs(expr, inputs)
    ref = reference(expr, inputs)
    ours = [_value(out), *(_value(g) for g in g1)]
    public = [ref.value, *ref.gradients.values()]
    assert [repr(v) for v in ours] == [repr(v) for v in public]


# Section 9's edges inside programs, once sqrt, abs, sin and cos are in the grammar; and
# issue 14's. Its two-input ops are left out here (OPS): tests/test_more_ops.py compares them.
NEW_OP_ROWS: list[tuple[str, dict[str, float]]] = (
    [
        ("sqrt(x)", {"x": -0.0}),  # -0.0, d/dx -inf, d2 inf
        ("sqrt(x) * y", {"x": 1e-310, "y": 3.0}),
        ("abs(x) * y", {"x": 0.0, "y": 2.0}),  # abs'(0) == 0 (sgn)
        ("abs(x) + x", {"x": math.nan}),  # abs'(nan) == 0
        ("sin(x) * cos(y)", {"x": 1e22, "y": 2.0**53}),  # huge arguments
        ("cos(x) + sin(x)", {"x": -0.0}),
        # issue 14's one-input ops at their edges
        ("tan(x) * y", {"x": 1.5707963267948966, "y": 2.0}),  # next to the pole
        ("sinh(x) + cosh(x)", {"x": 710.0}),  # the last finite values
        ("arcsin(x) + arccos(y)", {"x": 1.0, "y": -1.0}),  # infinite slopes
        ("arctan(x) * x", {"x": 1e200}),  # x * x overflows in the derivative
        ("log1p(x) * expm1(y)", {"x": -0.5, "y": -40.0}),
        ("log2(x) + log10(y)", {"x": 1e-300, "y": 1000.0}),
        ("exp2(x) * sign(y)", {"x": -1074.0, "y": -3.0}),
        ("sign(x) * x", {"x": math.nan}),  # torch.sign(nan) is 0
    ]
    if hasattr(autograd, "sqrt")
    else []
)


@pytest.mark.parametrize(
    ("source", "inputs"),
    [
        ("x / y", {"x": 1.0, "y": 5e-324}),  # 1/y overflows; x / y is inf, as torch.div
        ("x / y", {"x": 0.0, "y": 1e-310}),  # torch.div: 0.0 (x * y**-1 gave nan)
        ("1e300 / x", {"x": 1e160}),  # d/dx -1e-20 (x * x overflows; (c / x) / x does not)
        ("log(x)", {"x": 1e160}),  # log'' -1e-320, as torch
        ("x ** 0.5", {"x": -0.0}),
        ("x ** y", {"x": 0.0, "y": 0.0}),
        ("x ** y", {"x": -2.0, "y": 2.0}),
        ("relu(x) * x", {"x": math.nan}),
        ("log(x) * x", {"x": 0.0}),
        ("tanh(x) * sigmoid(x)", {"x": 1000.0}),
        *NEW_OP_ROWS,
    ],
)
def test_numerics_table_rows_match_pytorch(source: str, inputs: dict[str, float]) -> None:
    from autograd.expr import parse

    assert check_program(parse(source), inputs)


def test_the_agreement_rule_is_strict_where_it_should_be() -> None:
    assert agree(1.0, 1.0, 0.0)
    assert not agree(0.0, -0.0, 0.0)  # an exact zero keeps its sign
    assert agree(0.0, -0.0, 1e-300)  # a rounded one may not
    assert not agree(math.nan, 1.0, math.inf)
    assert not agree(math.inf, -math.inf, 0.0)
    assert not agree(math.inf, 1.0, 1.0)
    assert agree(MAX, math.inf, MAX * 2**-52)  # one rounding across the overflow threshold
    assert not agree(1.0, 1.0 + 2**-40, 2**-52)
    assert agree(1.0, 1.0 + 2**-51, 0.0)  # the two-ulp slack


def test_a_planted_wrong_derivative_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from autograd.expr import parse

    def wrong_tanh_vjp(self: Tanh, g: float, p: Callable[[Node], float]) -> tuple[float]:
        y = p(self)
        return (g * (1.0 - y * y * 1.0000001),)  # off in the 7th digit

    monkeypatch.setattr(Tanh, "vjp", wrong_tanh_vjp)
    with pytest.raises(AssertionError, match=r"d/dx: ours 0\.78644771"):
        check_program(parse("tanh(x) * y"), {"x": 0.5, "y": 1.0})


def test_a_planted_wrong_second_derivative_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from autograd.expr import parse

    def first_order_only(self: Exp, g: float, p: Callable[[Node], float]) -> tuple[float]:
        return (g * self.value,)  # right value, but a constant: no second derivative

    monkeypatch.setattr(Exp, "vjp", first_order_only)
    with pytest.raises(AssertionError, match=r"d2/dxdx: ours 0\.0, torch 2\.718281828459045"):
        check_program(parse("exp(x)"), {"x": 1.0})
