"""The state of running transforms, per thread and `contextvars` context."""

from __future__ import annotations

from collections.abc import MutableMapping
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for annotations: nodes import this module
    from autograd.core.nodes import Node

nesting: ContextVar[int] = ContextVar("autograd_nesting", default=0)
"""How many transforms are tracing their function in this context. Non-zero means
a result may be differentiated again, so sweeps must build nodes, not floats."""

tracing: ContextVar[bool] = ContextVar("autograd_jit_tracing", default=False)
"""True while `jit` traces a function in this context (its `.value` reads are guarded)."""

debug_sites: ContextVar[MutableMapping[Node, tuple[str, int]] | None] = ContextVar(
    "autograd_debug_nans", default=None
)
"""Inside `debug_nans()`: where each node was built (weakly keyed); else None."""
