"""jit under hostile use: cache keys, memory, leaked nodes, guard bypasses, misuse.

Each test states what a wrong `jit` gets wrong: a shared trace for ``0.0`` and
``-0.0``, a cache that grows without bound or keeps graphs alive, a trace-time
node returned to a caller who passed floats, a value read that escapes the
guard, a bare error from deep inside.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import gc
import math
import struct
import threading
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd.compiler import cache, guard
from autograd.compiler import jit as _jit
from autograd.core.nodes import Leaf, Mul, Node, Scalar

jit_any: Callable[..., Callable[..., object]] = ag.jit
"""`jit` without its precise types, for calls the type checker would (rightly) refuse."""
grad_any: Callable[..., Callable[..., object]] = ag.grad


def bits(x: object) -> object:
    """Bitwise identity of a float (``0.0`` and ``-0.0`` differ, every nan alike)."""
    assert isinstance(x, float), x
    return "nan" if math.isnan(x) else struct.pack("<d", x)


@contextlib.contextmanager
def no_gc() -> Iterator[None]:
    """Only reference counting frees objects inside the block."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


# ---- 1. the cache key: static and keyword values by type and bits -----------------


def test_static_zero_and_negative_zero_get_their_own_traces() -> None:
    f = ag.jit(lambda x, s: x * math.copysign(1.0, s), static_argnums=1)
    assert bits(f(2.0, 0.0)) == bits(2.0)
    assert bits(f(2.0, -0.0)) == bits(-2.0)  # a shared trace would give 2.0
    assert bits(f(2.0, 0.0)) == bits(2.0)


def test_static_one_and_true_get_their_own_traces() -> None:
    f = ag.jit(lambda x, s: x * 2.0 if type(s) is bool else x * 3.0, static_argnums=1)
    assert (f(1.0, 1), f(1.0, True), f(1.0, 1.0)) == (3.0, 2.0, 3.0)


def test_static_nan_reuses_one_trace() -> None:
    traces: list[float] = []

    def f(x: Scalar, s: float) -> Scalar:
        traces.append(s)
        return x * 2.0

    g = ag.jit(f, static_argnums=1)
    for _ in range(100):  # a fresh nan object each time: nan != nan
        assert g(1.5, float("nan")) == 3.0
    assert len(traces) == 1
    assert _jit.cache_size(g) == 1


def test_keyword_and_nested_static_values_keyed_by_bits() -> None:
    def f(x: Scalar, signs: tuple[float, ...], *, scale: float) -> Scalar:
        return x * math.copysign(1.0, signs[0]) * math.copysign(1.0, scale)

    g = ag.jit(f, static_argnums=1)
    assert g(1.0, (0.0,), scale=0.0) == 1.0
    assert g(1.0, (-0.0,), scale=0.0) == -1.0
    assert g(1.0, (0.0,), scale=-0.0) == -1.0
    h = ag.jit(lambda x, s: x * math.copysign(1.0, min(s)), static_argnums=1)
    assert (h(1.0, frozenset([0.0])), h(1.0, frozenset([-0.0]))) == (1.0, -1.0)


def test_dict_keys_of_traced_arguments_keyed_by_type() -> None:
    g = jit_any(grad_any(lambda d: ag.sum(list(d.values())) * 2.0))
    assert g({1: 2.0}) == {1: 2.0}
    out = g({True: 2.0})  # {1: ..} == {True: ..}: a shared trace rebuilds key 1
    assert isinstance(out, dict)
    assert [type(k) for k in out] == [bool]
    out = g({1.0: 2.0})
    assert isinstance(out, dict)
    assert [type(k) for k in out] == [float]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=6))
def test_static_float_results_follow_their_bits(statics: list[float]) -> None:
    def f(x: Scalar, s: float) -> Scalar:
        return x * math.copysign(1.0, s) + (1.0 if math.isnan(s) else s)

    g = ag.jit(f, static_argnums=1)
    seen = [*statics, -0.0, 0.0, float("nan"), float("nan")]  # edge cases, after the random ones
    for s in seen:  # one jitted function sees them all
        assert bits(g(3.0, s)) == bits(f(Leaf(3.0), s).value)  # type: ignore[union-attr]  # a node
    assert _jit.cache_size(g) == len({struct.pack("<d", s) for s in seen})


# ---- 2. memory: a bounded cache, no kept graphs, no reference cycles ------------------


def test_cache_is_bounded_and_least_recently_used_goes_first() -> None:
    traces: list[str] = []

    def f(d: dict[str, float]) -> Scalar:
        traces.extend(d)
        return ag.sum(list(d.values())) * 2.0

    def shape(n: int) -> dict[str, float]:
        return {f"k{n}": 1.5}  # a distinct dict key: a distinct structure

    g = ag.jit(f)
    for n in range(1000):
        assert g(shape(n)) == 3.0
    oldest = 1000 - cache.CACHE_SIZE
    traces.clear()
    g(shape(oldest))  # still cached: no new trace, and now the most recently used
    g(shape(1000))  # a new structure evicts the least recently used, oldest + 1
    g(shape(oldest))
    assert traces == ["k1000"]
    g(shape(oldest + 1))
    assert traces == ["k1000", f"k{oldest + 1}"]
    assert _jit.cache_size(g) == cache.CACHE_SIZE


def test_traced_graph_and_compiled_entry_freed_by_reference_counting() -> None:
    seen: list[weakref.ref[Node]] = []

    def f(p: dict[str, Node]) -> tuple[Node, dict[str, object]]:
        y = p["a"] * p["b"] + 1.0
        seen.append(weakref.ref(y))
        return y, {"y": y, "tag": "t"}

    with no_gc():
        g = jit_any(ag.value_and_grad(f, has_aux=True))
        assert g({"a": 2.0, "b": 3.0}) == ((7.0, {"y": 7.0, "tag": "t"}), {"a": 3.0, "b": 2.0})
        assert seen[0]() is None  # the cache keeps no node of the trace
        entry = weakref.ref(next(iter(_jit._caches[g].entries.values())))
        del g
        assert entry() is None


def test_compiling_leaves_no_reference_cycle() -> None:
    with no_gc():
        g = jit_any(lambda x, y: ag.tanh(x * y) + ag.exp(x))
        g(1.0, 2.0)
        h = jit_any(grad_any(lambda x: ag.relu(x) ** 3.0))
        h(2.0)
        del g, h
        assert gc.collect() == 0


def test_node_among_keyword_or_static_arguments_runs_eagerly_and_is_not_kept() -> None:
    g = jit_any(lambda x, k=1.0: x * k)
    h = jit_any(lambda x, k: x * k[0], static_argnums=1)
    with no_gc():
        outer = Leaf(2.0) * 1.0
        ref = weakref.ref(outer)
        out = g(3.0, k=outer)
        assert isinstance(out, Mul)  # a node in, a node out
        assert out.value == 6.0
        out = h(3.0, (outer,))
        assert isinstance(out, Mul)
        assert out.value == 6.0
        del out, outer
        assert ref() is None
    assert _jit.cache_size(g) == _jit.cache_size(h) == 0


# ---- 3. results and aux: nodes become floats, unknown containers are refused ----------


@dataclasses.dataclass
class Box:
    value: object


@pytest.mark.parametrize(
    ("make", "path"),
    [
        (lambda y: Box(y), r"output is a Box"),
        (lambda y: [1.0, {y}], r"output\[1\] is a set"),
        (lambda y: {"stats": frozenset([y])}, r"output\['stats'\] is a frozenset"),
        (lambda y: (v for v in [y]), r"output is a generator"),
    ],
)
def test_jit_refuses_unknown_objects_in_its_output(
    make: Callable[[Scalar], object], path: str
) -> None:
    g = ag.jit(lambda x: make(x * 2.0))
    with pytest.raises(TypeError, match=rf"^jit\(<lambda>\): {path} .*pytrees"):
        g(1.0)
    assert _jit.cache_size(g) == 0  # nothing half-updated


@pytest.mark.parametrize("transform", [ag.grad, ag.value_and_grad])
@pytest.mark.parametrize("compiled", [False, True])
def test_aux_with_unknown_objects_is_refused_eager_and_jitted(
    transform: Callable[..., Callable[..., object]], compiled: bool
) -> None:
    def f(x: Scalar) -> tuple[Scalar, object]:
        return x * x, {"box": Box(x), "n": 1}

    g = transform(f, has_aux=True)
    with pytest.raises(TypeError, match=r"aux\['box'\] is a Box"):
        (ag.jit(g) if compiled else g)(3.0)


def test_plain_leaves_of_results_pass_through() -> None:
    class Pair(NamedTuple):
        a: Scalar
        b: str

    g = ag.jit(lambda x: (Pair(x * 2.0, "tag"), None, 3, b"b", 1j))
    for x in (1.0, 2.0):
        out = g(x)
        assert out == (Pair(2.0 * x, "tag"), None, 3, b"b", 1j)
        assert type(out[0].a) is float


# ---- 4. the guard: repr/str, other threads and contexts, debug_nans -----------------


def test_traced_nodes_print_without_their_value() -> None:
    shown: list[str] = []

    def f(x: Scalar) -> Scalar:
        y = x * 1.25
        shown.extend([repr(y), str(y), f"{y}", "%s" % (y,), repr([y])])  # noqa: UP031 - each path
        return y

    g = ag.jit(f)
    assert g(3.0) == 3.75
    assert shown == ["Mul(value=<traced>)"] * 4 + ["[Mul(value=<traced>)]"]
    assert repr(Leaf(3.0) * 1.25) == "Mul(value=3.75)"  # outside a trace: as usual


def test_a_thread_reading_a_traced_value_fails_the_trace() -> None:
    def f(x: Scalar) -> Scalar:
        y = x * 2.0
        seen: list[float] = []

        def read() -> None:
            with contextlib.suppress(TypeError):  # even a thread that swallows the error
                seen.append(y.value)  # type: ignore[union-attr]  # a node

        t = threading.Thread(target=read)
        t.start()
        t.join()
        return y if not seen or seen[0] > 0 else -y

    g = ag.jit(f)
    with pytest.raises(TypeError, match=r"another thread or context .* reads `\.value`"):
        g(1.0)
    with pytest.raises(TypeError, match="another thread"):
        g(-1.0)  # a frozen branch would return -2.0 here
    assert _jit.cache_size(g) == 0


def test_builders_read_traced_values_past_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """A node built in a trace reads its inputs by the slot's alias: no guarded read a node.

    The guard checks each read's caller; a builder's reads are what compiled code
    repeats, and checking them doubled a trace's cost (bench/README.md).
    """
    reads: list[str] = []
    guarded_get = guard._GuardedValue.__get__

    def counting(self: guard._GuardedValue, node: Node | None, owner: type | None = None) -> object:
        reads.append(type(node).__name__)
        return guarded_get(self, node, owner)

    monkeypatch.setattr(guard._GuardedValue, "__get__", counting)

    def f(x: Scalar, y: Scalar) -> Scalar:
        return ag.tanh(ag.exp(x * 0.5 + 1.0) - y) / 3.0 + ag.maximum(x, y) * ag.sin(x)

    assert bits(ag.jit(f)(0.25, 2.0)) == bits(f(0.25, 2.0))
    assert reads == []
    with pytest.raises(TypeError, match=r"reads `\.value`"):
        ag.jit(lambda x: x * float(x.value))(1.0)  # a node in the trace
    assert reads[0] == "Leaf"  # the user's read still goes through the guard (then its repr)


def test_a_fresh_context_reading_a_traced_value_is_refused() -> None:
    def f(x: Scalar) -> Scalar:
        y = x * 2.0
        v = contextvars.Context().run(lambda: y.value)  # type: ignore[union-attr]  # a node
        return y * v

    with pytest.raises(TypeError, match=r"another thread or context .*test_jit_hostile\.py"):
        ag.jit(f)(1.0)


def test_other_threads_read_their_own_values_while_a_trace_runs() -> None:
    inside, release = threading.Event(), threading.Event()

    def slow(x: Scalar) -> Scalar:
        inside.set()
        release.wait(timeout=10)
        return x * 2.0

    tracer = threading.Thread(target=ag.jit(slow), args=(1.5,))
    tracer.start()
    assert inside.wait(timeout=10)
    try:
        y = Leaf(0.5) * 2.0
        assert (y.value, repr(y)) == (1.0, "Mul(value=1.0)")  # not a traced node
        assert ag.grad(lambda v: v * v)(3.0) == 6.0
    finally:
        release.set()
        tracer.join()


def test_debug_nans_inside_a_traced_function_is_refused() -> None:
    def f(x: Scalar) -> Scalar:
        with ag.debug_nans():
            return ag.log(x)

    with pytest.raises(TypeError, match=r"^debug_nans\(\) inside a function that jit is tracing"):
        ag.jit(f)(2.0)
    assert ag.grad(f)(2.0) == 0.5  # eager: fine


# ---- 5. jitted calls under debug_nans are checked --------------------------------


def test_jitted_call_inside_debug_nans_names_the_op() -> None:
    f = ag.jit(lambda x: x * 0.0 + ag.log(x))
    assert f(2.0) == math.log(2.0)  # compiled first: the checked call must not reuse it
    with (
        ag.debug_nans(),
        pytest.raises(FloatingPointError, match=r"^debug_nans: Log .*test_jit_hostile\.py"),
    ):
        f(-1.0)
    assert math.isnan(f(-1.0))  # outside the block: compiled, unchecked, as documented


def test_jitted_call_inside_debug_nans_returns_what_the_compiled_call_does() -> None:
    def f(p: dict[str, float], k: int) -> tuple[Scalar, list[Scalar], str]:
        return p["a"] ** 2.0, [p["b"] * k, ag.tanh(p["a"])], "tag"

    g = ag.jit(f, static_argnums=1)
    args = ({"a": 1.5, "b": -0.0}, 3)
    compiled = g(*args)
    with ag.debug_nans():
        checked = g(*args)
    assert checked == compiled
    assert [bits(x) for x in [checked[0], *checked[1]]] == [
        bits(x) for x in [compiled[0], *compiled[1]]
    ]
    with (
        ag.debug_nans(),
        pytest.raises(FloatingPointError, match=r"^debug_nans: Log .* forward pass"),
    ):
        jit_any(grad_any(lambda x: x * 0.0 + ag.log(x)))(-1.0)


# ---- 6. misuse gives clear errors ------------------------------------------------


def gen(x: float) -> Iterator[float]:
    yield x


async def coro(x: float) -> float:
    return x


async def agen(x: float) -> AsyncIterator[float]:
    yield x


def two(x: Scalar, k: object) -> Scalar:
    return x * 2.0


def g_of_second(a: Scalar, b: Scalar) -> Scalar:
    return a * b


HOSTILE_AT_JIT: list[tuple[Callable[[], object], type[Exception], str]] = [
    (lambda: jit_any(3), TypeError, r"^jit\(\) needs a function, got int 3"),
    (lambda: jit_any(None), TypeError, r"needs a function, got NoneType"),
    (
        lambda: jit_any(classmethod(two)),  # type: ignore[arg-type]  # the misuse tested
        TypeError,
        r"got classmethod .*wrap the result",
    ),
    (lambda: jit_any(gen), TypeError, r"^jit\(gen\): a generator function cannot be traced"),
    (lambda: jit_any(coro), TypeError, r"^jit\(coro\): a coroutine function"),
    (lambda: jit_any(agen), TypeError, r"^jit\(agen\): a generator function"),
    (
        lambda: jit_any(two, static_argnums=1.0),
        TypeError,
        r"static_argnums must be an int or a sequence of ints, got float 1\.0",
    ),
    (lambda: jit_any(two, static_argnums="1"), TypeError, r"got str '1'"),
    (lambda: jit_any(two, static_argnums=True), TypeError, r"got bool True"),
    (lambda: jit_any(two, static_argnums=[0, 1.5]), TypeError, r"got list \[0, 1\.5\]"),
    (
        lambda: jit_any(ag.grad(g_of_second, argnums=1), static_argnums=1),
        ValueError,
        r"argument 1 is differentiated \(argnums \(1,\)\) and cannot be static",
    ),
    (
        lambda: jit_any(ag.value_and_grad(g_of_second, argnums=(0, 1)), static_argnums=(0,)),
        ValueError,
        r"argument 0 is differentiated",
    ),
]


@pytest.mark.parametrize(("make", "error", "match"), HOSTILE_AT_JIT)
def test_misuse_refused_when_jit_is_applied(
    make: Callable[[], object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        make()


HOSTILE_AT_CALL: list[tuple[Callable[[], object], type[Exception], str]] = [
    (
        lambda: jit_any(two, static_argnums=5)(1.0, 2.0),
        TypeError,
        r"^jit\(two\): static_argnums=5 but the function was called with 2 positional",
    ),
    (lambda: jit_any(two, static_argnums=-3)(1.0, 2.0), TypeError, r"static_argnums=-3 but"),
    (
        lambda: jit_any(ag.grad(g_of_second, argnums=1), static_argnums=-1)(1.0, 2.0),
        ValueError,
        r"argument 1 is differentiated",
    ),
    (
        lambda: jit_any(two, static_argnums=1)(1.0, [2.0]),
        TypeError,
        r"static argument 1 .*hashable.*list",
    ),
    (lambda: jit_any(two)(1.0, k={"a": 1}), TypeError, r"keyword argument 'k' .*hashable.*dict"),
    (lambda: jit_any(two)({"w": "s"}, 1.0), TypeError, r"args\[0\]\['w'\] is a str"),
    (lambda: jit_any(two)(True, 1.0), TypeError, r"args\[0\] is a bool"),
    (lambda: jit_any(two)({1.0}, 1.0), TypeError, r"args\[0\] is a set"),
    (lambda: jit_any(lambda x: x * 2.0)(), TypeError, r"missing 1 required positional"),
    (lambda: jit_any(lambda x: {x})(1.0), TypeError, r"output is a set"),
    (lambda: jit_any(lambda x: x if x.value > 0 else -x)(1.0), TypeError, r"reads `\.value`"),
]


@pytest.mark.parametrize(("call", "error", "match"), HOSTILE_AT_CALL)
def test_misuse_refused_when_called(
    call: Callable[[], object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        call()


def test_negative_static_argnums_count_from_the_end() -> None:
    traces: list[object] = []

    def f(x: Scalar, *rest: object) -> Scalar:
        traces.append(rest[-1])
        return x * 2.0 if rest[-1] == "double" else x * 3.0

    g = ag.jit(f, static_argnums=-1)
    assert g(1.0, "double") == 2.0
    assert g(1.0, 5.0, "triple") == 3.0  # -1 is argument 2 here; argument 1 is traced
    assert g(2.0, 6.0, "triple") == 6.0
    assert traces == ["double", "triple"]
    assert ag.jit(ag.grad(g_of_second), static_argnums=-1)(3.0, 4.0) == 4.0
