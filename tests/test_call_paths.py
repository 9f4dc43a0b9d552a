"""The call path of a jitted function: argument checks, cache keys, retries, tracing.

Each test drives one rarely taken turn of a call (a guard that flips to a
graph over budget, a batched retrace whose examples disagree, an entry
another thread drops between its lookup and its move, a builtin with no
signature, a static argument of an odd kind, a batched ``vmap`` result that
escapes) from the public API, and asserts what a wrong turn gets wrong: the
bits of the eager call, its error, the cache's size, the fallbacks counted.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import struct
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import ClassVar, NamedTuple

import attrs
import pytest

import autograd as ag
from autograd import rules
from autograd.compiler import jit as _jit
from autograd.compiler import keys
from autograd.compiler.jit import FALLBACKS
from autograd.compiler.options import Options
from autograd.core.nodes import Leaf, Node, Scalar

jit_any: Callable[..., Callable[..., object]] = ag.jit
"""`jit` without its precise types, for functions the type checker cannot follow."""


def bits(x: object) -> object:
    """Bitwise identity: ``-0.0`` is not ``0.0``, a nan's payload and sign count."""
    if isinstance(x, float):  # a NumPy float64 too: its bits, whatever its type
        return struct.pack("<d", x)
    if isinstance(x, list | tuple):
        return [type(x).__name__, *[bits(v) for v in x]]
    if isinstance(x, dict):
        return {k: bits(v) for k, v in x.items()}
    return x


NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8_0000_0000_0123))[0]
"""A negative quiet nan with a payload: an op that makes its own nan loses both."""


# ---- a failed guard: the new trace runs eagerly, or a batched one fails again -------


def _branch(x: Scalar, c: Scalar) -> Scalar:
    """``x * 2`` if ``c == 0``, else a 30-step chain: `rules.where` decides on a plain
    ``c`` at once (guarded), so the trace keeps only the branch taken."""
    y = x
    for _ in range(30):
        y = ag.sin(y) * 1.5
    return rules.where(rules.eq(c, 0.0), x * 2.0, y)


def test_a_flipped_guard_whose_new_trace_is_over_budget_runs_eagerly() -> None:
    calls: list[float] = []

    def f(x: Scalar, c: Scalar) -> Scalar:
        calls.append(0.0)
        return _branch(x, c)

    jf = ag.jit(f, options=Options(budget=20))
    assert jf.lower(0.3, 0.0).compiled  # the branch c == 0 fits the budget
    assert bits(jf(-0.0, 0.0)) == bits(f(-0.0, 0.0))
    before, traced = FALLBACKS["too big"], len(calls)
    with pytest.warns(RuntimeWarning, match=r"jit\(f\): the traced graph is too big"):
        got = jf(0.3, 2.0)  # c != 0: the guard fails, the retrace is the chain, over budget
    assert bits(got) == bits(f(0.3, 2.0))
    assert len(calls) == traced + 3  # traced again, then the eager call; then ours
    assert FALLBACKS["too big"] == before + 1
    assert _jit.cache_size(jf) == 1  # the eager entry replaced the compiled one
    for x, c in [(NAN, 5.0), (-0.0, 0.0), (1e308, -0.0), (0.3, math.inf)]:
        assert bits(jf(x, c)) == bits(f(x, c)), (x, c)


def _examples_then_choice(xs: Sequence[Scalar], c: Scalar) -> Scalar:
    """Each example chooses on its own sign; ``c`` chooses the sum, or example 0 alone.

    Example 0 alone is one example of a batched `vmap` result: a batched trace
    cannot return it and loops. The sum batches, but a batch traced on example
    0's sign fails its guard when another example's sign differs.
    """

    def per_example(x: Scalar) -> Scalar:
        y = rules.where(rules.lt(x, 0.0), -x, x * 2.0)
        for _ in range(5):
            y = ag.sin(y) * 1.5
        return y

    ys = ag.vmap(per_example)(xs)
    return rules.where(rules.eq(c, 0.0), ag.sum(ys), ys[0])


SAME_SIGNS = ([1.0, -0.0, 3.0, 4.0], 1.0)  # c != 0: example 0 alone, so the trace loops
MIXED_SIGNS = ([1.0, -2.0, 3.0, 4.0], 0.0)  # c == 0: the sum, over examples that disagree


@pytest.mark.parametrize(
    ("budget", "eager"), [(None, False), (30, True)], ids=["compiled", "over budget"]
)
def test_a_batched_retrace_that_fails_its_own_guard_loops(budget: int | None, eager: bool) -> None:
    pytest.importorskip("numpy")
    calls: list[float] = []

    def f(xs: Sequence[Scalar], c: Scalar) -> Scalar:
        calls.append(0.0)
        return _examples_then_choice(xs, c)

    jf = ag.jit(f, options=None if budget is None else Options(budget=budget))
    before = dict(FALLBACKS)
    assert bits(jf(*SAME_SIGNS)) == bits(f(*SAME_SIGNS))
    assert len(calls) == 2 + 1  # batched, then looping; then the eager call
    calls.clear()
    if eager:  # looping over every example, the sum is over budget: the call runs eagerly
        with pytest.warns(RuntimeWarning, match=r"jit\(f\): the traced graph is too big"):
            got = jf(*MIXED_SIGNS)
    else:
        got = jf(*MIXED_SIGNS)
    assert bits(got) == bits(f(*MIXED_SIGNS))
    assert len(calls) == 2 + eager + 1  # batched (its guard failed on this call), looping
    assert FALLBACKS["not batchable"] == before.get("not batchable", 0) + 1
    assert FALLBACKS["too big"] == before.get("too big", 0) + eager
    calls.clear()
    assert bits(jf(*MIXED_SIGNS)) == bits(f(*MIXED_SIGNS))
    assert len(calls) == eager + 1  # that entry's guards hold: traced no more
    assert _jit.cache_size(jf) == 1


# ---- an entry another thread drops between its lookup and its move ---------------------


class Key:
    """A dict key: every `Key` is equal to every other, one hash for all.

    While `between` is set, the second hash of a key in one frame runs it first:
    the frame looked the key up, and now moves it to the end of the cache, and
    `between` is what another thread does in the meantime.
    """

    between: Callable[[], None] | None = None
    frames: ClassVar[list[FrameType]] = []  # kept alive, so that `is` tells frames apart

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Key)

    def __hash__(self) -> int:
        frame = sys._getframe(1)
        if Key.between is not None:
            if any(f is frame for f in Key.frames):
                between, Key.between = Key.between, None
                Key.frames.clear()
                between()
            else:
                Key.frames.append(frame)
        return 7

    def __repr__(self) -> str:
        return f"Key({self.name!r})"


def in_another_thread(fn: Callable[[], object]) -> Callable[[], None]:
    """``fn`` run in a thread of its own, joined; its error raised here."""

    def run() -> None:
        errors: list[BaseException] = []

        def target() -> None:
            try:
                fn()
            except BaseException as e:  # re-raised in the calling thread
                errors.append(e)

        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
        if errors:
            raise errors[0]

    return run


def _only_value(d: Mapping[object, Scalar]) -> Scalar:
    (v,) = d.values()
    return v * -2.0


def test_an_entry_dropped_between_its_lookup_and_its_move_still_runs() -> None:
    calls: list[float] = []

    def f(d: Mapping[object, Scalar]) -> Scalar:
        calls.append(0.0)
        return _only_value(d)

    jf = ag.jit(f)
    assert bits(jf({Key("a"): 1.5})) == bits(-3.0)
    assert bits(jf({"b": 1.5})) == bits(-3.0)  # two entries: a hit moves its key to the end

    def fill() -> None:  # CACHE_SIZE new traces: every older entry dropped
        for i in range(_jit.CACHE_SIZE):
            jf({f"k{i}": float(i)})

    Key.between = in_another_thread(fill)
    try:
        got = jf({Key("c"): -0.0})  # equal to Key("a"): its entry, found, then dropped
    finally:
        Key.between = None
        Key.frames.clear()
    assert bits(got) == bits(f({Key("d"): -0.0})) == bits(0.0)
    assert _jit.cache_size(jf) == _jit.CACHE_SIZE
    calls.clear()
    assert bits(jf({Key("e"): NAN})) == bits(f({Key("f"): NAN}))
    assert len(calls) == 2  # the dropped entry was not stored back: traced again


def test_a_jitted_vmaps_entry_dropped_between_its_lookup_and_its_move_still_runs() -> None:
    pytest.importorskip("numpy")
    xs = [0.5, -0.0, NAN, 1e300, -1.5, 3.0, 2.0**53 + 1, -math.inf]
    jf = ag.jit(ag.vmap(_only_value))
    want = bits(ag.vmap(_only_value)({Key("a"): xs}))
    assert bits(jf({Key("a"): xs})) == want

    def fill() -> None:
        for i in range(_jit.CACHE_SIZE):
            jf({f"k{i}": xs})

    Key.between = in_another_thread(fill)
    try:
        got = jf({Key("b"): xs})
    finally:
        Key.between = None
        Key.frames.clear()
    assert bits(got) == want
    assert _jit.cache_size(jf) == _jit.CACHE_SIZE


# ---- functions without a signature, static arguments of every kind ----------------------


class Point(NamedTuple):
    x: float
    y: float


class Doubler:
    """A callable whose ``__signature__`` is no `inspect.Signature`: Python cannot tell it."""

    __signature__ = "(x)"

    def __call__(self, x: Scalar) -> Scalar:
        return x * 2.0


def test_a_function_without_a_signature_is_jitted() -> None:
    for fn in (getattr, Doubler()):
        with pytest.raises((TypeError, ValueError)):
            inspect.signature(fn)
    pick = jit_any(getattr, static_argnums=1)
    p = Point(1.5, -0.0)
    assert bits(pick(p, "y")) == bits(p.y) == bits(-0.0)
    assert bits(pick(Point(NAN, 2.0), "x")) == bits(NAN)
    assert bits(pick(p, "x")) == bits(1.5)
    assert _jit.cache_size(pick) == 2  # one trace per static name
    double = jit_any(Doubler())
    assert bits(double(-0.0)) == bits(Doubler()(-0.0))
    assert bits(double(2**53 + 1)) == bits(Doubler()(2**53 + 1))


def test_a_static_argument_beside_one_that_takes_the_general_flatten() -> None:
    np = pytest.importorskip("numpy")

    def f(x: Scalar, n: int) -> Scalar:
        return x + float(n - 2**53)

    jf = ag.jit(f, static_argnums=1)
    for x in (np.float64(0.5), np.float64(-0.0), 1.0):
        for n in (2**53 + 1, 2**53, 2**53 - 1):  # one float64, three static keys
            assert bits(jf(x, n)) == bits(f(x, n)), (x, n)
    assert _jit.cache_size(jf) == 3 * 2  # NumPy scalars key apart from floats


def test_a_node_beside_a_static_argument_runs_eagerly() -> None:
    def f(s: int, x: Scalar) -> Scalar:
        return ag.sin(x) * float(s)

    jf = ag.jit(f, static_argnums=0)
    w = Leaf(0.25)
    got, want = jf(3, w), f(3, w)
    assert isinstance(got, Node)
    assert isinstance(want, Node)
    assert bits(got.value) == bits(want.value)
    assert bits(ag.gradients(got)[w]) == bits(ag.gradients(want)[w])
    assert _jit.cache_size(jf) == 0  # never cached: a key would keep the graph alive


@dataclasses.dataclass(frozen=True)
class DataConfig:
    scale: object


@attrs.frozen
class AttrsConfig:
    scale: object


@pytest.mark.parametrize("config", [DataConfig, AttrsConfig])
def test_a_frozen_config_as_a_static_argument(config: Callable[[object], object]) -> None:
    def f(x: Scalar, c: DataConfig | AttrsConfig) -> Scalar:
        scale = c.scale
        assert isinstance(scale, float | Node)
        return x * scale

    jf = ag.jit(f, static_argnums=1)
    for x, s in [(1.5, 3.0), (-0.0, 3.0), (NAN, 3.0), (1.5, 0.5)]:
        c = config(s)
        assert bits(jf(x, c)) == bits(f(x, c))  # type: ignore[arg-type]  # a config
    assert _jit.cache_size(jf) == 2  # equal configs share their trace
    w = Leaf(-2.0)
    got = jf(1.5, config(w))  # type: ignore[arg-type]  # a config holding a node: eager
    assert isinstance(got, Node)
    assert bits(got.value) == bits(-3.0)
    assert bits(ag.gradients(got)[w]) == bits(1.5)
    assert _jit.cache_size(jf) == 2


@pytest.mark.parametrize("config", [DataConfig, AttrsConfig])
def test_a_frozen_config_holding_minus_zero_gets_its_own_trace(
    config: Callable[[object], object],
) -> None:
    # Config(0.0) == Config(-0.0): keyed by == alone, they shared a trace and the
    # second call returned the sign traced first
    def f(x: Scalar, c: DataConfig | AttrsConfig) -> Scalar:
        scale = c.scale
        if isinstance(scale, DataConfig | AttrsConfig):  # a config in a config
            scale = scale.scale
        assert isinstance(scale, float | int)
        return x * math.copysign(1.0, scale) * (2**53 + 1 if type(scale) is int else 1.0)

    jf = ag.jit(f, static_argnums=1)
    scales: list[object] = [0.0, -0.0, 1, 1.0, True, config(0.0), config(-0.0)]
    for s in scales:
        c = config(s)
        assert bits(jf(2.0, c)) == bits(f(2.0, c))  # type: ignore[arg-type]  # a config
    assert _jit.cache_size(jf) == len(scales)  # one trace a type and bits of a field


@dataclasses.dataclass(frozen=True)
class WithList:
    scale: float
    seen: list[float] = dataclasses.field(hash=False, default_factory=list)


def test_a_frozen_config_with_an_unhashed_list_field_is_keyed_by_the_rest() -> None:
    def f(x: Scalar, c: WithList) -> Scalar:
        return x * c.scale * float(len(c.seen) + 1)

    jf = ag.jit(f, static_argnums=1)
    for c in [WithList(0.0, [1.0]), WithList(-0.0, [1.0]), WithList(-0.0, [1.0, 2.0])]:
        assert bits(jf(2.0, c)) == bits(f(2.0, c))
    assert _jit.cache_size(jf) == 3  # the signed zeros apart, the lists by ==


def test_lower_with_a_static_argument_holding_a_node_says_it_runs_eagerly() -> None:
    np = pytest.importorskip("numpy")

    def f(x: Scalar, c: DataConfig) -> Scalar:
        scale = c.scale
        assert isinstance(scale, float | Node)
        return x * scale

    jf = ag.jit(f, static_argnums=1)
    w = Leaf(3.0)
    before = FALLBACKS["external node"]
    assert not jf.lower(np.float64(2.0), DataConfig(w)).compiled
    assert FALLBACKS["external node"] == before + 1
    got = jf(np.float64(-0.0), DataConfig(w))
    assert isinstance(got, Node)
    assert bits(got.value) == bits(-0.0)
    assert bits(ag.gradients(got)[w]) == bits(-0.0)
    assert _jit.cache_size(jf) == 0


def test_without_numpy_a_bad_argument_is_named_as_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def f(x: Scalar) -> Scalar:
        return x * 2.0

    bad: list[object] = [{1.5}, [1.0, "a"], {"w": [1.0, None, b"x"]}]
    messages = []
    for arg in bad:
        with pytest.raises(TypeError) as raised:
            jit_any(f)(arg)
        messages.append(str(raised.value))
    monkeypatch.setattr(keys, "HAVE_NUMPY", False)  # as where NumPy is not installed
    for arg, message in zip(bad, messages, strict=True):
        with pytest.raises(TypeError) as raised:
            jit_any(f)(arg)
        assert str(raised.value) == message
    assert "jit(f): args[0] is a set" in messages[0]
    assert "args[0]['w'][2] is a bytes" in messages[2]


# ---- what a trace meets: a node class's attributes, a batched vmap's results ------------


def test_a_node_classs_attributes_can_be_listed_inside_a_trace() -> None:
    def f(x: Scalar) -> Scalar:
        names = [name for name, _ in inspect.getmembers(Leaf)]  # reads Leaf.value, the slot
        return x * float(names.count("value"))

    jf = ag.jit(f)
    for x in (1.5, -0.0, NAN):
        assert bits(jf(x)) == bits(f(x))


def test_one_example_of_a_batched_vmap_as_the_result_loops() -> None:
    pytest.importorskip("numpy")

    def per_example(x: Scalar) -> Scalar:
        return ag.tanh(x) * 2.0

    def f(xs: Sequence[Scalar]) -> Scalar:
        return ag.vmap(per_example)(xs)[1]

    before = FALLBACKS["not batchable"]
    xs = [1.0, -0.0, NAN]
    assert bits(ag.jit(f)(xs)) == bits(f(xs)) == bits(-0.0)
    assert FALLBACKS["not batchable"] == before + 1


def test_an_examples_value_leaked_out_of_vmap_to_the_result_loops() -> None:
    pytest.importorskip("numpy")

    def f(xs: Sequence[Scalar]) -> Scalar:
        seen: list[Scalar] = []

        def per_example(x: Scalar) -> Scalar:
            y = x * 3.0
            seen.append(y)  # batched, one node stands for every example
            return y

        return ag.sum(ag.vmap(per_example)(xs)) + seen[0]

    before = FALLBACKS["not batchable"]
    for xs in ([1.0, 2.0, -0.5], [-0.0, -0.0, -0.0], [NAN, 1.0, 2.0]):
        assert bits(ag.jit(f)(xs)) == bits(f(xs)), xs
    assert FALLBACKS["not batchable"] == before + 3


def test_a_batched_result_leaked_from_a_trace_raises_as_eager_does() -> None:
    pytest.importorskip("numpy")
    leaked: list[list[Scalar]] = []

    def triple(x: Scalar) -> Scalar:
        return x * 3.0

    def f(xs: Sequence[Scalar]) -> Scalar:
        ys = ag.vmap(triple)(xs)
        leaked.append(ys)  # the trace's batched result escapes the trace
        return ag.sum(ys)

    assert bits(ag.jit(f)([1.0, 2.0, -0.5])) == bits(f([1.0, 2.0, -0.5]))
    calls: list[float] = []

    def g(x: Scalar) -> Scalar:
        calls.append(0.0)
        return leaked[0][1] * x

    with pytest.raises(TypeError) as eager:
        g(2.0)
    before = dict(FALLBACKS)
    with pytest.raises(TypeError) as jitted:
        ag.jit(g)(2.0)
    assert type(jitted.value) is type(eager.value)
    assert str(jitted.value) == str(eager.value)
    assert "one example of a batched result was used on its own" in str(jitted.value)
    assert len(calls) == 2  # eager, and one trace: not traced again with vmap looping
    assert dict(FALLBACKS) == before


# ---- a helper of the compiled code named as the check's argument ------------------------


def args(x: float) -> float:
    """The forward of a user op, named as the argument of the call's generated check."""
    return x * x + 1.0


def args_vjp(g: rules.S, x: rules.S, out: rules.S) -> tuple[rules.S]:
    return (g * (x * 2.0),)


def test_an_op_whose_forward_is_named_args_runs_on_the_fast_path() -> None:
    op = ag.define_op("square_plus_one_cp", args, args_vjp)
    try:

        def f(x: Scalar, y: Scalar) -> Scalar:
            return op(x) * y

        jf = ag.jit(f)
        assert "args(" in jf.lower(1.5, -2.0).source  # the compiled code calls args()
        cases = [(1.5, -2.0), (-0.0, 3.0), (NAN, 1.0), (1e200, -1.0), (0.5, -0.0)]
        for x, y in cases * 2:  # the second time round, each call takes the fast path
            assert bits(jf(x, y)) == bits(f(x, y)), (x, y)
        assert _jit.cache_size(jf) == 1
        grad = ag.jit(ag.grad(f))
        for x, y in cases * 2:
            assert bits(grad(x, y)) == bits(ag.grad(f)(x, y)), (x, y)
    finally:
        ag.undefine_op("square_plus_one_cp")
