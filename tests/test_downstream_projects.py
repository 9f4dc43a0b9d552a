"""The downstream projects in tests/downstream run, and give the right answers.

Three are typed in floats (the style docs/typing.md recommends), three in
`Scalar`/`Node` with parameter classes generic in their leaves. All are
type-checked under mypy --strict with the rest of the tests (tests/test_typing.py)
and under pyright strict (tests/test_pyright.py), with `assert_type` on every
gradient, Hessian entry and tangent they read.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

DOWNSTREAM = Path(__file__).resolve().parent / "downstream"


PROJECTS = [
    "downstream_curve_fit",
    "downstream_mlp_trainer",
    "downstream_physics",
    "downstream_scalar_params",
    "downstream_scalar_mlp",
    "downstream_scalar_physics",
]


def test_every_downstream_project_is_run() -> None:
    assert sorted(p.stem for p in DOWNSTREAM.glob("*.py")) == sorted(PROJECTS)


@pytest.mark.parametrize("name", PROJECTS)
def test_downstream_project_runs(name: str) -> None:
    module = runpy.run_path(str(DOWNSTREAM / f"{name}.py"))
    if name == "downstream_curve_fit":
        params, loss = module["fit"]()
        assert loss < 1e-3
        assert abs(params.rate - 0.5) < 0.1
    elif name in ("downstream_mlp_trainer", "downstream_scalar_mlp"):
        assert module["train"]() >= 0.8
    elif name == "downstream_scalar_params":
        p, loss = module["train"]()
        assert loss < 0.5  # one point of six is on the wrong side: no separating line
        assert p.w > 0.0
        assert module["main"]() == loss
    elif name == "downstream_scalar_physics":
        assert module["on_nodes"]() == pytest.approx(2.4)
        assert module["main"]() < 1e-3
    else:
        assert module["main"]() < 1e-3
