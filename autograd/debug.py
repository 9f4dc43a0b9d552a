"""`debug_nans()`: turn the first nan an op *produces* into a `FloatingPointError`.

Off (the default), it costs a node one float self-comparison (``v != v``) in
its forward rule, and a reverse sweep one context-variable read. On, it
checks each op's forward result and each cotangent a rule returns, and
records where every node was built (the first stack frame outside this
package) so a backward error can point at the user's line. A nan that flows
in from a nan input is not reported: only the op that created it is.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys
import threading
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping, MutableMapping, Sequence
from types import FrameType

from autograd.core import base as _seams
from autograd.core.context import debug_sites, tracing
from autograd.core.nodes import Node, V, _Arith, parents

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_lock = threading.Lock()
_active = 0  # debug_nans() contexts open in any thread; recording is installed while > 0


@contextlib.contextmanager
def debug_nans() -> Iterator[None]:
    """Raise `FloatingPointError` at the first op that turns non-nan inputs into nan.

    Scoped to the current thread or `contextvars` context: other threads
    keep running unchecked. Forward rules, the public functions called on
    plain floats (``log(-1.0)``, ``sum([inf, -inf])``) and reverse sweeps are
    checked; the error names the op, its input values, the direction
    (forward or backward) and the user's source line that built the node or
    made the call.

    Raises:
        FloatingPointError: (inside the block) at the first nan an op creates.
        TypeError: when opened inside a function that `jit` is tracing.

    >>> import autograd as ag
    >>> with ag.debug_nans():
    ...     ag.log(ag.Leaf(-1.0))
    Traceback (most recent call last):
    ...
    FloatingPointError: debug_nans: Log produced nan in the forward pass from input (-1.0) at ...
    """
    if tracing.get():  # the check would cover the trace, then never the compiled calls
        raise TypeError(
            "debug_nans() inside a function that jit is tracing would check only the trace, "
            "not the compiled calls: open debug_nans() around the call of the jitted "
            "function instead (there it runs every op eagerly and checked)"
        )
    sites: MutableMapping[Node, tuple[str, int]] = weakref.WeakKeyDictionary()
    token = debug_sites.set(sites)
    _install()
    try:
        yield
    finally:
        debug_sites.reset(token)
        _uninstall()


def _install() -> None:
    # The node classes are never touched: their builders call these hooks, which are
    # None (one test) while no context debugs; while any does, they record sites and
    # report forward nans for those contexts.
    global _active
    with _lock:
        _active += 1
        if _active == 1:
            _seams.on_build = _record
        # kept after the block: a context copied inside it keeps checking (forward_nan
        # reads that context's debug_sites), and it runs only when a value is nan
        _seams.on_nan = forward_nan


def _uninstall() -> None:
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            _seams.on_build = None


def _record(node: _Arith) -> None:
    sites = debug_sites.get()
    if sites is not None:  # only contexts inside debug_nans() record
        sites[node] = _user_frame()


def _user_frame() -> tuple[str, int]:
    """File and line of the innermost stack frame outside the autograd package."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and _internal(frame.f_code.co_filename):
        frame = frame.f_back
    return ("<unknown>", 0) if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def _describe_site(site: tuple[str, int] | None) -> str:
    if site is None:
        return "<not recorded: built outside debug_nans()>"
    filename, line = site
    source = linecache.getline(filename, line).strip()
    return f"{filename}:{line}: {source}" if source else f"{filename}:{line}"


def _internal(filename: str) -> bool:
    # attrs compiles each node class's __init__ under a name like
    # "<attrs generated methods autograd.core.nodes.Mul>"; our compiled rules and
    # jit's code are "<autograd ...>"
    return filename.startswith((_PACKAGE_DIR, "<attrs generated", "<autograd"))


def _isnan(v: float | Node) -> bool:
    x = v.value if isinstance(v, _Arith) else v
    return x != x


def _fmt(values: Sequence[float]) -> str:
    return ", ".join(repr(v) for v in values)


def forward_nan(node: object) -> None:
    """Raise if debugging and ``node`` (being built) made nan from non-nan inputs."""
    if debug_sites.get() is not None:
        ins = [x.value for x in parents(node)]  # type: ignore[arg-type]  # only nodes call this
        _raise_forward(type(node).__name__, ins, "")


def float_nan(op: str, inputs: Sequence[float]) -> None:
    """Raise if debugging and a public function on floats made nan from non-nan ``inputs``.

    ``op`` is the name of the node class the same call on nodes would build,
    so both report alike.
    """
    if debug_sites.get() is not None:
        _raise_forward(op, inputs, " (on floats)")


def _raise_forward(op: str, ins: Sequence[float], where: str) -> None:
    if any(v != v for v in ins):
        return  # the nan came in with an input
    word = "input" if len(ins) == 1 else "inputs"
    raise FloatingPointError(
        f"debug_nans: {op} produced nan in the forward pass{where} from "
        f"{word} ({_fmt(ins)}) at {_describe_site(_user_frame())}"
    )


def sweep_checked(
    order: list[tuple[Node, tuple[Node, ...]]],
    cotangents: dict[Node, V],
    primal: Callable[[Node], V],
    keep: Collection[Node] | None,
) -> dict[Node, V]:
    """The reverse sweep of `backward`, checking every cotangent it creates."""
    for node, ins in reversed(order):
        g = cotangents.get(node) if keep is None or node in keep else cotangents.pop(node, None)
        if not ins or g is None:
            continue
        for i, (x, gx) in enumerate(zip(ins, node.vjp(g, primal), strict=True)):
            if gx is None:
                continue
            prev = cotangents.get(x)
            total = gx if prev is None else prev + gx
            if _isnan(total):
                _backward_nan(node, ins, i, g, prev)
            cotangents[x] = total
    return cotangents


def _backward_nan(node: Node, ins: tuple[Node, ...], i: int, g: float | Node, prev: object) -> None:
    """Raise unless the nan came in with the cotangent, a primal or an earlier sum."""
    gv = g.value if isinstance(g, _Arith) else g
    primals = [x.value for x in ins]
    if gv != gv or node.value != node.value or any(v != v for v in primals):
        return
    if prev is not None and _isnan(prev):  # type: ignore[arg-type]  # a cotangent
        return
    sites = debug_sites.get()
    site = _describe_site(sites.get(node) if sites is not None else None)
    word = "input" if len(primals) == 1 else "inputs"
    raise FloatingPointError(
        f"debug_nans: {type(node).__name__} produced nan in the backward sweep "
        f"(cotangent of its input {i}) from cotangent {gv!r}, {word} ({_fmt(primals)}) "
        f"and value {node.value!r}; the node was built at {site}"
    )


def tangent_nan(node: Node, t: float | Node, tangents: Mapping[Node, float | Node]) -> None:
    """Raise if ``node``'s forward-mode rule made a nan tangent from non-nan inputs."""
    if not _isnan(t):
        return
    ins = parents(node)
    if node.value != node.value or any(x.value != x.value for x in ins):
        return
    if any(_isnan(tangents[x]) for x in ins if x in tangents):
        return
    sites = debug_sites.get()
    site = _describe_site(sites.get(node) if sites is not None else None)
    raise FloatingPointError(
        f"debug_nans: {type(node).__name__} produced nan in the forward-mode (jvp) sweep "
        f"from inputs ({_fmt([x.value for x in ins])}); the node was built at {site}"
    )
