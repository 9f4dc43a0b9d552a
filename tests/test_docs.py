"""The docs site builds with warnings as errors (broken links, bad references)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None
    or importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason="the docs extra is not installed (pip install -e '.[docs]')",
)
def test_docs_build_strict(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr
    reference = (tmp_path / "reference" / "index.html").read_text(encoding="utf-8")
    for name in ("value_and_grad", "to_dot", "make_moons", "apply_updates"):
        assert name in reference  # the API reference is generated from the docstrings
    assert 'class="language-pycon"' in reference  # doctests render as code, not quotes


def test_every_page_in_the_docs_folder_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    missing = [name for name in pages if f": {name}" not in config]
    assert missing == []
