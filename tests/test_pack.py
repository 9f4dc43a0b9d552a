"""`compiler.pack`: parallel statements of a batched program as 2-d NumPy operations.

Random straight-line batched programs with layers of parallel statements
(whose operands come from one array, the rows of an earlier layer in any
order, one number per row, or anything at all) run as written and packed:
every value read at the end must have the same bits. Then jit-level checks:
a vmapped MLP step compiles to packs and gives the loop's bits.
"""

from __future__ import annotations

import ast
import math
import random
import re
import struct
from collections.abc import Callable, Collection, Sequence

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar
from autograd.compiler import arrays
from autograd.compiler import codegen as _codegen
from autograd.compiler.options import Options
from autograd.compiler.pack import pack
from autograd.compiler.stmts import Stmt, code, ref
from autograd.compiler.stmts import fields as names_in

pytestmark = pytest.mark.skipif(not arrays.HAVE_NUMPY, reason="packs are NumPy operations")

SIZE = 5
ARRAYS = ["a0", "a1", "a2"]  # mapped inputs: one value per example
NUMBERS = ["a3", "a4", "a5", "a6", "a7", "k0", "k1"]  # parameters and constants: one number

FORMS = [
    "{0} * {1}",
    "{0} + {1}",
    "{0} - {1}",
    "{0} + {1} * {2}",
    "-{0}",
    "np_relu_float({0})",
    "np_select({0} <= 0.0, 0.0, {1})",
    "np_select(np_and({0} < {1}, {1} == {1}), {0}, {2})",
    "np_select({0} < 0.5, {1}, {2}) * {0}",
    "{0} * np_exp_float({1})",
    "np_tanh({1}) + np_tanh({0})",
    "np_sigmoid_float({0} * {1}) - {2}",
    "np_exp_float({0})",
    "np_tanh({0})",
    "np_pow_scalar_float({0}, {1})",
    "np_maximum_float({0}, {1})",
    "np_div_float({0}, {1})",
]


def _value(rng: random.Random) -> float:
    return rng.choice([0.0, -0.0, 1.0, 2.0, -1.5, 0.5, math.inf, math.nan, rng.uniform(-3, 3)])


_NAME = re.compile(r"\b[avgklp][0-9]+\b")
"""The names in this test's generated code, written as text."""


def random_program(seed: int) -> tuple[list[Stmt], set[str], list[str], dict[str, object]]:
    """Statements, the names holding arrays, the names read at the end, and the inputs."""
    rng = random.Random(seed)
    arrays.twins()  # imports NumPy
    np = arrays.np
    inputs: dict[str, object] = {a: np.array([_value(rng) for _ in range(SIZE)]) for a in ARRAYS}
    inputs.update({a: _value(rng) for a in NUMBERS})
    stmts: list[Stmt] = []
    varying = set(ARRAYS)
    names = list(ARRAYS + NUMBERS)
    layers: list[list[str]] = []

    def emit(expr: str, reduce: bool = False) -> str:
        t = f"v{len(stmts)}"
        expr = _NAME.sub(lambda m: ref(m[0]), expr)  # a template: names as fields
        uses = tuple(dict.fromkeys(names_in(expr)))
        stmts.append((t, expr, uses))
        if not reduce and any(u in varying for u in uses):
            varying.add(t)
        names.append(t)
        return t

    def rows(k: int) -> list[str]:
        """Operands of k parallel statements for one field."""
        how = rng.choice(["same", "layer", "layer", "layer", "numbers", "anything"])
        if how == "same":
            return [rng.choice(names)] * k
        if how == "numbers":
            return [rng.choice([n for n in names if n not in varying]) for _ in range(k)]
        if how == "layer" and layers:
            layer = rng.choice(layers)
            order = rng.choice(["in order", "stride", "reversed", "shuffled", "repeats"])
            if order == "in order":
                first = rng.randrange(len(layer))
                return [layer[(first + r) % len(layer)] for r in range(k)]
            if order == "stride":
                step = rng.choice([2, 3, -2])
                return [
                    layer[(rng.randrange(len(layer)) + step * r) % len(layer)] for r in range(k)
                ]
            if order == "reversed":
                return [layer[-1 - r % len(layer)] for r in range(k)]
            if order == "shuffled":
                return [rng.choice(layer) for _ in range(k)]
            return [layer[r // 2 % len(layer)] for r in range(k)]
        return [rng.choice(names) for _ in range(k)]

    for _ in range(rng.randint(1, 10)):
        what = rng.random()
        if what < 0.6:  # a layer of parallel statements
            form = rng.choice(FORMS)
            k = rng.randint(2, 9)
            fields = [rows(k) for c in "012" if "{" + c + "}" in form]
            layers.append([emit(form.format(*(f[r] for f in fields))) for r in range(k)])
        elif what < 0.7 and len(stmts):  # the same statement again
            emit(code(rng.choice(stmts)[1]))
        elif what < 0.8:  # a sum over the batch: one number again
            x = rng.choice([n for n in names if n in varying])
            emit(f"batch_sum({x}, {SIZE})", reduce=True)
        else:  # one statement
            form = rng.choice(FORMS)
            emit(form.format(*(rng.choice(names) for _ in range(3))))
    outputs = rng.sample(names, rng.randint(1, min(len(names), 12)))
    if rng.random() < 0.5:
        outputs = [n for n in names if n.startswith("v")]  # every value
    return stmts, varying, outputs, inputs


def execute(stmts: Sequence[Stmt], outputs: Sequence[str], env: dict[str, object]) -> list[object]:
    namespace = {**arrays.twins(), **env}
    with arrays.quiet():
        for t, e, _ in stmts:
            namespace[t] = eval(code(e), namespace)  # the test's own generated code
    return [namespace[o] for o in outputs]


def bits(values: Sequence[object]) -> list[object]:
    """Each value's bits, every nan alike (IEEE leaves a nan's sign and payload unspecified,
    and NumPy's loops for a broadcast operand may propagate the other operand's nan)."""
    np = arrays.np
    out: list[object] = []
    for v in values:
        if isinstance(v, np.ndarray):
            assert v.shape == (SIZE,), v.shape  # one value per example, never a pack
            v = v.astype(np.float64)
            out.append(np.where(np.isnan(v), np.nan, v).tobytes())
        else:  # a Python float: NumPy's scalars would take NumPy's twins downstream
            assert type(v) is float, type(v)
            out.append("nan" if math.isnan(v) else struct.pack("<d", v))
    return out


_NOT_ELEMENTWISE = frozenset({"np_check_guard", "batch_sum", "batch_sums"})
"""Calls of batched code that are not one operation per element (a guard raises; a sum
reduces)."""


def packable(stmts: Sequence[Stmt], varying: Collection[str]) -> dict[str, frozenset[str]]:
    """The oracle of what `pack` may pack: found by parsing each statement's code (`ast`).

    What the compiler's writer knows from the `Sym` values that write a statement
    (`Sym.array`, `Sym.fixed`), found here the old way, so hand-made statements can be
    packed and the writer's answers checked (tests/test_pack_flags.py): per statement
    that surely gives an array by an operation per element, the names that must be one
    value for every row (those inside a helper call with no array argument).
    """
    producer = {t for t, _, _ in stmts}
    arrays = {x for x in varying if x not in producer}  # the inputs that are arrays
    out: dict[str, frozenset[str]] = {}
    for t, e, _ in stmts:
        if t not in varying:
            continue
        fixed: set[str] = set()
        if _surely(ast.parse(code(e), mode="eval").body, arrays, set(names_in(e)), fixed):
            out[t] = frozenset(fixed)
            arrays.add(t)
    return out


def _surely(node: ast.expr, arrays: set[str], names: set[str], fixed: set[str]) -> bool | None:
    """Whether ``node`` surely gives an array; None if it is not elementwise.

    Adds to ``fixed`` the names (of ``names``) read by calls with no array argument.
    """
    match node:
        case ast.Name(id=name):
            return name in arrays
        case ast.Constant():
            return False
        case ast.UnaryOp(operand=x):
            return _surely(x, arrays, names, fixed)
        case ast.BinOp(left=x, right=y):
            a, b = _surely(x, arrays, names, fixed), _surely(y, arrays, names, fixed)
            return None if a is None or b is None else a or b
        case ast.Compare(left=x, comparators=ys):
            parts = [_surely(y, arrays, names, fixed) for y in (x, *ys)]
            return None if None in parts else any(parts)
        case ast.Call(func=ast.Name(id=fn), args=args, keywords=[]) if fn.startswith("np_"):
            if fn in _NOT_ELEMENTWISE:
                return None
            parts = [_surely(a, arrays, names, fixed) for a in args]
            if None in parts:
                return None
            if fn == "np_select":  # a select on one number gives one branch as it is
                return bool(parts[0] or (parts[1] and parts[2]))
            if not any(parts):  # the float helper itself: its fields must not be columns
                fixed.update(
                    x.id
                    for a in args
                    for x in ast.walk(a)
                    if isinstance(x, ast.Name) and x.id in names
                )
            return any(parts)
        case _:
            return None


def test_pack_keeps_every_value_and_makes_packs() -> None:
    packed_programs = 0
    for seed in range(500):
        stmts, varying, outputs, inputs = random_program(seed)
        want = execute(stmts, outputs, inputs)
        new, extra = pack(stmts, packable(stmts, varying), varying, outputs, arrays._index)
        packed_programs += any(t.startswith("p") for t, _, _ in new)
        assert bits(execute(new, outputs, {**inputs, **extra})) == bits(want), seed
        targets = [t for t, _, _ in new]
        assert len(targets) == len(set(targets)), seed  # still one assignment a name
    assert packed_programs > 120  # a third of the programs have a pack


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**32))
@example(505855)  # a select on one condition for all examples, one operand a pack's rows
def test_pack_keeps_every_value_on_any_program(seed: int) -> None:
    """Packs of any size; odd seeds cut groups into packs of a few rows (`most`), as a large
    batch's `Options.pack_elements` does, so a layer reads rows from several packs."""
    stmts, varying, outputs, inputs = random_program(seed)
    most = seed % 4 + 2 if seed % 2 else 1 << 30
    new, extra = pack(stmts, packable(stmts, varying), varying, outputs, arrays._index, most)
    assert bits(execute(new, outputs, {**inputs, **extra})) == bits(execute(stmts, outputs, inputs))


# ---- jit: a vmapped MLP step compiles to packs ----------------------------------------------


def mlp_step(params: list[list[list[Scalar]]], xs: list[list[float]], ys: list[float]) -> Scalar:
    """W6's step, with a tanh layer and a sigmoid output: per-example loss, batch mean, decay."""

    def loss(params: list[list[list[Scalar]]], x: list[Scalar], y: Scalar) -> Scalar:
        h: list[Scalar] = list(x)
        for i, layer in enumerate(params):
            z = [n[-1] + ag.dot(n[:-1], h) for n in layer]
            h = [ag.tanh(v) if i == 0 else ag.relu(v) for v in z]
        return (ag.sigmoid(h[0]) - y) ** 2

    data = ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))
    return data + 1e-4 * ag.sum([w * w for layer in params for n in layer for w in n])


def statements(sources: list[str]) -> list[str]:
    return [line.strip() for src in sources for line in src.splitlines()[1:]]


def test_a_vmapped_mlp_step_packs_and_keeps_the_unpacked_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(5)
    sizes = [2, 6, 5, 1]
    params: list[list[list[Scalar]]] = [
        [[rng.uniform(-1, 1) for _ in range(sizes[i] + 1)] for _ in range(sizes[i + 1])]
        for i in range(len(sizes) - 1)
    ]
    xs = [[rng.uniform(-2, 2) for _ in range(9)] for _ in range(2)]
    ys = [rng.choice([0.0, 1.0]) for _ in range(9)]
    sources: list[str] = []
    link = _codegen.Program.link

    def spy(self: _codegen.Program, outputs: Sequence[str]) -> object:
        run = link(self, outputs)
        sources.append("\n".join(self.sources))
        return run

    monkeypatch.setattr(_codegen.Program, "link", spy)
    packed = ag.jit(ag.value_and_grad(mlp_step))(params, xs, ys)
    unpacked = ag.jit(ag.value_and_grad(mlp_step), options=Options(pack_elements=0))(params, xs, ys)
    assert compose_bits(packed) == compose_bits(unpacked)
    eager = ag.value_and_grad(mlp_step)(params, xs, ys)
    assert packed[0] == pytest.approx(eager[0], rel=1e-13)
    with_packs, without = (statements([s]) for s in sources)
    assert any("np_col(" in s for s in with_packs), "the layers' statements became packs"
    # the statements left but loads and row views: each a NumPy call before, fewer after
    view = re.compile(r"= (R|r[0-9]+)\[[0-9]+\]$")
    work = [len([s for s in src if not view.search(s)]) for src in (with_packs, without)]
    assert work[0] < work[1] * 0.75, work


def compose_bits(x: object) -> object:
    """A result tree's bits, every nan alike (as tests/compose_fuzz.py compares)."""
    if type(x) is float:
        return "nan" if math.isnan(x) else struct.pack("<d", x)
    if isinstance(x, list | tuple):
        return [compose_bits(v) for v in x]
    raise AssertionError(f"not a float result: {x!r}")


ACTIVATIONS: dict[str, Callable[[Scalar], Scalar]] = {
    "tanh": ag.tanh,
    "relu": ag.relu,
    "sigmoid": ag.sigmoid,
    "abs-sin": lambda v: ag.abs(ag.sin(v)),
}


@settings(max_examples=40, deadline=None)
@given(
    widths=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    batch=st.integers(1, 9),
    activation=st.sampled_from(sorted(ACTIVATIONS)),
    seed=st.integers(0, 2**16),
)
def test_random_mlps_packed_give_the_unpacked_bits(
    widths: list[int], batch: int, activation: str, seed: int
) -> None:
    """Any widths, batch sizes and activations: the packed program is the unpacked one."""
    rng = random.Random(seed)
    sizes = [2, *widths, 1]
    act = ACTIVATIONS[activation]
    params: list[list[list[Scalar]]] = [
        [[rng.uniform(-2, 2) for _ in range(sizes[i] + 1)] for _ in range(sizes[i + 1])]
        for i in range(len(sizes) - 1)
    ]
    xs = [[rng.uniform(-3, 3) for _ in range(batch)] for _ in range(2)]
    ys = [rng.uniform(-1, 1) for _ in range(batch)]

    def loss(params: list[list[list[Scalar]]], x: list[Scalar], y: Scalar) -> Scalar:
        h: list[Scalar] = list(x)
        for layer in params:
            h = [act(n[-1] + ag.dot(n[:-1], h)) for n in layer]
        return (h[0] - y) ** 2

    def step(params: list[list[list[Scalar]]], xs: list[list[float]], ys: list[float]) -> Scalar:
        return ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))

    packed = ag.jit(ag.value_and_grad(step))(params, xs, ys)
    unpacked = ag.jit(ag.value_and_grad(step), options=Options(pack_elements=0))(params, xs, ys)
    assert compose_bits(packed) == compose_bits(unpacked)
