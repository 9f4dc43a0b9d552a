"""W6's batched step timed alone, in a fresh process: what a user's training script sees.

`bench/run.py` times W6 after other engines and workloads have grown the
process's heap, which hides what a fresh process pays when the C allocator
returns a step's temporaries to the system and takes them back (page faults)
every step. This script imports nothing but the step and NumPy.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/w6_alone.py [points ...]

Prints, per batch size, the median and minimum of 15 steps (after the first
call) and the peak of Python-traced memory during one step.
"""

from __future__ import annotations

import statistics
import sys
import time
import tracemalloc

import batched


def main(sizes: list[int]) -> None:
    for n in sizes:
        step, _ = batched.w6_row(n)["batched arrays"]()
        step()  # the trace and compile
        times = []
        for _ in range(15):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
        tracemalloc.start()
        step()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"W6 batched arrays, {n:,} points: median {statistics.median(times) * 1e3:.2f} ms, "
            f"min {min(times) * 1e3:.2f} ms, peak traced memory {peak / 1e6:.1f} MB"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 10_000])
