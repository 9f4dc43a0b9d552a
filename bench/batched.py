"""The batched workloads W6 and W7: a loss written for one example, mapped with `vmap`.

Issue 13's benchmarks. Each engine's setup returns a zero-argument step and a
function turning the step's output into ``(value, [numbers...])``; that
conversion runs once, to check the engine against the first one before any
timing, and is never timed (W7's outputs hold millions of numbers).

- W6: the moons step of W2 (MLP 2-16-16-1, max-margin loss, 1e-4 L2, the
  same data) with the data loss written for one example and mapped with
  ``vmap`` inside ``jit(value_and_grad(...))``, against the same step
  hand-written with batched NumPy (matrix products), our per-example ``jit``
  (W2's code: the loop over examples inside the traced function), micrograd
  and torch eager.
- W7: per-example gradients of the same loss:
  ``jit(vmap(grad(loss), in_axes=(None, 0, 0)))`` on list columns and on
  NumPy array columns, against a Python loop over ``jit(grad(loss))``.

Without NumPy both rows say "not run: needs NumPy" (``vmap`` then loops,
which W2 and the loop column already time).
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable, Sequence

import workloads as w
from moons import Params, flat, init_params, make_moons

import autograd as ag

HAVE_NUMPY = importlib.util.find_spec("numpy") is not None
Output = object  # what a step returns, as its engine gives it
Setup = Callable[[], tuple[Callable[[], Output], Callable[[Output], w.Result]]]
Cell = float | str

W6_ENGINES = ("batched", "batched arrays", "numpy", "jit per example", "micrograd", "torch")
W7_ENGINES = ("vmap lists", "vmap arrays", "loop of jit(grad)")

PER_EXAMPLE_JIT_MAX = 1_000
"""Points beyond which W2's per-example ``jit`` is not run: its first call traces and
compiles every example's statements (3.9 s at 100 points), over a minute at 10,000."""
EAGER_MAX = 1_000
"""Points beyond which micrograd and torch eager are not run: about 1 s a step at 100
points (bench/README.md, W2), so well over 30 s at 10,000."""


def example_loss(params: Params, x: Sequence[ag.Scalar], y: ag.Scalar) -> ag.Scalar:
    """W2's max-margin loss of one example (no regularisation)."""
    h: Sequence[ag.Scalar] = x
    for i, layer in enumerate(params):
        z = [neuron[-1] + ag.dot(neuron[:-1], h) for neuron in layer]
        h = z if i == len(params) - 1 else [ag.relu(v) for v in z]
    return ag.relu(1.0 - y * h[0])


def batch_step(params: Params, xs: Sequence[Sequence[float]], ys: Sequence[float]) -> ag.Scalar:
    """W2's loss, written per example: the batch mean of `example_loss`, plus weight decay.

    ``xs`` is the batch layout: one column per feature (``xs[j][i]`` is feature
    ``j`` of example ``i``).
    """
    data = ag.mean(ag.vmap(example_loss, in_axes=(None, 0, 0))(params, xs, ys))
    return data + w.ALPHA * ag.sum([p * p for layer in params for neuron in layer for p in neuron])


def columns(xs: list[list[float]]) -> list[list[float]]:
    """Rows of examples to the batch layout: one list per feature."""
    return [list(c) for c in zip(*xs, strict=True)]


def _flat_result(out: Output) -> w.Result:
    value, g = out  # type: ignore[misc]
    return value, flat(g)


# ---- W6 ----


def w6_batched(params: Params, xs: list[list[float]], ys: list[float]) -> Setup:
    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        vg = ag.jit(ag.value_and_grad(batch_step))
        cols = columns(xs)
        return (lambda: vg(params, cols, ys)), _flat_result

    return setup


def w6_batched_arrays(params: Params, xs: list[list[float]], ys: list[float]) -> Setup:
    """`w6_batched` with the columns passed as NumPy arrays: no per-example work per call."""

    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        import numpy as np

        vg = ag.jit(ag.value_and_grad(batch_step))
        cols = [np.array(c) for c in columns(xs)]
        y = np.array(ys)
        return (lambda: vg(params, cols, y)), _flat_result  # type: ignore[arg-type]  # arrays

    return setup


def w6_numpy(params: Params, xs: list[list[float]], ys: list[float]) -> Setup:
    """The step by hand with NumPy: matrix products forward and backward, parameters as arrays."""

    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        import numpy as np

        x = np.array(xs)
        y = np.array(ys)
        ws = [np.array([n[:-1] for n in layer]) for layer in params]
        bs = [np.array([n[-1] for n in layer]) for layer in params]
        scale = 1.0 / len(ys)

        def step() -> Output:
            z1 = x @ ws[0].T + bs[0]
            h1 = np.maximum(z1, 0.0)
            z2 = h1 @ ws[1].T + bs[1]
            h2 = np.maximum(z2, 0.0)
            margin = 1.0 - y * (h2 @ ws[2][0] + bs[2][0])
            reg = sum(float(np.dot(a.ravel(), a.ravel())) for a in (*ws, *bs))
            value = float(np.maximum(margin, 0.0).sum()) * scale + w.ALPHA * reg
            ds = np.where(margin > 0.0, -y * scale, 0.0)
            dz2 = np.outer(ds, ws[2][0]) * (z2 > 0.0)
            dz1 = (dz2 @ ws[1]) * (z1 > 0.0)
            grads = [(dz1.T @ x, dz1.sum(0)), (dz2.T @ h1, dz2.sum(0)), (ds @ h2, ds.sum())]
            return value, [
                np.column_stack([gw.reshape(len(b), -1), np.reshape(gb, -1)])
                + 2.0 * w.ALPHA * np.column_stack([wl, b])
                for (gw, gb), wl, b in zip(grads, ws, bs, strict=True)
            ]

        def result(out: Output) -> w.Result:
            value, layers = out  # type: ignore[misc]
            return value, [float(v) for layer in layers for v in layer.ravel()]

        return step, result

    return setup


def _from_workloads(make: Callable[..., w.Step], *args: object) -> Setup:
    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        return make(*args), lambda out: out  # type: ignore[return-value]

    return setup


def w6_row(npts: int) -> dict[str, Setup]:
    xs, ys = make_moons(npts)
    params = init_params()
    row: dict[str, Setup] = {
        "batched": w6_batched(params, xs, ys),
        "batched arrays": w6_batched_arrays(params, xs, ys),
        "numpy": w6_numpy(params, xs, ys),
    }
    row["jit per example"] = (
        _from_workloads(w.w2_jit, params, xs, ys)
        if npts <= PER_EXAMPLE_JIT_MAX
        else _not_run("not run: first call over a minute")
    )
    for engine, make in (("micrograd", w.w2_micrograd), ("torch", w.w2_torch)):
        row[engine] = (
            _from_workloads(make, params, xs, ys)
            if npts <= EAGER_MAX
            else _not_run("not run: over 30 s a step")
        )
    return row


def _not_run(why: str) -> Setup:
    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        raise w.Skip(why)

    return setup


# ---- W7 ----


def _per_example(n: int) -> tuple[Params, list[list[float]], list[float]]:
    xs, ys = make_moons(n)
    return init_params(), xs, ys


def _columns_result(out: Output) -> w.Result:
    """A per-example gradient in the batch layout: per parameter, its column of examples."""
    return 0.0, [float(v) for column in flat(out) for v in column]  # type: ignore[arg-type]


def w7_lists(n: int) -> Setup:
    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        params, xs, ys = _per_example(n)
        per_example = ag.jit(ag.vmap(ag.grad(example_loss), in_axes=(None, 0, 0)))
        cols = columns(xs)
        return (lambda: per_example(params, cols, ys)), _columns_result

    return setup


def w7_arrays(n: int) -> Setup:
    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        import numpy as np

        params, xs, ys = _per_example(n)
        per_example = ag.jit(ag.vmap(ag.grad(example_loss), in_axes=(None, 0, 0)))
        cols = [np.array(c) for c in columns(xs)]
        y = np.array(ys)
        return (lambda: per_example(params, cols, y)), _columns_result

    return setup


def w7_loop(n: int) -> Setup:
    def setup() -> tuple[Callable[[], Output], Callable[[Output], w.Result]]:
        params, xs, ys = _per_example(n)
        g = ag.jit(ag.grad(example_loss))

        def step() -> Output:
            return [g(params, x, y) for x, y in zip(xs, ys, strict=True)]

        def result(out: Output) -> w.Result:
            per_example = [flat(gi) for gi in out]  # type: ignore[attr-defined]
            return 0.0, [gi[k] for k in range(len(per_example[0])) for gi in per_example]

        return step, result

    return setup


# ---- running and reporting ----


def prepare(
    name: str, setups: dict[str, Setup], check: Callable[[str, str, w.Result, w.Result], None]
) -> tuple[dict[str, Callable[[], Output]], dict[str, Cell]]:
    """Build each step, time its first call, check its result against the first engine's."""
    steps: dict[str, Callable[[], Output]] = {}
    notes: dict[str, Cell] = {}
    reference: w.Result | None = None
    for engine, setup in setups.items():
        try:
            step, result = setup()
            t0 = time.perf_counter()
            out = step()
            notes[f"{engine} first call"] = time.perf_counter() - t0
        except w.Skip as e:
            notes[engine] = str(e)
            continue
        got = result(out)
        if reference is None:
            reference = got
        check(name, engine, got, reference)
        steps[engine] = step
    return steps, notes


def rows(quick: bool) -> list[tuple[str, dict[str, Setup], int]]:
    """(name, {engine: setup}, repetitions) for W6 and W7."""
    out = []
    for npts in (10, 30) if quick else (100, 10_000):
        reps = 3 if quick else (11 if npts <= 100 else 5)
        out.append((f"W6 moons step, vmap ({npts:,} points)", w6_row(npts), reps))
    n7 = 100 if quick else 10_000
    w7 = {
        "vmap lists": w7_lists(n7),
        "vmap arrays": w7_arrays(n7),
        "loop of jit(grad)": w7_loop(n7),
    }
    out.append((f"W7 per-example gradients ({n7:,} examples)", w7, 3 if quick else 5))
    return out


def report(
    quick: bool,
    check: Callable[[str, str, w.Result, w.Result], None],
    time_interleaved: Callable[[dict[str, Callable[[], Output]], int], dict[str, float]],
    fmt: Callable[[Cell | None], str],
    ratio: Callable[[Cell | None, Cell | None], str],
    keep: Callable[[str], bool] = lambda name: True,
) -> None:
    """Print the W6 and W7 tables (bench/run.py passes its checking, timing and formatting)."""
    wanted = [(name, setups, reps) for name, setups, reps in rows(quick) if keep(name)]
    tables = {
        "W6": (
            [
                *W6_ENGINES,
                "batched/numpy",
                "batched arrays/numpy",
                "batched/jit per example",
                "batched first call",
            ],
            lambda m: [
                ratio(m.get("batched"), m.get("numpy")),
                ratio(m.get("batched arrays"), m.get("numpy")),
                ratio(m.get("batched"), m.get("jit per example")),
                fmt(m.get("batched first call")),
            ],
            W6_ENGINES,
        ),
        "W7": (
            [*W7_ENGINES, "loop/lists", "loop/arrays", "first call (lists)"],
            lambda m: [
                ratio(m.get("loop of jit(grad)"), m.get("vmap lists")),
                ratio(m.get("loop of jit(grad)"), m.get("vmap arrays")),
                fmt(m.get("vmap lists first call")),
            ],
            W7_ENGINES,
        ),
    }
    for key, (header, extra, engines) in tables.items():
        mine = [r for r in wanted if r[0].startswith(key + " ")]
        if not mine:
            continue
        print("\n| " + " | ".join(["workload", *header]) + " |")
        print("|" + "---|" * (len(header) + 1))
        for name, setups, reps in mine:
            if not HAVE_NUMPY:
                cells = ["not run: needs NumPy"] * len(header)
            else:
                steps, notes = prepare(name, setups, check)
                medians: dict[str, Cell] = {**notes, **time_interleaved(steps, reps)}
                cells = [fmt(medians.get(e)) for e in engines] + extra(medians)
            print(f"| {name} (median of {reps}) | " + " | ".join(cells) + " |", flush=True)
