"""An op defined in one place works through every transform, `jit` and every front end.

The op is a leaky ramp, ``0.5 * x`` below 0 and ``x`` above: its rule makes a
choice on values (a `where`), so `jit` must compile that choice as a run-time
test. Nothing outside the class and its `elementwise` call names it.
"""

from __future__ import annotations

import io
import json
import math
import struct
from collections.abc import Callable, Iterator
from typing import ClassVar

import attrs
import pytest

import autograd as ag
from autograd import cli as _cli
from autograd import programs as _json
from autograd.core import functions as _ops
from autograd.core import nodes as _nodes
from autograd.core.functions import Elementwise, elementwise
from autograd.core.nodes import Node, Op, Primal, S, _forwarded, _input, define, lt, where
from autograd.expr import evaluate, parse


def leaky_ramp_float(x: float) -> float:
    return 0.5 * x if x < 0.0 else x


@pytest.fixture(scope="module")
def ramp() -> Iterator[Elementwise]:
    @define
    @attrs.frozen(eq=False)
    class Ramp(Op):
        """0.5 x below 0, else x; derivative 0.5 below 0, else 1."""

        name: ClassVar[str] = "ramp"
        label: ClassVar[str] = "ramp"
        impl = leaky_ramp_float
        x: Node = attrs.field(repr=False, converter=_input)
        value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

        def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
            return (where(lt(p(self.x), 0.0), 0.5 * g, g),)

    function = elementwise(Ramp, "A leaky ramp (a test's throwaway op).")
    try:
        yield function
    finally:
        _nodes.undefine(Ramp)
        del _ops.FUNCTIONS["ramp"]


def bits(v: object) -> object:
    if isinstance(v, float):
        return struct.pack("<d", v)
    if isinstance(v, list | tuple):
        return [bits(x) for x in v]
    return v


POINTS = (-2.0, 3.0, 0.0, -0.0, math.inf, -math.inf, math.nan, -1e-310)


def test_floats_and_nodes_agree(ramp: Elementwise) -> None:
    for x in POINTS:
        assert bits(ramp(x)) == bits(ramp(ag.Leaf(x)).value)


def test_every_transform_differentiates_it(ramp: Elementwise) -> None:
    def f(x: ag.Scalar) -> ag.Scalar:
        return ramp(x) * x

    for x, slope in ((-2.0, 0.5), (3.0, 1.0)):
        assert ag.grad(f)(x) == 2.0 * slope * x  # d/dx (s x * x) = 2 s x
        assert ag.grad(ag.grad(f))(x) == 2.0 * slope
        assert ag.jvp(f, (x,), (1.0,))[1] == ag.grad(f)(x)
        assert ag.vjp(f, x)[1](1.0) == (ag.grad(f)(x),)
        assert ag.hessian(f)(x) == 2.0 * slope
        ag.check_grads(f, (x,), order=2)


def test_jit_compiles_its_choice_as_a_run_time_test(ramp: Elementwise) -> None:
    def f(x: ag.Scalar) -> ag.Scalar:
        return ramp(x) * x

    stacks: list[Callable[[float], object]] = [
        ag.grad(f),
        ag.grad(ag.grad(f)),
        ag.hessian(f),
        ag.value_and_grad(f),
    ]
    for stack in stacks:
        compiled = ag.jit(stack)
        for x in POINTS:  # the first call traces at -2.0; the others cross the mask
            assert bits(compiled(x)) == bits(stack(x)), (stack, x)


def test_front_ends_read_it_from_the_definition(ramp: Elementwise) -> None:
    expr = parse("ramp(x) * 2")
    value = evaluate(expr, {"x": ag.Leaf(-4.0)})
    assert isinstance(value, ag.Mul)
    assert value.value == -4.0
    assert "ramp" in ag.to_dot(ramp(ag.Leaf(1.0)))
    tree = _json.expr_to_tree(expr)
    assert "ramp" in json.dumps(tree)
    assert _json.expr_from_tree(json.loads(json.dumps(tree))) == expr
    out = io.StringIO()
    assert _cli.main(["grad", "ramp(x) * x", "x=-2"], out=out) == 0
    assert "-2" in out.getvalue()  # d/dx (0.5 x * x) at -2
