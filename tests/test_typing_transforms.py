"""The typing tests of the transforms run under mypy --strict as part of pytest.

tests/typing/transforms_*.py hold `assert_type` checks and must-fail lines
(`# type: ignore[code]`); under `--strict` an ignore that is no longer needed
is itself an error, so misuse that became accepted fails here too.
"""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_transform_typing_tests_pass_mypy_strict() -> None:
    files = sorted(str(p) for p in (ROOT / "tests" / "typing").glob("transforms_*.py"))
    assert len(files) >= 3
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "mypy.ini"), *files])
    assert status == 0, stdout + stderr
