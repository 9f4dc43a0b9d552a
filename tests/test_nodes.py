"""Nodes: frozen data with identity semantics, short reprs and operator sugar."""

from __future__ import annotations

import gc
import math
import typing
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import cast

import attrs
import pytest

import autograd as ag
from autograd import (
    Abs,
    Add,
    Compare,
    Const,
    Cos,
    Div,
    Exp,
    Leaf,
    Log,
    Mul,
    Node,
    NodeUnion,
    Pow,
    Relu,
    Scalar,
    Sigmoid,
    Sin,
    Sqrt,
    Tanh,
    Where,
)
from autograd.core.nodes import OPS, _build1, _build2, _compiled_forwards
from autograd.core.nodes import Op as OpBase

x, y = Leaf(3.0), Leaf(2.0)
EXAMPLES: list[Node] = [
    x,
    Const(1.5),
    Add(x, y),
    Mul(x, y),
    Div(x, y),
    Pow(x, y),
    Exp(x),
    Log(x),
    Sqrt(x),
    Abs(x),
    Sin(x),
    Cos(x),
    Tanh(x),
    Relu(x),
    Sigmoid(x),
    ag.Tan(x),
    ag.Sinh(x),
    ag.Cosh(x),
    ag.Arcsin(x),
    ag.Arccos(x),
    ag.Arctan(x),
    ag.Log1p(x),
    ag.Expm1(x),
    ag.Log2(x),
    ag.Log10(x),
    ag.Exp2(x),
    ag.Sign(x),
    ag.Arctan2(x, y),
    ag.Hypot(x, y),
    ag.Maximum(x, y),
    ag.Minimum(x, y),
    Compare("le", x, y),
    Where(Compare("lt", x, y), x, y),
]


def test_examples_cover_the_closed_union() -> None:
    assert {type(n) for n in EXAMPLES} == set(typing.get_args(NodeUnion))


def test_the_node_union_is_every_node_class_of_the_package() -> None:
    # `NodeUnion` is what an exhaustive `match` checks: it must list every class
    gc.collect()  # attrs replaces each class by a slotted copy; drop the originals first
    leaves = {Leaf, Const}
    assert set(Node.__subclasses__()) == leaves | {OpBase}
    assert set(OpBase.__subclasses__()) | leaves == set(typing.get_args(NodeUnion))
    assert all(getattr(cls, "__final__", False) for cls in typing.get_args(NodeUnion))
    assert all(issubclass(cls, Node) for cls in typing.get_args(NodeUnion))


@pytest.mark.parametrize("node", EXAMPLES, ids=lambda n: type(n).__name__)
def test_node_is_frozen(node: Node) -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        node.value = 1.0  # type: ignore[misc]  # read-only: the point of the test
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        node.grad = 1.0  # type: ignore[attr-defined]  # no node has a .grad
    assert not hasattr(node, "__dict__")  # slotted: nothing can be stored on a node


@pytest.mark.parametrize("node", EXAMPLES, ids=lambda n: type(n).__name__)
def test_node_fields_are_inputs_and_numbers_never_closures(node: Node) -> None:
    for field in attrs.fields(cast("type[attrs.AttrsInstance]", type(node))):  # attrs classes
        v = getattr(node, field.name)
        assert isinstance(v, Node | float | str | None), (field.name, v)


def test_identity_semantics() -> None:
    a, b = Leaf(2.0), Leaf(2.0)
    assert a == a
    assert a != b  # two leaves are two variables
    assert hash(a) != hash(b)
    assert hash(a) == hash(a)
    assert len({a, b, a}) == 2
    assert {a: 1, b: 2}[a] == 1


@pytest.mark.parametrize("number", [0.0, 2.0, 2, True, math.nan, Fraction(2), Decimal(2), 2j])
def test_equality_with_a_number_raises_instead_of_testing_identity(number: object) -> None:
    a = Leaf(2.0)
    compares: list[Callable[[], object]] = [
        lambda: a == number,
        lambda: number == a,
        lambda: a != number,
    ]
    for compare in compares:
        with pytest.raises(TypeError, match=r"graph node, not a number: compare .* `\.value`"):
            compare()


def test_branch_on_equality_under_grad_raises_rather_than_silently_choosing() -> None:
    def f(x: Scalar) -> Scalar:
        return 0.0 if x == 0.0 else x  # on floats: 0.0 at 0.0; on a node it cannot decide

    assert f(0.0) == 0.0
    with pytest.raises(TypeError, match=r"Leaf\(value=0\.0\) is a graph node"):
        ag.grad(f)(0.0)


def test_equality_with_other_objects_is_identity() -> None:
    a = Leaf(2.0)
    assert a != None  # noqa: E711  # not a number: plain identity, as object.__eq__
    other: object = "2.0"
    assert a != other
    assert [a, Leaf(2.0)].count(a) == 1


def test_repr_is_short() -> None:
    assert repr(Leaf(2.0)) == "Leaf(value=2.0)"
    assert repr(Leaf(2.0, name="w1")) == "Leaf(value=2.0)"
    assert repr(Const(1)) == "Const(value=1.0)"
    deep: Node = Leaf(1.0)
    for _ in range(100):
        deep = deep * 1.0
    assert repr(deep) == "Mul(value=1.0)"
    assert repr(Leaf(2.0) * Leaf(3.0)) == "Mul(value=6.0)"


def test_values_are_eager_and_plain_floats() -> None:
    n = Leaf(3) * 2
    assert n.value == 6.0
    assert type(n.value) is float
    assert type(Leaf(3).value) is float
    assert Leaf(10**400).value == math.inf  # a huge int overflows to inf, not OverflowError
    assert Leaf(-(10**400)).value == -math.inf


Op = Callable[[object, object], object]
OPERATORS: list[tuple[str, Callable[[float, float], float]]] = [
    ("+", lambda a, b: a + b),
    ("-", lambda a, b: a - b),
    ("*", lambda a, b: a * b),
    ("/", lambda a, b: a / b),
    ("**", lambda a, b: a**b),
]


@pytest.mark.parametrize(("name", "op"), OPERATORS, ids=[n for n, _ in OPERATORS])
@pytest.mark.parametrize("other", [2.0, 2], ids=["float", "int"])
def test_operators_with_numbers_on_either_side(
    name: str, op: Callable[[float, float], float], other: float
) -> None:
    a = Leaf(3.0)
    for left, right, expected in (
        (a, other, op(3.0, float(other))),
        (other, a, op(float(other), 3.0)),
        (a, Leaf(float(other)), op(3.0, float(other))),
    ):
        out: object = op(left, right)  # type: ignore[arg-type]  # nodes stand in for floats
        assert isinstance(out, Node), name
        assert out.value == pytest.approx(expected, rel=1e-15), name


def test_unary_minus_and_plus() -> None:
    a = Leaf(3.0)
    assert (-a).value == -3.0
    assert isinstance(-a, Mul)
    assert +a is a
    neg: Callable[[Node], Node] = lambda v: -v  # noqa: E731 - typed, so grad's overloads apply
    assert ag.grad(neg)(3.0) == -1.0


def test_power_with_constant_and_node_exponents() -> None:
    a = Leaf(3.0)
    p = a**2
    assert isinstance(p, Pow)
    assert type(p.y) is Const  # a constant exponent: PyTorch's scalar path
    assert p.value == 9.0
    q = 2**a
    assert isinstance(q, Pow)
    assert type(q.x) is Const
    assert q.value == 8.0
    r = a**a
    assert isinstance(r, Pow)
    assert r.value == 27.0


def test_division_is_one_div_node_whichever_side_the_number_is_on() -> None:
    a = Leaf(3.0)
    for d in (a / 4.0, a / Leaf(4.0), a / 4):
        assert isinstance(d, Div)
        assert (d.x, d.value) == (a, 0.75)
    r = 3.0 / Leaf(4.0)
    assert isinstance(r, Div)
    assert type(r.x) is Const
    assert r.value == 0.75
    # one rounding, as torch.div: x * (1 / y) rounds twice and gives 0.30000000000000004
    assert (Leaf(3.0) / Leaf(10.0)).value == 0.3


def test_unsupported_operands_are_refused_by_python() -> None:
    a = Leaf(1.0)
    for bad in ("1", True, 1j, None, (1.0,)):
        with pytest.raises(TypeError, match="unsupported operand"):
            _ = a + bad  # type: ignore[operator]
        with pytest.raises(TypeError, match="unsupported operand"):
            _ = bad - a  # type: ignore[operator]
    with pytest.raises(TypeError, match="is a graph node, not a number"):
        _ = [1.0] * a  # type: ignore[operator]  # list repetition asks for an index


def test_abs_of_a_node_names_the_function_to_use() -> None:
    """Python's own message ("bad operand type for abs()") says nothing of `autograd.abs`.

    Inside `jit(f)` the argument is a node even where the eager call holds a float.
    """
    with pytest.raises(TypeError, match=r"is a graph node, not a number: .* autograd\.exp"):
        abs(Leaf(-1.0))  # type: ignore[arg-type]  # a node has no __abs__ for mypy either
    with pytest.raises(TypeError, match="is a graph node, not a number"):
        ag.jit(lambda x: abs(x))(-1.0)  # traced, x is a node


class FloatSubclass(float):
    pass


def test_float_and_int_subclasses_are_normalised_to_float() -> None:
    out = Leaf(1.0) + FloatSubclass(2.5)
    assert isinstance(out, Add)
    assert type(out.y) is Const
    assert type(out.y.value) is float
    assert type(Leaf(FloatSubclass(2.0)).value) is float


SPECIALS = [0.0, -0.0, 0.5, -1.5, 2.0, 1e308, -5e-324, math.inf, -math.inf, math.nan]


def bits(v: float) -> tuple[bool, float]:
    return (True, 0.0) if v != v else (False, v) if v else (False, math.copysign(1.0, v))


@pytest.mark.parametrize("cls", [c for c in OPS.values() if c in _compiled_forwards])
def test_builders_with_the_forward_written_in_give_the_constructors_values(
    cls: type[OpBase],
) -> None:
    # the operators' builders inline `_forward`'s text: the same bits as `Add(x, y)` and kin
    if len(cls.inputs) == 1:
        build1 = _build1(cls)
        got = [build1(Leaf(a)).value for a in SPECIALS]
        want = [cls(Leaf(a)).value for a in SPECIALS]  # type: ignore[call-arg]  # one input
    else:
        build2 = _build2(cls)
        pairs = [(a, b) for a in SPECIALS for b in SPECIALS]
        got = [build2(Leaf(a), Leaf(b)).value for a, b in pairs]
        want = [cls(Leaf(a), Leaf(b)).value for a, b in pairs]  # type: ignore[call-arg]  # two
    assert list(map(bits, got)) == list(map(bits, want))


def test_operators_share_one_constant_node_per_value() -> None:
    """``0.9 * x`` in a loop does not build a new 0.9 each step: a `Const` is immutable
    and gets no cotangent. Zeros are never shared (``0.0 == -0.0``), nor explicit `Const`s."""
    from autograd.core import base

    x, y = Leaf(2.0), Leaf(3.0)
    a, b = 0.9 * x, y * 0.9
    assert isinstance(a, ag.Mul)
    assert isinstance(b, ag.Mul)
    assert a.x is b.y
    assert Const(0.9) is not Const(0.9)
    for first, second in [(0.0, -0.0), (-0.0, 0.0)]:  # either order: each keeps its sign
        p, q = x * first, x * second
        assert math.copysign(1.0, p.value) == math.copysign(1.0, first)
        assert math.copysign(1.0, q.value) == math.copysign(1.0, second)
    assert ag.grad(lambda v: 0.9 * v + 0.9 * v * v)(2.0) == 0.9 + 0.9 * 2 * 2.0
    for i in range(base._SHARED_CONSTS + 10):  # bounded: cleared when full
        _ = x * (i + 0.5)
    assert len(base._shared_consts) <= base._SHARED_CONSTS
