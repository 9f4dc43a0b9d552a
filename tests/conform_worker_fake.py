"""A fake ``conform`` worker (JSON lines): this engine, ``sin'`` doubled, ``log(0)`` raising.

Run by path with the current interpreter, as ``--python`` runs a worker;
``--bad-hello`` makes it greet out of protocol, ``--die`` exit after the hello.
"""

from __future__ import annotations

import json
import sys

import conform_fakes

from autograd import cos, sin, stop_gradient
from autograd.conform import PROTOCOL
from autograd.conform._interpret import Value
from autograd.programs import decode_float, encode_float, expr_from_tree


def _sin_doubled(x: Value) -> Value:
    s = stop_gradient(x)
    return sin(x) + (x - s) * cos(s)  # right value, derivative 2 cos(x)


FAKE = conform_fakes.engine(
    "fake-worker", conform_fakes._kit(sin=_sin_doubled, log=conform_fakes._log_raising)
)


def main() -> None:
    if "--bad-hello" in sys.argv:
        print("hello", flush=True)
        return
    hello = {
        "protocol": PROTOCOL,
        "engine": "fake-worker",
        "version": "1",
        "ops": ["*", "sin", "log", "exp", "frobnicate"],
        "node_exponents": True,
        "order": 2,
    }
    print(json.dumps(hello), flush=True)
    if "--die" in sys.argv:
        return
    for line in sys.stdin:
        request = json.loads(line)
        expr = expr_from_tree(request["tree"])
        inputs = {k: decode_float(v) for k, v in request["inputs"].items()}
        try:
            value, grads = FAKE.first(expr, inputs)
        except ZeroDivisionError as e:
            print(json.dumps({"id": request["id"], "error": f"ZeroDivisionError: {e}"}), flush=True)
            continue
        answer: dict[str, object] = {
            "id": request["id"],
            "value": encode_float(value),
            "gradients": {k: encode_float(g) for k, g in grads.items()},
        }
        if request["order"] == 2:
            assert FAKE.second is not None
            h = FAKE.second(expr, inputs)
            answer["hessian"] = [[encode_float(h[a][b]) for b in inputs] for a in inputs]
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
