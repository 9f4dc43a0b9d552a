"""jit: bit-identical to eager, value-dependent Python caught, cache keys, big graphs."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import cast

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_reroll import generated_sources

import autograd as ag
from autograd.compiler.options import Options
from autograd.core.functions import FUNCTIONS
from autograd.core.nodes import Leaf, Node, Scalar

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 3.0, math.inf, -math.inf, math.nan, 1e300, 5e-324]
floats = st.one_of(
    st.sampled_from(SPECIAL), st.floats(allow_nan=True, allow_infinity=True, width=64)
)


def bits(x: object) -> object:
    """Bitwise identity, with every nan alike (PyTorch does not promise nan payloads)."""
    if isinstance(x, float):
        return "nan" if math.isnan(x) else struct.pack("<d", x)
    if isinstance(x, list | tuple):
        return [bits(v) for v in x]
    if isinstance(x, dict):
        return {k: bits(v) for k, v in x.items()}
    raise AssertionError(f"not a float result: {x!r}")


# A random composition is a list of instructions over registers that start as (x, y).
UNARY: list[Callable[[Scalar], Scalar]] = list(FUNCTIONS.values())  # every one-input op
BINARY: list[Callable[[Scalar, Scalar], Scalar]] = [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a / b,
    lambda a, b: a**b,
]
CONST_EXPONENTS = [0.0, 1.0, 2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.5]
# constants a compiled program writes as literals (or, not finite, as globals): every kind
CONSTANTS = [-0.0, 0.5, math.inf, 2.0, -math.inf, math.nan, 5e-324, -1.7976931348623157e308, 0.1]

instruction = st.one_of(
    st.tuples(st.just("u"), st.integers(0, len(UNARY) - 1), st.integers(0, 99)),
    st.tuples(
        st.just("b"), st.integers(0, len(BINARY) - 1), st.integers(0, 99), st.integers(0, 99)
    ),
    st.tuples(st.just("p"), st.sampled_from(CONST_EXPONENTS), st.integers(0, 99)),
    st.tuples(st.just("c"), st.sampled_from(CONSTANTS), st.integers(0, 99)),
    st.tuples(st.just("s"), st.integers(0, 99)),
)
programs = st.lists(instruction, min_size=1, max_size=12)


def run(program: Sequence[tuple[object, ...]], x: Scalar, y: Scalar) -> Scalar:
    regs: list[Scalar] = [x, y]

    def r(i: object) -> Scalar:
        return regs[cast(int, i) % len(regs)]

    for ins in program:
        match ins:
            case ("u", int(k), i):
                regs.append(UNARY[k](r(i)))
            case ("b", int(k), i, j):
                regs.append(BINARY[k](r(i), r(j)))
            case ("p", float(c), i):
                regs.append(r(i) ** c)
            case ("c", float(c), i):
                regs.append(r(i) * c)
            case ("s", i):
                regs.append(ag.mean([r(i), *regs[-3:]]))
            case _:
                raise AssertionError(ins)
    return regs[-1]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(programs, floats, floats)
def test_jit_forward_bit_identical_to_eager(
    program: list[tuple[object, ...]], x: float, y: float
) -> None:
    try:  # the eager call is on floats, as the user makes it
        want = run(program, x, y)
    except (ArithmeticError, ValueError, TypeError):  # Python's float operators raise or go
        assume(False)  # complex where IEEE gives inf or nan
    assume(not isinstance(want, complex))  # nor does IEEE pow give complex numbers
    f = ag.jit(lambda a, b: run(program, a, b))
    assert bits(f(x, y)) == bits(want)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(programs, floats, floats, floats, floats)
def test_jit_value_and_grad_bit_identical_and_not_frozen(
    program: list[tuple[object, ...]], x: float, y: float, x2: float, y2: float
) -> None:
    def f(a: Scalar, b: Scalar) -> Scalar:
        return run(program, a, b)

    eager = ag.value_and_grad(f, argnums=(0, 1))
    jitted = ag.jit(ag.value_and_grad(f, argnums=(0, 1)))
    # the second call reuses the first trace: relu masks and pow's cases are decided at run time
    for a, b in ((x, y), (x2, y2)):
        assert bits(jitted(a, b)) == bits(eager(a, b))


def test_jit_grad_relu_mask_decided_at_run_time() -> None:
    traces = []

    def f(x: Scalar) -> Scalar:
        traces.append(x)
        return ag.relu(x) * 3.0

    g = ag.jit(ag.grad(f))
    assert [g(1.0), g(-1.0), g(0.0), g(math.nan)] == [3.0, 0.0, 0.0, 3.0]
    assert len(traces) == 1


def test_jit_pow_exponent_zero_case_at_run_time() -> None:
    def power(x: Scalar, y: Scalar) -> Scalar:
        return x**y

    g = ag.jit(ag.grad(power, argnums=(0, 1)))
    want = ag.grad(power, argnums=(0, 1))
    for x, y in ((0.0, 2.0), (0.0, 0.0), (0.0, -1.0), (-2.0, 2.0), (2.0, 3.0)):
        assert bits(g(x, y)) == bits(want(x, y))


def test_value_dependent_branch_raises_at_trace_time() -> None:
    def f(x: Node) -> Scalar:
        y = x * 2.0
        return y if y.value > 0 else -y

    with pytest.raises(TypeError, match=r"reads `\.value`.*static_argnums"):
        ag.jit(f)(Leaf(1.0).value)  # type: ignore[arg-type]  # a float, as at run time
    with pytest.raises(TypeError, match=r"reads `\.value`"):
        ag.jit(ag.grad(f))(1.0)
    assert ag.Mul.__dict__["value"].__class__.__name__ == "member_descriptor"  # guard removed


def _relu_times(t: Node) -> Scalar:
    return ag.relu(t) * t


def _exp_times(t: Node) -> Scalar:
    return ag.exp(t) * t  # exp's rule does not branch (tanh's and sigmoid's choose a form)


@pytest.mark.parametrize("f", [_relu_times, _exp_times])
def test_nested_grad_compiles_its_rules_choices_as_run_time_tests(
    f: Callable[[Node], Scalar],
) -> None:
    def inner(x: float) -> Scalar:
        return ag.grad(f)(x)

    jitted = ag.jit(inner)
    for x in (
        0.3,
        -2.0,
        0.0,
        -0.0,
        math.inf,
        math.nan,
        1e-310,
    ):  # relu's mask flips after the trace
        assert bits(jitted(x)) == bits(inner(x))
    assert ag.jit(ag.grad(inner))(-2.0) == ag.grad(inner)(-2.0)


def test_static_argument_branches_and_keys_the_cache() -> None:
    traces: list[object] = []

    def f(x: Scalar, flip: bool) -> Scalar:
        traces.append(flip)
        return -x if flip else x * 2.0

    g = ag.jit(f, static_argnums=1)
    assert [g(1.5, True), g(1.5, False), g(2.0, True)] == [-1.5, 3.0, -2.0]
    assert traces == [True, False]


def test_cache_key_includes_dict_key_order_and_structure() -> None:
    traces: list[tuple[str, ...]] = []

    def f(p: dict[str, Scalar]) -> Scalar:
        traces.append(tuple(p))
        return p["a"] * 3.0 + p["b"]

    vg = ag.jit(ag.value_and_grad(f))
    assert vg({"a": 1.0, "b": 2.0}) == (5.0, {"a": 3.0, "b": 1.0})
    assert vg({"a": 2.0, "b": 0.0}) == (6.0, {"a": 3.0, "b": 1.0})
    ba = vg({"b": 2.0, "a": 1.0})
    assert ba == (5.0, {"b": 1.0, "a": 3.0})
    assert list(ba[1]) == ["b", "a"]
    assert traces == [("a", "b"), ("b", "a")]


def test_graph_above_compile_budget_runs_eagerly() -> None:

    def chain(x: Scalar) -> Scalar:
        for _ in range(50):
            x = ag.tanh(0.9 * x + 0.1)
        return x

    jitted = ag.jit(ag.value_and_grad(chain), options=Options(budget=10))
    with pytest.warns(RuntimeWarning, match=r"jit\(chain\): .* too big .* run eagerly") as seen:
        assert bits(jitted(0.5)) == bits(ag.value_and_grad(chain)(0.5))
    assert len(seen) == 1
    assert bits(jitted(0.7)) == bits(ag.value_and_grad(chain)(0.7))  # said once: no warning


def test_graph_compiled_in_many_chunks() -> None:
    seven = Options(chunk=7)

    def f(ws: Sequence[Scalar], xs: Sequence[Scalar]) -> Scalar:
        h = [ag.tanh(w * x) for w, x in zip(ws, xs, strict=True)]
        return ag.sum([a * b for a, b in zip(h, reversed(h), strict=True)]) + ag.relu(ws[0])

    ws, xs = [0.1 * i - 1.0 for i in range(23)], [math.cos(i) for i in range(23)]
    jitted = ag.jit(ag.value_and_grad(f), options=seven)
    assert bits(jitted(ws, xs)) == bits(ag.value_and_grad(f)(ws, xs))
    eager = f([Leaf(w) for w in ws], xs)
    assert isinstance(eager, ag.Add)
    assert bits(ag.jit(f, options=seven)(ws, xs)) == bits(eager.value)
    assert ag.jit(f, options=seven).lower(ws, xs).source.count("def chunk") > 10


def test_composes_with_grad_outside_and_inside() -> None:
    def f(x: Scalar) -> Scalar:
        return ag.tanh(x) * x**3.0

    for x in (0.7, -1.2):
        assert ag.value_and_grad(ag.jit(f))(x) == ag.value_and_grad(f)(x)
        assert ag.grad(ag.jit(ag.grad(f)))(x) == ag.grad(ag.grad(f))(x)


def test_has_aux_and_grad_kinds() -> None:
    def f(p: list[Scalar]) -> tuple[Scalar, dict[str, object]]:
        s = p[0] * p[1]
        return s + 1.0, {"s": s, "tag": "x"}

    got = ag.jit(ag.value_and_grad(f, has_aux=True))([2.0, 3.0])
    assert (
        got
        == ag.value_and_grad(f, has_aux=True)([2.0, 3.0])
        == ((7.0, {"s": 6.0, "tag": "x"}), [3.0, 2.0])
    )
    assert ag.jit(ag.grad(f, has_aux=True))([2.0, 3.0]) == ([3.0, 2.0], {"s": 6.0, "tag": "x"})


def test_constant_output_and_unused_input() -> None:
    def unused(x: Scalar, y: Scalar) -> Scalar:
        return y * 0.0 + 2.0

    def constant(x: Node) -> Scalar:
        return 4.0

    assert ag.jit(ag.value_and_grad(unused))(1.0, 5.0) == (2.0, 0.0)
    assert ag.jit(ag.value_and_grad(constant))(1.0) == (4.0, 0.0)
    assert ag.jit(lambda x: (x, 3.0, "s"))(1.5) == (1.5, 3.0, "s")


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(0, 12),
    picks=st.lists(st.tuples(st.integers(0, 11), st.booleans()), max_size=40),
)
def test_outputs_that_are_runs_of_inputs(n: int, picks: list[tuple[int, bool]]) -> None:
    """Returned inputs, in runs, repeated, reversed or among computed values, come back as
    passed: a lone chunk returns a run of four or more as a slice of its inputs."""
    chosen = [(i % n, doubled) for i, doubled in picks] if n else []
    chosen += [(i, False) for i in range(n)]  # at least one run of every input
    xs = [float(i) + 0.25 for i in range(n)]

    def f(v: Sequence[Scalar]) -> tuple[Scalar, ...]:
        return tuple(v[i] * 2.0 if doubled else v[i] for i, doubled in chosen)

    assert ag.jit(f)(xs) == tuple(x * 2.0 if d else x for x, d in ((xs[i], d) for i, d in chosen))


def test_the_seed_cotangent_multiplies_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """``1.0 * x`` is ``x`` in every bit: the gradient of a sum of products is the other
    factors, returned as a slice of the inputs, with no multiplication by the seed."""
    sources = generated_sources(monkeypatch)
    ws = [0.5, -0.0, math.inf, math.nan, 1e-320, -3.0, 2.0, 7.5] * 4
    xs = [-0.0, 2.5, math.nan, -math.inf, 3e300, 5e-324, 0.1, -1.0] * 4
    f = ag.value_and_grad(ag.dot)
    value, g = ag.jit(f)(ws, xs)
    eager_value, eager_g = f(ws, xs)
    assert bits([value, *g]) == bits([eager_value, *eager_g])
    assert bits(g) == bits(xs)
    text = "\n".join(sources)
    assert "*R[32:64]" in text
    assert text.count("*") == 32 + 1  # the products and the splice: no `1.0 * x`


def test_closure_over_an_outside_node_stays_eager() -> None:
    w = Leaf(3.0)
    out = ag.jit(lambda x: w * x)(2.0)
    assert isinstance(out, ag.Mul)
    assert out.value == 6.0


def test_non_pytree_argument_names_path_and_static_argnums() -> None:
    with pytest.raises(TypeError, match=r"args\[0\]\['k'\].*static_argnums"):
        ag.jit(lambda d: d["k"])({"k": "text"})
    with pytest.raises(TypeError, match="static_argnums must be an int or a sequence of ints"):
        ag.jit(lambda x: x, static_argnums=1.0)  # type: ignore[arg-type]  # the misuse tested


GRID = [*SPECIAL, 0.3, -0.7, 1.7, 4.2, -3.3, 20.0, -40.0, 710.0]


def _unary(u: Callable[[Scalar], Scalar]) -> Callable[[Scalar, Scalar], Scalar]:
    return lambda a, b: u(a) * b  # b is the cotangent reaching the op


def _binary(f: Callable[[Scalar, Scalar], Scalar]) -> Callable[[Scalar, Scalar], Scalar]:
    return lambda a, b: f(a, b * 1.3) * b


def _power(c: float) -> Callable[[Scalar, Scalar], Scalar]:
    return lambda a, b: a**c * b


OPS = [*map(_unary, UNARY), *map(_binary, BINARY), *map(_power, CONST_EXPONENTS)]


@pytest.mark.parametrize("op", range(len(OPS)))
def test_every_rule_bit_identical_on_a_grid(op: int) -> None:
    f = OPS[op]
    eager = ag.value_and_grad(f, argnums=(0, 1))
    jitted = ag.jit(ag.value_and_grad(f, argnums=(0, 1)))
    for a in GRID:
        for b in (0.37, -1.9, 0.0, 3.0):
            assert bits(jitted(a, b)) == bits(eager(a, b)), (a, b)


def test_unhashable_static_argument_is_a_clear_error() -> None:
    f = ag.jit(lambda x, opts: x * len(opts), static_argnums=1)
    assert f(2.0, ("a", "b")) == 4.0
    with pytest.raises(TypeError, match="must be hashable"):
        f(2.0, ["a", "b"])


def test_keyword_arguments_are_static() -> None:
    traces: list[float] = []

    def f(x: Scalar, *, scale: float) -> Scalar:
        traces.append(scale)
        return x * scale

    g = ag.jit(f)
    assert [g(2.0, scale=3.0), g(5.0, scale=3.0), g(2.0, scale=0.5)] == [6.0, 15.0, 1.0]
    assert traces == [3.0, 0.5]


def test_trace_does_not_disturb_other_threads() -> None:
    import threading

    inside, release = threading.Event(), threading.Event()
    seen: list[float] = []

    def slow(x: Scalar) -> Scalar:
        inside.set()
        release.wait(timeout=10)
        return x * 2.0

    def trace() -> None:
        out = ag.jit(slow)(1.5)
        assert isinstance(out, float)
        seen.append(out)

    tracer = threading.Thread(target=trace)
    tracer.start()
    assert inside.wait(timeout=10)
    y = ag.tanh(Leaf(0.5) * 2.0)  # another thread, while the trace runs: values read as usual
    seen.append(y.value)
    release.set()
    tracer.join()
    assert seen == [math.tanh(1.0), 3.0]


@pytest.mark.parametrize("plain_first", [True, False])
def test_same_op_on_a_plain_and_a_traced_exponent_gets_each_its_own_code(
    plain_first: bool,
) -> None:
    """`Program` writes a node's code once per key: the key must tell these two apart.

    ``x ** c`` for a plain ``c`` is PyTorch's scalar path (``sqrt(-0.0)`` is
    ``-0.0``), ``x ** y`` for a node ``y`` is C ``pow`` (``0.0``).
    """

    def f(x: Scalar, c: float) -> tuple[Scalar, list[Scalar]]:
        y = x * 0.0 + c  # a node in the eager call, of c's value
        pair = [x**c, x**y] if plain_first else [x**y, x**c]
        return pair[0] * pair[1], pair

    vg = ag.value_and_grad(f, has_aux=True)
    jitted = ag.jit(vg)
    for x, c in [(-0.0, 0.5), (4.0, 0.5), (-0.0, 2.0), (2.0, 0.0)]:
        assert bits(jitted(x, c)) == bits(vg(x, c))
