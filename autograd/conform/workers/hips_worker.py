"""A ``conform`` worker for HIPS autograd: JSON lines (the protocol: docs/reference-testing.md).

Run by path in an interpreter that has HIPS autograd and NumPy (``pip install
autograd numpy``), never typed-autograd: both are imported as ``autograd``.
Needs only the engine and the standard library. The program arrives as the
node list of the JSON program format (``tree``); values, gradients (``grad``
per argument) and second derivatives (``grad`` of ``grad``) go back. Inputs
are NumPy float64 scalars, as in arrays (a Python float would make HIPS's
backward use Python's float ``**``, which raises ``ZeroDivisionError``).
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import version
from typing import Any

PROTOCOL = "typed-autograd/conform-worker@1"
_UNARY = {
    "exp": "exp",
    "log": "log",
    "sqrt": "sqrt",
    "abs": "abs",
    "sin": "sin",
    "cos": "cos",
    "tanh": "tanh",
    "tan": "tan",
    "sinh": "sinh",
    "cosh": "cosh",
    "arcsin": "arcsin",
    "arccos": "arccos",
    "arctan": "arctan",
    "log1p": "log1p",
    "expm1": "expm1",
    "log2": "log2",
    "log10": "log10",
    "exp2": "exp2",
    "sign": "sign",
    "neg": "negative",
}
_BINARY = {
    "+": "add",
    "-": "subtract",
    "*": "multiply",
    "/": "true_divide",
    "**": "power",
    "arctan2": "arctan2",
    "hypot": "hypot",
    "maximum": "maximum",
    "minimum": "minimum",
}
_COMPARE = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_COMPARE |= {"eq": "equal", "ne": "not_equal"}
_SPECIAL = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def encode(v: float) -> float | str:
    """A float as the JSON program format writes it (inf, -inf, nan as strings)."""
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else v


def decode(v: float | str) -> float:
    """The inverse of `encode`."""
    return _SPECIAL[v] if isinstance(v, str) else float(v)


def program(np: Any, tree: Sequence[Mapping[str, Any]], names: Sequence[str]) -> Callable[..., Any]:
    """The program as a function of its inputs (positional, in ``names`` order), on HIPS numpy."""

    def f(*xs: Any) -> Any:
        env = dict(zip(names, xs, strict=True))
        built: list[Any] = []
        for node in tree:
            if "call2" in node:  # {"call2": fn, "x": i, "y": j}
                built.append(
                    getattr(np, _BINARY[node["call2"]])(built[node["x"]], built[node["y"]])
                )
                continue
            if "where" in node:  # {"where": cmp, "a": i, "b": j, "x": k, "y": l}
                a, b, x, y = (built[node[k]] for k in "abxy")
                built.append(np.where(getattr(np, _COMPARE[node["where"]])(a, b), x, y))
                continue
            op = node["op"]
            args = [built[i] for i in node.get("args", [])]
            if op == "num":
                built.append(decode(node["value"]))
            elif op == "var":
                built.append(env[node["name"]])
            elif op in _UNARY:
                built.append(getattr(np, _UNARY[op])(args[0]))
            else:
                built.append(getattr(np, _BINARY[op])(args[0], args[1]))
        return built[-1]

    return f


def answer(np: Any, grad: Callable[..., Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """The response to one request: value, gradients, and the Hessian if order 2 was asked."""
    inputs = {k: decode(v) for k, v in request["inputs"].items()}
    names = list(inputs)
    xs = [np.float64(v) for v in inputs.values()]  # as array users have them
    f = program(np, request["tree"], names)
    out: dict[str, Any] = {"id": request["id"], "value": encode(float(f(*xs)))}
    firsts = [grad(f, i) for i in range(len(names))]
    out["gradients"] = {a: encode(float(g(*xs))) for a, g in zip(names, firsts, strict=True)}
    if request.get("order") == 2:
        out["hessian"] = [
            [encode(float(grad(g, j)(*xs))) for j in range(len(names))] for g in firsts
        ]
    return out


def main() -> None:
    """Say hello, then answer each request line until stdin closes."""
    # HIPS autograd is imported when the worker runs, in its own interpreter: this file
    # is also collected by the host project's tests, where `autograd` is typed-autograd.
    # imported by name, not `import`: this `autograd` is HIPS's, in the worker's own interpreter
    grad = importlib.import_module("autograd").grad
    np = importlib.import_module("autograd.numpy")

    hello = {
        "protocol": PROTOCOL,
        "engine": "hips",
        "version": f"{version('autograd')} (numpy {version('numpy')})",
        "ops": [*_BINARY, *_UNARY, "where", *_COMPARE],
        "node_exponents": True,
        "order": 2,
    }
    np.seterr(all="ignore")  # float64 semantics (inf, nan) without warnings on stderr
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            response = answer(np, grad, request)
        except Exception as e:  # the engine's failure is the answer, reported as raised
            response = {"id": request.get("id"), "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(response), flush=True)


if __name__ == "__main__":
    main()
