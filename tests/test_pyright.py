"""pyright, strict, over the typing tests and the downstream projects: 0 errors.

The second checker users meet (VS Code's). pyproject.toml's ``[tool.pyright]``
says what it checks and how: strict, the must-fail lines' ``# type: ignore``
comments required to silence an error (so a misuse pyright stops catching fails
here, as ``warn_unused_ignores`` fails mypy), and ``MYPY`` false, for the few
lines where the two checkers type a call differently (each says why). Every
``assert_type`` in those files then holds under both checkers. docs/typing.md's
examples are checked too, strict. One pyright process over all the files;
skipped where the ``typing`` extra is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_doc_examples_typing import FENCE

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("tests/typing", "tests/downstream")


def config() -> dict[str, object]:
    table: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "pyright"
    ]
    return table


def test_pyright_checks_the_typing_files_strictly_and_requires_must_fail_lines_to_fail() -> None:
    table = config()
    assert table["include"] == table["strict"] == list(CHECKED)
    assert table["reportUnnecessaryTypeIgnoreComment"] == "error"
    assert table["defineConstant"] == {"MYPY": False}


def typing_page_examples(where: Path) -> list[Path]:
    """docs/typing.md's standalone examples, each a strict module in ``where``."""
    text = (ROOT / "docs" / "typing.md").read_text()
    blocks = [m.group(1) for m in FENCE.finditer(text) if ">>>" not in m.group(1)]
    for i, block in enumerate(blocks):
        (where / f"typing_md_{i}.py").write_text("# pyright: strict\n" + block)
    return sorted(where.glob("typing_md_*.py"))


def test_pyright_strict_passes_on_the_typing_tests_downstream_projects_and_typing_page(
    tmp_path: Path,
) -> None:
    if importlib.util.find_spec("pyright") is None:
        pytest.skip("pyright is not installed: pip install -e '.[typing]'")
    pages = typing_page_examples(tmp_path)
    assert len(pages) >= 4
    run = subprocess.run(
        [
            *(sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable),
            # this project's configuration, never a pyrightconfig.json above the clone
            *("--project", str(ROOT)),
            *CHECKED,
            *map(str, pages),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = json.loads(run.stdout)
    errors = [
        f"{d['file']}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert not errors, "\n".join(errors)
    files = [p for where in CHECKED for p in (ROOT / where).glob("*.py")]
    assert report["summary"]["filesAnalyzed"] >= len(files) + len(pages) > 14
    assert run.returncode == 0, run.stderr
