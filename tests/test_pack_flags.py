"""What the writer says of a batched statement is what parsing its code says.

`compiler.pack` packs the statements the writer marked as it wrote them
(`Writer.packable`: from `Sym.array` and `Sym.fixed`), and reads no code. Here
every batched statement of jitted vmap programs is also read the old way, with
`ast` (`test_pack.packable`): both must find the same statements surely giving
arrays, with the same fixed names. A wrong rule (a select on one number said
to give an array) is caught.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from test_pack import ACTIVATIONS, mlp_step, packable

import autograd as ag
from autograd import Scalar
from autograd.compiler import arrays
from autograd.compiler import codegen as _codegen
from autograd.compiler.options import Options
from autograd.compiler.writer import Dialect
from autograd.core import sym

pytestmark = pytest.mark.skipif(not arrays.HAVE_NUMPY, reason="packs are NumPy operations")

Seen = list[tuple[int, int, list[str]]]
"""Per batched program: its batched statements, those the writer marked, and where it and
the oracle disagree."""


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    """Compares, for each batched program linked, the writer's marks with the oracle's."""
    out: Seen = []
    real = _codegen.Program._roll_batch

    def spy(
        self: _codegen.Program, batch: Dialect, names: list[str], spliced: list[str]
    ) -> tuple[dict[str, object], list[str]]:
        want = packable(self.stmts, self.varying)
        wrong = [
            f"{t} = {e}: writer {self.packable.get(t)}, oracle {want.get(t)}"
            for t, e, _ in self.stmts
            if self.packable.get(t) != want.get(t)
        ]
        batched = sum(t in self.varying for t, _, _ in self.stmts)
        out.append((batched, len(want), wrong))
        return real(self, batch, names, spliced)

    monkeypatch.setattr(_codegen.Program, "_roll_batch", spy)
    return out


def _params(rng: random.Random, sizes: list[int]) -> list[list[list[Scalar]]]:
    return [
        [[rng.uniform(-2, 2) for _ in range(sizes[i] + 1)] for _ in range(sizes[i + 1])]
        for i in range(len(sizes) - 1)
    ]


Run = Callable[[Options], object]
"""A workload: a jitted program run with options."""

OPTIONS = {
    "as-built": Options(batch_from=1, numpy_call=0),
    "every-run-rolled": Options(
        batch_from=1, numpy_call=0, reroll_from=0, min_reps=2, min_statements=2, stride=1
    ),
}
"""As built (every batch, however small, one batched program), and with runs rolled first
(`test_vmap_batched.PATHS`): packing reads what rolling left."""


def _mlps() -> Iterator[Run]:
    """W6's step, and an MLP per activation (`test_pack`'s workloads)."""
    rng = random.Random(5)
    params = _params(rng, [2, 6, 5, 1])
    xs = [[rng.uniform(-2, 2) for _ in range(9)] for _ in range(2)]
    ys = [rng.choice([0.0, 1.0]) for _ in range(9)]
    yield lambda o: ag.jit(ag.value_and_grad(mlp_step), options=o)(params, xs, ys)
    for act in ACTIVATIONS.values():

        def loss(
            params: list[list[list[Scalar]]],
            x: list[Scalar],
            y: Scalar,
            act: Callable[[Scalar], Scalar] = act,
        ) -> Scalar:
            h: list[Scalar] = list(x)
            for layer in params:
                h = [act(n[-1] + ag.dot(n[:-1], h)) for n in layer]
            return (h[0] - y) ** 2

        def step(
            params: list[list[list[Scalar]]],
            xs: list[list[float]],
            ys: list[float],
            loss: Callable[[list[list[list[Scalar]]], list[Scalar], Scalar], Scalar] = loss,
        ) -> Scalar:
            return ag.mean(ag.vmap(loss, in_axes=(None, 0, 0))(params, xs, ys))

        yield lambda o, step=step: ag.jit(ag.value_and_grad(step), options=o)(params, xs, ys)  # type: ignore[misc]  # a default binds the loop's step


def _choices() -> Iterator[Run]:
    """Selects on arrays and on one number, conjunctions, helper calls on parameters."""

    def pow_twice(x: Scalar, c: Scalar) -> Scalar:
        return x**c

    def mixed(p: Scalar, x: Scalar) -> Scalar:
        # p is one number for the batch: its helper calls run the float helper (fixed names)
        power: Scalar = ag.maximum(x, p) ** p
        chosen: Scalar = ag.where(ag.lt(p, 0.5), ag.exp(p) * x, ag.tanh(p))
        total: Scalar = chosen + power
        return total

    def batch_mean(p: Scalar) -> Scalar:
        mean: Scalar = ag.mean(ag.vmap(lambda x: mixed(p, x))([0.5, -1.0, 2.0, 0.0]))
        return mean

    twice = ag.vmap(ag.grad(ag.grad(pow_twice)))
    yield lambda o: ag.jit(twice, options=o)([0.0, 0.0, 2.0], [2.0, 3.0, 0.5])
    on_one = ag.vmap(ag.grad(ag.grad(pow_twice)), in_axes=(0, None))
    yield lambda o: ag.jit(on_one, options=o)([0.0, 2.0], 2.5)
    yield lambda o: ag.jit(ag.vmap(ag.grad(mixed), in_axes=(None, 0)), options=o)(0.3, [0.5, -1.0])
    yield lambda o: ag.jit(ag.value_and_grad(batch_mean), options=o)(0.3)
    yield lambda o: ag.jit(ag.value_and_grad(batch_mean), options=o)(0.7)


WORKLOADS = [*_mlps(), *_choices()]


@pytest.mark.parametrize("options", OPTIONS.values(), ids=list(OPTIONS))
@pytest.mark.parametrize("run", WORKLOADS)
def test_the_writer_marks_what_parsing_finds(seen: Seen, run: Run, options: Options) -> None:
    run(options)
    assert seen, "a batched program was written"
    for batched, marked, wrong in seen:
        assert batched
        assert not wrong, wrong
        assert marked, "some statements surely give arrays"


def test_a_wrong_select_rule_is_caught(seen: Seen, monkeypatch: pytest.MonkeyPatch) -> None:
    """A select on one number said to give an array when its first branch is one."""
    monkeypatch.setattr(sym, "selects_array", lambda c, a, b: c or a)
    for run in WORKLOADS:
        run(OPTIONS["as-built"])
    assert any(wrong for _, _, wrong in seen)
