"""ruff over the whole repository: its lint rules (pyproject.toml) and its formatting.

ruff is pinned in the ``dev`` extra, so a new release's rules or style cannot
fail a clean tree.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    "args", [("check", "--no-cache", "."), ("format", "--check", "--no-cache", ".")]
)
def test_ruff_passes(args: tuple[str, ...]) -> None:
    done = _ruff(*args)
    assert done.returncode == 0, f"ruff {' '.join(args)} failed:\n{done.stdout}{done.stderr}"


def test_ruff_finds_a_planted_fault(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("import os\nx=1\n")  # an unused import, and unformatted
    checked = _ruff("check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(planted))
    formatted = _ruff("format", "--check", "--no-cache", str(planted))
    assert checked.returncode == 1
    assert "F401" in checked.stdout
    assert formatted.returncode == 1
