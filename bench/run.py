"""Benchmark this engine against micrograd, PyTorch eager and hand-written floats.

Run from the repository root::

    .venv/bin/python bench/run.py            # the full table (minutes)
    .venv/bin/python bench/run.py --quick    # small sizes, a smoke test (seconds)
    .venv/bin/python bench/run.py --only W1,W3   # some workloads only

Every engine's result is checked against this engine's eager result before any
timing. Engines are timed interleaved (one run of each in turn, repeated), and
the table reports medians and ratios. Engines that are not installed, or that
fail (micrograd's recursive backward on deep graphs), are reported, not fatal.
"""

from __future__ import annotations

import argparse
import functools
import gc
import math
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import batched
import workloads as w
from moons import init_params, make_moons

ENGINES = ("ours", "jit", "micrograd", "torch", "floor")
Cell = float | str  # a median in seconds, or why there is none


def check(name: str, engine: str, got: w.Result, want: w.Result, rtol: float = 1e-9) -> None:
    """Results must agree before timing means anything (summation orders differ a little)."""
    (v, gs), (v0, gs0) = got, want
    ok = len(gs) == len(gs0) and all(
        math.isclose(a, b, rel_tol=rtol, abs_tol=1e-12)
        for a, b in zip([v, *gs], [v0, *gs0], strict=False)
    )
    if not ok:
        raise AssertionError(f"{name}: {engine} disagrees with ours: {v} vs {v0}")


def prepare(
    name: str, setups: dict[str, Callable[[], w.Step]]
) -> tuple[dict[str, w.Step], dict[str, Cell]]:
    """Build each engine's step, run it once and check it against ours."""
    steps: dict[str, w.Step] = {}
    notes: dict[str, Cell] = {}
    reference: w.Result | None = None
    for engine, setup in setups.items():
        try:
            step = setup()
            t0, c0 = time.perf_counter(), time.process_time()
            result = step()
            first = time.perf_counter() - t0
            first_cpu = time.process_time() - c0
        except w.Skip as e:
            notes[engine] = str(e)
            continue
        except RecursionError:
            notes[engine] = "RecursionError"
            continue
        if engine == "jit":
            notes["jit first call"] = f"{fmt(first)} ({fmt(first_cpu)} CPU)"
        if reference is None:
            reference = result
        check(name, engine, result, reference)
        steps[engine] = step
    return steps, notes


def time_interleaved(steps: dict[str, w.Step], reps: int, loops: int = 1) -> dict[str, float]:
    """Median seconds per step; engines take turns, so load on the machine hits all alike.

    A turn runs the step ``loops`` times in a row and counts the mean: one
    call (``loops=1``) starts with caches cold from the other engines, as a
    call between other work does; a loop of calls is a training loop's cost.
    Collections that a step's allocations trigger count in its time. Garbage a
    step leaves in reference cycles (micrograd's closures) is collected after
    each turn, untimed, so that it is not charged to the next engine.
    """
    times: dict[str, list[float]] = {e: [] for e in steps}
    gc.collect()
    gc.freeze()  # what exists now is never garbage: collections stay cheap
    calls = range(loops)
    try:
        for _ in range(reps):
            for engine, step in steps.items():
                t0 = time.perf_counter()
                for _ in calls:
                    step()
                times[engine].append((time.perf_counter() - t0) / loops)
                gc.collect()
    finally:
        gc.unfreeze()
    return {e: statistics.median(ts) for e, ts in times.items()}


def bytes_per_node(build: Callable[[], object], count: Callable[[object], int]) -> float:
    """Bytes allocated while ``build()`` makes a graph, over its ``count(graph)`` nodes."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    graph = build()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    nodes = count(graph)
    del graph
    return used / nodes


def memory_row(steps: int) -> dict[str, Cell]:
    """Bytes per node while a chain of ``steps`` steps is alive.

    A step is 0.9, a product, 0.1, a sum and a tanh: five nodes in micrograd,
    three in ours, whose operators share one node for each constant value.
    """
    import autograd as ag
    from autograd.walks import toposort

    def count(graph: object) -> int:
        return len(toposort(graph))  # type: ignore[arg-type]  # the chain's last node

    row: dict[str, Cell] = {"ours": bytes_per_node(lambda: w.chain(ag.Leaf(0.5), steps), count)}
    try:
        value = w._micrograd().Value  # type: ignore[attr-defined]
    except w.Skip as e:
        row["micrograd"] = str(e)
        return row

    def build_micrograd() -> object:
        x = value(0.5)
        for _ in range(steps):
            x = w._micrograd_tanh(0.9 * x + 0.1)
        return x

    row["micrograd"] = bytes_per_node(build_micrograd, lambda _: 5 * steps)
    return row


def workloads(quick: bool) -> list[tuple[str, dict[str, Callable[[], w.Step]], int, int]]:
    """(name, {engine: setup}, turns, calls a turn) for every row of the table."""
    npts = 10 if quick else 100
    xs, ys = make_moons(npts)
    params = init_params()

    def row(
        workload: str, *args: object, skip: tuple[str, ...] = ()
    ) -> dict[str, Callable[[], w.Step]]:
        return {
            e: functools.partial(getattr(w, f"{workload}_{e}"), *args)
            for e in ENGINES
            if e not in skip
        }

    loop = 10 if quick else 1_000  # calls a turn for the rows "in a loop"
    rows = [
        ("W1 seed loss", row("w1"), 11 if quick else 201, 1),
        ("W1 seed loss, in a loop", row("w1"), 5 if quick else 21, loop),
        (f"W2 moons MLP step ({npts} points)", row("w2", params, xs, ys), 3 if quick else 11, 1),
    ]
    for n in (100, 1_000) if quick else (1_000, 10_000, 100_000, 1_000_000):
        # torch eager takes minutes at 1e6 (jit's first call takes about one: see the table)
        skip = ("torch",) if n > 100_000 else ()
        reps = 3 if quick else (11 if n <= 10_000 else 5 if n <= 100_000 else 3)
        rows.append((f"W3 tanh chain N={n:,}", row("w3", n, skip=skip), reps, 1))
    n4 = 1_000 if quick else 100_000
    rows.append((f"W4 wide sum N={n4:,}", row("w4", n4), 3 if quick else 7, 1))
    rows.append(("W5 second derivative", row("w5"), 11 if quick else 201, 1))
    rows.append(("W5 second derivative, in a loop", row("w5"), 5 if quick else 21, loop))
    return rows


def fmt(cell: Cell | None) -> str:
    if cell is None:
        return "not run"
    if isinstance(cell, str):
        return cell
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if cell >= scale:
            return f"{cell / scale:.3g} {unit}"
    return f"{cell * 1e9:.3g} ns"


def ratio(a: Cell | None, b: Cell | None) -> str:
    return f"{a / b:.3g}" if isinstance(a, float) and isinstance(b, float) else "-"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="small sizes and few repetitions (a smoke test)"
    )
    parser.add_argument(
        "--only",
        default="",
        metavar="W1,W3",
        help="run only these workloads (comma-separated names such as W1, W3), and no memory row "
        "unless W3 is one of them",
    )
    args = parser.parse_args()
    only = {name.strip().upper() for name in args.only.split(",") if name.strip()}
    flags = (" --quick" if args.quick else "") + (f" --only {args.only}" if only else "")
    print(
        f"python {platform.python_version()} on {platform.machine()}; "
        f"command: .venv/bin/python bench/run.py{flags}\n"
    )
    header = ["workload", *ENGINES, "ours/micrograd", "ours/torch", "jit/floor", "jit first call"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, setups, reps, loops in workloads(args.quick):
        if only and name.split()[0] not in only:
            continue
        steps, notes = prepare(name, setups)
        medians: dict[str, Cell] = {**notes, **time_interleaved(steps, reps, loops)}
        cells = [fmt(medians.get(e)) for e in ENGINES]
        cells += [
            ratio(medians.get("ours"), medians.get("micrograd")),
            ratio(medians.get("ours"), medians.get("torch")),
            ratio(medians.get("jit"), medians.get("floor")),
            fmt(medians.get("jit first call")),
        ]
        times = f"median of {reps}" + (f" turns of {loops:,} calls" if loops > 1 else "")
        print(f"| {name} ({times}) | " + " | ".join(cells) + " |", flush=True)
    if not only or "W3" in only:
        chain_steps = 2_000 if args.quick else 20_000
        mem = memory_row(chain_steps)
        print(
            f"\nbytes per node while a {chain_steps:,}-step chain is alive (tracemalloc): "
            f"ours {fmt_bytes(mem.get('ours'))}, micrograd {fmt_bytes(mem.get('micrograd'))}, "
            f"ratio {ratio(mem.get('ours'), mem.get('micrograd'))}"
        )

    def keep(name: str) -> bool:
        return not only or name.split()[0] in only

    batched.report(args.quick, check, time_interleaved, fmt, ratio, keep)  # W6, W7: own columns


def fmt_bytes(cell: Cell | None) -> str:
    return f"{cell:.0f} B" if isinstance(cell, float) else str(cell)


if __name__ == "__main__":
    main()
