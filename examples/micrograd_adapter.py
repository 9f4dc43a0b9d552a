"""Check micrograd (``pip install micrograd==0.1.0``) against typed-autograd with `check_engine`.

micrograd's ``Value`` has ``+ - * / **`` (a constant int/float exponent
only), unary minus and ``relu``; there is no ``exp``, ``log``, ``tanh`` or
``sigmoid`` in 0.1.0. So the adapter restricts the kit's op set, and each
run below looks for one kind of problem. Run it:

    python examples/micrograd_adapter.py

It prints what the kit found (``docs/reference-testing.md`` shows a run).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from hypothesis import strategies as st
from micrograd.engine import Value

from autograd.testing import (
    Binary,
    Call,
    Conventions,
    EngineMismatch,
    Expr,
    Neg,
    Num,
    Op,
    Var,
    check_engine,
    floats,
    postorder,
)

MICROGRAD_OPS: tuple[Op, ...] = ("+", "-", "*", "/", "**", "neg", "relu")


def micrograd_adapter(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
    """Evaluate ``expr`` with micrograd: one `Value` per variable, shared subexpressions once."""
    leaves = {name: Value(v) for name, v in inputs.items()}
    memo: dict[int, Value] = {}
    for e in postorder(expr):  # our side iterates; micrograd's backward() is what recurses
        memo[id(e)] = _one(e, memo, leaves)
    out = memo[id(expr)]
    out.backward()
    return out.data, {name: v.grad for name, v in leaves.items()}


def _one(e: Expr, memo: Mapping[int, Value], leaves: Mapping[str, Value]) -> Value:
    match e:
        case Num(value=v):
            return Value(v)  # a constant, as micrograd wraps a float operand
        case Var(name=name):
            return leaves[name]
        case Neg(x=x):
            return -memo[id(x)]
        case Call(fn="relu", x=x):
            return memo[id(x)].relu()
        case Binary(op="**", x=x, y=Num(value=c)):
            return memo[id(x)] ** c  # micrograd only takes a number exponent
        case Binary(op="+", x=x, y=y):
            return memo[id(x)] + memo[id(y)]
        case Binary(op="-", x=x, y=y):
            return memo[id(x)] - memo[id(y)]
        case Binary(op="*", x=x, y=y):
            return memo[id(x)] * memo[id(y)]
        case Binary(op="/", x=x, y=y):
            return memo[id(x)] / memo[id(y)]
        case _:  # node exponents, exp, log, tanh, sigmoid: excluded by the op set below
            raise NotImplementedError(f"micrograd 0.1.0 has no {e!r}")


FINDINGS: dict[str, dict[str, object]] = {
    "all its ops, special values (zeros, infinities, nan, huge, subnormal)": {},
    "finite values in [-1e3, 1e3]": {"values": floats(finite=True, bound=1e3)},
    "finite values, signs of zeros ignored": {
        "values": floats(finite=True, bound=1e3),
        "conventions": Conventions(signed_zeros=False),
    },
    "powers of huge numbers": {"ops": ("**",), "values": st.floats(1e200, 1e300)},
    "powers of negative numbers": {"ops": ("**",), "values": st.floats(-10.0, -0.1)},
    "relu at nan": {"ops": ("relu",), "values": st.just(math.nan)},
    "deep graphs (chains up to 3,000 links), moderate values": {
        "ops": ("+",),
        "max_nodes": 0,
        "max_chain": 3000,
        "values": floats(finite=True, bound=1.0),
    },
}


def main() -> None:
    """Run each check and print the minimal failing program the kit reports."""
    for title, options in FINDINGS.items():
        kwargs: dict[str, object] = {"ops": MICROGRAD_OPS, "node_exponents": False} | options
        print(f"## {title}\n")
        try:
            check_engine(micrograd_adapter, n=500, **kwargs)  # type: ignore[arg-type]  # the options are check_engine keywords
        except EngineMismatch as e:
            print(e, end="\n\n")
        else:
            print("no disagreement in 500 programs\n")


if __name__ == "__main__":
    main()
