"""The demo's pictures, drawn with matplotlib off-screen (Agg); needs the ``demo`` extra.

Importing this module raises `ImportError` when matplotlib is not installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from autograd import nn

GRID = 60  # grid points per side for the decision boundary: 3,600 float forward passes


def plot_boundary(params: nn.MLP, data: nn.Dataset, path: Path) -> Path:
    """The points, coloured by label, over the sign of the network's score."""
    xs = [p[0] for p in data.xs]
    ys = [p[1] for p in data.xs]
    x0, x1 = min(xs) - 0.5, max(xs) + 0.5
    y0, y1 = min(ys) - 0.5, max(ys) + 0.5
    gx = [x0 + (x1 - x0) * i / (GRID - 1) for i in range(GRID)]
    gy = [y0 + (y1 - y0) * j / (GRID - 1) for j in range(GRID)]
    scores = [[_score(params, (x, y)) for x in gx] for y in gy]
    fig = Figure(figsize=(6, 5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.contourf(gx, gy, scores, levels=[-1e300, 0.0, 1e300], colors=["#f4c7c3", "#c6dafc"])
    ax.contour(gx, gy, scores, levels=[0.0], colors=["#444444"], linewidths=1.0)
    for label, colour in ((-1.0, "#d93025"), (1.0, "#1a73e8")):
        pts = [p for p, y in zip(data.xs, data.ys, strict=True) if y == label]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=18, c=colour, label=f"{label:+.0f}")
    ax.set_title("two moons: decision boundary of the trained MLP")
    ax.legend(loc="upper right")
    fig.savefig(path)
    return path


def plot_history(losses: Sequence[float], accuracies: Sequence[float], path: Path) -> Path:
    """Loss and training accuracy after every step."""
    steps = range(1, len(losses) + 1)
    fig = Figure(figsize=(6, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    (loss_line,) = ax.plot(steps, losses, color="#d93025", label="hinge loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss (all points)")
    acc = ax.twinx()
    (acc_line,) = acc.plot(
        steps, [100 * a for a in accuracies], color="#1a73e8", label="training accuracy"
    )
    acc.set_ylabel("training accuracy (%)")
    acc.set_ylim(0, 105)
    ax.set_title("training on two moons")
    acc.legend(handles=[loss_line, acc_line], loc="center right")
    fig.tight_layout()
    fig.savefig(path)
    return path


def _score(params: nn.MLP, x: tuple[float, float]) -> float:
    s = nn.mlp(params, x)[0]
    assert isinstance(s, float), "float parameters give float scores"
    return s
