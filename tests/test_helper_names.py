"""Two user-defined ops whose float forwards share a ``__name__`` each compute with their own.

Generated code calls a float helper by name (`autograd.core.sym.helper`); two
modules each calling their forward ``f`` once made the second op compute with
the first one's ``f`` under ``python -O`` (an `assert` was the only guard).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

import autograd as ag
from autograd.core import functions as _ops
from autograd.core import nodes as _nodes
from autograd.core.functions import Elementwise, elementwise
from autograd.core.nodes import OPS, Node, Op, Primal, S, _forwarded, _input, define
from autograd.core.sym import HELPERS, helper


def _forward(scale: float) -> Callable[[float], float]:
    def f(x: float) -> float:  # the same __name__ for every scale
        return scale * x

    return f


def _op(name: str, scale: float) -> type[Op]:
    @attrs.frozen(eq=False)
    class Scaled(Op):
        """scale * x; derivative scale."""

        impl = _forward(scale)
        x: Node = attrs.field(repr=False, converter=_input)
        value: float = attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True))

        def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
            return (g * scale,)

    Scaled.name = name  # a ClassVar set per test op, before define
    Scaled.label = name
    Scaled.__name__ = Scaled.__qualname__ = name.capitalize()
    return define(Scaled)


@pytest.fixture
def two_ops() -> Iterator[tuple[Elementwise, Elementwise, type[Op], type[Op]]]:
    double, triple = _op("double_it", 2.0), _op("triple_it", 3.0)
    try:
        yield (
            elementwise(double, "2 x (a test's op)."),
            elementwise(triple, "3 x (a test's op)."),
            double,
            triple,
        )
    finally:
        _nodes.undefine(double)
        _nodes.undefine(triple)
        _ops.FUNCTIONS.pop("double_it", None)
        _ops.FUNCTIONS.pop("triple_it", None)


def test_ops_whose_forwards_share_a_name_each_call_their_own(
    two_ops: tuple[Elementwise, Elementwise, type[Op], type[Op]],
) -> None:
    double, triple, _, _ = two_ops

    def f(x: float) -> float:
        return triple(double(x))

    assert double(1.0) == 2.0
    assert triple(1.0) == 3.0
    assert double(ag.Leaf(1.0)).value == 2.0
    assert triple(ag.Leaf(1.0)).value == 3.0
    assert ag.value_and_grad(f)(1.0) == (6.0, 6.0)
    assert ag.jit(ag.value_and_grad(f))(1.0) == (6.0, 6.0)
    assert ag.jit(triple)(1.0) == 3.0
    assert ag.jvp(triple, (1.0,), (1.0,)) == (3.0, 3.0)


def test_undefine_removes_what_define_added(
    two_ops: tuple[Elementwise, Elementwise, type[Op], type[Op]],
) -> None:
    double, triple, double_cls, triple_cls = two_ops
    ag.jit(lambda x: triple(double(x)))(1.0)  # the helpers are named
    named = {k for k, v in HELPERS.items() if v in (double_cls.impl, triple_cls.impl)}
    assert len(named) == 2
    _nodes.undefine(double_cls)
    _nodes.undefine(triple_cls)
    assert not named & HELPERS.keys()
    assert "double_it" not in OPS
    assert "triple_it" not in OPS
    assert double_cls not in _nodes.BUILD1


def test_generated_looking_names_are_not_taken_by_helpers() -> None:
    def v1(x: float) -> float:
        return x

    def R(x: float) -> float:  # the name generated code reads its inputs by
        return x

    assert helper(v1) not in ("v1", "R")
    assert helper(R) not in ("v1", "R")
    assert helper(v1) == helper(v1)
    assert helper(lambda x: x).isidentifier()


def test_shared_names_under_python_dash_o() -> None:
    """Under ``-O`` asserts vanish: the names must be unique without them."""
    script = textwrap.dedent(
        """
        import sys
        import autograd as ag
        from autograd.core.functions import elementwise
        from tests.test_helper_names import _op
        if __debug__:
            raise SystemExit("not under -O")
        d, t = elementwise(_op("double_o", 2.0), "2x"), elementwise(_op("triple_o", 3.0), "3x")
        f = lambda x: t(d(x))
        print(d(ag.Leaf(1.0)).value, t(ag.Leaf(1.0)).value, ag.jit(ag.value_and_grad(f))(1.0),
              ag.jvp(t, (1.0,), (1.0,)))
        """
    )
    out = subprocess.run(
        [sys.executable, "-O", "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    assert out.stdout.split() == ["2.0", "3.0", "(6.0,", "6.0)", "(3.0,", "3.0)"]
