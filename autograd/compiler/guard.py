"""Catch value-dependent Python while `jit` traces a function.

A trace runs the function once, so any decision it takes on a node's value
would be frozen into the compiled code. While a trace runs anywhere, each node
class's ``value`` slot is read through `_GuardedValue` (installed through the
node module's one seam, `guard_values`), which refuses reads of traced values
from the user's code:

- in the tracing context, any read outside the forward rules of the node
  classes (whose float arithmetic is exactly what the compiled code repeats);
- in other threads and contexts (a thread the traced function starts, a fresh
  ``contextvars.Context``), reads of nodes that depend on the inputs of a
  running trace; the trace then fails with the same error even if the thread
  swallowed it. Reads of unrelated nodes go through, a little slower.

The builders, which run a node's forward rule as it is made, read their inputs
through the slot's second name (`rulegen.RAW_VALUE`), which is never wrapped:
a trace's nodes are built at the speed of eager ones.

``repr`` (hence ``str``, ``print`` and f-strings) of a traced node shows
``value=<traced>``, as JAX prints tracers, so nothing can parse the value back.
The slot is restored when the last trace ends.

`call_guarded` is how a trace calls the function: with the guard on, nesting
raised (inner transforms build graphs) and the trace's state published.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from types import FrameType

from autograd.core.context import TraceState, nesting, trace_state, tracing
from autograd.core.nodes import Node, guard_values, parents

_TRUSTED_MODULES = frozenset(
    {
        "autograd.core.base",
        "autograd.core.nodes",
        "autograd.core.rules",
        "autograd.core.ops",
        "autograd.core.more_ops",
        "autograd.core.rulegen",
        "autograd.core.functions",
        "autograd.compiler.writer",
        "autograd.compiler.forward",
        "autograd.compiler.forward_loops",
        "autograd.compiler.batched",
        "autograd.debug",
    }
)  # forward rules, a program's constants read as it is written, and debug_nans reading
# values to report them
_RULES = frozenset({"vjp", "jvp", "vjp_float"})  # a rule on floats in a trace: never trusted
_ATTRS_REPR = "<attrs generated"  # attrs compiles each node class's __repr__ under this name


class Trace:
    """One running trace: its variables, and a read of them from another thread."""

    def __init__(self, inputs: Sequence[Node]) -> None:
        self.inputs = inputs
        self.error: str | None = None


_lock = threading.Lock()
_traces: dict[Node, Trace] = {}  # every variable of every running trace
_active = 0
_owners: weakref.WeakKeyDictionary[Node, Trace | None] = weakref.WeakKeyDictionary()
"""Memo of `_owner` while traces run: a node's graph is immutable, so its answer stays
valid until a trace ends (then the memo is cleared)."""


class _Traced:
    """What the attrs ``__repr__`` of a traced node shows instead of its value."""

    def __repr__(self) -> str:
        return "<traced>"


_TRACED = _Traced()


def _refusal(node: object, frame: FrameType, who: str) -> str:
    return (
        f"jit: {who} reads `.value` of {node!r:.40} ({frame.f_code.co_filename}:"
        f"{frame.f_lineno}), a node that depends on a traced argument; a Python branch on it "
        "would be frozen into the compiled code. Mark the argument static (static_argnums), "
        "compute without `.value` (relu, ...), or call the function without jit."
    )


class _GuardedValue:
    """Stands in for a node class's ``value`` slot while a trace runs anywhere."""

    __slots__ = ("slot",)

    def __init__(self, slot: object) -> None:
        self.slot = slot

    def __get__(self, node: Node | None, owner: type | None = None) -> object:
        if node is None:
            return self
        value = self.slot.__get__(node, owner)  # type: ignore[attr-defined]
        frame = sys._getframe(1)
        code = frame.f_code
        if frame.f_globals.get("__name__") in _TRUSTED_MODULES and code.co_name not in _RULES:
            if code.co_name != "__repr__" or not code.co_filename.startswith(_ATTRS_REPR):
                return value  # a forward rule: the compiled code repeats its float arithmetic
            # repr (so str, print, f-strings) shows no value that could be parsed back
            return _TRACED if tracing.get() or _owner(node) is not None else value
        if tracing.get():
            raise TypeError(_refusal(node, frame, "the traced function"))
        trace = _owner(node)
        if trace is not None:  # another thread or context: refuse here and fail the trace
            trace.error = _refusal(node, frame, "another thread or context of a traced function")
            raise TypeError(trace.error)
        return value

    def __set__(self, node: Node, value: object) -> None:
        self.slot.__set__(node, value)  # type: ignore[attr-defined]


def _owner(node: Node) -> Trace | None:
    """The running trace whose variables ``node`` depends on, if any."""
    with _lock:
        known = _owners.get(node, _owners)
        if known is not _owners:
            return known  # type: ignore[return-value]  # a Trace or None, from the memo
        seen: set[Node] = set()
        stack = [node]
        while stack:  # iterative: graphs may be a million nodes deep
            x = stack.pop()
            trace = _traces.get(x) or _owners.get(x)
            if trace is not None:
                _owners[node] = trace
                return trace
            if x not in seen and x not in _owners:  # memoised nodes are known to be clear
                seen.add(x)
                stack.extend(parents(x))
        for x in seen:  # nothing below reaches a variable of a running trace
            _owners[x] = None
        return None


@contextlib.contextmanager
def read_guard(inputs: Sequence[Node]) -> Iterator[Trace]:
    """Guard ``.value`` reads while the caller runs a traced function on ``inputs``."""
    global _active
    trace = Trace(inputs)
    with _lock:
        if _active == 0:
            guard_values(_GuardedValue)
        _active += 1
        _traces.update(dict.fromkeys(inputs, trace))
    token = tracing.set(True)
    try:
        yield trace
    finally:
        tracing.reset(token)
        with _lock:
            for x in inputs:
                del _traces[x]
            _owners.clear()
            _active -= 1
            if _active == 0:
                guard_values(None)


def call_guarded(
    fn: Callable[..., object],
    inputs: list[Node],
    args: list[object],
    kwargs: dict[str, object],
    state: TraceState | None = None,
) -> object:
    """``fn(*args, **kwargs)`` with ``.value`` reads of nodes that depend on ``inputs`` refused."""
    token = nesting.set(nesting.get() + 1)  # inner transforms build graphs we can compile
    if state is not None:  # a transform called at this level is under none in the eager call
        state.level = nesting.get()
    state_token = trace_state.set(state)
    try:
        with read_guard(inputs) as trace:
            try:
                result = fn(*args, **kwargs)
            except Exception as e:
                if trace.error is None:
                    raise
                raise TypeError(trace.error) from e  # what a thread's refused read led to
            if trace.error is not None:  # another thread read a traced value, and went on
                raise TypeError(trace.error)
    finally:
        trace_state.reset(state_token)
        nesting.reset(token)
    return result
