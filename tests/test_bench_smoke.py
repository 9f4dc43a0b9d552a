"""The benchmark's quick mode runs and checks every engine's results (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "run.py"


def test_bench_quick_mode_runs_and_reports_every_workload() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "ignore", str(BENCH), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| W")]
    assert [r.split(" ")[1] for r in rows] == [
        *["W1", "W1", "W2", "W3", "W3", "W4", "W5", "W5"],  # W1 and W5 once more, in a loop
        *["W6", "W6", "W7"],
    ]
    assert "turns of 10 calls" in rows[1]
    assert "bytes per node" in done.stdout
    assert "disagrees" not in done.stdout + done.stderr


def test_batched_rows_say_they_need_numpy_without_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(BENCH.parent))
    import batched  # type: ignore[import-not-found]  # bench/ is a directory of scripts
    import run  # type: ignore[import-not-found]

    monkeypatch.setattr(batched, "HAVE_NUMPY", False)
    batched.report(True, run.check, run.time_interleaved, run.fmt, run.ratio)
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| W")]
    assert [r.split(" ")[1] for r in rows] == ["W6", "W6", "W7"]
    assert all("not run: needs NumPy" in r for r in rows)
