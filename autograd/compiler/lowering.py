"""What ``jit(f).lower(*args)`` shows: a trace as equations, and the Python generated for it.

`Jitted.lower` traces and compiles with `recording` set; the compile of the
trace (`compiler.entries`) calls `record`, which walks the traced graph into a
program of equations (`compiler.equations`) and keeps the generated sources.
`Lowered` is what the user gets back.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar

from autograd.compiler import equations
from autograd.compiler.codegen import Program
from autograd.core.context import TraceState
from autograd.core.nodes import Node


class Lowered:
    """What `jit` compiles for one call's arguments: equations, then Python source.

    >>> import autograd as ag
    >>> def f(x: float) -> float:
    ...     return ag.exp(x * x)
    >>> print(ag.jit(ag.grad(f)).lower(0.5).as_text())
    { lambda a0:var. let
        v1:var = mul a0 a0
        v2:var = exp v1
      backward (the cotangent of the output starts at 1.0)
        g0 = vjp[exp, 0] v2
        g1 = vjp[mul, 0] (g0 * a0)
        g2 = vjp[mul, 1] (g0 * a0)
        g3 = add_any g1 g2
      gradients g3
      in (v2) }
    """

    def __init__(
        self, name: str, program: equations.Program | None, sources: Sequence[str], compiled: bool
    ) -> None:
        self.name = name
        self.program = program
        """The traced program of equations (None if the graph could not be made one)."""
        self.compiled = compiled
        """False when calls with these arguments run eagerly (a graph over budget, say)."""
        self.source = "\n\n".join(sources)
        """The generated Python: its functions (chunks and loops), as compiled."""

    def as_text(self) -> str:
        """The equations, one a line: inputs, forward, guards, backward, outputs."""
        if self.program is None:
            return f"# jit({self.name}): runs eagerly, no program of equations"
        return self.program.as_text()


class Record:
    """What a `Jitted.lower` trace compiled: its equations and generated source."""

    def __init__(self) -> None:
        self.program: equations.Program | None = None
        self.sources: list[str] = []


recording: ContextVar[Record | None] = ContextVar("autograd_jit_lowering", default=None)
"""Inside `Jitted.lower`: where the trace's compile records what it made."""


def record(
    program: Program,
    outputs: Sequence[object],
    root: Node | None,
    wrt: Sequence[Node],
    state: TraceState,
) -> None:
    """Under `Jitted.lower`, record ``program``'s equations (its trace's) and sources.

    ``outputs`` are the result's leaves (under `grad`: the value, then aux's): a
    node is its variable, a float (a NumPy one too) a literal, as in JAX's jaxprs.
    Any other leaf (an int or a bool, a string, bytes, a complex) is returned as it
    is, no float of the program, and is left out.
    """
    into = recording.get()
    if into is None:
        return
    into.sources = list(program.sources)
    sizes = {x: program.sizes[b - 1] for x, b in program.batch_of.items()}
    # the compile's own walk: what is printed is what was compiled
    vars_, eqns, names = equations.equations_of(
        program.walk, program.input_nodes, program.plain_inputs, sizes
    )
    guards = [
        equations.Guard(op, equations.atom(x, names), equations.atom(y, names), outcome)
        for op, x, y, outcome in state.guards
    ]
    backward: list[equations.Eqn] = []
    gradients: list[equations.Atom] = []
    if root is not None:
        graph = program.walk.order[: program.walk.ends[0]]
        backward, gradients = equations.backward(graph, names, eqns, root, wrt)
    elif wrt:
        gradients = [equations.Lit(0.0)] * len(wrt)
    outs = [
        equations.atom(x, names) if isinstance(x, Node) else equations.Lit(float(x))
        for x in outputs
        if isinstance(x, Node | float)
    ]
    into.program = equations.Program(
        tuple(vars_), tuple(eqns), tuple(outs), tuple(guards), tuple(backward), tuple(gradients)
    )
