"""jit against eager where the graph is big and nested: what issue-28's scale items measure.

A chain ``x = tanh(0.9 x + 0.1)`` of N steps, under ``hessian`` and under
``vmap(grad)`` (two examples, looped; eight, one NumPy batch): eager, the jitted
first call (trace and compile) and a later jitted call, each in a fresh process with its peak
resident memory, so one row's heap does not carry into the next.

    python bench/scale.py [steps ...]      (default: 1000 10000)

`jit` should never be much slower or bigger than eager: the ratios
``first/eager`` and ``memory/eager`` are the figures to watch.
"""

from __future__ import annotations

import json
import subprocess
import sys

_RUN = """
import json, resource, sys, time
import autograd as ag

n, kind, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def chain(x):
    for _ in range(n):
        x = ag.tanh(0.9 * x + 0.1)
    return x

transform = ag.hessian(chain) if kind == "hessian" else ag.vmap(ag.grad(chain))
examples = int(kind[len("vmap(grad)"):] or 0)  # "vmap(grad)8": 8 examples
args = (0.3,) if kind == "hessian" else ([0.1 * i - 0.3 for i in range(examples)],)
out = {}
if mode == "eager":
    t = time.perf_counter(); transform(*args); out["eager"] = time.perf_counter() - t
else:
    f = ag.jit(transform)
    t = time.perf_counter(); f(*args); out["first"] = time.perf_counter() - t
    t = time.perf_counter(); f(*args); out["later"] = time.perf_counter() - t
out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def _measure(n: int, kind: str, mode: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(n), kind, mode], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(sizes: list[int]) -> None:
    """Print one table row per workload and size."""
    print(
        "| workload | eager | jit first call | jit later call | first/eager | MB eager | MB jit |"
    )
    print("|---|---|---|---|---|---|---|")
    for kind in ("hessian", "vmap(grad), 2 examples", "vmap(grad), 8 examples"):
        key = kind.split(",")[0] + kind.split(", ")[1].split()[0] if "," in kind else kind
        for n in sizes:
            eager, jitted = _measure(n, key, "eager"), _measure(n, key, "jit")
            print(
                f"| {kind}, {n:,} steps | {eager['eager']:.2f} s | {jitted['first']:.2f} s "
                f"| {jitted['later'] * 1e3:.1f} ms | {jitted['first'] / eager['eager']:.1f} "
                f"| {eager['rss_mb']:.0f} | {jitted['rss_mb']:.0f} |"
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000])
