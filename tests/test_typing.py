"""mypy --strict over the package, the tests (tests/typing included) and the examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_passes_on_package_tests_typing_tests_and_examples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)  # mypy.ini's `files` are relative to the repository root
    stdout, stderr, status = api.run(["--config-file", "mypy.ini"])
    assert status == 0, f"mypy failed:\n{stdout}{stderr}"
    assert "tests/typing" not in stdout  # checked, and clean


def test_mypy_ini_checks_the_typing_tests() -> None:
    files = next(
        line.split("=", 1)[1]
        for line in (ROOT / "mypy.ini").read_text().splitlines()
        if line.replace(" ", "").startswith("files=")
    )
    checked = {f.strip().rstrip("/") for f in files.split(",")}
    assert {"autograd", "examples"} <= checked
    assert "tests" in checked or "tests/typing" in checked
    assert list((ROOT / "tests" / "typing").glob("check_*.py"))
