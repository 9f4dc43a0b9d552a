"""tinygrad (``pip install tinygrad``): float64 on its CPU device, ``Tensor.gradient`` twice.

tinygrad's CPU device compiles kernels with clang (it must be on ``PATH``).
It has float64 there. It has no ``hypot``, ``log10``, ``arctan`` family
under NumPy's names, so the kit uses its own names (``asin``, ...) and
leaves out what it lacks.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from types import ModuleType

from autograd.conform._engine import Engine, Known
from autograd.conform._interpret import Kit, Value, interpret
from autograd.conform._lazy import require
from autograd.conform._ops import ARITHMETIC
from autograd.expr import BINARY_FUNCTIONS, FUNCTIONS, WHERE, CompareName, Expr

INSTALL = "pip install tinygrad (and clang on PATH; or: pip install 'typed-autograd[conform]')"

_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "abs": "abs"}

_COMPARE: dict[CompareName, Callable[[Value, Value], Value]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}

KNOWN: tuple[Known, ...] = ()


def load() -> Engine:
    """The tinygrad engine on CPU (raises `EngineUnavailable` if tinygrad is not installed)."""
    tinygrad = require("tinygrad", INSTALL)
    kit = _kit(tinygrad)

    def first(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        value, grads, _ = _run(tinygrad, kit, expr, inputs, order=1)
        return value, grads

    def second(expr: Expr, inputs: Mapping[str, float]) -> dict[str, dict[str, float]]:
        return _run(tinygrad, kit, expr, inputs, order=2)[2]

    ops = (
        *ARITHMETIC,
        *(fn for fn in ("neg", *FUNCTIONS) if fn in kit.unary),
        *(fn for fn in BINARY_FUNCTIONS if fn in kit.binary),
        WHERE,
    )
    return Engine(
        name="tinygrad",
        version=str(require("importlib.metadata", INSTALL).version("tinygrad")),
        first=first,
        second=second,
        ops=ops,
        known=KNOWN,
        notes=("float64 on the CPU device (clang)",),
    )


def _kit(tinygrad: ModuleType) -> Kit:
    tensor, dtypes = tinygrad.Tensor, tinygrad.dtypes

    def lift(v: float) -> Value:
        return tensor(v, dtype=dtypes.float64)

    unary = {
        fn: getattr(tensor, _NAMES.get(fn, fn))
        for fn in FUNCTIONS
        if hasattr(tensor, _NAMES.get(fn, fn))
    }
    arithmetic = {
        "+": operator.add,
        "-": operator.sub,
        "*": operator.mul,
        "/": operator.truediv,
        "**": operator.pow,
    }

    def where(cmp: CompareName, a: Value, b: Value, x: Value, y: Value) -> Value:
        return _COMPARE[cmp](a, b).where(x, y)

    def tensors(f: Callable[[Value, Value], Value]) -> Callable[[Value, Value], Value]:
        return lambda a, b: f(*(v if isinstance(v, tensor) else lift(v) for v in (a, b)))

    two = {fn: tensors(getattr(tensor, fn)) for fn in BINARY_FUNCTIONS if hasattr(tensor, fn)}
    return Kit(
        lift=lift,
        unary={"neg": operator.neg, **unary},
        binary={**arithmetic, **two},
        is_value=lambda v: isinstance(v, tensor),
        where=where,
    )


def _run(
    tinygrad: ModuleType, kit: Kit, expr: Expr, inputs: Mapping[str, float], order: int
) -> tuple[float, dict[str, float], dict[str, dict[str, float]]]:
    names = list(inputs)
    zeros = {a: dict.fromkeys(names, 0.0) for a in names}
    with tinygrad.Context(DEV="CPU"):  # its default device search needs a GPU or an env var
        # a variable is a buffer: a constant tensor is a CONST node, and tinygrad's graph
        # shares equal constants (x + y at x == y would be one variable) and folds them
        leaves = [
            tinygrad.Tensor([v], dtype=tinygrad.dtypes.float64).reshape(()) for v in inputs.values()
        ]
        out = interpret(kit, expr, dict(zip(names, leaves, strict=True)))
        if isinstance(out, float):
            return out, dict.fromkeys(names, 0.0), zeros
        used = [leaf for leaf in leaves if _depends(out, leaf)]
        g1 = dict(zip(map(id, used), out.gradient(*used), strict=True)) if used else {}
        grads = {
            a: g1[id(t)].item() if id(t) in g1 else 0.0 for a, t in zip(names, leaves, strict=True)
        }
        if order == 1:
            return out.item(), grads, zeros
        for a, t in zip(names, leaves, strict=True):
            g = g1.get(id(t))
            deeper = [leaf for leaf in leaves if g is not None and _depends(g, leaf)]
            if g is not None and deeper:
                g2 = dict(zip(map(id, deeper), g.gradient(*deeper), strict=True))
                zeros[a] = {
                    b: g2[id(u)].item() if id(u) in g2 else 0.0
                    for b, u in zip(names, leaves, strict=True)
                }
        return out.item(), grads, zeros


def _depends(out: Value, leaf: Value) -> bool:
    """Whether ``leaf``'s graph node is in ``out``'s graph (tinygrad refuses other targets)."""
    return leaf.uop in out.uop.toposort()
