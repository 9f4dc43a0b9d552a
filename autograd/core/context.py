"""The state of running transforms, per thread and `contextvars` context."""

from __future__ import annotations

from collections.abc import Collection, MutableMapping
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for annotations: nodes import this module
    from autograd.core.nodes import Node

nesting: ContextVar[int] = ContextVar("autograd_nesting", default=0)
"""How many transforms are tracing their function in this context. Non-zero means
a result may be differentiated again, so sweeps must build nodes, not floats."""

tracing: ContextVar[bool] = ContextVar("autograd_jit_tracing", default=False)
"""True while `jit` traces a function in this context (its `.value` reads are guarded)."""


class TraceState:
    """What a running `jit` trace knows beyond the graph.

    ``floats`` are its variables that are plain numbers in the eager call (the
    arguments not differentiated). A choice a rule makes on such values only
    is made as the eager call makes it, at once, and recorded in ``guards``:
    ``(op, x, y, outcome)``; the compiled code checks each and is traced again
    when one fails.
    """

    def __init__(
        self, floats: set[Node], variables: Collection[Node] = (), top: bool = True
    ) -> None:
        self.floats = floats
        self.variables = frozenset(variables)  # the differentiated arguments' variables
        self.top = top  # whether the eager call runs the function under no transform
        self.level = 0  # the transforms' nesting the function is called at (`call_guarded`)
        self.known: dict[Node, int] = {}  # memo of nodes.eager_kind
        self.reaching: dict[Node, bool] = {}  # memo of rules.reaches the variables
        self.guards: list[tuple[str, Node, Node, bool]] = []


trace_state: ContextVar[TraceState | None] = ContextVar("autograd_trace_state", default=None)
"""Inside a `jit` trace: its `TraceState`; else None."""

debug_sites: ContextVar[MutableMapping[Node, tuple[str, int]] | None] = ContextVar(
    "autograd_debug_nans", default=None
)
"""Inside `debug_nans()`: where each node was built (weakly keyed); else None."""
