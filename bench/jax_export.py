"""W8: the moons step of W6, exported to JAX with `autograd.export.to_jax`, at 1e4 to 1e6 points.

The loss of one example (`batched.example_loss`) and the weight decay are
written once in this engine's terms and exported; the batch objective is
their ``jax.vmap`` mean under ``jax.jit(jax.value_and_grad(...))``, run on one
CPU device and sharded over a mesh of 8 host CPU devices (the batch split
along the mesh, the parameters replicated). Against it: our
``jit(value_and_grad(...))`` of the ``vmap``ped loss on NumPy array columns
(W6's "batched arrays") and W6's hand-written NumPy step. Every step's
value and gradient are checked against the first's before any timing; the
first call (JAX: export, trace and XLA compile; ours: trace and compile) is
reported apart. Run from the repository root::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/jax_export.py [points ...]

(defaults: 10,000, 100,000 and 1,000,000 points). Needs the ``jax`` extra and NumPy.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import batched
import jax
import jax.numpy as jnp
import numpy as np
import run
import workloads as w
from jax.sharding import Mesh, NamedSharding, PartitionSpec
from moons import Params, flat, init_params, make_moons

import autograd as ag
from autograd.export import to_arrays, to_jax

HOST_DEVICES = "--xla_force_host_platform_device_count=8"
"""Split the host CPU into 8 devices: XLA reads its flags once, when its CPU backend starts."""

ENGINES = ("jax.jit, 1 device", "jax.jit, 8 devices", "ours jit(vmap)", "numpy by hand")


def weight_decay(params: Params) -> ag.Scalar:
    """W2's regularisation, ``ALPHA * sum(p * p)``, in this engine's terms."""
    return w.ALPHA * ag.sum([p * p for layer in params for neuron in layer for p in neuron])


def w8_jax(params: Params, xs: list[list[float]], ys: list[float], devices: int) -> batched.Setup:
    """The exported step, its data split over ``devices`` host CPU devices."""

    def setup() -> tuple[Callable[[], batched.Output], Callable[[batched.Output], w.Result]]:
        loss, decay = to_jax(batched.example_loss), to_jax(weight_decay)

        def objective(p: object, cols: object, y: object) -> object:
            per_example = jax.vmap(loss, in_axes=(None, 0, 0))(p, cols, y)
            return jnp.mean(per_example) + decay(p)

        step = jax.jit(jax.value_and_grad(objective))
        mesh = Mesh(np.array(jax.devices()[:devices]), ("batch",))
        split, whole = (
            NamedSharding(mesh, PartitionSpec("batch")),
            NamedSharding(mesh, PartitionSpec()),
        )
        cols = [jax.device_put(np.array(c), split) for c in batched.columns(xs)]
        y = jax.device_put(np.array(ys), split)
        p = jax.device_put(to_arrays(params), whole)
        return (lambda: jax.block_until_ready(step(p, cols, y))), _result

    return setup


def _result(out: batched.Output) -> w.Result:
    value, grads = out  # type: ignore[misc]
    return float(value), [float(g) for g in flat(grads)]


def row(npts: int) -> dict[str, batched.Setup]:
    xs, ys = make_moons(npts)
    params = init_params()
    return {
        "jax.jit, 1 device": w8_jax(params, xs, ys, 1),
        "jax.jit, 8 devices": w8_jax(params, xs, ys, 8),
        "ours jit(vmap)": batched.w6_batched_arrays(params, xs, ys),
        "numpy by hand": batched.w6_numpy(params, xs, ys),
    }


def main(sizes: list[int]) -> None:
    print(
        f"python {platform.python_version()}, jax {jax.__version__}, NumPy {np.__version__}, "
        f"{jax.device_count()} host CPU devices, {os.cpu_count()} cores; "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
    )
    firsts = [f"{e} first call" for e in ENGINES[:3]]
    header = ["workload", *ENGINES, "1 device/ours", "1 device/numpy", *firsts]
    print("\n| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for n in sizes:
        reps = 11 if n <= 10_000 else 5 if n <= 100_000 else 3
        name = f"W8 moons step, exported ({n:,} points)"
        steps, notes = batched.prepare(name, row(n), run.check)
        medians: dict[str, run.Cell] = {**notes, **run.time_interleaved(steps, reps)}
        one = medians.get("jax.jit, 1 device")
        cells = [run.fmt(medians.get(e)) for e in ENGINES]
        cells += [
            run.ratio(one, medians.get("ours jit(vmap)")),
            run.ratio(one, medians.get("numpy by hand")),
        ]
        cells += [run.fmt(medians.get(f)) for f in firsts]
        print(f"| {name} (median of {reps}) | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    if HOST_DEVICES not in os.environ.get("XLA_FLAGS", ""):  # before JAX's first call
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {HOST_DEVICES}".strip()
    main([int(a) for a in sys.argv[1:]] or [10_000, 100_000, 1_000_000])
