"""The benchmark's quick mode runs and checks every engine's results (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    assert [r.split(" ")[1] for r in rows] == ["W1", "W2", "W3", "W3", "W4", "W5"]
    assert "bytes per node" in done.stdout
    assert "disagrees" not in done.stdout + done.stderr
