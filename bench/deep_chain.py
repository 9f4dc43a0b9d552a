"""Deep-chain figures: time and memory of a 1,000,000-node graph at the default recursion limit.

Run: ``python bench/deep_chain.py`` (about 20 s). CPU times, one run each.
"""

import resource
import sys
import time

import autograd as ag

N = 1_000_000


def chain(x: ag.Scalar) -> ag.Scalar:
    """``x + 1.0`` repeated: two nodes a step (the sum and its constant)."""
    for _ in range(N):
        x = x + 1.0
    return x


def main() -> None:
    """Print build, sweep and drop times and the peak resident memory."""
    print(f"recursion limit {sys.getrecursionlimit()}")
    start = time.process_time()
    value, slope = ag.value_and_grad(chain)(0.0)
    seconds = time.process_time() - start
    print(f"value_and_grad, {2 * N:,} nodes: {seconds:.2f} s (value {value}, slope {slope})")
    y: ag.Node = ag.Leaf(0.0)
    start = time.process_time()
    for _ in range(N):
        y = ag.tanh(y)
    print(f"build a {N:,}-node tanh chain: {time.process_time() - start:.2f} s; repr {y!r}")
    start = time.process_time()
    grads = ag.gradients(y)
    print(f"gradients() over it: {time.process_time() - start:.2f} s ({len(grads):,} entries)")
    del grads
    start = time.process_time()
    del y
    print(f"drop it: {time.process_time() - start:.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
