"""Import an engine when its adapter is loaded, or say what to install."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from autograd.conform._engine import EngineUnavailable


def require(module: str, install: str) -> ModuleType:
    """``import module``, or `EngineUnavailable` naming the command that installs it.

    The engines are optional: importing them when an adapter is loaded (not
    when this package is) keeps ``autograd`` free of them.
    """
    limit = sys.getrecursionlimit()
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise EngineUnavailable(f"{module} is not installed ({e}): {install}") from None
    finally:  # tinygrad raises the interpreter's limit when imported: the host keeps its own
        sys.setrecursionlimit(limit)
