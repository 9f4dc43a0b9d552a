"""The seed example: value and gradient of a two-parameter loss, then descent.

Run it with ``python examples/seed.py``.
"""

from collections.abc import Mapping

import autograd as ag
from autograd import Scalar


def loss(params: Mapping[str, Scalar]) -> Scalar:
    """((w1 - 1)**2 + (w2 - 5)**2) / 2: smallest, 0, at (1, 5)."""
    return ((params["w1"] - 1) ** 2 + (params["w2"] - 5) ** 2) * 0.5


def main() -> None:
    """Print the loss and its gradient at (2, 3), then take ten descent steps."""
    params = {"w1": 2.0, "w2": 3.0}
    value, grads = ag.value_and_grad(loss)(params)
    print(f"loss = {value}")
    for name, g in grads.items():
        print(f"d loss / d {name} = {g}")
    for _ in range(10):
        grads = ag.grad(loss)(params)
        params = {k: v - 0.5 * grads[k] for k, v in params.items()}
    print(
        f"after 10 steps of rate 0.5: w1 = {params['w1']:.6f}, w2 = {params['w2']:.6f}, "
        f"loss = {loss(params):.3e}"
    )


if __name__ == "__main__":
    main()
