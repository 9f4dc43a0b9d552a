"""Compile a traced graph to straight-line Python: `Program`, its stages in the order they run.

Nothing in the compiler knows an op: the forward pass is each node's
``forward_source``, the backward pass each node's own ``vjp`` rule run on
`Sym` (so it is the rule, not a copy). A `Program` is written in stages, each
a base class in a module of its own, sharing the state `writer.Writer`
declares; `entries` (for `jit`) calls them in this order:

1. `forward.ForwardPass.forward` (and ``guards``): a statement per node,
   a scalar program's long runs of repeated nodes written as calls of one
   loop each (`forward_loops.ForwardLoops`);
2. `sweep.Sweep.backward`, for a gradient: the sweep's statements, in the
   eager sweep's order, a rolled run swept by one loop too;
3. `link.Linker.link`: the statements rolled (`reroll`), packed (`pack`),
   cut into `chunks.Chunk`s and compiled; the result maps inputs to outputs.

What other modules import from here (`Dialect`, the errors, `Chunk`) is re-exported from
its home.
"""

from __future__ import annotations

from autograd.compiler.chunks import Chunk
from autograd.compiler.forward import ForwardPass, check_guard
from autograd.compiler.link import Linker, interleaved
from autograd.compiler.sweep import Sweep
from autograd.compiler.writer import (
    Dialect,
    ExternalNodeError,
    GraphTooBigError,
    GuardFailed,
    NotBatchable,
)

__all__ = [
    "Chunk",
    "Dialect",
    "ExternalNodeError",
    "GraphTooBigError",
    "GuardFailed",
    "NotBatchable",
    "Program",
    "check_guard",
    "interleaved",
]


class Program(ForwardPass, Sweep, Linker):
    """The statements of one compiled graph, and the constants they read."""
