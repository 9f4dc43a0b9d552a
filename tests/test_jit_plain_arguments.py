"""`jit` of nested transforms whose rules choose on arguments that are plain numbers eagerly.

In the eager call ``x ** c`` with a number ``c`` takes the scalar-exponent
path, and pow's rule decides ``c == 0`` at once; traced, ``c`` is a variable.
The trace makes those choices as the eager call does and the compiled code
guards them: when a guard fails, `jit` traces again.
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Callable

import pytest

import autograd as ag
from autograd.core import sym

Fn = Callable[[float, float], object]

FUNCTIONS: dict[str, Fn] = {
    "grad(grad(x ** c))": ag.grad(ag.grad(lambda x, c: x**c)),
    "hessian(x ** c)": ag.hessian(lambda x, c: x**c),
    "grad(grad(tanh(x) ** c * x))": ag.grad(ag.grad(lambda x, c: ag.tanh(x) ** c * x)),
    "jvp of x ** c": lambda x, c: ag.jvp(lambda x: x**c, (x,), (1.0,)),
    "where on c": ag.grad(ag.grad(lambda x, c: ag.where(ag.eq(c, 0.0), x**3, ag.log(x)))),
    "c ** x and sqrt": ag.grad(ag.grad(lambda x, c: c**x + ag.sqrt(ag.abs(c * 2.0)) * x)),
    "value_and_grad": ag.value_and_grad(lambda x, c: x**c + ag.abs(c) ** 0.5 + 2.0**c),
}
EXPONENTS = [2.0, 0.0, 0.5, -1.0, -0.5, 3.0, 1.0, -2.0, 1.5, -0.0]
BASES = [0.0, -0.0, 2.0, 1e-310, math.inf, -2.0, math.nan, 0.3]


def bits(v: object) -> object:
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, list | tuple):
        return [bits(x) for x in v]
    return v


@pytest.mark.parametrize("name", FUNCTIONS)
def test_compiled_code_makes_the_eager_calls_choices(name: str) -> None:
    f = FUNCTIONS[name]
    compiled = ag.jit(f)
    for c, x in itertools.product(EXPONENTS, BASES):  # c changes: guards fail and retrace
        assert bits(compiled(x, c)) == bits(f(x, c)), (name, x, c)


def test_a_failed_guard_traces_again_and_a_kept_one_does_not() -> None:
    traces: list[float] = []

    def power(x: ag.Scalar, c: ag.Scalar) -> ag.Scalar:
        traces.append(0.0)
        return x**c

    compiled = ag.jit(ag.grad(ag.grad(power)))
    assert compiled(2.0, 3.0) == 12.0
    assert compiled(5.0, 2.0) == 2.0  # c != 0 as traced: the same code
    assert len(traces) == 1
    assert compiled(5.0, 0.0) == 0.0  # c == 0: the rule's choice flips, traced again
    assert len(traces) == 2
    assert compiled(5.0, 0.0) == 0.0
    assert len(traces) == 2


def test_without_guards_the_compiled_code_would_be_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sym.HELPERS, "check_guard", lambda holds, expected: 0.0)
    f = FUNCTIONS["grad(grad(x ** c))"]
    compiled = ag.jit(f)
    compiled(2.0, 3.0)  # traced with c != 0
    assert bits(compiled(0.0, 0.0)) != bits(f(0.0, 0.0))  # the planted defect shows
