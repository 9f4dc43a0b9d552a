# mypy: disable-error-code="call-overload, arg-type, misc, operator, call-arg, dict-item"
# This file feeds deliberately ill-typed values (cycles, Fractions, strings) and
# loosely typed pytrees to the typed API; the type errors are the point.
"""Hostile input: every bad argument is a clear error, every good one still works.

Deep and cyclic pytrees in every transform, copies and pickles of graphs of
any depth, check_grads' numeric arguments, op classes built directly from
numbers, and numbers that are not floats (NumPy scalars, Fraction, Decimal).
"""

from __future__ import annotations

import copy
import io
import itertools
import math
import pickle
import struct
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import autograd as ag
import autograd.core.base as base
import autograd.core.nodes as nodes
from autograd import Add, Const, Exp, Leaf, Log, Mul, Node, Pow, Relu, Scalar, Sigmoid, Tanh
from autograd.pytree import flatten, flatten_any, unflatten

DEPTH = 100_000  # the figure: a hundred thousand levels
DEEP = 5_000  # far past the recursion limit (1000), cheap enough for every transform


def nest(depth: int, leaf: object) -> list[object]:
    """``[[...[leaf]...]]``: ``depth`` lists, built without recursion."""
    tree: list[object] = [leaf]
    for _ in range(depth - 1):
        tree = [tree]
    return tree


def innermost(tree: object) -> Scalar:
    while isinstance(tree, list) and isinstance(tree[0], list):
        tree = tree[0]
    assert isinstance(tree, list)
    leaf = tree[0]
    assert isinstance(leaf, float | Node)
    return leaf


def depth_of(tree: object) -> int:
    n = 0
    while isinstance(tree, list):
        tree, n = tree[0], n + 1
    return n


def cube(tree: object) -> Scalar:
    x = innermost(tree)
    return x * x * x


# --- 1. deep and cyclic pytrees -------------------------------------------------


def test_hundred_thousand_deep_pytree_at_the_default_recursion_limit() -> None:
    assert sys.getrecursionlimit() == 1000  # CPython's default: nothing here raises it
    deep = nest(DEPTH, 2.0)
    g = ag.grad(cube)(deep)
    assert depth_of(g) == DEPTH
    assert innermost(g) == 12.0
    assert innermost(ag.jit(ag.grad(cube))(deep)) == 12.0
    assert type(innermost(ag.stop_gradient(nest(DEPTH, Leaf(2.0))))) is Const


def test_deep_pytree_works_in_every_transform() -> None:
    assert sys.getrecursionlimit() == 1000
    deep = nest(DEEP, 2.0)
    value, g = ag.value_and_grad(cube)(deep)
    assert (value, innermost(g), depth_of(g)) == (8.0, 12.0, DEEP)
    _, tangent = ag.jvp(cube, (deep,), (nest(DEEP, 1.0),))
    assert tangent == 12.0
    _, back = ag.vjp(cube, deep)
    assert innermost(back(1.0)[0]) == 12.0
    assert innermost(ag.jacobian(cube)(deep)) == 12.0
    assert innermost(ag.hessian(cube)(deep)) == 12.0  # 6x at x = 2
    assert ag.jit(cube)(deep) == 8.0
    ag.check_grads(cube, (deep,), order=2)


def test_deep_dicts_tuples_and_attrs_flatten_and_rebuild() -> None:
    @attrs.frozen
    class Box:
        inner: object

    tree: object = 1.5
    for i in range(DEEP):
        tree = ({"k": tree},) if i % 3 == 0 else Box(tree) if i % 3 == 1 else [tree, None]
    leaves, shape = flatten(tree, "params")
    assert leaves == [1.5]
    assert unflatten(shape, [4.0]) is not tree
    assert flatten(unflatten(shape, [4.0]), "p") == ([4.0], shape)


def test_deep_shapes_compare_and_hash_without_recursing() -> None:
    a, b, c = (flatten(nest(DEEP, x), "t")[1] for x in (1.0, 2.0, None))
    assert a == b
    assert hash(a) == hash(b)
    assert a != c  # differs only at the bottom: a leaf there, None here
    assert "subtrees" in repr(a)  # short, not five thousand levels


def cycle_in_list() -> dict[str, list[object]]:
    tree: dict[str, list[object]] = {"a": [1.0]}
    tree["a"].append(tree)
    return tree


@attrs.define
class Node2:
    w: float
    next: object = None


def cycle_in_attrs() -> list[object]:
    n = Node2(1.0)
    n.next = [n]
    return [n]


CYCLES: list[tuple[Callable[[], object], str, str]] = [
    (cycle_in_list, r"params\['a'\]\[1\]", r"params"),
    (cycle_in_attrs, r"params\[0\]\.next\[0\]", r"params\[0\]"),
]


def total(params: object) -> Scalar:
    out: Scalar = 0.0
    for leaf in flatten_any(params)[0]:
        if isinstance(leaf, float | Node):
            out = out + leaf
    return out


@pytest.mark.parametrize(("make", "where", "outer"), CYCLES, ids=["dict-list", "attrs-list"])
def test_cyclic_pytree_is_a_type_error_naming_the_path_in_every_transform(
    make: Callable[[], object], where: str, outer: str
) -> None:
    message = rf"{where} is {outer} again, which contains it: a pytree cannot contain itself"
    calls: list[Callable[[], object]] = [
        lambda: ag.grad(total)(make()),
        lambda: ag.value_and_grad(total)(make()),
        lambda: ag.jacobian(total)(make()),
        lambda: ag.hessian(total)(make()),
        lambda: ag.jit(ag.grad(total))(make()),
        lambda: ag.check_grads(total, (make(),)),
    ]
    for call in calls:
        with pytest.raises(TypeError, match=message):
            call()
    args = message.replace("params", r"args\[0\]")  # jit of a plain function: no names
    with pytest.raises(TypeError, match=rf"^jit\(total\): {args}; mark argument 0 static"):
        ag.jit(total)(make())
    primal = rf"primals\[0\]{where.removeprefix('params')} is primals\[0\]{outer[6:]} again"
    with pytest.raises(TypeError, match=primal):
        ag.jvp(total, (make(),), ([1.0],))  # a tangent the walk accepts: the primal fails
    with pytest.raises(TypeError, match=primal.replace("primals", "tangents")):
        ag.jvp(total, ([1.0],), (make(),))
    with pytest.raises(TypeError, match=primal):
        ag.vjp(total, make())
    with pytest.raises(TypeError, match=rf"tree{where.removeprefix('params')} is tree"):
        ag.stop_gradient(make())


def test_cyclic_output_is_a_type_error_naming_the_output_path() -> None:
    def f(x: Scalar) -> object:
        out: list[object] = [x]
        out.append(out)
        return out

    with pytest.raises(TypeError, match=r"output\[1\] is output again"):
        ag.jacobian(f)(1.0)


def test_a_shared_subtree_is_not_a_cycle() -> None:
    shared = [1.0, 2.0]
    g = ag.grad(total)({"a": shared, "b": shared, "c": [shared, (shared,)]})
    assert flatten_any(g)[0] == [1.0] * 8


def test_unflatten_refuses_the_wrong_number_of_leaves() -> None:
    _, shape = flatten({"a": [1.0, 2.0]}, "p")
    with pytest.raises(ValueError, match=r"^a tree of 2 leaves cannot take 1$"):
        unflatten(shape, [1.0])
    with pytest.raises(ValueError, match=r"^a tree of 2 leaves cannot take 3$"):
        unflatten(shape, [1.0, 2.0, 3.0])


def signature(tree: object) -> object:
    """An independent (recursive) oracle for shape equality, on small trees."""
    if isinstance(tree, dict):
        return (dict, tuple((k, signature(v)) for k, v in tree.items()))
    if isinstance(tree, list | tuple):
        return (type(tree), tuple(signature(v) for v in tree))
    return "none" if tree is None else "leaf"


small_trees = st.recursive(
    st.one_of(st.just(1.0), st.none()),
    lambda kids: st.one_of(
        st.lists(kids, max_size=3),
        st.lists(kids, max_size=2).map(tuple),
        st.dictionaries(st.sampled_from("ab"), kids, max_size=2),
    ),
    max_leaves=6,
)


@given(a=small_trees, b=small_trees)
@example(a={"a": 1.0}, b={"b": 1.0})  # shapes that differ in one place each
@example(a=[1.0], b=(1.0,))
@example(a=[[None]], b=[[1.0]])
@example(a=[[1.0], [1.0, 1.0]], b=[[1.0, 1.0], [1.0]])
def test_shape_equality_and_hash_match_a_recursive_oracle(a: object, b: object) -> None:
    (leaves_a, sa), (_, sb) = flatten_any(a), flatten_any(b)
    assert (sa == sb) == (signature(a) == signature(b))
    if sa == sb:
        assert hash(sa) == hash(sb)
    assert signature(unflatten(sa, leaves_a)) == signature(a)


# --- 2. copies and pickles ------------------------------------------------------


def test_a_copy_of_a_node_is_the_node_so_it_keeps_its_gradient() -> None:
    x = Leaf(2.0)
    assert copy.copy(x) is x
    assert copy.deepcopy(x) is x
    assert copy.deepcopy({"w": [x]})["w"][0] is x
    assert ag.grad(lambda x: copy.copy(x))(1.0) == 1.0

    def copied(p: dict[str, Scalar]) -> Scalar:
        return copy.deepcopy(p)["w"] ** 2

    assert ag.grad(copied)({"w": 3.0}) == {"w": 6.0}


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


def computed_bits(x: float) -> bytes:
    """`bits`, with every nan alike: the sign of ``nan + nan`` is not CPython's to keep.

    CPython 3.11 adds two nans of opposite signs to either sign, depending on
    whether the bytecode doing it is specialised yet (`BINARY_OP_ADD_FLOAT`
    against the generic `float_add`), so a gradient that sums nans can come out
    with either sign from one run to the next. Stored values keep their bits.
    """
    return b"nan" if x != x else bits(x)


def walk(root: Node) -> Iterator[Node]:
    """Every node once, depth first, without recursion."""
    seen = {id(root)}
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for x in nodes._inputs(node):
            if id(x) not in seen:
                seen.add(id(x))
                stack.append(x)


def same_graph(a: Node, b: Node) -> None:
    """The same classes, value bits and sharing, node for node (walked in lockstep)."""
    pairs: dict[int, int] = {}
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if id(x) in pairs:
            assert pairs[id(x)] == id(y)  # shared in the original, shared in the copy
            continue
        pairs[id(x)] = id(y)
        assert type(x) is type(y)
        assert bits(x.value) == bits(y.value)
        if isinstance(x, Leaf):
            assert isinstance(y, Leaf)
            assert x.name == y.name
        stack.extend(zip(nodes._inputs(x), nodes._inputs(y), strict=True))
    assert len(set(pairs.values())) == len(pairs)


def test_pickle_of_a_million_node_chain_at_the_default_recursion_limit() -> None:
    assert sys.getrecursionlimit() == 1000
    x, one = Leaf(0.5, name="x"), Const(1.0)
    y: Node = x
    for _ in range(1_000_000):
        y = y + one
    z = pickle.loads(pickle.dumps(y))
    assert bits(z.value) == bits(y.value)
    same_graph(y, z)


def mixed_graph() -> tuple[Node, list[Leaf]]:
    """Special values (nan, inf, -0.0) and every op, with shared subexpressions."""
    leaves = [Leaf(v, name=f"x{i}") for i, v in enumerate([0.5, -0.0, math.inf, -2.0])]
    a, b, c, d = leaves
    s = ag.tanh(a) * b + ag.exp(c) + ag.log(d)  # -0.0, inf, nan
    t = ag.sigmoid(s) + ag.relu(b) ** a + d ** Const(3.0)
    return t * s + t, leaves


# Protocol 0 writes floats as text (a nan's sign is lost), as it does for any float.
@pytest.mark.parametrize("protocol", range(1, pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_keeps_values_bit_for_bit_sharing_and_gradients(protocol: int) -> None:
    root, leaves = mixed_graph()
    loaded = pickle.loads(pickle.dumps([root, *leaves], protocol=protocol))
    same_graph(root, loaded[0])
    for leaf, twin in zip(leaves, loaded[1:], strict=True):
        assert twin in set(walk(loaded[0]))  # the loaded leaf is the one in the graph
        want, got = ag.gradients(root)[leaf], ag.gradients(loaded[0])[twin]
        assert computed_bits(got) == computed_bits(want)


def test_pickle_protocol_0_keeps_values_and_sharing() -> None:
    root, _ = mixed_graph()
    loaded = pickle.loads(pickle.dumps(root, protocol=0))
    pairs = list(zip(walk(root), walk(loaded), strict=True))
    assert all(type(a) is type(b) for a, b in pairs)
    assert all(a.value == b.value or (a.value != a.value and b.value != b.value) for a, b in pairs)


def test_pickle_of_a_wide_dag_writes_each_node_once() -> None:
    x = Leaf(1.0)
    layer: list[Node] = [x * float(i) for i in range(1, 200)]
    for _ in range(20):  # each node feeds two in the next layer
        layer = [layer[i] + layer[(i + 1) % len(layer)] for i in range(len(layer))]
    root = ag.sum(layer)
    assert isinstance(root, Node)
    data = pickle.dumps(root)
    same_graph(root, pickle.loads(data))
    n = sum(1 for _ in walk(root))
    assert len(data) < 60 * n  # written once each: a tree-like copy would be 2**20 times larger


def counting_inputs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    inputs = base._inputs

    def counted(node: base._Arith) -> tuple[base._Arith, ...]:
        calls[0] += 1
        return inputs(node)

    monkeypatch.setattr(base, "_inputs", counted)
    return calls


def test_pickle_of_many_nodes_of_one_graph_is_linear_and_shares_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, one = Leaf(0.0), Const(1.0)
    chain: list[Node] = [x]
    for _ in range(3000):
        chain.append(chain[-1] + one)
    calls = counting_inputs(monkeypatch)
    loaded = pickle.loads(pickle.dumps(chain))  # inputs first: each root would re-walk
    assert calls[0] < 10 * len(chain)  # re-walking would be about 4.5 million
    for prev, node in itertools.pairwise(loaded):
        assert node.x is prev  # one graph, not 3,001 copies of its prefixes
    same_graph(chain[-1], loaded[-1])


def test_pickle_through_two_interleaved_picklers_stays_correct() -> None:
    x, one = Leaf(0.0), Const(1.0)
    y: Node = x
    for _ in range(5000):
        y = y + one
    z = y + one
    first, second = io.BytesIO(), io.BytesIO()
    p1, p2 = pickle.Pickler(first), pickle.Pickler(second)
    p1.dump(y)
    p2.dump(z)  # the same graph through another pickler in between
    p1.dump(z)
    assert pickle.loads(second.getvalue()).value == 5001.0
    first.seek(0)
    reader = pickle.Unpickler(first)
    y1, z1 = reader.load(), reader.load()
    same_graph(z, z1)
    assert z1.x is y1  # the memo of p1 still shares y


# --- 3. check_grads' numeric arguments -----------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"eps": 0}, ValueError, r"eps must be a positive finite number, got 0$"),
        ({"eps": -1e-6}, ValueError, r"eps must be a positive finite number, got -1e-06$"),
        ({"eps": math.nan}, ValueError, r"eps must be a positive finite number, got nan$"),
        ({"eps": math.inf}, ValueError, r"eps must be a positive finite number, got inf$"),
        ({"eps": True}, TypeError, r"eps must be a real number, got bool True$"),
        ({"eps": "1e-6"}, TypeError, r"eps must be a real number, got str '1e-6'$"),
        ({"rtol": math.nan}, ValueError, r"rtol must be a non-negative finite number, got nan$"),
        ({"rtol": -1.0}, ValueError, r"rtol must be a non-negative finite number, got -1.0$"),
        ({"atol": math.inf}, ValueError, r"atol must be a non-negative finite number, got inf$"),
        ({"atol": False}, TypeError, r"atol must be a real number, got bool False$"),
        ({"order": 0}, ValueError, r"order must be at least 1, got 0$"),
        ({"order": True}, TypeError, r"order must be an int, got bool True$"),
        ({"order": 2.0}, TypeError, r"order must be an int, got float 2.0$"),
    ],
)
def test_check_grads_refuses_bad_step_tolerances_and_order(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=r"^check_grads\(\): " + message):
        ag.check_grads(cube, (2.0,), **kwargs)


def test_check_grads_still_takes_ints_zero_tolerances_and_still_fails_wrong_gradients() -> None:
    ag.check_grads(lambda x: x * 2.0, (1.0,), eps=1, rtol=0, atol=0)  # exact for a line
    with pytest.raises(AssertionError, match=r"d output / d x is 0.0"):
        ag.check_grads(lambda x: ag.stop_gradient(x) * 2.0, (1.0,), atol=0.5)


# --- 4. op classes built directly ------------------------------------------------

OPS2 = [Add, Mul, Pow]
OPS1 = [Exp, Log, Tanh, Relu, Sigmoid]


@pytest.mark.parametrize("cls", OPS2)
def test_binary_op_from_numbers_is_a_type_error_naming_class_and_field(cls: type[Node]) -> None:
    name = cls.__name__
    with pytest.raises(TypeError, match=rf"^{name}\(x=\.\.\.\) needs a node, got float 1\.0: wrap"):
        cls(1.0, 2.0)
    with pytest.raises(TypeError, match=rf"^{name}\(y=\.\.\.\) needs a node, got int 2: wrap"):
        cls(Leaf(1.0), 2)
    built = cls(Leaf(3.0), Const(2.0))
    assert built.value == {"Add": 5.0, "Mul": 6.0, "Pow": 9.0}[name]


@pytest.mark.parametrize("cls", OPS1)
def test_unary_op_from_a_number_is_a_type_error(cls: type[Node]) -> None:
    with pytest.raises(TypeError, match=rf"^{cls.__name__}\(x=\.\.\.\) needs a node, got str 'a'"):
        cls("a")
    assert cls(Const(0.5)).value == getattr(ag, cls.__name__.lower())(0.5)


def test_operators_still_lift_numbers() -> None:
    x = Leaf(2.0)
    assert type(x + 1.0) is Add
    assert (1 - x).value == -1.0
    assert (x / 4).value == 0.5


# --- 5. numbers that are not floats -----------------------------------------------

EXACT = [Fraction(1, 2), Decimal("0.5"), Decimal("-0"), Fraction(-3, 4), Decimal("1e3")]
INEXACT = [Fraction(1, 3), Decimal("0.1"), Fraction(10**400), Decimal("1e400"), Decimal("sNaN")]


def square_w(p: dict[str, Scalar]) -> Scalar:
    return p["w"] * p["w"]


def times_one(params: dict[str, Scalar]) -> Scalar:
    return params["w"] * 1.0


def grad_w(w: object) -> object:
    return ag.grad(square_w)({"w": w})


@pytest.mark.parametrize("v", EXACT, ids=repr)
def test_exact_fractions_and_decimals_enter_everywhere(v: object) -> None:
    f = float(v)
    g = grad_w(v)
    assert isinstance(g, dict)
    assert type(g["w"]) is float
    assert bits(g["w"]) == bits(2.0 * f)
    assert bits(Leaf(v).value) == bits(f)
    assert bits(Const(v).value) == bits(f)
    assert bits((Leaf(1.0) * v).value) == bits(f)
    assert bits((v * Leaf(1.0)).value) == bits(f)


@pytest.mark.parametrize("v", INEXACT, ids=repr)
def test_numbers_float64_cannot_hold_are_refused_with_the_path(v: object) -> None:
    name = type(v).__name__
    with pytest.raises(ValueError, match=rf"^params\['w'\] is a {name} \(.*\): (float64|it has)"):
        ag.grad(times_one)({"w": v})
    with pytest.raises(ValueError, match=rf"^a node value of {name} "):
        Leaf(v)
    with pytest.raises(ValueError, match=rf"^an operand {name} "):
        Leaf(1.0) + v


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_float_as_fraction_or_decimal_is_accepted_bit_for_bit(x: float) -> None:
    assert bits(Leaf(Fraction(x)).value) == bits(x + 0.0)  # a Fraction has no -0
    assert bits(Leaf(Decimal(x)).value) == bits(x)  # a Decimal has: Decimal('-0')


@given(st.integers(-(10**6), 10**6), st.integers(1, 10**6))
def test_a_fraction_is_accepted_exactly_when_float64_holds_it(p: int, q: int) -> None:
    fr = Fraction(p, q)
    if Fraction(float(fr)) == fr:  # the oracle: exact rational arithmetic
        assert Leaf(fr).value == float(fr)
    else:
        with pytest.raises(ValueError, match="float64 cannot hold it exactly"):
            Leaf(fr)


def test_numpy_scalars_that_convert_exactly_enter_everywhere() -> None:
    np = pytest.importorskip("numpy")
    for v in [np.float32(0.5), np.float16(0.1), np.int64(3), np.uint8(7), np.float64(0.1)]:
        f = float(v)
        assert grad_w(v) == {"w": 2.0 * f}
        assert bits(Leaf(v).value) == bits(f)
        assert type(Const(v).value) is float
        assert (Leaf(1.0) + v).value == 1.0 + f
        assert (v * Leaf(1.0)).value == f  # numpy defers to the node's reflected operator
    assert grad_w(np.int64(2**62)) == {"w": 2.0 * 2.0**62}


def test_numpy_scalars_that_do_not_are_refused_with_the_path_and_why() -> None:
    np = pytest.importorskip("numpy")
    refused = [
        (np.bool_(True), TypeError, "booleans are not differentiable"),
        (np.complex128(1.0), TypeError, "only real numbers are differentiable"),
        (np.complex64(1.0), TypeError, "only real numbers are differentiable"),
    ]
    if np.finfo(np.longdouble).nmant > 52:  # an x87 or quad long double holds more bits
        refused.append((np.longdouble(1) / 3, ValueError, "float64 cannot hold it exactly"))
    for v, error, why in refused:
        with pytest.raises(error, match=rf"^params\['w'\] is a \w+ \(.*\): {why}"):
            ag.grad(times_one)({"w": v})
        with pytest.raises(error):
            Leaf(v)


def test_bool_complex_and_str_are_still_refused_as_before() -> None:
    for v, why in [(True, "booleans"), (1j, "only real numbers"), ("1.0", "strings are not")]:
        with pytest.raises(TypeError, match=rf"^params\['w'\] is a \w+ \(.*\): {why}"):
            ag.grad(times_one)({"w": v})
        with pytest.raises(TypeError, match="unsupported operand"):
            Leaf(1.0) + v


# --- the census: many hostile inputs, only clear errors --------------------------


def hostile_calls() -> list[tuple[str, Callable[[], object]]]:
    """Bad input at every entry point; each must raise TypeError or ValueError."""
    bad_leaves: list[object] = [
        "1",
        True,
        1j,
        b"1",
        {1.0},
        object(),
        Fraction(1, 3),
        Decimal("0.1"),
        Decimal("sNaN"),
        Fraction(10**400),
        cycle_in_list(),
        cycle_in_attrs(),
    ]
    out: list[tuple[str, Callable[[], object]]] = []
    for i, bad in enumerate(bad_leaves):
        tree = {"w": bad}
        out += [
            (f"grad {i}", lambda t=tree: ag.grad(total)(t)),
            (f"value_and_grad {i}", lambda t=tree: ag.value_and_grad(total)(t)),
            (f"jvp {i}", lambda t=tree: ag.jvp(total, (t,), (t,))),
            (f"vjp {i}", lambda t=tree: ag.vjp(total, t)),
            (f"jacobian {i}", lambda t=tree: ag.jacobian(total)(t)),
            (f"hessian {i}", lambda t=tree: ag.hessian(total)(t)),
            (f"jit {i}", lambda t=tree: ag.jit(ag.grad(total))(t)),
            (f"check_grads {i}", lambda t=tree: ag.check_grads(total, (t,))),
            (f"Leaf {i}", lambda b=bad: Leaf(b)),
            (f"Const {i}", lambda b=bad: Const(b)),
            (f"operator {i}", lambda b=bad: Leaf(1.0) * b),
            (f"Add {i}", lambda b=bad: Add(Leaf(1.0), b)),
        ]
    for kw in ["eps", "rtol", "atol"]:
        for v in [math.nan, math.inf, -1.0, True, "x"]:
            out.append(
                (
                    f"check_grads {kw}={v!r}",
                    lambda k=kw, v=v: ag.check_grads(cube, (2.0,), **{k: v}),
                )
            )
    return out


def test_census_of_hostile_inputs_only_clear_errors() -> None:
    calls = hostile_calls()
    for label, call in calls:
        with pytest.raises((TypeError, ValueError), match=r"\w") as caught:
            call()
        assert caught.type in (TypeError, ValueError), label  # not a subclass from deep inside
    assert len(calls) >= 150
