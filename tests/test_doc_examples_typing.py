"""Every Python example in README.md and docs/*.md type-checks under mypy --strict.

A fenced ``python`` block without prompts is a complete program: it is checked
as its own module. Doctest blocks (``>>>`` prompts) share their page's names,
as pytest runs them, so a page's doctest blocks are assembled, in order, into
one module: their source lines, prompts removed, outputs dropped. The
extractor knows no block by name and no page is left out, so new examples are
checked as they are added. A doctest that shows a misuse raising `TypeError`
marks the line with the ``# type: ignore[code]`` mypy needs: it is a type
error too, and an ignore that stops being needed fails here.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def program(block: str) -> str:
    """The block as a module: doctest prompts removed and expected outputs dropped."""
    lines = block.splitlines()
    if not any(line.lstrip().startswith(">>>") for line in lines):
        return block
    source = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith((">>> ", "... ")) or stripped in (">>>", "..."):
            source.append(stripped[4:])
    return "\n".join(source) + "\n"


def examples() -> list[tuple[str, str]]:
    """(where, program) for each standalone block and each page's doctests together."""
    found = []
    for page in PAGES:
        text = page.read_text()
        doctests = []
        for match in FENCE.finditer(text):
            where = f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 2}"
            block = match.group(1)
            source = program(block)
            if source is block:
                found.append((where, source))
            else:
                doctests.append(f"# {where}\n{source}")
        if doctests:
            found.append((f"{page.relative_to(ROOT)} (doctests)", "\n".join(doctests)))
    return found


def test_the_extractor_finds_the_examples() -> None:
    where = [w for w, _ in examples()]
    assert any(w.startswith("README.md") for w in where)
    assert len(where) >= 3
    assert "README.md (doctests)" in where


def test_every_page_with_doctests_is_checked() -> None:
    where = {w for w, _ in examples()}
    for page in PAGES:
        if ">>> " in page.read_text():
            assert f"{page.relative_to(ROOT)} (doctests)" in where, page


def test_every_doc_example_passes_mypy_strict(tmp_path: Path) -> None:
    files = {}
    for i, (where, source) in enumerate(examples()):
        path = tmp_path / f"example_{i}.py"
        path.write_text(source)
        files[path.name] = where
    limit = sys.getrecursionlimit()  # mypy raises it; other tests check the default
    try:
        stdout, stderr, _ = api.run(
            [
                "--config-file",
                str(ROOT / "mypy.ini"),
                "--no-incremental",
                *map(str, tmp_path.glob("*.py")),
            ]
        )
    finally:
        sys.setrecursionlimit(limit)
    failures = []
    for line in stdout.splitlines():
        name = Path(line.split(":", 1)[0]).name
        if name in files and ": error:" in line:
            failures.append(
                f"{files[name]} (example line {line.split(':')[1]}): {line.split(': error: ')[1]}"
            )
    assert not failures, "\n".join(failures) + "\n" + stderr
