"""The README's Quickstart is what CI runs first, word for word."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quickstart", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the Quickstart has a sh block"
    return [line for line in block[1].splitlines() if line.strip()]


def test_ci_runs_the_readme_quickstart_verbatim_before_anything_else() -> None:
    script = (ROOT / ".ci" / "run").read_text().splitlines()
    commands = [
        line
        for line in script
        if line.strip() and not line.startswith(("#", "set ", "cd ", "if ", "fi", "  "))
    ]
    assert commands[:2] == quickstart_commands()


def test_quickstart_installs_runs_the_demo_and_the_whole_suite() -> None:
    setup, tests = quickstart_commands()
    assert "python3 -m venv .venv" in setup
    assert "pip install -e '.[dev,demo]'" in setup
    assert "autograd demo" in setup
    assert tests == ".venv/bin/python -m pytest"
