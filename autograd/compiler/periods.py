"""Loops found in the graph before its statements are written.

`reroll` rolls repeated statements into loops once every statement is
written; on a deep chain (``for _ in range(n): x = tanh(0.9 * x + 0.1)``)
writing them, then finding them again, is most of a first call. Here the
repetition is found among the traced nodes first: `find` looks in
`toposort`'s order for a body of nodes repeated many times, each node
reading nodes of its own iteration, of the previous one, one node for all
iterations (a weight), constants, or an input at a stride (an RNN's data;
a layer's own weight, differentiated, whose cotangents the backward loop
keeps in a list).

`codegen.Program` writes a run's first `HEAD` iterations and last `TAIL` as
usual, and the iterations between as one loop (`ForwardLoop`), whose body
is one iteration's equations: every iteration has the same keys, reading
the same places (this iteration, the previous one, a stream, or a node the
same for all), so each runs the very code, in the very order, and results
keep their bits (`forward_loops`). The backward sweep of a rolled run is
that body's rules, transposed (`backward_loops`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from autograd.compiler import runs
from autograd.compiler.loops import Loop, items
from autograd.compiler.options import DEFAULT, Options

HEAD = 3
"""Iterations written as usual before a loop: the first reads what precedes the run; the
loop's first values are the last one's."""

TAIL = 4
"""Iterations written as usual after a loop: the backward sweep enters a run here, with
cotangents from what follows it."""

Role = tuple[str, int]
"""Where a node one iteration reads lives, by position: ``("n", j)`` node j of the iteration,
``("p", j)`` of the previous one, ``("in", i)`` this iteration's input of the run's stream i
(`Period.inputs`), ``("l", i)`` this iteration's value of an earlier run's stream i
(`Period.lists`)."""


class Period:
    """A run of nodes in an order: ``count`` iterations of ``size`` nodes from ``start``."""

    __slots__ = ("count", "fixed", "inputs", "lists", "loop", "size", "start")

    def __init__(
        self,
        start: int,
        size: int,
        count: int,
        fixed: list[int],
        inputs: list[tuple[int, int]],
        lists: list[tuple[int, int]] = [],  # noqa: B006  # never mutated
    ) -> None:
        self.start = start
        self.size = size
        self.count = count
        self.fixed = fixed  # the nodes every iteration reads: positions before the run, or
        # inputs, -1 - their index
        self.inputs = inputs  # (first, step): iteration q reads input first + step * q
        self.lists = lists  # (first, step): iteration q reads node first + step * q, of a run
        # before (`find` with ``stacked``)
        self.loop: tuple[ForwardLoop, str] | None = None  # the forward loop, its call's target

    def first(self, q: int) -> int:
        """The position of iteration ``q``'s first node."""
        return self.start + self.size * q

    @property
    def looped(self) -> int:
        """Iterations in the loop: all but `HEAD` and `TAIL`."""
        return self.count - HEAD - TAIL


def looped(found: list[Period]) -> int:
    """How many equations the runs' loops hold (their looped iterations')."""
    return sum(per.looped * per.size for per in found)


def find(
    forms: list[int],
    operands: list[list[int]],
    options: Options = DEFAULT,
    stacked: bool = False,
    kept: bool = False,
) -> list[Period]:
    """Runs among nodes (their forms and operands' positions) worth a loop, in order.

    A node of a looped iteration, or of the iteration before them, may be read
    only by its run: compiled code names none of them, and the backward sweep
    gives them cotangents from their run alone. A run read otherwise is left out.
    With ``stacked``, it is kept (its values stacked, for what reads them), and
    a run may read an earlier one's values at a stride: what a program of
    equations prints as loops (`equations.find_loops`). With ``kept``, it is
    kept too, but reads no earlier run at a stride, and long bodies are looked
    for (`runs.Windows`: one data point's network): a loss over data points,
    whose sum reads each point's loss (`ForwardPass._sunk`); the backward loop
    gets those cotangents from outside (`BackwardLoops._outside`).
    """
    least = HEAD + TAIL + options.min_looped
    found = [
        Period(*run)
        for run in runs.short_runs(
            forms,
            operands,
            least,
            max(least, options.min_run),
            options,
            lists=stacked,
            long=kept,
        )
        if run[2] >= least and any(operands[run[0] : run[0] + run[1]])  # not inputs alone
    ]
    if not found or stacked or kept:
        return found
    marked = [-1] * len(forms)
    for r, per in enumerate(found):
        lo, hi = per.first(HEAD - 1), per.first(per.count - TAIL)
        marked[lo:hi] = [r] * (hi - lo)
    bad = {marked[j] for per in found for j in per.fixed if j >= 0} - {-1}
    # inside a run, from iteration HEAD - 1 to the first of its tail, nodes read their own
    # run's (as `short_runs` checked) or its fixed ones (checked above); the rest is read here
    starts = [per.first(HEAD - 1) for per in found] + [len(forms)]
    ends = [0] + [per.first(per.count - TAIL + 1) for per in found]
    for p, end in zip(ends, starts, strict=True):
        for i in range(p, end):
            for j in operands[i]:
                if j >= 0 and marked[j] >= 0:  # (an input is -1 - its index)
                    bad.add(marked[j])
    return [per for r, per in enumerate(found) if r not in bad]


class ForwardLoop:
    """A run's forward loop: its looped iterations' statements as one function (`loops.Loop`).

    `forward_loops.ForwardLoops._loop_body` writes its body. It returns the
    last iteration's values of ``finals`` (statements of the body), then, per
    node of an iteration, the list of its values over the iterations if the
    backward sweep or a later run reads them (`stored`), else None.
    """

    def __init__(
        self,
        name: str,
        count: int,
        inputs: list[tuple[int, int]],
        lists: Sequence[tuple[str, int, int]] = (),
    ) -> None:
        self.name = name
        self.loop = Loop(name, count)
        self.count = count
        self.inputs = inputs  # stream i: input first + step * q at looped iteration q
        self.lists = lists  # stream i (role ``("l", i)``): a list (a template), first item, step
        self.values: list[str] = []  # per node of an iteration: its local, or a parameter
        self.finals: list[int] = []
        self.stored: set[int] = set()

    def param(self, arg: str) -> str:
        """The parameter standing for the argument expression ``arg`` (one per expression)."""
        return self.loop.param(arg)

    def stream(self, role: Role) -> str:
        """The local holding an iteration's item of stream ``("in", i)`` or ``("l", i)``."""
        kind, i = role
        if kind == "l":  # an earlier run's values, all its iterations'
            values, first, step = self.lists[i]  # the list as an argument's template
            got = items(self.param(values), first, step, self.count)
            return self.loop.stream(role, f"_x{i}", got)
        first, step = self.inputs[i]  # at the first looped iteration
        return self.loop.stream(role, f"_i{i}", items(self.param("R"), first, step, self.count))

    def value(self, j: int) -> str:
        """What holds node ``j``'s value in an iteration: a statement's local, or a parameter."""
        return self.values[j]

    def list_index(self, j: int) -> int:
        """Where the call's result holds node ``j``'s values (`stored`)."""
        return len(self.finals) + j

    def write(self) -> str:
        for j in sorted(self.stored):
            self.loop.keep(f"_l{j}", self.value(j))
        lists = [f"_l{j}" if j in self.stored else "None" for j in range(len(self.values))]
        return self.loop.source([f"_s{k}" for k in self.finals] + lists)


LOOP_GLOBALS = {"_chain": itertools.chain}
"""What the loops read besides the helpers of generated code."""
