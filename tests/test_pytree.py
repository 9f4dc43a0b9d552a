"""Pytrees through `grad`: the gradient has the input's structure and container types."""

from __future__ import annotations

import subprocess
import sys
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeVar

import attrs
from hypothesis import given
from hypothesis import strategies as st
from strategies import floats

import autograd as ag
from autograd import Node, Scalar
from autograd.pytree import flatten_any


class Point(NamedTuple):
    x: float
    y: float


@attrs.frozen
class Params:
    w: list[float]
    b: float
    scale: Point | None = None


def total(tree: object) -> Scalar:
    """The sum of ``k * leaf`` over the leaves in order (k = 1, 2, ...): each gradient
    leaf is its position, so order and structure are both checked."""
    leaves, _ = flatten_any(tree)
    out: Scalar = 0.0
    for k, leaf in enumerate(leaves, start=1):
        if isinstance(leaf, Node):
            out = out + k * leaf
    return out


T = TypeVar("T")


def grad_total(tree: T) -> T:
    """`grad` of `total` at a tree of any type: the gradient has the tree's type."""
    # total accepts any object, so grad's first overload (a Node parameter) would match
    g: Callable[[T], T] = ag.grad(total)  # type: ignore[assignment]
    return g(tree)


def same_structure(a: object, b: object) -> bool:
    """Same container types, keys and lengths all the way down; leaves are floats in ``b``."""
    if type(a) in (float, int):
        return type(b) is float
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        assert isinstance(b, dict)
        return list(a) == list(b) and all(same_structure(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        assert isinstance(b, list | tuple)
        return len(a) == len(b) and all(same_structure(u, v) for u, v in zip(a, b, strict=True))
    cls = type(a)
    if attrs.has(cls):
        return all(
            same_structure(getattr(a, f.name), getattr(b, f.name)) for f in attrs.fields(cls)
        )
    return a is None and b is None


def test_gradient_keeps_every_container_type() -> None:
    tree = {
        "list": [1.0, 2.0],
        "tuple": (3.0, (4.0,)),
        "point": Point(5.0, 6.0),
        "params": Params([7.0], 8.0, Point(9.0, 10.0)),
        "none": None,
        "ordered": OrderedDict([("b", 11.0), ("a", 12.0)]),
        "default": defaultdict(float, {"z": 13.0}),
    }
    g = grad_total(tree)
    assert same_structure(tree, g)
    assert g["none"] is None
    assert g["point"] == Point(5.0, 6.0)
    assert g["params"] == Params([7.0], 8.0, Point(9.0, 10.0))
    assert isinstance(g["default"], defaultdict)
    assert g["default"].default_factory is float
    assert isinstance(g["ordered"], OrderedDict)
    assert list(g["ordered"]) == ["b", "a"]
    assert flatten_any(g)[0] == [float(k) for k in range(1, 14)]


def test_dict_insertion_order_is_kept() -> None:
    params = {"z": 1.0, "a": 2.0, "m": 3.0}
    g = grad_total(params)
    assert list(g) == ["z", "a", "m"]
    assert g == {"z": 1.0, "a": 2.0, "m": 3.0}


def test_same_float_object_in_two_positions_is_two_variables() -> None:
    w = 2.5
    params = [w, w]

    def product(p: Sequence[Scalar]) -> Scalar:
        assert p[0] is not p[1]  # two fresh variables
        return p[0] * p[1] * p[1]

    assert ag.grad(product)(params) == [6.25, 12.5]


def test_ints_are_promoted_and_gradient_leaves_are_floats() -> None:
    tree: dict[str, list[float]] = {"a": [1], "b": [2, 3.0]}
    g = grad_total(tree)
    assert g == {"a": [1.0], "b": [2.0, 3.0]}
    assert type(g["a"][0]) is float
    assert type(g["b"][0]) is float


def test_other_arguments_pass_through_untouched() -> None:
    seen: list[object] = []
    data = {"x": [1.0, 2.0]}
    flag = object()

    def loss(w: Scalar, data: dict[str, list[float]], *, flag: object, scale: float) -> Scalar:
        seen.extend([data, flag, scale])
        return w * sum(data["x"]) * scale

    assert ag.grad(loss)(2.0, data, flag=flag, scale=10.0) == 30.0
    assert seen[0] is data
    assert seen[1] is flag
    assert seen[2] == 10.0
    assert data == {"x": [1.0, 2.0]}  # not mutated


def test_argnums_tuple_gives_a_tuple_of_gradients_in_order() -> None:
    def f(a: Scalar, b: list[Scalar], c: Scalar) -> Scalar:
        return a * b[0] + b[1] * c

    grads = ag.grad(f, argnums=(2, 0))(2.0, [3.0, 5.0], 7.0)
    assert grads == (5.0, 3.0)
    assert ag.grad(f, argnums=1)(2.0, [3.0, 5.0], 7.0) == [2.0, 7.0]


def test_empty_containers_and_none_give_empty_gradients() -> None:
    assert grad_total([]) == []
    assert grad_total({}) == {}
    assert grad_total(None) is None
    assert grad_total([None, (), [1.0]]) == [None, (), [1.0]]


trees = st.recursive(
    st.one_of(floats(-10, 10), st.integers(-5, 5), st.none()),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text("abc", min_size=1, max_size=2), children, max_size=3),
        st.builds(Point, floats(-1, 1), floats(-1, 1)),
    ),
    max_leaves=10,
)


@given(tree=trees)
def test_gradient_has_the_structure_of_any_input(tree: object) -> None:
    g = grad_total(tree)
    assert same_structure(tree, g)
    leaves = [x for x in flatten_any(tree)[0] if x is not None]
    assert [x for x in flatten_any(g)[0] if x is not None] == [
        float(k) for k in range(1, len(leaves) + 1)
    ]


def test_importing_autograd_does_not_import_numpy() -> None:
    code = "import sys, autograd; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@attrs.frozen
class Private:
    _w: float
    b: float = 2.0


@attrs.define
class Mutable:
    w: float


def test_attrs_private_fields_and_mutable_classes_are_rebuilt() -> None:
    def private(p: Private) -> Scalar:
        return p._w * p.b

    def mutable(m: Mutable) -> Scalar:
        return m.w * 2.0

    assert ag.grad(private)(Private(3.0)) == Private(2.0, 3.0)
    g = ag.grad(mutable)(Mutable(1.0))
    assert type(g) is Mutable
    assert g.w == 2.0
