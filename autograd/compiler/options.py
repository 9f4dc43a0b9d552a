"""The compiler's thresholds, as one value: `jit(f, options=Options(...))`.

Every threshold the compiler uses (budgets, chunk sizes, when loops are
looked for, how batches are packed) lives here, tuned for CPython 3.11 on a
laptop-class CPU (bench/README.md has the measurements). A test or an
experiment passes its own `Options`; nothing patches module globals.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs


def _at_least(least: int) -> Callable[[object, attrs.Attribute[int], int], None]:
    """A field's check: an ``int`` (not a ``bool``) of at least ``least``."""

    def check(_: object, field: attrs.Attribute[int], value: int) -> None:
        if type(value) is not int or value < least:
            raise ValueError(f"Options.{field.name} must be an int >= {least}, got {value!r}")

    return check


def _fraction(_: object, field: attrs.Attribute[float], value: float) -> None:
    if type(value) not in (int, float) or not 0.0 <= value <= 1.0:
        raise ValueError(f"Options.{field.name} must be a number in [0, 1], got {value!r}")


def _flag(_: object, field: attrs.Attribute[bool], value: bool) -> None:
    if type(value) is not bool:
        raise ValueError(f"Options.{field.name} must be a bool, got {value!r}")


@attrs.frozen(kw_only=True)
class Options:
    """Thresholds of one `jit`'s compiler; the defaults are what every `jit` uses.

    >>> import autograd as ag
    >>> from autograd.compiler.options import Options
    >>> small = ag.jit(lambda x: x * x + 1.0, options=Options(chunk=1))
    >>> small(3.0)
    10.0
    >>> Options(chunk=0)
    Traceback (most recent call last):
      ...
    ValueError: Options.chunk must be an int >= 1, got 0
    """

    budget: int = attrs.field(default=400_000, validator=_at_least(1))
    """Statements above which a graph is not compiled: its calls run eagerly (CPython
    compiles about 10 us a statement)."""
    trace_limit: int = attrs.field(default=6_000_000, validator=_at_least(1))
    """Statements a scalar program may have before runs are rolled into loops (about 300
    bytes each); `budget` applies to what is compiled after that."""
    chunk: int = attrs.field(default=20_000, validator=_at_least(1))
    """Statements per generated function: CPython compiles very long functions slowly."""
    reroll_from: int = attrs.field(default=2_000, validator=_at_least(0))
    """Programs from this many statements have their repeated runs rolled into loops."""
    depth_gain: float = attrs.field(default=0.1, validator=_fraction)
    """A wide program is rolled in depth order (a balanced sum's levels become runs) if
    that leaves less than this fraction of its statements; else as traced."""
    sink_gain: float = attrs.field(default=0.25, validator=_fraction)
    """A program whose sum's joins are sunk (a loss over data points, or over an RNN's
    states) is rolled so if its runs then leave less than this fraction of its statements
    (the sum's additions, read from the loops' lists one by one); else as traced."""
    depth_always: bool = attrs.field(default=False, validator=_flag)
    """Roll every program in depth order (`tests/jit_fuzz.py --depth`)."""
    sink_always: bool = attrs.field(default=False, validator=_flag)
    """Sink the joins of every program whose runs the order as traced does not hold, and
    keep its runs however few equations they hold (`tests/jit_fuzz.py --sink`)."""
    keep_always: bool = attrs.field(default=False, validator=_flag)
    """Roll every program with a sweep as traced, its runs' values kept, where neither depth
    order nor sunk joins were taken, however few equations its runs hold
    (`tests/jit_fuzz.py --second`)."""
    release_size: int = attrs.field(default=1024, validator=_at_least(0))
    """Batches from this size on clear each register holding a dead array."""
    loops_from: int = attrs.field(default=1_000, validator=_at_least(0))
    """Fewest nodes a graph has for its runs to be rolled before statements are written
    (`compiler.periods`); a smaller graph's statements are left to `reroll`."""
    min_looped: int = attrs.field(default=16, validator=_at_least(1))
    """Fewest iterations `compiler.periods` writes a loop for."""
    min_run: int = attrs.field(default=64, validator=_at_least(0))
    """Fewest equations (iterations times an iteration's) `compiler.periods` writes a loop
    for: a wide sum's levels of 64 additions or more roll in depth order."""
    settle: int = attrs.field(default=16, validator=_at_least(0))
    """Iterations a rolled run's backward loop sweeps, at most, looking for the pattern of
    its cotangents to repeat (`backward_loops`): those before are written straight, and
    all of them if it does not repeat."""
    probes: int = attrs.field(default=8, validator=_at_least(2))
    """Windows of a graph's order searched for runs before the whole of it."""
    probe_window: int = attrs.field(default=2_048, validator=_at_least(1))
    """Nodes in such a window."""
    min_reps: int = attrs.field(default=4, validator=_at_least(2))
    """Fewest iterations `reroll` rolls a run of statements for."""
    min_statements: int = attrs.field(default=64, validator=_at_least(1))
    """Fewest statements (period times iterations) `reroll` rolls a run for."""
    max_period: int = attrs.field(default=256, validator=_at_least(0))
    """Longest loop body `reroll` looks for position by position."""
    stride: int = attrs.field(default=8, validator=_at_least(1))
    """Where no run starts, the next position `reroll` tries is this far on."""
    window: int = attrs.field(default=32, validator=_at_least(1))
    """Statements whose forms together find a long period (one data point's statements)."""
    long_skip: int = attrs.field(default=256, validator=_at_least(1))
    """Positions that skip the search for long periods after one where none was found."""
    splice: int = attrs.field(default=4, validator=_at_least(1))
    """Fewest consecutive outputs returned as a slice of a loop's list."""
    sum_group: int = attrs.field(default=262_144, validator=_at_least(0))
    """Per-example values (variables times examples) one statement sums over a batch: a 2 MB
    stack. Small batches sum every variable in one statement (a NumPy call per statement is
    the cost there); large ones in groups, as they complete (memory is). 0: one a statement."""
    batch_from: int = attrs.field(default=8, validator=_at_least(1))
    """Fewest examples a `vmap` under `jit` runs as one NumPy batch. A smaller batch runs the
    compiled per-example code once an example: a NumPy call costs more than a few examples'
    float arithmetic (a 10,000-step chain's gradient, 2 examples: 87 ms batched, 3 ms
    looped), and the loop gives eager's bits where NumPy's ``exp`` or ``tanh`` may not."""
    pack_elements: int = attrs.field(default=2**17, validator=_at_least(0))
    """Elements one packed 2-d operation of a small batch holds (a cache's worth)."""
    numpy_call: int = attrs.field(default=100, validator=_at_least(0))
    """What a NumPy call of a batched program costs, in statements of the per-example code
    (a call of that code costs 430 more, once an example). `jit(vmap(f))` of from
    `batch_from` examples compiles the batch, and runs it if that is predicted cheaper:
    ``numpy_call`` times its NumPy calls against the examples' statements and calls. Below
    that break-even, each example runs `f`'s compiled code, as under `batch_from`: a deep,
    narrow program (a 1,000-step chain) loops up to 92 examples, a layer of 16 neurons
    to 8. 0: always the batch."""
    numpy_functions: bool = attrs.field(default=False, validator=_flag)
    """Batches call NumPy's own ``exp``, ``log``, ``tanh``, ... (30x faster than the float
    helper per element), which differ from ``math``'s in the last bits of some inputs
    (docs/numerics.md has the ulp bounds): each example's result is then not the loop's,
    bit for bit. Off, `vmap` under `jit` gives every example the loop's bits."""


DEFAULT = Options()
"""What `jit` compiles with unless told otherwise."""
