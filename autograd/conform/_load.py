"""``ENGINE`` on the command line: a shipped adapter, a worker script, or ``module:function``."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from autograd.conform._engine import Engine, EngineUnavailable
from autograd.conform._protocol import Adapter
from autograd.conform._worker import worker_engine
from autograd.conform.engines import hips, jax, micrograd, tinygrad, torch

SHIPPED: Final[Mapping[str, Callable[[], Engine]]] = {
    "torch": torch.load,
    "jax": jax.load,
    "tinygrad": tinygrad.load,
    "micrograd": micrograd.load,
}
"""The engines whose adapters run in this interpreter (``hips`` runs in a worker)."""
ENGINES: Final = (*SHIPPED, "hips")

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


class EngineSpecError(ValueError):
    """``ENGINE`` names nothing usable (a usage error, not a missing package)."""


def load_engine(spec: str, python: str | None = None) -> Engine:
    """The engine that ``spec`` names.

    Args:
        spec: ``torch``, ``jax``, ``tinygrad``, ``micrograd`` or ``hips``; a
            worker script (a file, run by ``python``); or ``module:name`` for
            a user's own `Engine` object or `Adapter` function in an
            importable module (imported, never evaluated as text).
        python: the interpreter that runs a worker (required for ``hips`` and scripts).

    Raises:
        EngineSpecError: for a name that is none of these, or a bad combination.
        EngineUnavailable: if the engine's package is missing or its worker fails.
    """
    if spec == "hips":
        return hips.load(python)
    if spec in SHIPPED:
        if python is not None:
            raise EngineSpecError(
                f"--python runs worker scripts and hips; {spec} runs in this interpreter"
            )
        return SHIPPED[spec]()
    if ":" in spec:
        if python is not None:
            raise EngineSpecError("--python runs a worker script, not module:function")
        return _user_engine(spec)
    if python is not None and Path(spec).is_file():
        return worker_engine([python, spec])
    if Path(spec).is_file():
        raise EngineSpecError(f"{spec!r} is a file: to run it as a worker, pass --python PATH")
    raise EngineSpecError(
        f"unknown engine {spec!r}: use one of {', '.join(ENGINES)}, "
        "module:function (your adapter), or a worker script with --python PATH"
    )


def _user_engine(spec: str) -> Engine:
    module_name, _, attr = spec.partition(":")
    if not _DOTTED.match(module_name) or not _DOTTED.match(attr):
        raise EngineSpecError(f"{spec!r} is not module:function (dotted Python names)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise EngineUnavailable(f"cannot import {module_name!r}: {e}") from None
    target: object = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise EngineSpecError(f"module {module_name!r} has no {attr!r}")
        target = getattr(target, part)
    if isinstance(target, Engine):
        return target
    if callable(target):
        adapter: Adapter = target  # an adapter is any callable of this shape: checked by running it
        return Engine(name=spec, version="(user adapter)", first=adapter)
    raise EngineSpecError(f"{spec} is neither an Engine nor an adapter function")
