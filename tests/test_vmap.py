"""`vmap`, `stack` and `unstack`: the batch layout, in_axes/out_axes, errors, compositions.

Oracles: a Python loop over the examples, restructured by hand (bit for bit),
and central differences on plain floats for derivatives.
"""

from __future__ import annotations

import array
import math
import struct
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, cast

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import central_difference, fd_atol

import autograd as ag
from autograd import Node, Scalar

Params = Mapping[str, Scalar]


def bits(tree: object) -> object:
    """``tree`` with every float as its IEEE bits (-0.0 and ints compared exactly)."""
    if isinstance(tree, float):  # every nan alike: IEEE leaves the sign of a nan result open
        return ("f", b"nan" if math.isnan(tree) else struct.pack("<d", tree))
    if isinstance(tree, Mapping):
        return (type(tree), [(k, bits(v)) for k, v in tree.items()])
    if isinstance(tree, list | tuple):
        return (type(tree), [bits(v) for v in tree])
    return tree


def assert_bits(a: object, b: object) -> None:
    assert bits(a) == bits(b), f"{a!r} != {b!r}"


# Deliberately ill-typed calls (what the run-time checks are for) go through this.
loose_vmap = cast("Callable[..., Callable[..., object]]", ag.vmap)


def recorder(log: list[object], result: object = 0.0) -> Callable[..., object]:
    """A function that logs its arguments (one, or a tuple of several) and returns ``result``."""

    def f(*args: object) -> object:
        log.append(args if len(args) > 1 else args[0])
        return result

    return f


def loss(p: Params, x: float, y: float) -> Scalar:
    """Squared error of a one-feature linear model with a tanh, on one example."""
    return (ag.tanh(p["w"] * x + p["b"]) - y) ** 2


P0 = {"w": 0.7, "b": -0.3}
XS = [0.5, -1.5, 2.0, 0.25]
YS = [1.0, 0.0, -0.5, 0.3]


# ---- the layout ------------------------------------------------------------------


def test_vmap_of_a_scalar_function_is_the_loop() -> None:
    def f(x: float) -> float:
        return ag.exp(x) * x - 1.0

    assert_bits(ag.vmap(f)(XS), [f(x) for x in XS])


def test_a_mapped_dict_is_a_struct_of_arrays_and_the_output_keeps_its_structure() -> None:
    def f(e: Mapping[str, float]) -> dict[str, object]:
        return {"sum": e["x"] + e["y"], "pair": (e["x"] * 2.0, [e["y"]])}

    out = ag.vmap(f)({"x": [1.0, 2.0], "y": [10.0, 20.0]})
    assert_bits(out, {"sum": [11.0, 22.0], "pair": ([2.0, 4.0], [[10.0, 20.0]])})


def test_a_list_valued_example_is_batched_leaf_by_leaf() -> None:
    # an example [a, b] (two leaves) batched over three examples: two lists of three
    out = ag.vmap(lambda v: v[0] * v[1])([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert out == [4.0, 10.0, 18.0]


class Point(NamedTuple):
    x: float
    y: float


@attrs.frozen
class Pair:
    a: float
    b: float


def test_namedtuple_and_attrs_examples_are_rebuilt_with_their_classes() -> None:
    seen: list[object] = []

    def f(p: Point, q: Pair) -> Pair:
        seen.append((p, q))
        return Pair(p.x * q.a, p.y + q.b)

    batched = (
        Point._make([[1.0, 2.0], [3.0, 4.0]]),
        Pair(*cast("list[float]", [[5.0, 6.0], [7.0, 8.0]])),
    )
    out = ag.vmap(f)(*batched)
    assert out == Pair(*cast("list[float]", [[5.0, 12.0], [10.0, 12.0]]))
    assert seen == [(Point(1.0, 3.0), Pair(5.0, 7.0)), (Point(2.0, 4.0), Pair(6.0, 8.0))]


def test_tuples_and_other_sequences_are_batches_and_elements_become_floats() -> None:
    got: list[object] = []
    ag.vmap(recorder(got))((1, 2), array.array("d", [0.5, 1.5]), range(7, 9))
    assert got == [(1, 0.5, 7), (2, 1.5, 8)]
    # ints become floats by the engine's one rule, as jit's batched program computes them
    assert [type(v) for v in cast("tuple[object, ...]", got[0])] == [float, float, float]


def test_examples_are_called_in_order_once_each() -> None:
    calls: list[object] = []
    ag.vmap(recorder(calls))([3.0, 1.0, 2.0])
    assert calls == [3.0, 1.0, 2.0]


def test_a_broadcast_argument_is_passed_itself_to_every_example() -> None:
    seen: list[object] = []
    shared = {"w": [1.0, 2.0], "name": "model"}  # anything goes when in_axes is None
    ag.vmap(recorder(seen), in_axes=(None, 0))(shared, [1.0, 2.0, 3.0])
    assert [p for p, _ in cast("list[tuple[object, float]]", seen)] == [shared] * 3
    assert all(p is shared for p, _ in cast("list[tuple[object, float]]", seen))


def test_in_axes_prefix_maps_part_of_an_argument() -> None:
    def f(p: Mapping[str, Scalar]) -> Scalar:
        return p["w"] * p["b"]

    out = ag.vmap(f, in_axes=({"w": None, "b": 0},))({"w": 3.0, "b": [1.0, 2.0]})
    assert out == [3.0, 6.0]
    nested = ag.vmap(lambda t: t[0][0] + t[0][1] * t[1], in_axes=([[None, 0], 0],))
    assert nested([[1.0, [2.0, 3.0]], [10.0, 100.0]]) == [21.0, 301.0]


def test_in_axes_may_be_a_list() -> None:
    assert ag.vmap(lambda w, x: w * x, in_axes=[None, 0])(2.0, [1.0, 2.0]) == [2.0, 4.0]


def test_unstack_inverts_stack_and_vmap_output_unstacks_to_the_loop() -> None:
    examples = [{"x": 1.0, "v": (2.0, 3.0)}, {"x": 4.0, "v": (5.0, 6.0)}]
    batch = ag.stack(examples)
    assert batch == {"x": [1.0, 4.0], "v": ([2.0, 5.0], [3.0, 6.0])}
    assert ag.unstack(batch) == examples

    def f(e: Mapping[str, object]) -> dict[str, float]:
        x, v = cast(float, e["x"]), cast("Sequence[float]", e["v"])
        return {"s": x + v[0], "p": x * v[1]}

    assert_bits(ag.unstack(loose_vmap(f)(batch)), [f(e) for e in examples])
    assert ag.unstack({"x": []}) == []


@given(
    st.lists(
        st.tuples(st.floats(), st.floats(allow_nan=False), st.integers(-5, 5)),
        min_size=1,
        max_size=6,
    )
)
def test_stack_and_unstack_round_trip(rows: list[tuple[float, float, int]]) -> None:
    examples = [{"a": a, "t": [b, c]} for a, b, c in rows]
    batch = cast("Mapping[str, object]", ag.stack(examples))
    assert_bits(
        batch, {"a": [r[0] for r in rows], "t": [[r[1] for r in rows], [r[2] for r in rows]]}
    )
    assert_bits(ag.unstack(batch), examples)


# ---- out_axes ----------------------------------------------------------------------


def test_out_axes_none_returns_the_shared_value_once() -> None:
    f = ag.vmap(lambda x, w: (x * w, w * 2.0), in_axes=(0, None), out_axes=(0, None))
    assert f([1.0, 2.0], 3.0) == ([3.0, 6.0], 6.0)
    assert ag.vmap(lambda x: 1.0, out_axes=None)([1.0, 2.0]) == 1.0


def test_out_axes_none_refuses_a_value_that_differs_between_examples() -> None:
    f = ag.vmap(lambda x, w: {"y": w * x}, in_axes=(0, None), out_axes=None)
    with pytest.raises(ValueError, match=r"output\['y'\] is 6.0 in example 1 but 3.0 in example 0"):
        f([1.0, 2.0], 3.0)
    with pytest.raises(ValueError, match=r"-0.0 in example 1 but 0.0 in example 0"):
        ag.vmap(lambda x: x * 0.0, out_axes=None)([1.0, -1.0])


def test_out_axes_none_refuses_an_output_that_depends_on_a_mapped_node() -> None:
    # every example gives 0.0, but its derivative with respect to x is not zero
    def zero(x: Scalar) -> Scalar:
        return x - x.value if isinstance(x, Node) else x * 0.0

    def total(xs: Sequence[Scalar]) -> Scalar:
        return cast(Scalar, loose_vmap(zero, out_axes=None)(xs))

    with pytest.raises(ValueError, match=r"output depends on a mapped argument"):
        ag.grad(total)([1.0, 1.0])


def test_out_axes_none_under_grad_and_jit_of_a_broadcast_argument() -> None:
    f = ag.vmap(lambda x, w: w * w, in_axes=(0, None), out_axes=None)
    assert ag.grad(f, argnums=1)([1.0, 2.0], 3.0) == 6.0
    assert ag.jit(f)([1.0, 2.0], 3.0) == 9.0
    g = ag.jit(ag.vmap(lambda x, w: w * x, in_axes=(0, None), out_axes=None))
    with pytest.raises(ValueError, match=r"output is 6.0 in example 1 but 3.0 in example 0"):
        g([1.0, 2.0], 3.0)  # as eager: x is a plain number there, not a node


def test_out_axes_prefix_must_match_the_output() -> None:
    f = ag.vmap(lambda x: {"a": x, "b": x}, out_axes={"a": 0, "c": None})
    with pytest.raises(
        ValueError, match=r"out_axes is a dict with keys \['a', 'c'\] but the output"
    ):
        f([1.0])


# ---- errors ------------------------------------------------------------------------


def test_ragged_batches_name_both_paths_and_lengths() -> None:
    def f(xs: Mapping[str, float], ys: float) -> float:
        return xs["x"] * ys

    with pytest.raises(ValueError, match=r"xs\['x'\] has 3 examples but ys has 4"):
        ag.vmap(f)({"x": [1.0, 2.0, 3.0]}, [1.0, 2.0, 3.0, 4.0])


def test_nothing_is_called_when_the_batch_is_refused() -> None:
    calls: list[object] = []
    with pytest.raises(ValueError, match="examples but"):
        ag.vmap(recorder(calls))([1.0, 2.0], [1.0])
    with pytest.raises(TypeError, match=r"args\[1\]\[1\] is a str"):
        ag.vmap(recorder(calls))([1.0, 2.0], [1.0, "2"])
    assert calls == []


def test_an_empty_batch_is_refused() -> None:
    with pytest.raises(ValueError, match=r"the batch is empty \(x has 0 examples\)"):
        ag.vmap(lambda x: x)([])


def test_an_exception_in_fn_keeps_its_type_and_names_the_example() -> None:
    with pytest.raises(ZeroDivisionError) as info:
        ag.vmap(lambda x: 1.0 / x)([1.0, 0.0])
    assert info.value.__notes__ == ["(raised by vmap's call on example 1 of 2)"]


def test_outputs_of_different_structures_are_refused() -> None:
    with pytest.raises(
        ValueError,
        match=r"fn\(example 1\)\['v'\] is a list of 2 but fn\(example 0\)\['v'\] is a list of 1",
    ):
        ag.vmap(lambda x: {"v": [x] * int(x)})([1.0, 2.0])


def const(value: object) -> Callable[[object], object]:
    return lambda x: value


# (call, exception, match): each hostile input must give a clean error naming what is wrong
HOSTILE: list[tuple[Callable[[], object], type[Exception], str]] = [
    (lambda: loose_vmap(loss, in_axes=2), ValueError, r"in_axes is 2: a batch here has one axis"),
    (lambda: loose_vmap(loss, in_axes=-1), ValueError, r"in_axes is -1"),
    (lambda: loose_vmap(loss, in_axes=None), ValueError, r"in_axes=None maps no argument"),
    (lambda: loose_vmap(loss, in_axes=(None, None, None)), ValueError, r"maps no argument"),
    (lambda: loose_vmap(loss, in_axes=({}, None, None)), ValueError, r"maps no argument"),
    (lambda: loose_vmap(loss, in_axes=True), TypeError, r"in_axes is a bool"),
    (lambda: loose_vmap(loss, in_axes=0.0), TypeError, r"in_axes is a float"),
    (lambda: loose_vmap(loss, in_axes="0"), TypeError, r"in_axes is a str"),
    (lambda: loose_vmap(loss, in_axes={"w": 0}), TypeError, r"one entry per positional argument"),
    (lambda: loose_vmap(loss, in_axes=(None, 0, [1])), ValueError, r"in_axes\[2\]\[0\] is 1"),
    (lambda: loose_vmap(loss, out_axes=1), ValueError, r"out_axes is 1"),
    (lambda: loose_vmap(loss, out_axes=(0, "x")), TypeError, r"out_axes\[1\] is a str"),
    (
        lambda: loose_vmap(3.0),
        TypeError,
        r"vmap\(\) needs a function",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0))(P0, XS, YS),
        ValueError,
        r"in_axes has 2 entries but the function was called with 3",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, y=YS),
        TypeError,
        r"keyword arguments \(y\) are not mapped",
    ),
    (lambda: loose_vmap(loss)(P0, XS, YS), TypeError, r"p\['w'\] is a float \(0.7\), not a batch"),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, YS[:3]),
        ValueError,
        r"x has 4 examples but y has 3",
    ),
    (lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, [], []), ValueError, r"batch is empty"),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, [1.0, True, 0.0, 0.0]),
        TypeError,
        r"y\[1\] is a bool",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, [1.0, None, 0.0, 0.0]),
        TypeError,
        r"y\[1\] is None in a list of numbers",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, [1.0, 1j, 0.0, 0.0]),
        TypeError,
        r"y\[1\] is a complex",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, [1.0, [0.0], 0.0, 0.0]),
        TypeError,
        r"y\[1\] is a list of 1 in a list of numbers",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, "abcd"),
        TypeError,
        r"y is a str \('abcd'\), not a batch",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, XS, object()),
        TypeError,
        r"y is a object .*not a batch",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, 0, 0))(P0, {}, None),
        ValueError,
        r"nothing to map over: no mapped argument holds a batch",
    ),
    (
        lambda: loose_vmap(loss, in_axes=({"w": None}, 0, 0))(P0, XS, YS),
        ValueError,
        r"in_axes\[0\] is a dict with keys \['w'\] but p is a dict with keys \['w', 'b'\]",
    ),
    (
        lambda: loose_vmap(loss, in_axes=([0, 0], 0, 0))(P0, XS, YS),
        ValueError,
        r"in_axes\[0\] is a list of 2 but p is a dict",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, [0], 0))(P0, XS, YS),
        ValueError,
        r"in_axes\[1\] is a list of 1 but x is a list of 4",
    ),
    (
        lambda: loose_vmap(loss, in_axes=(None, [0, 0, 0, 0], 0))(P0, XS, YS),
        TypeError,
        r"x\[0\] is a float \(0.5\), not a batch",
    ),
    (
        lambda: loose_vmap(const("a"))([1.0]),
        TypeError,
        r"fn\(example 0\) is a str \('a'\): leaves must be numbers",
    ),
    (
        lambda: loose_vmap(const({"k": [True]}))([1.0]),
        TypeError,
        r"fn\(example 0\)\['k'\]\[0\] is a bool",
    ),
    (
        lambda: loose_vmap(const(1.0), out_axes={"a": 0})([1.0]),
        ValueError,
        r"out_axes is a dict with keys \['a'\] but the output is a leaf",
    ),
    (lambda: ag.stack([]), ValueError, r"at least one example"),
    (
        lambda: ag.stack(cast("list[float]", {"x": 1.0})),
        TypeError,
        r"stack\(\) takes a list or tuple of examples, got dict",
    ),
    (
        lambda: ag.stack([{"x": 1.0}, {"y": 1.0}]),
        ValueError,
        r"examples\[1\] is a dict with keys \['y'\] but examples\[0\] is a dict with keys \['x'\]",
    ),
    (lambda: ag.stack([{"x": 1.0}, {"x": "1"}]), TypeError, r"examples\[1\]\['x'\] is a str"),
    (
        lambda: ag.unstack({"x": [1.0], "y": [1.0, 2.0]}),
        ValueError,
        r"batch\['x'\] has 1 examples but batch\['y'\] has 2",
    ),
    (
        lambda: ag.unstack({"x": 1.0}),
        TypeError,
        r"^unstack\(\): batch\['x'\] is a float \(1.0\), not a batch: .* one per example$",
    ),
    (lambda: ag.unstack({}), ValueError, r"nothing to map over: no mapped argument holds a batch"),
]


@pytest.mark.parametrize(("call", "error", "match"), HOSTILE)
def test_hostile_input_gives_a_clean_error(
    call: Callable[[], object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match) as info:
        call()
    assert Path(str(info.traceback[-1].frame.code.path)).name in ("vmap.py", "batch.py")


# ---- compositions ---------------------------------------------------------------------


def test_per_example_gradients_are_the_loop_and_match_finite_differences() -> None:
    grads = ag.vmap(ag.grad(loss), in_axes=(None, 0, 0))(P0, XS, YS)
    loop = [ag.grad(loss)(P0, x, y) for x, y in zip(XS, YS, strict=True)]
    assert_bits(grads, {"w": [g["w"] for g in loop], "b": [g["b"] for g in loop]})
    for i, (x, y) in enumerate(zip(XS, YS, strict=True)):

        def f(v: Sequence[float], x: float = x, y: float = y) -> float:
            return cast(float, loss({"w": v[0], "b": v[1]}, x, y))

        for j, key in enumerate(("w", "b")):
            fd = central_difference(f, [P0["w"], P0["b"]], j)
            assert grads[key][i] == pytest.approx(fd, abs=fd_atol(f([P0["w"], P0["b"]])))


def batch_mean(p: Params) -> Scalar:
    return ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(p, XS, YS))


def test_gradient_of_a_batch_mean_sums_the_broadcast_gradient_over_the_batch() -> None:
    def loop_mean(p: Params) -> Scalar:
        return ag.mean([loss(p, x, y) for x, y in zip(XS, YS, strict=True)])

    loop = ag.grad(loop_mean)(P0)
    assert_bits(ag.grad(batch_mean)(P0), loop)
    per_example = ag.vmap(ag.grad(loss), in_axes=(None, 0, 0))(P0, XS, YS)
    for key in ("w", "b"):
        assert ag.grad(batch_mean)(P0)[key] == pytest.approx(math.fsum(per_example[key]) / len(XS))

        def f(v: Sequence[float], key: str = key) -> float:
            return cast(float, batch_mean({**P0, key: v[0]}))

        fd = central_difference(f, [P0[key]], 0)
        assert ag.grad(batch_mean)(P0)[key] == pytest.approx(fd, abs=fd_atol(f([P0[key]])))


def test_gradient_with_respect_to_the_mapped_argument_is_per_example() -> None:
    def f(x: Scalar) -> Scalar:
        return ag.tanh(x) * x

    def total(xs: Sequence[Scalar]) -> Scalar:
        return ag.sum(ag.vmap(f)(xs))

    g = ag.grad(total)(XS)
    assert_bits(g, [ag.grad(f)(x) for x in XS])


def test_vmap_of_value_and_grad_jvp_vjp_and_hessian_is_the_loop() -> None:
    def f(x: Node) -> Scalar:
        return ag.exp(-x * x) * ag.tanh(x)

    ts = [1.0, -2.0, 0.5, 3.0]
    vg = [ag.value_and_grad(f)(x) for x in XS]
    assert_bits(ag.vmap(ag.value_and_grad(f))(XS), ([v for v, _ in vg], [g for _, g in vg]))
    jvps = ag.vmap(lambda x, t: ag.jvp(f, (x,), (t,)))(XS, ts)
    loop = [ag.jvp(f, (x,), (t,)) for x, t in zip(XS, ts, strict=True)]
    assert_bits(jvps, ([v for v, _ in loop], [t for _, t in loop]))
    vjps = ag.vmap(lambda x, g: ag.vjp(f, x)[1](g)[0])(XS, ts)
    assert_bits(vjps, [ag.vjp(f, x)[1](g)[0] for x, g in zip(XS, ts, strict=True)])
    assert_bits(ag.vmap(ag.hessian(f))(XS), [ag.hessian(f)(x) for x in XS])
    for x, h in zip(XS, ag.vmap(ag.hessian(f))(XS), strict=True):

        def d(v: Sequence[float]) -> float:
            return ag.grad(f)(v[0])

        assert h == pytest.approx(central_difference(d, [x], 0), abs=fd_atol(d([x])))


def test_jit_of_vmap_and_vmap_of_jit_are_bit_identical_to_the_loop() -> None:
    loop = [loss(P0, x, y) for x, y in zip(XS, YS, strict=True)]
    assert_bits(ag.jit(ag.vmap(loss, in_axes=(None, 0, 0)))(P0, XS, YS), loop)
    assert_bits(ag.vmap(ag.jit(loss), in_axes=(None, 0, 0))(P0, XS, YS), loop)
    grads = [ag.grad(loss)(P0, x, y) for x, y in zip(XS, YS, strict=True)]
    stacked = {"w": [g["w"] for g in grads], "b": [g["b"] for g in grads]}
    assert_bits(ag.vmap(ag.jit(ag.grad(loss)), in_axes=(None, 0, 0))(P0, XS, YS), stacked)
    assert_bits(ag.jit(ag.grad(batch_mean))(P0), ag.grad(batch_mean)(P0))


def loss_mul(p: Params, x: float, y: float) -> Scalar:
    """`loss` with the square written as a product (no `Pow` node)."""
    e = ag.tanh(p["w"] * x + p["b"]) - y
    return e * e


def test_jit_of_vmap_of_grad_is_bit_identical_to_the_loop() -> None:
    grads = [ag.grad(loss_mul)(P0, x, y) for x, y in zip(XS, YS, strict=True)]
    stacked = {"w": [g["w"] for g in grads], "b": [g["b"] for g in grads]}
    assert_bits(ag.jit(ag.vmap(ag.grad(loss_mul), in_axes=(None, 0, 0)))(P0, XS, YS), stacked)


def test_jit_of_vmap_of_grad_through_a_constant_power() -> None:
    grads = [ag.grad(loss)(P0, x, y) for x, y in zip(XS, YS, strict=True)]
    stacked = {"w": [g["w"] for g in grads], "b": [g["b"] for g in grads]}
    assert_bits(ag.jit(ag.vmap(ag.grad(loss), in_axes=(None, 0, 0)))(P0, XS, YS), stacked)


def test_nested_vmap_maps_the_outer_batch_innermost() -> None:
    def f(x: Scalar) -> Scalar:
        return x * x + 1.0

    grid = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert_bits(ag.vmap(ag.vmap(f))(grid), [[f(v) for v in row] for row in grid])

    # all pairs: the outer vmap maps a, the inner maps b; out[j][i] == h(a[i], b[j])
    def h(a: float, b: float) -> float:
        return a * 10.0 + b

    pairs = ag.vmap(ag.vmap(h, in_axes=(None, 0)), in_axes=(0, None))([1.0, 2.0], [3.0, 4.0, 5.0])
    assert pairs == [[h(a, b) for a in (1.0, 2.0)] for b in (3.0, 4.0, 5.0)]

    def total(xs: Sequence[Sequence[Scalar]]) -> Scalar:
        return ag.sum([ag.sum(r) for r in ag.vmap(ag.vmap(f))(xs)])

    g = ag.grad(total)(grid)
    assert_bits(g, [[ag.grad(f)(v) for v in row] for row in grid])


# ---- properties ---------------------------------------------------------------------

SPECIAL = st.sampled_from([0.0, -0.0, 1e308, -1e-310, math.inf, -math.inf, math.nan])
NUMBER = st.one_of(st.floats(-5.0, 5.0), SPECIAL, st.integers(-3, 3))
AXIS = st.sampled_from([0, None])


def three_args(a: Scalar, b: Mapping[str, Scalar], c: tuple[Scalar, Scalar]) -> object:
    """A function of three example pytrees with a pytree output."""
    u = a * b["u"] + ag.tanh(c[0])
    return {"u": u, "v": (ag.exp(b["v"]) - c[1], c[0] * c[0] + c[1])}


def batched(rows: list[tuple[float, ...]], axes: tuple[int | None, ...]) -> tuple[object, ...]:
    """The arguments of `three_args` batched: a column where mapped, row 0's value where not."""

    def col(k: int, axis: int | None) -> object:
        return [r[k] for r in rows] if axis == 0 else rows[0][k]

    a_axis, u_axis, v_axis, c_axis = axes
    return (
        col(0, a_axis),
        {"u": col(1, u_axis), "v": col(2, v_axis)},
        (col(3, c_axis), col(4, c_axis)),
    )


def looped(rows: list[tuple[float, ...]], axes: tuple[int | None, ...]) -> object:
    """The oracle: `three_args` on each example (row i where mapped, row 0 where not), restacked.

    Mapped numbers and output numbers are floats (ints converted, as `vmap` does);
    what is passed whole is passed as it is.
    """

    def pick(i: int, k: int) -> float:
        return float(rows[i][k]) if axes[min(k, 3)] == 0 else rows[0][k]

    outs = [
        cast(
            "dict[str, Sequence[float]]",
            three_args(pick(i, 0), {"u": pick(i, 1), "v": pick(i, 2)}, (pick(i, 3), pick(i, 4))),
        )
        for i in range(len(rows))
    ]
    return {
        "u": [float(o["u"]) for o in outs],  # type: ignore[arg-type]  # a number
        "v": ([float(o["v"][0]) for o in outs], [float(o["v"][1]) for o in outs]),
    }


@given(
    st.integers(1, 6).flatmap(lambda n: st.lists(st.tuples(*[NUMBER] * 5), min_size=n, max_size=n)),
    st.tuples(AXIS, AXIS, AXIS, AXIS),
)
def test_vmap_is_the_loop_restructured_bit_for_bit(
    rows: list[tuple[float, ...]], axes: tuple[int | None, ...]
) -> None:
    if axes == (None, None, None, None):
        axes = (0, None, None, None)
    in_axes = (axes[0], {"u": axes[1], "v": axes[2]}, axes[3])
    assert_bits(loose_vmap(three_args, in_axes=in_axes)(*batched(rows, axes)), looped(rows, axes))
    # jit promotes traced ints to floats (shared ones too, as grad does): its oracle is the
    # loop on floats
    frows = [tuple(float(v) for v in r) for r in rows]
    jitted = ag.jit(loose_vmap(three_args, in_axes=in_axes))(*batched(frows, axes))
    assert_bits(jitted, looped(frows, axes))
