"""HIPS autograd (``pip install autograd numpy``), run by a worker in its own interpreter.

HIPS autograd's import name is ``autograd``, as this package's: it cannot be
imported beside it. Install it in another environment and pass that
interpreter with ``--python``; the worker (``workers/hips_worker.py``, run
by path) needs only HIPS autograd, NumPy and the standard library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from autograd.conform._engine import Engine, EngineUnavailable, Known, at
from autograd.conform._worker import worker_engine

WORKER: Final = Path(__file__).resolve().parent.parent / "workers" / "hips_worker.py"

INSTALL: Final = (
    "HIPS autograd shares the import name 'autograd': install it in another environment "
    "(python3 -m venv hipsenv && hipsenv/bin/pip install autograd numpy) "
    "and pass its interpreter: autograd conform hips --python hipsenv/bin/python"
)

KNOWN: tuple[Known, ...] = ()


def load(python: str | None) -> Engine:
    """The HIPS autograd engine, run by ``python`` (raises `EngineUnavailable` without it)."""
    if python is None:
        raise EngineUnavailable(INSTALL)
    return worker_engine(
        [python, str(WORKER)],
        known=KNOWN,
        notes=("NumPy float64 scalars; grad per argument, grad of grad for order 2",),
    )


__all__ = ["INSTALL", "KNOWN", "WORKER", "at", "load"]
