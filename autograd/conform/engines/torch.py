"""PyTorch (``pip install torch==2.13.0``): float64 tensors on the CPU, grad of grad for order 2.

The graph has the structure of the program: a constant operand is a Python
float and a constant exponent a float exponent (``pow(Tensor, Scalar)``, as
our constant exponent), a variable a 0-d float64 tensor. A constant numerator
is divided with ``torch.div`` (PyTorch's operator ``float / Tensor`` is
``reciprocal(y) * c``, two roundings).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from types import ModuleType

from autograd.conform._engine import Engine, Known, at, nonfinite_inside
from autograd.conform._interpret import Kit, Value, interpret
from autograd.conform._lazy import require
from autograd.expr import BINARY_FUNCTIONS, FUNCTIONS, CompareName, Expr

INSTALL = "pip install torch==2.13.0 (or: pip install 'typed-autograd[conform]')"

_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2"}  # NumPy's
_COMPARE: dict[CompareName, Callable[[Value, Value], Value]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}

KNOWN: tuple[Known, ...] = (
    Known(
        "pow'' at a mask",
        "second derivatives of x ** y where a mask applies (x == 0, or y == 0) are nan: "
        "the mask is a where() whose backward multiplies the other branch's inf by 0; "
        "ours are the mathematical value",
        "https://github.com/pytorch/pytorch/issues/95180",
        at("**", lambda o: o[0] == 0.0 or o[1] == 0.0, orders=(2,)),
    ),
    Known(
        "0 * inf in double backward",
        "where a value inside the program is infinite or nan, PyTorch's backward "
        "formulas meet 0 * inf and give nan second derivatives where ours are finite",
        "docs/reference-testing.md, Differential testing against PyTorch",
        nonfinite_inside((2,)),
    ),
    Known(
        "sigmoid'' near 0",
        "PyTorch differentiates (1 - s) * s to 1 - 2s, which cancels near 0 "
        "(sigmoid''(1e-12) = -1.25011e-13, exact -1.25e-13); ours is exact to a few ulps",
        "docs/reference-testing.md, Differential testing against PyTorch",
        at("sigmoid", lambda o: 0.0 < abs(o[0]) < 0.5, orders=(2,)),
    ),
)


def load() -> Engine:
    """The PyTorch engine (raises `EngineUnavailable` if torch is not installed)."""
    torch = require("torch", INSTALL)
    kit = _kit(torch)

    def first(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        value, grads, _ = _run(torch, kit, expr, inputs, order=1)
        return value, grads

    def second(expr: Expr, inputs: Mapping[str, float]) -> dict[str, dict[str, float]]:
        return _run(torch, kit, expr, inputs, order=2)[2]

    return Engine(
        name="torch",
        version=str(torch.__version__),
        first=first,
        second=second,
        known=KNOWN,
        notes=("float64 tensors on the CPU; a constant numerator divides with torch.div",),
    )


def _kit(torch: ModuleType) -> Kit:
    def lift(v: float) -> Value:
        return torch.tensor(v, dtype=torch.float64)

    def div(a: Value, b: Value) -> Value:
        return torch.div(a if isinstance(a, torch.Tensor) else lift(a), b)

    def tensors(f: Callable[[Value, Value], Value]) -> Callable[[Value, Value], Value]:
        return lambda a, b: f(*(v if isinstance(v, torch.Tensor) else lift(v) for v in (a, b)))

    def where(cmp: CompareName, a: Value, b: Value, x: Value, y: Value) -> Value:
        return torch.where(_COMPARE[cmp](a, b), x, y)

    unary = {fn: getattr(torch, _NAMES.get(fn, fn)) for fn in FUNCTIONS}
    two = {fn: tensors(getattr(torch, _NAMES.get(fn, fn))) for fn in BINARY_FUNCTIONS}
    arithmetic = {"+": operator.add, "-": operator.sub, "*": operator.mul, "**": operator.pow}
    return Kit(
        lift=lift,
        unary={"neg": torch.neg, **unary},
        binary={**arithmetic, "/": div, **two},
        where=where,
    )


def _run(
    torch: ModuleType, kit: Kit, expr: Expr, inputs: Mapping[str, float], order: int
) -> tuple[float, dict[str, float], dict[str, dict[str, float]]]:
    names = list(inputs)
    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in inputs.values()]
    out = interpret(kit, expr, dict(zip(names, leaves, strict=True)))
    zeros = {a: dict.fromkeys(names, 0.0) for a in names}
    if isinstance(out, float) or not out.requires_grad:  # a constant program
        return (
            float(out) if isinstance(out, float) else out.item(),
            dict.fromkeys(names, 0.0),
            zeros,
        )
    g1 = torch.autograd.grad(out, leaves, create_graph=order == 2, allow_unused=True)
    grads = {a: 0.0 if g is None else g.item() for a, g in zip(names, g1, strict=True)}
    if order == 1:
        return out.item(), grads, zeros
    for a, g in zip(names, g1, strict=True):
        if g is not None and g.requires_grad:
            g2 = torch.autograd.grad(g, leaves, retain_graph=True, allow_unused=True)
            zeros[a] = {b: 0.0 if h is None else h.item() for b, h in zip(names, g2, strict=True)}
    return out.item(), grads, zeros
