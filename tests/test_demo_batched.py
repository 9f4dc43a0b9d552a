"""`autograd demo` trains with the one-example loss under `jit(vmap)`, as the eager batch does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest

import autograd as ag
from autograd import demo, nn
from autograd.pytree import flatten_any

needs_numpy = pytest.mark.skipif(not demo.BATCHED, reason="the batched step needs NumPy")


def _batch(n: int) -> tuple[nn.MLP, list[list[float]], list[float]]:
    data = nn.make_moons(n, 0.1, 3)
    return nn.init_mlp(demo.SIZES, 3), [list(x) for x in data.xs], list(data.ys)


@needs_numpy
def test_the_batched_step_is_the_eager_hinge_step() -> None:
    params, xs, ys = _batch(40)
    columns = [list(c) for c in zip(*xs, strict=True)]
    value, g = ag.jit(ag.value_and_grad(demo.batch_loss))(params, columns, ys)
    want_value, want_g = ag.value_and_grad(lambda p: nn.hinge([nn.mlp(p, x)[0] for x in xs], ys))(
        params
    )
    assert value == want_value  # relu, dot, mean: correctly rounded, same order
    got_leaves, want_leaves = flatten_any(g)[0], flatten_any(want_g)[0]
    assert len(got_leaves) == len(want_leaves) == 337
    assert any(w != 0.0 for w in want_leaves)
    scale = max(abs(float(cast(float, w))) for w in want_leaves)
    for got, want in zip(got_leaves, want_leaves, strict=True):
        # the batch sum's order: last bits, relative to the terms (some sums cancel to ~1e-19)
        assert got == pytest.approx(want, rel=1e-13, abs=1e-15 * scale)


def test_training_with_and_without_numpy_follows_the_same_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = demo.DemoConfig(steps=4, points=30, batch_size=10)
    data = nn.make_moons(config.points, config.noise, config.seed)
    batched = demo.train(config, data)
    monkeypatch.setattr(demo, "BATCHED", False)
    looped = demo.train(config, data)
    # Adam divides by the gradient's root mean square, so a weight whose gradient cancels
    # to rounding noise (1e-19 one way, 0.0 the other) moves differently: close, not equal
    assert batched.losses == pytest.approx(looped.losses, rel=1e-8)
    assert batched.accuracies == looped.accuracies


def test_demo_without_numpy_trains(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['numpy'] = sys.modules['matplotlib'] = None; "
        "sys.modules['tqdm'] = None; "
        "from autograd import demo; assert not demo.BATCHED; "
        "from autograd.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "demo", "--steps", "3", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "step 3/3: loss" in done.stdout
