"""``autograd demo``: train a small MLP on two moons, show progress, plot the result.

Training needs nothing beyond the package. With NumPy (the ``numpy`` extra,
which the ``demo`` extra pulls in through matplotlib) the loss is written for
one example and mapped over the batch with `vmap` under `jit`, so each step
runs as one batched program; without it, the batch's loss is a list of scores
and `value_and_grad` runs eagerly. The progress bar (tqdm) and the plots
(matplotlib, drawn off-screen with the Agg backend) come from the ``demo``
extra; without it the demo prints progress as text and says so.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TextIO, cast

import attrs

from autograd import nn
from autograd.compiler.jit import jit
from autograd.core.functions import mean, relu
from autograd.core.nodes import Scalar
from autograd.transforms.grad import value_and_grad
from autograd.transforms.vmap import vmap

EXTRA_HINT = "pip install 'typed-autograd[demo]'"
BATCHED = importlib.util.find_spec("numpy") is not None
"""Whether training steps run as one batched program (NumPy installed)."""
SIZES = (2, 16, 16, 1)


@attrs.frozen
class DemoConfig:
    """What to train: the command line's options."""

    steps: int = 200
    seed: int = 0
    points: int = 100
    noise: float = 0.1
    batch_size: int = 20
    learning_rate: float = 0.1


@attrs.frozen
class History:
    """The result of training: final parameters, and loss and accuracy after every step."""

    params: nn.MLP
    losses: tuple[float, ...]
    accuracies: tuple[float, ...]
    seconds: float


class _Bar(Protocol):
    """The part of ``tqdm.tqdm`` the demo uses."""

    def update(self, n: int = 1) -> object: ...
    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None: ...
    def close(self) -> None: ...


def evaluate_all(params: nn.MLP, data: nn.Dataset) -> tuple[float, float]:
    """The hinge loss and accuracy (0 to 1) over the whole data set, on plain floats."""
    scores = [_float(nn.mlp(params, x)[0]) for x in data.xs]
    right = sum(1 for s, y in zip(scores, data.ys, strict=True) if (s > 0.0) == (y > 0.0))
    return _float(nn.hinge(scores, data.ys)), right / len(data.ys)


def _float(x: Scalar) -> float:
    assert isinstance(x, float), "float parameters give float scores"
    return x


def example_loss(params: nn.MLP, x: Sequence[Scalar], y: Scalar) -> Scalar:
    """The hinge loss of one example: `nn.hinge` of a batch is the mean of these."""
    return relu(1.0 - y * nn.mlp(params, x)[0])


def batch_loss(params: nn.MLP, xs: Sequence[Sequence[float]], ys: Sequence[float]) -> Scalar:
    """The mean of `example_loss` over a batch; ``xs`` holds one column per feature."""
    return mean(vmap(example_loss, in_axes=(None, 0, 0))(params, xs, ys))


Gradient = Callable[[nn.MLP, list[list[float]], list[float]], tuple[Scalar, nn.MLP]]


def train(config: DemoConfig, data: nn.Dataset, on_step: _Bar | None = None) -> History:
    """Adam on the hinge loss over batches taken in turn from the (shuffled) data."""
    batched: Gradient = jit(value_and_grad(batch_loss))  # traced on the first step only
    params = nn.init_mlp(SIZES, config.seed)
    opt = nn.adam(_decay(config.learning_rate, config.steps))
    state = opt.init(params)
    losses: list[float] = []
    accuracies: list[float] = []
    n, b = len(data.xs), config.batch_size
    start = time.perf_counter()
    for step in range(config.steps):
        batch = [(step * b + i) % n for i in range(b)]
        xs = [data.xs[i] for i in batch]
        ys = [data.ys[i] for i in batch]

        if BATCHED:
            _, grads = batched(params, [list(c) for c in zip(*xs, strict=True)], ys)
        else:

            def loss(p: nn.MLP, xs: Sequence[Sequence[float]] = xs, ys: list[float] = ys) -> Scalar:
                return nn.hinge([nn.mlp(p, x)[0] for x in xs], ys)

            _, grads = value_and_grad(loss)(params)
        updates, state = opt.update(grads, state)
        params = nn.apply_updates(params, updates)
        full_loss, accuracy = evaluate_all(params, data)
        losses.append(full_loss)
        accuracies.append(accuracy)
        if on_step is not None:
            on_step.set_postfix_str(f"loss {full_loss:.4f}, accuracy {accuracy:.0%}", False)
            on_step.update()
    return History(params, tuple(losses), tuple(accuracies), time.perf_counter() - start)


def _decay(rate: float, steps: int) -> nn.Schedule:
    """``rate``, falling linearly to a tenth of it by the last step: it settles the fit."""

    def schedule(count: int) -> float:
        return rate * (1.0 - 0.9 * count / max(1, steps - 1))

    return schedule


class _TextProgress:
    """Progress as a line of text every tenth of the run (when tqdm is not installed)."""

    def __init__(self, total: int, out: TextIO) -> None:
        self.total, self.out, self.done, self.postfix = total, out, 0, ""

    def update(self, n: int = 1) -> object:
        self.done += n
        if self.done == self.total or self.done % max(1, self.total // 10) == 0:
            self.out.write(f"step {self.done}/{self.total}: {self.postfix}\n")
        return None

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def close(self) -> None:
        pass


def _progress(total: int, out: TextIO) -> tuple[_Bar, bool]:
    try:
        tqdm = importlib.import_module("tqdm")
    except ImportError:
        return _TextProgress(total, out), False
    bar = tqdm.tqdm(total=total, desc="training", unit="step", dynamic_ncols=True)
    return cast(_Bar, bar), True


def run_demo(config: DemoConfig, out_dir: str | None, out: TextIO) -> int:
    """Train, print a summary, write the plots to ``out_dir``; return the exit status."""
    data = nn.make_moons(config.points, config.noise, config.seed)
    sizes = "-".join(map(str, SIZES))
    out.write(
        f"training a {sizes} MLP (relu) on {config.points} moons points "
        f"(noise {config.noise}, seed {config.seed}): {config.steps} steps of Adam, "
        f"learning rate {config.learning_rate} decaying to a tenth, "
        f"batches of {config.batch_size}\n"
    )
    bar, fancy = _progress(config.steps, out)
    try:
        history = train(config, data, bar)
    finally:
        bar.close()
    right = round(history.accuracies[-1] * len(data.ys))
    out.write(
        f"done in {history.seconds:.1f} s: loss {history.losses[-1]:.4f}, "
        f"training accuracy {history.accuracies[-1]:.0%} ({right}/{len(data.ys)})\n"
    )
    if out_dir is None:
        out.write("add --out DIR to save a decision-boundary plot and a loss curve\n")
        return 0
    try:
        from autograd.plots import plot_boundary, plot_history  # matplotlib: an optional extra
    except ImportError:
        out.write(f"plots skipped: they need matplotlib ({EXTRA_HINT})\n")
        return 0
    if not fancy:
        out.write(f"(for a progress bar: {EXTRA_HINT})\n")
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written = [
        plot_boundary(history.params, data, folder / "moons_decision_boundary.png"),
        plot_history(history.losses, history.accuracies, folder / "moons_loss.png"),
    ]
    for path in written:
        out.write(f"wrote {path}\n")
    return 0
