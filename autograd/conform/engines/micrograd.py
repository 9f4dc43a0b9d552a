"""micrograd (``pip install micrograd==0.1.0``): ``Value``, ``backward()``; first order only.

Its ``Value`` has ``+ - * / **`` (a number exponent only), unary minus and
``relu``; 0.1.0 has no ``exp``, ``log``, ``tanh`` or ``sigmoid``.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping

from autograd.conform._engine import Engine
from autograd.conform._interpret import Kit, interpret
from autograd.conform._lazy import require
from autograd.expr import Expr

INSTALL = "pip install micrograd==0.1.0 (or: pip install 'typed-autograd[conform]')"


def load() -> Engine:
    """The micrograd engine (raises `EngineUnavailable` if micrograd is not installed)."""
    engine = require("micrograd.engine", INSTALL)
    value_type = engine.Value
    kit = Kit(
        lift=value_type,
        unary={"neg": operator.neg, "relu": operator.methodcaller("relu")},
        binary={
            "+": operator.add,
            "-": operator.sub,
            "*": operator.mul,
            "/": operator.truediv,
            "**": operator.pow,
        },
        is_value=lambda v: isinstance(v, value_type),
    )

    def first(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        leaves = {name: value_type(v) for name, v in inputs.items()}
        out = interpret(kit, expr, leaves)
        if not isinstance(out, value_type):  # a constant program
            return float(out), dict.fromkeys(inputs, 0.0)
        out.backward()
        return out.data, {name: v.grad for name, v in leaves.items()}

    return Engine(
        name="micrograd",
        version=str(require("importlib.metadata", INSTALL).version("micrograd")),
        first=first,
        ops=("+", "-", "*", "/", "**", "neg", "relu"),
        node_exponents=False,
        notes=("first order only: micrograd has no higher derivatives",),
    )
