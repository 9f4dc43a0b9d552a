"""A downstream project's `mypy --strict` sees the installed package and its types.

The check runs outside the checkout (in a temporary directory, so the
repository's mypy.ini and its `files` are not read) with the interpreter the
tests run under: it finds `autograd` only through that environment's
site-packages, as a user's project would after the README's `pip install -e`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

import autograd

ROOT = Path(__file__).resolve().parent.parent

DOWNSTREAM = """\
from typing import assert_type

import attrs

import autograd as ag
from autograd import Scalar


def loss(x: Scalar) -> Scalar:
    return ag.tanh(x * 2.0) + x * x


assert_type(ag.grad(loss)(1.0), float)
assert_type(ag.value_and_grad(loss)(1.0), tuple[float, float])
node = ag.Leaf(2.0)
assert_type(ag.tanh(node), ag.Node)
scalar: Scalar = node


@attrs.frozen
class Line:
    w: float
    b: float


def line_loss(p: Line, x: float) -> float:
    return (p.w * x + p.b - 1.0) ** 2


assert_type(ag.grad(line_loss)(Line(1.0, 0.0), 2.0).w, float)
"""

# Each line must be an error of the given code; the line number is its index + 1 after DOWNSTREAM.
REJECTED = [
    ("float(node)", "arg-type"),
    ("node < 1.0", "operator"),
    # one error for the whole union, not one per node class (see CompareDotValue)
    ("scalar > 0", "operator"),
    ("ag.exp(node) >= scalar", "operator"),
    ("assert_type(ag.grad(loss)(1.0), ag.Node)", "assert-type"),
    ('ag.grad(loss)("1.0")', "call-overload"),
]


def _installed_editable() -> str | None:
    """Why the check cannot run here, or None when this checkout is installed editable."""
    # The build leaves typed_autograd.egg-info in the checkout, itself on sys.path: look at
    # every copy of the metadata for the one pip wrote, which records the install's origin.
    urls = [d.read_text("direct_url.json") for d in metadata.distributions(name="typed-autograd")]
    origins = [json.loads(u) for u in urls if u is not None]
    if not origins:
        return "typed-autograd is not installed with pip in this environment"
    editable = [o["url"] for o in origins if o.get("dir_info", {}).get("editable")]
    if not editable:
        return "typed-autograd is not installed editable (pip install -e)"
    if ROOT.as_uri() not in editable or Path(autograd.__file__).resolve().parent.parent != ROOT:
        return f"the editable install is of another checkout ({editable[0]})"
    return None


def _mypy_strict(tmp_path: Path, source: str) -> tuple[int, list[str]]:
    (tmp_path / "downstream.py").write_text(source)
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", ".cache", "downstream.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return run.returncode, run.stdout.splitlines() + run.stderr.splitlines()


def test_a_downstream_file_type_checks_against_the_editable_install(tmp_path: Path) -> None:
    reason = _installed_editable()
    if reason is not None:
        pytest.skip(reason)
    bad = "\n".join(line for line, _ in REJECTED)
    status, output = _mypy_strict(tmp_path, DOWNSTREAM + bad + "\n")
    first = DOWNSTREAM.count("\n") + 1
    expected = {f"downstream.py:{first + i}": code for i, (_, code) in enumerate(REJECTED)}
    errors: dict[str, list[str]] = {}
    for line in output:
        if ": error: " in line:
            where = line.split(": error: ")[0]
            errors.setdefault(where, []).append(line.rsplit("[", 1)[-1].rstrip("]"))
    assert "import-not-found" not in "\n".join(output), "\n".join(output)
    # exactly one readable error per misuse
    shown = textwrap.indent("\n".join(output), "    ")
    assert errors == {k: [v] for k, v in expected.items()}, shown
    assert '"CompareDotValue" not callable' in "\n".join(output)
    assert status == 1
