"""`jit(vmap(f))` runs one batched NumPy program: checked against the loop over examples.

The batched program must give the loop's bits: that checks its structure
(which statements vary, selects, guards, outputs) and its twins, which call
``math``'s functions per element where NumPy's are not ``math``'s. NumPy's own
functions (`Options.numpy_functions`) are checked against the float helpers
one by one, with the ulp bounds that docs/numerics.md publishes. Without
NumPy, `jit(vmap(f))` is the loop.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable, Sequence
from typing import NamedTuple, cast

import attrs
import compose_fuzz
import pytest
from compose_fuzz import SKIPPED, Case, bits, cases
from hypothesis import assume, given, reject, settings
from hypothesis import strategies as st
from jitting import jit, use

import autograd as ag
from autograd import Scalar
from autograd.compiler import arrays, link, tracing, vmapped
from autograd.compiler import jit as jit_module
from autograd.compiler.options import Options
from autograd.core import sym
from autograd.core.sym import HELPERS
from autograd.walks import toposort

needs_numpy = pytest.mark.skipif(not arrays.HAVE_NUMPY, reason="batched execution needs NumPy")


@pytest.fixture(autouse=True, params=["as-built", "sum-each-release-all", "every-run-rolled"])
def memory_paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: as built, and with large batches' paths forced on small ones.

    Large batches sum each group of variables as it completes, clear
    registers holding dead arrays (`Options.sum_group`, `Options.release_size`) and
    pack fewer parallel statements (`Options.pack_elements`: small ones pack
    parallel statements into 2-d operations); the second run does so for
    every batch, one variable a group, so the random programs below check
    both ways give the same bits.
    """
    use(monkeypatch, PATHS[cast(str, request.param)])
    return cast(str, request.param)


PATHS = {
    "as-built": Options(batch_from=1, numpy_call=0),
    "sum-each-release-all": Options(
        batch_from=1, numpy_call=0, sum_group=0, release_size=1, pack_elements=0
    ),
    "every-run-rolled": Options(
        batch_from=1, numpy_call=0, reroll_from=0, min_reps=2, min_statements=2, stride=1
    ),
}
"""The compiler options of each of `memory_paths`' runs: every batch, however small, runs
as one (by default a few examples run the compiled per-example code in a loop)."""


@pytest.fixture
def batched_calls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, per `jit(vmap)` call, whether one batched program answered it."""
    seen: list[bool] = []
    real = vmapped.batched_call

    def spy(*args: object) -> object:
        out = real(*args)  # type: ignore[arg-type]  # the spied function's own arguments
        seen.append(out is not vmapped.NOT_BATCHED and out is not vmapped.LOOPED)
        return out

    monkeypatch.setattr(vmapped, "batched_call", spy)
    return seen


def agree(case: Case) -> None:
    why = compose_fuzz.check(case)
    if why == SKIPPED:
        reject()  # the eager call raised on two plain floats, as Python's float ops do
    assert why is None, f"{compose_fuzz.describe(case)}: {why}"


# ---- random programs: jit directly over vmap, so the batched path runs ---------------------

STACKS = [["vmap"], *[[inner, "vmap"] for inner in compose_fuzz.TRANSFORMS if inner != "vmap"]]


@needs_numpy
@pytest.mark.parametrize("kinds", STACKS, ids=["-".join(k) for k in STACKS])
@given(data=st.data())
def test_batched_program_gives_the_loops_bits(kinds: list[str], data: st.DataObject) -> None:
    agree(data.draw(cases(kinds, jit_level=len(kinds))))


@needs_numpy
def test_the_batched_path_runs(batched_calls: list[bool]) -> None:
    def f(w: Scalar, x: Scalar) -> Scalar:
        return ag.tanh(w * x) * ag.relu(x)

    xs = [1.0, -2.0, 3.0]
    got = jit(ag.vmap(ag.grad(f), in_axes=(None, 0)))(0.5, xs)
    assert bits(got) == bits([ag.grad(f)(0.5, x) for x in xs])
    assert batched_calls == [True]


# ---- NumPy's functions against the float helpers ------------------------------------------

ULPS = {
    "tanh": 3,
    "log10_float": 2,
    "sigmoid_float": 4,
    "sinh_float": 2,
}
"""Largest difference measured between a twin and its float helper, in ulps (others: 1;
the correctly rounded helpers and sin/cos: 0). The table in docs/numerics.md."""
EXACT_NAMES = {"sin_float", "cos_float"}


def ulps(a: float, b: float) -> int:
    ia: int = struct.unpack("<q", struct.pack("<d", a))[0]
    ib: int = struct.unpack("<q", struct.pack("<d", b))[0]
    ia = ia if ia >= 0 else -(ia & 0x7FFFFFFFFFFFFFFF)
    ib = ib if ib >= 0 else -(ib & 0x7FFFFFFFFFFFFFFF)
    return abs(ia - ib)


SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -0.5, math.inf, -math.inf, math.nan]
SPECIAL += [5e-324, -5e-324, 1e300, -1e300, 710.0, -745.5, 1e-8]
HELPER_NAMES = sorted(n for n, f in HELPERS.items() if callable(f) and n != "check_guard")


def _arity(fn: Callable[..., float]) -> int:
    return int(fn.__code__.co_argcount) if hasattr(fn, "__code__") else 1


def _inputs(rng: random.Random, n: int) -> list[float]:
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.4:
            out.append(rng.uniform(-1.0, 1.0))
        elif k < 0.7:
            out.append(rng.uniform(-50.0, 50.0))
        elif k < 0.85:
            out.append(rng.uniform(-700.0, 700.0))
        else:  # any float at all, from its bits
            out.append(struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0])
    return out


@needs_numpy
@pytest.mark.parametrize("numpy_functions", [False, True], ids=["default", "numpy_functions"])
@pytest.mark.parametrize("name", HELPER_NAMES)
def test_each_twin_is_its_float_helper_within_the_published_ulps(
    name: str, numpy_functions: bool
) -> None:
    """By default every twin gives its helper's bits; NumPy's own functions, within
    the ulps docs/numerics.md publishes."""
    import numpy as np  # NumPy is optional: only with it

    fn = HELPERS[name]
    assert callable(fn)
    twin = arrays.twins(numpy_functions)[f"np_{name}"]
    assert callable(twin)
    rng = random.Random(name)
    n = _arity(fn)
    if n == 1:
        cols = [_inputs(rng, 20_000) + SPECIAL]
    else:
        a, b = _inputs(rng, 20_000), _inputs(rng, 20_000)
        if name.startswith("pow"):  # exponents: the scalar paths, integers, and any
            b = [
                rng.choice([2.0, 3.0, 0.5, -1.0, -2.0, -0.5, 1.5, float(rng.randint(-5, 5))])
                for _ in a
            ]
        cols = [a + [x for x in SPECIAL for _ in SPECIAL], b + SPECIAL * len(SPECIAL)]
    with arrays.quiet():
        got = twin(*[np.array(c) for c in cols]).tolist()
    exact = not numpy_functions or fn in arrays.CORRECTLY_ROUNDED or name in EXACT_NAMES
    bound = 0 if exact else ULPS.get(name, 1)
    worst = 0
    for args, g in zip(zip(*cols, strict=True), got, strict=True):
        w = fn(*args)
        if math.isnan(w) or math.isnan(g):
            assert math.isnan(w), (name, args, g, w)
            assert math.isnan(g), (name, args, g, w)
            continue
        if not (math.isfinite(w) and math.isfinite(g)) or w == 0.0 or g == 0.0:
            assert struct.pack("<d", g) == struct.pack("<d", w), (
                name,
                args,
                g,
                w,
            )  # specials: exact
            continue
        worst = max(worst, ulps(g, w))
    assert worst <= bound, f"{name}: {worst} ulps, published bound {bound}"


@needs_numpy
def test_every_helper_has_a_twin() -> None:
    assert {f"np_{n}" for n in HELPER_NAMES} <= set(arrays.twins())


@needs_numpy
def test_a_helper_without_a_written_twin_gets_one_applying_it_per_element() -> None:
    def shiny_float(x: float, y: float) -> float:
        return x * 3.0 - y if x < y else y / x

    name = sym.helper(shiny_float)
    try:
        with sym.arrays():  # code written for a batch calls the twin
            assert sym.call(shiny_float, sym.Sym("a0", ("a0",)), 2.0).src == f"np_{name}(a0, 2.0)"
        twin = cast("Callable[..., object]", arrays.twins()[f"np_{name}"])
        xs = [0.1, -0.0, 0.0, 2.0, 7.0, math.inf, math.nan, 5e-324]
        with arrays.quiet():  # as a program runs it
            got = cast("list[float]", twin(arrays.column(xs), 2.0).tolist())  # type: ignore[attr-defined]  # an array
        assert [struct.pack("<d", v) for v in got] == [
            struct.pack("<d", shiny_float(x, 2.0)) for x in xs
        ]
        assert twin(1.5, 2.0) == shiny_float(1.5, 2.0)  # floats: the helper itself
    finally:
        sym.forget_helper(shiny_float)


# ---- choices on plain numbers: examples that disagree ---------------------------------------


@needs_numpy
@pytest.mark.parametrize(
    "cs",
    [[0.0, 2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 3.0, 0.5]],
    ids=["first-zero", "later-zero", "all-zero", "none-zero"],
)
def test_a_choice_on_a_mapped_plain_number_follows_each_example(
    cs: list[float], batched_calls: list[bool]
) -> None:
    """pow's rule chooses on ``c == 0`` (a plain number: not differentiated), as eager does."""

    def f(x: Scalar, c: Scalar) -> Scalar:
        return x**c

    xs = [0.0, 0.0, 2.0]
    want = [ag.grad(ag.grad(f))(x, c) for x, c in zip(xs, cs, strict=True)]
    jitted = jit(ag.vmap(ag.grad(ag.grad(f))))
    for _ in range(2):  # the second call runs the cached program (or the cached loop)
        assert bits(jitted(xs, cs)) == bits(want)
    uniform = len({c == 0.0 for c in cs}) == 1
    assert batched_calls[-1] is uniform  # examples that disagree run the loop


# ---- the layout: lists in, lists out; arrays in, arrays out; without NumPy, the loop ------


def loss(p: dict[str, Scalar], x: Scalar, y: Scalar) -> Scalar:
    return (ag.tanh(p["w"] * x + p["b"]) - y) ** 2


P: dict[str, Scalar] = {"w": 0.7, "b": -0.3}
XS, YS = [0.5, -1.5, 2.0, 0.25], [1.0, 0.0, -0.5, 0.3]


def test_without_numpy_jit_of_vmap_is_the_loop(
    monkeypatch: pytest.MonkeyPatch, batched_calls: list[bool]
) -> None:
    monkeypatch.setattr(jit_module, "HAVE_NUMPY", False)  # no jit(vmap) as one batch
    monkeypatch.setattr(tracing, "HAVE_NUMPY", False)  # no vmap inside a trace as one
    f = per_example_grads()
    assert bits(jit(f)(P, XS, YS)) == bits(f(P, XS, YS))
    assert batched_calls == []


def per_example_grads() -> Callable[..., object]:
    """``vmap(grad(loss))`` typed loosely: the tests below call it on lists and on arrays."""
    return ag.vmap(ag.grad(loss), in_axes=(None, 0, 0))


@needs_numpy
def test_lists_give_lists_of_floats() -> None:
    out = jit(per_example_grads())(P, XS, YS)
    assert isinstance(out, dict)
    assert all(type(v) is list for v in out.values())
    assert all(type(x) is float for v in out.values() for x in v)


@needs_numpy
def test_arrays_give_arrays_in_both_modes() -> None:
    import numpy as np  # NumPy is optional: only with it

    f = per_example_grads()
    xs, ys = np.array(XS), np.array(YS)
    eager, jitted = f(P, xs, ys), jit(f)(P, xs, ys)
    for out in (eager, jitted):
        assert isinstance(out, dict)
        for v in out.values():
            assert isinstance(v, np.ndarray)
            assert v.dtype == np.float64
            assert v.shape == (4,)
    assert isinstance(eager, dict)
    assert isinstance(jitted, dict)
    for k in ("w", "b"):  # every example's bits: tanh is math's, element by element
        assert bits(jitted[k].tolist()) == bits(eager[k].tolist())
    fast = ag.jit(f, options=Options(numpy_functions=True))(P, xs, ys)
    assert isinstance(fast, dict)
    for k in ("w", "b"):  # NumPy's tanh: a few ulps apart (docs/numerics.md)
        assert np.allclose(eager[k], fast[k], rtol=1e-14, atol=0.0)


@needs_numpy
def test_a_ragged_batch_of_arrays_names_both_paths() -> None:
    import numpy as np  # NumPy is optional: only with it

    f = jit(per_example_grads())
    with pytest.raises(ValueError, match=r"x has 4 examples but y has 3"):
        f(P, np.array(XS), np.array(YS[:3]))


# ---- vmap inside a jitted function: sums over the batch, and their gradients ---------------


def tree_sum(xs: Sequence[float]) -> float:
    """`autograd.sum`'s order over plain floats: the order a batch is summed in."""
    level: list[float] = list(xs)
    while len(level) > 1:
        paired = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0]


@needs_numpy
@given(
    program=compose_fuzz.programs(2),
    pick=st.integers(-1, 3),
    p=compose_fuzz.values(),
    xs=st.lists(compose_fuzz.values(), min_size=1, max_size=5),
)
def test_the_gradient_of_a_batch_mean_is_the_per_example_vjps_summed_in_tree_order(
    program: compose_fuzz.Program, pick: int, p: float, xs: list[float]
) -> None:
    """``jit(value_and_grad(mean ∘ vmap(f)))``: the value is eager's bits; the gradient of the
    shared argument sums each example's vjp (seeded with 1/n) in `autograd.sum`'s order."""

    def f(q: Scalar, x: Scalar) -> Scalar:
        return compose_fuzz.pick_leaf(program(q, x), pick)

    def batch_mean(q: Scalar) -> Scalar:
        return ag.mean(ag.vmap(f, in_axes=(None, 0))(q, xs))

    # A node computed from ``q`` alone that a batch node reads gets its cotangent summed over
    # the batch before its own rule runs, so its share reaches ``q`` in another order than
    # per-example vjps give: the deterministic test below checks that case exactly.
    try:
        assume(not shared_intermediate(f, p, xs[0]))
        want_value = ag.value_and_grad(batch_mean)(p)[0]
        per_example = [ag.vjp(lambda q, x=x: f(q, x), p)[1](1.0 / len(xs))[0] for x in xs]
    except (ArithmeticError, ValueError):
        reject()  # Python's float ops raised on two plain floats, as eager does
    value, g = jit(ag.value_and_grad(batch_mean))(p)
    assert bits(value) == bits(want_value)
    if varies(f, p, xs[0]):
        assert bits(g) == bits(tree_sum([cast(float, v) for v in per_example]))
    else:  # the same output for every example: one node in every place of the list
        shared = ag.grad(lambda q: ag.mean([f(q, xs[0])] * len(xs)))(p)
        assert bits(g) == bits(shared)


@needs_numpy
def test_a_variable_two_nodes_read_is_summed_over_the_batch_once_complete() -> None:
    """``q`` has two users in each example: its per-example cotangents (both contributions)
    are summed over the batch once, in tree order, whichever way the sums are grouped."""
    xs = [0.3, -1.7, 2.9, 0.11, -0.6, 1.3, 2.2]

    def f(q: Scalar, x: Scalar) -> Scalar:
        return ag.sin(q * x) + ag.exp(q * x) * x

    def batch_mean(q: Scalar) -> Scalar:
        return ag.mean(ag.vmap(f, in_axes=(None, 0))(q, xs))

    per_example = [ag.vjp(lambda q, x=x: f(q, x), 0.77)[1](1.0 / len(xs))[0] for x in xs]
    _, g = jit(ag.value_and_grad(batch_mean))(0.77)
    assert bits(g) == bits(tree_sum([cast(float, v) for v in per_example]))


def shared_intermediate(f: Callable[[Scalar, Scalar], Scalar], p: float, x: float) -> bool:
    """Whether ``f``'s graph has a node, not ``q`` itself, that depends on ``q`` and not ``x``."""
    q, v = ag.Leaf(p), ag.Leaf(x)
    out = f(q, v)
    if isinstance(out, float | int):
        return False
    on_q: set[object] = {q}
    on_x: set[object] = {v}
    for node, ins in toposort(out):
        if any(i in on_q for i in ins):
            on_q.add(node)
        if any(i in on_x for i in ins):
            on_x.add(node)
    return any(n is not q and n not in on_x for n in on_q)


def test_a_shared_intermediate_sums_its_cotangent_over_the_batch_first() -> None:
    """``(q*q)*x + q``: ``q*q`` is one number for every example; its cotangent is summed over
    the batch, then its rule runs once; the per-example ones of ``q`` are summed last."""
    xs = [0.3, -1.7, 2.9, 0.11, -0.6]
    q = 0.77

    def batch_mean(q: Scalar) -> Scalar:
        return ag.mean(ag.vmap(lambda q, x: (q * q) * x + q, in_axes=(None, 0))(q, xs))

    g = 1.0 / len(xs)
    s = tree_sum([g * x for x in xs])
    want = (s * q + s * q) + tree_sum([g] * len(xs))
    value, got = jit(ag.value_and_grad(batch_mean))(q)
    assert bits(value) == bits(ag.value_and_grad(batch_mean)(q)[0])
    if arrays.HAVE_NUMPY:
        assert bits(got) == bits(want)
    else:  # the loop: eager's order
        assert bits(got) == bits(ag.value_and_grad(batch_mean)(q)[1])


def varies(f: Callable[[Scalar, Scalar], Scalar], p: float, x: float) -> bool:
    """Whether ``f``'s output depends on its second argument (a graph walk)."""
    v = ag.Leaf(x)
    out = f(ag.Leaf(p), v)
    if isinstance(out, float | int):
        return False
    return any(node is v for node, _ in toposort(out))


@needs_numpy
def test_the_moons_step_runs_as_one_batch(batched_calls: list[bool]) -> None:
    """The one-example loss of an MLP, its batch mean and weight decay, per argument layout."""

    def loss(params: list[list[Scalar]], x: list[Scalar], y: Scalar) -> Scalar:
        h = [ag.relu(n[2] + ag.dot(n[:2], x)) for n in params[:-1]]
        return ag.relu(1.0 - y * (params[-1][-1] + ag.dot(params[-1][:-1], h)))

    def step(params: list[list[Scalar]], xs: list[list[float]], ys: list[float]) -> Scalar:
        data = ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))
        return data + 1e-4 * ag.sum([w * w for n in params for w in n])

    rng = random.Random(3)
    params: list[list[Scalar]] = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(4)]
    params.append([0.5, -0.5, 1.0, 0.2, 0.1])
    xs = [[rng.uniform(-2, 2) for _ in range(7)] for _ in range(2)]  # two columns of 7 examples
    ys = [rng.choice([-1.0, 1.0]) for _ in range(7)]
    eager = ag.value_and_grad(step)(params, xs, ys)
    jitted = jit(ag.value_and_grad(step))
    for _ in range(2):
        value, g = jitted(params, xs, ys)
        assert bits(value) == bits(eager[0])  # relu, dot, mean: correctly rounded
        for got_n, want_n in zip(g, eager[1], strict=True):
            assert got_n == pytest.approx(want_n, rel=1e-13, abs=1e-300)  # the sum's order
    assert batched_calls == []  # vmap inside jit: the trace's hook, not jit(vmap)
    (cached,) = jit_module._caches[jitted].entries.values()
    assert cached.batched
    closure = jit(ag.grad(lambda q: step(q, xs, ys)))
    for got_n, want_n in zip(closure(params), eager[1], strict=True):
        assert got_n == pytest.approx(want_n, rel=1e-13, abs=1e-300)


@needs_numpy
def test_large_batch_paths_change_no_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sums of variables in groups as they complete, and dead arrays let go: same bits."""
    monkeypatch.undo()  # as built, whatever `memory_paths` set: the test switches them itself
    rng = random.Random(8)
    params: list[list[Scalar]] = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(6)]
    xs = [[rng.uniform(-2, 2) for _ in range(9)] for _ in range(2)]
    ys = [rng.uniform(-1, 1) for _ in range(9)]

    def loss(params: list[list[Scalar]], x: list[Scalar], y: Scalar) -> Scalar:
        h = [ag.tanh(n[2] + ag.dot(n[:2], x)) for n in params]
        return (ag.sum(h) - y) ** 2

    def step(params: list[list[Scalar]], xs: list[list[float]], ys: list[float]) -> Scalar:
        return ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))

    sources: list[str] = []

    def spy(src: str, *args: object) -> object:
        sources.append(src)
        return compile(src, *args)  # type: ignore[call-overload]  # compile's own arguments

    monkeypatch.setattr(link, "compile", spy, raising=False)
    as_built = jit(ag.value_and_grad(step))(params, xs, ys)
    forced = ag.jit(ag.value_and_grad(step), options=Options(sum_group=0, release_size=1))(
        params, xs, ys
    )
    assert bits(forced) == bits(as_built)
    assert sources[0].count("batch_sums(") == 1  # as built: one sum at the end
    assert "del " not in sources[0]
    assert sources[-1].count("batch_sums(") == 18  # forced: one per variable, as it completes
    assert "del " in sources[-1]


@needs_numpy
@pytest.mark.parametrize(
    "use",
    [
        lambda r: r[0] * 2.0,  # one example
        lambda r: sum(r),  # Python's sum, one example at a time
        lambda r: ag.dot(r, r),  # a product of examples
        lambda r: ag.mean([v * v for v in r]),  # arithmetic on each example
    ],
    ids=["index", "builtin-sum", "dot", "each"],
)
def test_examples_used_one_by_one_make_jit_loop(use: Callable[[list[Scalar]], Scalar]) -> None:
    def f(w: Scalar) -> Scalar:
        return use(ag.vmap(lambda w, x: ag.tanh(w * x), in_axes=(None, 0))(w, XS))

    assert bits(jit(ag.value_and_grad(f))(0.3)) == bits(ag.value_and_grad(f)(0.3))


@needs_numpy
def test_a_batched_result_returned_is_a_list_per_example() -> None:
    def f(w: Scalar, xs: list[float]) -> tuple[list[Scalar], Scalar]:
        r = ag.vmap(lambda w, x: ag.sin(w * x), in_axes=(None, 0))(w, xs)
        return r, ag.sum(r)

    got = jit(f)(0.7, XS)
    assert bits(got) == bits(f(0.7, XS))


@needs_numpy
@pytest.mark.parametrize("transform", ["hessian", "jacobian-of-grad", "grad-of-grad"])
def test_transforms_through_a_batch_sum_inside_jit_equal_eager(transform: str) -> None:
    """An inner transform differentiating through a batch sum: jit finds out and loops."""

    def batch_mean(p: Sequence[Scalar]) -> Scalar:
        return ag.mean(
            ag.vmap(lambda p, x, y: loss({"w": p[0], "b": p[1]}, x, y), in_axes=(None, 0, 0))(
                p, XS, YS
            )
        )

    fn: Callable[..., object]
    if transform == "hessian":
        fn = ag.hessian(batch_mean)
    elif transform == "jacobian-of-grad":
        fn = ag.jacobian(ag.grad(batch_mean))
    else:

        def first(p: Sequence[Scalar]) -> Scalar:
            return cast(Scalar, ag.grad(batch_mean)(cast("list[float]", p))[0])  # nodes at run time

        fn = ag.grad(first)
    assert bits(jit(fn)([0.7, -0.3])) == bits(fn([0.7, -0.3]))


# ---- NumPy arrays as arguments of the jitted function ---------------------------------------


def squared_error_mean(
    op: Callable[[Scalar], Scalar],
) -> Callable[[Scalar, Sequence[float], Sequence[float]], Scalar]:
    """``w, xs, ys -> mean((op(w * x) - y) ** 2)`` over the batch, written for one example."""

    def step(w: Scalar, xs: Sequence[float], ys: Sequence[float]) -> Scalar:
        r = ag.vmap(lambda w, x, y: (op(w * x) - y) ** 2, in_axes=(None, 0, 0))(w, xs, ys)
        return ag.mean(r)

    return step


@needs_numpy
def test_arrays_passed_to_a_jitted_batch_mean_are_columns_as_they_are() -> None:
    import numpy as np  # NumPy is optional: only with it

    step = squared_error_mean(ag.tanh)
    f = jit(ag.value_and_grad(step))
    rng = random.Random(5)
    for n in (3, 3, 5, 1):  # a second call of each length runs the compiled program
        xs = [rng.uniform(-2, 2) for _ in range(n)]
        ys = [rng.uniform(-1, 1) for _ in range(n)]
        value, g = f(0.4, np.array(xs), np.array(ys))  # type: ignore[arg-type]  # arrays
        want_value = ag.value_and_grad(step)(0.4, xs, ys)[0]
        per_example = [
            ag.vjp(lambda w, x=x, y=y: step(w, [x], [y]), 0.4)[1](1.0 / n)[0]
            for x, y in zip(xs, ys, strict=True)
        ]
        assert bits(value) == bits(want_value)
        assert bits(g) == bits(tree_sum([cast(float, v) for v in per_example]))


class Batch(NamedTuple):
    xs: Sequence[float]
    ys: Sequence[float]


@attrs.frozen
class FrozenBatch:
    xs: Sequence[float]
    ys: Sequence[float]


def batch_loss(w: Scalar, b: Batch | FrozenBatch) -> Scalar:
    return squared_error_mean(ag.tanh)(w, b.xs, b.ys)


@needs_numpy
@pytest.mark.parametrize("container", [Batch, FrozenBatch])
def test_arrays_inside_a_namedtuple_or_attrs_argument_run_as_columns(
    container: type[Batch] | type[FrozenBatch],
) -> None:
    import numpy as np  # NumPy is optional: only with it

    f = jit(ag.value_and_grad(batch_loss))
    rng = random.Random(11)
    for n in (4, 4, 7):  # a second call of a length runs the compiled program
        xs = [rng.uniform(-2, 2) for _ in range(n)]
        ys = [rng.uniform(-1, 1) for _ in range(n)]
        got = f(0.7, container(np.array(xs), np.array(ys)))  # type: ignore[arg-type]  # arrays
        want = jit(ag.value_and_grad(batch_loss))(0.7, container(xs, ys))
        assert bits(got) == bits(want)
    entries = list(jit_module._caches[f].entries.values())
    assert len(entries) == 2  # keyed by the arrays' lengths
    assert all(e.batched and not e.expand for e in entries)  # the arrays reach NumPy whole


@needs_numpy
def test_differentiating_an_argument_holding_an_array_is_refused_as_eager_refuses_it() -> None:
    import numpy as np  # NumPy is optional: only with it

    def total(xs: Sequence[Scalar]) -> Scalar:
        return ag.sum([x * x for x in xs])

    batch = Batch(np.array([1.0, 2.0]), np.array([0.5, 0.1]))  # type: ignore[arg-type]  # arrays
    calls: list[tuple[Callable[..., object], tuple[object, ...]]] = [
        (ag.grad(total), (np.array([1.0, 2.0]),)),
        (ag.value_and_grad(batch_loss, argnums=1), (0.7, batch)),
    ]
    for fn, args in calls:
        with pytest.raises(TypeError) as eager:
            fn(*args)
        jf = jit(fn)
        for _ in range(2):  # the trace's call and a cached one
            with pytest.raises(TypeError) as jitted:
                jf(*args)
            assert str(jitted.value) == str(eager.value)
            assert "is a ndarray" in str(eager.value)


@needs_numpy
def test_a_bad_leaf_beside_arrays_is_named_by_its_path() -> None:
    import numpy as np  # NumPy is optional: only with it

    f = jit(ag.value_and_grad(batch_loss))
    with pytest.raises(TypeError, match=r"b\.ys\[1\] is a str"):
        f(0.7, Batch(np.array([1.0, 2.0]), [1.0, "2"]))  # type: ignore[arg-type, list-item]  # arrays; the error
    # not 1-d float64: refused, named with its dtype and shape
    with pytest.raises(
        TypeError, match=r"b\.xs is a NumPy array of dtype float64 and shape \(2, 2\)"
    ):
        f(0.7, Batch(np.ones((2, 2)), np.array([1.0, 2.0])))  # type: ignore[arg-type]  # arrays


@needs_numpy
def test_a_result_array_is_never_the_argument_array_nor_another_result() -> None:
    import numpy as np  # NumPy is optional: only with it

    def identity(x: float) -> float:
        return x

    def twice(x: float) -> tuple[float, float]:
        return x, +x

    def inside(xs: Sequence[float]) -> tuple[list[float], list[float]]:
        return ag.vmap(identity)(xs), ag.vmap(identity)(xs)

    a = np.array([1.0, -0.0, 3.0])
    results: list[object] = []
    for _ in range(2):  # the trace's call and the compiled program's
        results.append(jit(ag.vmap(identity))(a))  # type: ignore[arg-type]  # an array
        results.extend(jit(ag.vmap(twice))(a))  # a tuple result: the loose form takes an array
        results.extend(jit(inside)(a))  # type: ignore[arg-type]  # an array
    arrays_out = [cast("np.ndarray[tuple[int], np.dtype[np.float64]]", r) for r in results]
    assert all(bits(r.tolist()) == bits(a.tolist()) for r in arrays_out)
    assert not any(np.shares_memory(r, a) for r in arrays_out)  # writing into one is safe
    assert len({id(r) for r in arrays_out}) == len(arrays_out)


@needs_numpy
def test_debug_nans_names_the_op_of_one_example_given_as_an_array() -> None:
    import numpy as np  # NumPy is optional: only with it

    step = squared_error_mean(ag.log)
    f = jit(ag.value_and_grad(step))
    ys = np.array([0.0, 1.0, 2.0])
    bad = np.array([1.0, 2.0, -3.0])  # log of -1.5 in the third example
    assert all(math.isnan(v) for v in f(0.5, bad, ys))  # type: ignore[arg-type]  # arrays
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=r"Log produced nan.*-1\.5"):
        f(0.5, bad, ys)  # type: ignore[arg-type]  # arrays
    good = np.array([1.0, 2.0, 3.0])
    with ag.debug_nans():
        checked = f(0.5, good, ys)  # type: ignore[arg-type]  # arrays
    assert bits(checked) == bits(ag.value_and_grad(step)(0.5, good.tolist(), ys.tolist()))


@needs_numpy
def test_an_array_argument_used_outside_vmap_makes_jit_loop() -> None:
    import numpy as np  # NumPy is optional: only with it

    def f(w: Scalar, xs: Sequence[float]) -> Scalar:
        r = ag.vmap(lambda w, x: ag.sin(w * x), in_axes=(None, 0))(w, xs)
        return ag.mean(r) + xs[0] * w

    xs = np.array([0.5, -1.5, 2.0])
    got = jit(ag.value_and_grad(f))(0.3, xs)  # type: ignore[arg-type]  # an array
    assert bits(got) == bits(ag.value_and_grad(f)(0.3, xs.tolist()))


@needs_numpy
def test_a_vmap_result_of_array_arguments_is_an_array() -> None:
    import numpy as np  # NumPy is optional: only with it

    def f(w: Scalar, xs: Sequence[float]) -> object:
        return ag.vmap(lambda w, x: w * x, in_axes=(None, 0))(w, xs)

    h = jit(f)
    for xs in ([1.0, 2.0, 3.0], [4.0, -5.0, 6.0], [7.0]):
        got = h(2.0, np.array(xs))  # type: ignore[arg-type]  # an array: a sequence at run time
        assert isinstance(got, np.ndarray)
        assert got.tolist() == [2.0 * x for x in xs]
    assert h(2.0, xs) == [2.0 * x for x in xs]  # lists in, lists out


SPECIAL_SUMMANDS = [0.0, -0.0, 1e308, -1e308, 5e-324, 1.0, math.inf, -math.inf, math.nan]


@needs_numpy
@settings(max_examples=150, deadline=None)
@given(
    st.one_of(st.integers(1, 300), st.integers(4090, 4200)),  # stacked, then row by row
    st.lists(st.sampled_from(["row", "block", "one"]), min_size=1, max_size=4),
    st.integers(0, 2**32),
)
def test_sums_over_a_batch_add_in_autograd_sums_order(
    size: int, kinds: list[str], seed: int
) -> None:
    """`batch_sums` of per-example rows, pack blocks and one value for all at once:
    each row's sum has `ag.sum`'s bits (pairs, then pairs of pairs, the odd one carried)."""
    np = pytest.importorskip("numpy")
    rnd = random.Random(seed)  # thousands of values: drawn from a seed, not one by one
    odd = rnd.choice([0.0, 0.0, 0.001, 0.05])  # most cases: one scale, every summand shows

    def value() -> float:
        r = rnd.random()
        if r < odd / 2:
            return rnd.choice(SPECIAL_SUMMANDS)
        if r < odd:
            return rnd.uniform(-1.0, 1.0) * 10.0 ** rnd.randint(-300, 300)
        return rnd.uniform(-1.0, 1.0)

    entries: list[object] = []
    want: list[float] = []
    for kind in kinds:
        if kind == "one":
            v = rnd.choice(SPECIAL_SUMMANDS) if rnd.random() < 0.3 else value()
            entries.append(v)
            want.append(ag.sum([v] * size))
            continue
        lists = [
            [value() for _ in range(size)] for _ in range(1 if kind == "row" else rnd.randint(1, 3))
        ]
        entries.append(np.array(lists[0]) if kind == "row" else np.array(lists))
        want += [ag.sum(xs) for xs in lists]
    arrays._numpy()
    with arrays.quiet():  # as compiled code runs: IEEE results, no warnings
        got = arrays._batch_sums(tuple(entries), size)
    assert bits(got) == bits(want)
    assert all(type(v) is float for v in got)


@needs_numpy
def test_a_long_batched_chain_rolls_into_loops_with_per_example_bits() -> None:
    """A batch's statements roll as a scalar program's do (first call: 4.7 s before, at
    10,000 steps, 0.55 s rolled); the loops run the NumPy twins over the batch."""

    def chain(x: Scalar) -> Scalar:
        for _ in range(3000):
            x = ag.tanh(0.9 * x + 0.1) + ag.relu(x) * 0.01
        return x

    xs = [0.3, -0.5, 1.5]
    f = jit(ag.vmap(ag.grad(chain)))
    got = f(xs)
    source = f.lower(xs).source
    assert bits(got) == bits([ag.grad(chain)(x) for x in xs])
    assert source.count("def loop") >= 2  # the chain, and its backward sweep
    assert source.count("\n") < 200  # not 15,000 statements


@needs_numpy
def test_a_few_examples_run_the_compiled_loop_and_many_one_batch(
    batched_calls: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under `Options.batch_from` examples, the per-example float code in a loop: eager's
    bits (NumPy's ``tanh`` may differ in the last bit); from it on, one NumPy batch."""
    use(monkeypatch, Options())

    def f(x: Scalar) -> Scalar:
        return ag.tanh(x * 1.7) * ag.exp(-x)

    few = [0.1 * i - 0.3 for i in range(Options().batch_from - 1)]
    many = [0.1 * i - 0.3 for i in range(Options().batch_from)]
    got = jit(ag.vmap(ag.grad(f)))(few)
    assert bits(got) == bits([ag.grad(f)(x) for x in few])
    assert batched_calls == []  # not even tried
    jit(ag.vmap(ag.grad(f)))(many)
    assert batched_calls == [True]


@needs_numpy
def test_a_deep_narrow_function_loops_below_its_break_even_and_a_wide_one_is_batched(
    batched_calls: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From `Options.batch_from` examples the batch is compiled, and run if predicted
    faster (`vmapped.break_even`): a chain's NumPy calls each do little work, so 16
    examples loop; a layer's are packed 16 neurons at a time, so 16 examples batch.
    Either way each example gets eager's bits; `numpy_call=0` always batches."""
    use(monkeypatch, Options())

    def chain(x: Scalar) -> Scalar:
        for _ in range(300):
            x = ag.tanh(0.9 * x + 0.1)
        return x

    weights = [0.1 * i - 0.7 for i in range(16)]

    def layer(x: Scalar) -> Scalar:
        return ag.sum([ag.relu(w * x + 0.1) for w in weights])

    xs = [0.05 * i - 0.4 for i in range(16)]
    for f, batched in ((chain, False), (layer, True)):
        got = jit(ag.vmap(ag.grad(f)))(xs)
        assert bits(got) == bits([ag.grad(f)(x) for x in xs])
        assert batched_calls.pop() is batched
    use(monkeypatch, Options(numpy_call=0))
    got = jit(ag.vmap(ag.grad(chain)))(xs)
    assert bits(got) == bits([ag.grad(chain)(x) for x in xs])
    assert batched_calls.pop() is True


@needs_numpy
def test_a_batch_over_the_budget_until_it_is_rolled_compiles() -> None:
    """A batched program is written whole before `reroll` rolls it, as a scalar one is: the
    budget counts what is compiled. A deep chain's gradient over 8 examples once fell back
    to tracing the examples' loop (a 100,000-step chain: 89 s, then every call eager)."""

    def chain(x: Scalar) -> Scalar:
        for _ in range(1000):
            x = ag.tanh(0.9 * x + 0.1)
        return x

    xs = [0.1 * i - 0.3 for i in range(8)]
    before = dict(jit_module.FALLBACKS)
    options = Options(
        budget=2000, batch_from=1, numpy_call=0
    )  # ~4,500 statements written, far fewer rolled
    got = ag.jit(ag.vmap(ag.grad(chain)), options=options)(xs)
    assert dict(jit_module.FALLBACKS) == before
    assert bits(got) == bits([ag.grad(chain)(x) for x in xs])
