"""The three downstream projects in tests/downstream run, and give the right answers.

They are also type-checked under mypy --strict with the rest of the tests
(tests/test_typing.py), with `assert_type` on every gradient they read.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

DOWNSTREAM = Path(__file__).resolve().parent / "downstream"


@pytest.mark.parametrize(
    "name", ["downstream_curve_fit", "downstream_mlp_trainer", "downstream_physics"]
)
def test_downstream_project_runs(name: str) -> None:
    module = runpy.run_path(str(DOWNSTREAM / f"{name}.py"))
    if name == "downstream_curve_fit":
        params, loss = module["fit"]()
        assert loss < 1e-3
        assert abs(params.rate - 0.5) < 0.1
    elif name == "downstream_mlp_trainer":
        assert module["train"]() >= 0.8
    else:
        assert module["main"]() < 1e-3
