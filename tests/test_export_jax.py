"""`autograd.export.to_jax` against this engine: values and JAX's gradients on random programs
of every op, the ulp bounds docs/jax.md publishes, and composition with JAX's transforms."""

from __future__ import annotations

import functools
import math
import random
import re
import struct
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

jax = pytest.importorskip("jax", reason="needs JAX: pip install -e '.[jax]'")
jnp = pytest.importorskip("jax.numpy")
np = pytest.importorskip("numpy")

import autograd as ag  # noqa: E402  # after the skips: nothing here runs without JAX
from autograd import nn  # noqa: E402
from autograd.drawing import ALL_OPS  # noqa: E402
from autograd.export import to_arrays, to_jax  # noqa: E402
from autograd.export._agreement import KNOWN, TINY, jax_value_and_grad, measure, ulps  # noqa: E402
from autograd.expr import COMPARISONS, evaluate, to_source  # noqa: E402
from autograd.programs import Program, random_program  # noqa: E402
from autograd.walks import toposort  # noqa: E402

OPS = [op for op in ALL_OPS if op not in COMPARISONS]  # `where` draws every comparison

DOCS = Path(__file__).resolve().parent.parent / "docs" / "jax.md"


def published_bounds() -> dict[str, tuple[float, float]]:
    """docs/jax.md's agreement table: per op, the largest value and gradient ulps it states."""
    rows = re.findall(
        r"^\| `([^`]+)` \| \d+ \| ([\d,inf]+) \| ([\d,inf]+) \|", DOCS.read_text(), re.M
    )
    return {op: (float(v.replace(",", "")), float(g.replace(",", ""))) for op, v, g in rows}


BOUNDS = published_bounds()
"""Measured on 2,000 programs an op; the tests draw the first 40 of them (the same seeds)."""


def test_the_table_has_a_row_for_every_op_and_names_every_convention() -> None:
    assert sorted(BOUNDS) == sorted(OPS)
    assert all(math.isfinite(v) and math.isfinite(g) for v, g in BOUNDS.values())
    text = DOCS.read_text()
    assert all(f"**{c.name}**" in text for c in KNOWN)


@pytest.mark.parametrize("op", OPS)
def test_every_op_exported_agrees_with_ours_within_the_published_ulps(op: str) -> None:
    row = measure(op, 40)
    assert row.programs == 40
    value, gradient = BOUNDS[op]
    assert row.value.ulps <= value, row.value.case
    assert row.gradient.ulps <= gradient, row.gradient.case


EXACT_OPS: tuple[str, ...] = ("+", "-", "*", "/", "neg", "sqrt", "abs", "relu", "sign")
EXACT_OPS += ("maximum", "minimum", "where", *COMPARISONS)
"""Ops whose JAX twins are correctly rounded, as their float helpers: the same bits."""


def tiny_anywhere(p: Program) -> bool:
    """Whether a value of ours near XLA's flushed subnormals occurs anywhere in the program."""
    out = evaluate(p.expr, {name: ag.Leaf(v) for name, v in p.inputs.items()})
    values = [x.value for x, _ in toposort(out)] if isinstance(out, ag.Node) else [out]
    return any(0.0 < abs(v) < TINY for v in values)


def bits(x: float) -> bytes:
    """The float's bits, every nan alike (XLA's and C's differ in sign), zeros of both signs
    alike (jnp.minimum(0.0, -0.0) is -0.0, ours 0.0: a convention the per-op rows count)."""
    return b"nan" if x != x else struct.pack("<d", x + 0.0)


def test_programs_of_correctly_rounded_ops_give_our_values_bit_for_bit() -> None:
    rng = random.Random(0)
    checked = 0
    for _ in range(150):
        p = random_program(rng, EXACT_OPS, hessian=False)
        if tiny_anywhere(p):
            continue
        value = to_jax(functools.partial(evaluate, p.expr))(p.inputs)
        assert bits(float(value)) == bits(p.value), (to_source(p.expr), p.inputs)
        checked += 1
    assert checked > 100


def test_programs_of_every_op_give_our_values_within_a_millionth() -> None:
    rng = random.Random(1)
    for _ in range(150):
        p = random_program(rng, ALL_OPS, hessian=False)
        if tiny_anywhere(p):
            continue
        value, grads = jax_value_and_grad(p.expr, p.inputs)
        ours = p.value
        assert math.isnan(value) == math.isnan(ours), (to_source(p.expr), p.inputs, value, ours)
        if math.isfinite(ours) or math.isfinite(value):
            assert math.isclose(value, ours, rel_tol=1e-6), (to_source(p.expr), p.inputs)
        assert grads.keys() == p.gradients.keys()


# ---- conventions the twins keep, and the ones JAX's derivatives do not ----


def test_kinks_take_pytorchs_derivatives_under_jax_grad() -> None:
    def at(fn: Callable[[ag.Node], ag.Scalar], x: float) -> float:
        return float(jax.grad(to_jax(fn))(x))

    assert at(ag.relu, 0.0) == 0.0  # jax.nn.relu agrees; jnp.where(x < 0, 0, x) would say 1
    assert at(ag.relu, math.nan) == 1.0  # PyTorch passes the gradient through nan
    assert at(ag.abs, 0.0) == 0.0  # jnp.abs'(0) is 1
    assert at(ag.abs, -0.0) == 0.0
    assert at(lambda x: x**0.0, 0.0) == 0.0  # jnp.power's is nan
    assert at(ag.sign, 2.0) == 0.0
    assert struct.pack("<d", float(to_jax(ag.relu)(-0.0))) == struct.pack("<d", -0.0)


def root(x: ag.Scalar) -> ag.Scalar:
    return x**0.5


def power(x: ag.Scalar, y: ag.Scalar) -> ag.Scalar:
    return x**y


def test_a_constant_exponent_takes_pytorchs_scalar_path() -> None:
    exported = to_jax(root)  # sqrt, as torch.pow(x, 0.5): C's pow differs at -0.0 and -inf
    assert struct.pack("<d", float(exported(-0.0))) == struct.pack("<d", -0.0)
    assert math.isnan(float(exported(-math.inf)))
    assert float(to_jax(power)(-math.inf, 0.5)) == math.inf  # a node exponent: C's pow


def test_pow_at_a_zero_base_is_jaxs_own_derivative() -> None:
    exported = jax.grad(to_jax(power), argnums=(0, 1))
    ours = ag.grad(power, argnums=(0, 1))
    assert ours(0.0, 0.0) == (0.0, 0.0)  # PyTorch's masks
    assert math.isnan(float(exported(0.0, 0.0)[0]))
    assert ours(0.0, -1.0) == (-math.inf, -math.inf)
    assert math.isnan(float(exported(0.0, -1.0)[1]))


def test_exporting_our_gradient_keeps_our_rules_bit_for_bit() -> None:
    def f(x: ag.Scalar, y: ag.Scalar) -> ag.Scalar:
        return x**y + ag.arctan2(x, y) * ag.maximum(x, y)

    ours = ag.grad(f, argnums=(0, 1))
    exported = to_jax(ours)  # JAX runs the equations of our rules: no JAX derivative at all
    for x, y in [(0.0, 0.0), (0.0, 2.0), (math.nan, 1.0), (1.5, -0.5)]:
        out = exported(x, y)
        assert isinstance(out, tuple)
        got = [float(g) for g in out]
        assert [bits(g) for g in got] == [bits(g) for g in ours(x, y)], (x, y, got)


# ---- JAX's transforms and sharding ----


def neuron(w: Sequence[ag.Scalar], b: ag.Scalar, x: Sequence[ag.Scalar]) -> ag.Scalar:
    return ag.sin(ag.dot(w, x) + b)  # sin: XLA's and its derivative are within an ulp of ours


def test_jit_vmap_and_grad_compose_and_give_our_per_example_gradients() -> None:
    rng = random.Random(2)
    w = [rng.uniform(-1.0, 1.0) for _ in range(3)]
    xs = [[rng.uniform(-2.0, 2.0) for _ in range(50)] for _ in range(3)]
    per_example = jax.jit(jax.vmap(jax.grad(to_jax(neuron)), in_axes=(None, None, 0)))
    got = per_example(w, 0.5, [jnp.asarray(c) for c in xs])
    for i in range(50):
        want = ag.grad(neuron)(w, 0.5, [c[i] for c in xs])
        for g, gw in zip(got, want, strict=True):  # sums of products: in JAX's order
            assert math.isclose(float(g[i]), gw, rel_tol=1e-12, abs_tol=1e-15)


def test_hessian_of_the_exported_function_is_ours_to_a_few_ulps() -> None:
    def f(xs: Sequence[ag.Scalar]) -> ag.Scalar:
        return ag.sin(xs[0]) * ag.exp(xs[1]) + xs[0] * xs[1] ** 3.0

    x = [0.3, -0.7]
    got = jax.hessian(to_jax(f))(x)
    want = ag.hessian(f)(x)
    for i in range(2):
        for j in range(2):
            assert ulps(float(got[i][j]), want[i][j]) <= 4


def test_a_batch_sharded_over_a_mesh_gives_the_unsharded_loss() -> None:
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("batch",))
    split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
    n = 8 * 64
    x = np.linspace(-3.0, 3.0, n)
    exported = to_jax(neuron)
    mean = jax.jit(lambda w, b, x: jnp.mean(jax.vmap(exported, in_axes=(None, None, 0))(w, b, x)))
    sharded = jax.device_put([x, x * x, -x], split)
    assert sharded[0].sharding == split
    got = mean([0.5, -0.25, 0.1], 0.2, sharded)
    want = ag.mean([neuron([0.5, -0.25, 0.1], 0.2, [v, v * v, -v]) for v in x.tolist()])
    assert isinstance(want, float)
    assert math.isclose(float(got), want, rel_tol=1e-13)


def test_attrs_parameters_become_jax_pytrees_and_gradients_keep_their_class() -> None:
    params = nn.init_mlp((2, 3, 1), seed=0)
    exported = to_jax(lambda p, x: nn.mlp(p, x)[0])
    grads = jax.grad(exported)(to_arrays(params), [0.5, -1.0])
    assert type(grads) is nn.MLP
    assert type(grads.layers[0]) is nn.Dense
    want = ag.grad(lambda p: nn.mlp(p, [0.5, -1.0])[0])(params)
    assert jax.tree.map(float, grads) == want


class Point(NamedTuple):
    x: float
    y: float


def parts(p: Point) -> dict[str, object]:
    return {"sum": p.x + p.y, "pair": (p.x * p.y, 2.0)}


def test_results_keep_the_functions_structure() -> None:
    out = to_jax(parts)(Point(1.5, 2.0))
    assert isinstance(out, dict)
    assert list(out) == ["sum", "pair"]
    assert [float(v) for v in (out["sum"], *out["pair"])] == [3.5, 3.0, 2.0]


def test_static_arguments_are_traced_once_per_value() -> None:
    traces: list[int] = []

    def f(x: ag.Scalar, k: int) -> ag.Scalar:
        traces.append(k)
        return ag.sum([x * float(i) for i in range(k)])

    exported = to_jax(f, static_argnums=1)
    assert float(exported(2.0, 3)) == 6.0
    assert float(exported(3.0, 3)) == 9.0
    assert float(jax.jit(exported, static_argnums=1)(2.0, 4)) == 12.0
    assert traces == [3, 4]


def scaled(x: ag.Scalar, scale: float = 1.0) -> ag.Scalar:
    return x * scale


def weight(p: dict[str, ag.Scalar]) -> ag.Scalar:
    return p["w"] * 2.0


def test_keyword_arguments_are_static_as_in_jit() -> None:
    exported = to_jax(scaled)
    assert float(exported(2.0, scale=3.0)) == 6.0
    with pytest.raises(TypeError, match=r"scale= is static .* pass arrays as positional"):
        exported(2.0, scale=jnp.ones(3))


def test_leaves_must_be_float64() -> None:
    exported = to_jax(weight)
    assert float(exported({"w": 2})) == 4.0  # a Python int is a number, as everywhere
    with pytest.raises(TypeError, match=r"args\[0\]\['w'\] is an array of float32"):
        exported({"w": jnp.ones(3, dtype=jnp.float32)})
    with pytest.raises(TypeError, match=r"args\[0\]\['w'\] is a bool"):
        exported({"w": True})


def test_an_op_without_a_twin_is_named() -> None:
    def cube_float(x: float) -> float:
        return x * x * x

    fn = ag.define_op("cube_x", cube_float, lambda g, x, out: (g * 3.0 * x * x,))
    try:
        with pytest.raises(TypeError, match=r"op 'cube_x' .* no JAX twin"):
            to_jax(fn)(1.0)
    finally:
        ag.undefine_op("cube_x")


def test_reading_a_traced_value_is_refused_with_the_exporters_name() -> None:
    def f(x: ag.Node) -> ag.Node:
        return x if x.value > 0 else -x

    with pytest.raises(TypeError, match=r"to_jax\(f\): .*reads `\.value`"):
        to_jax(f)(1.0)


def test_the_bench_checks_and_times_every_engine_at_a_small_size() -> None:
    bench = Path(__file__).resolve().parent.parent / "bench" / "jax_export.py"
    done = subprocess.run(
        # 1,024 points: at 80 (10 a device) XLA took over two minutes to compile the 8-way step
        [sys.executable, "-W", "ignore", str(bench), "1024"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| W8")]
    assert len(rows) == 1
    assert "not run" not in rows[0]
    assert "8 host CPU devices" in done.stdout
