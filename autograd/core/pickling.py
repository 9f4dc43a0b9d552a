"""Pickling graphs of any depth, in time linear in the graph.

pickle's default for an object is recursive: saving a node saves its inputs
first, several C frames per node, so a chain of a thousand nodes exceeds the
recursion limit. Here a node with inputs that pickle meets on its own (a
root) is saved as a flat list: its subgraph in post-order, inputs before
users. pickle draws the list's items from a walk as it writes them, and a
node drawn from the walk is saved by pickle's own shallow default: its
inputs are already in pickle's memo, so pickle writes references to them
and never recurses. Loading rebuilds the list in order; the root is its last
entry. Values are restored, not recomputed: bit for bit.

Within one pickle every node is written once, and pickle's memo shares it
(leaves included) between all the roots and containers that reach it. A
later root's walk does not enter a subgraph an earlier walk of the same
pickler wrote (see `_Session`), so pickling many nodes of one graph is
linear too.

This module knows nothing of the node classes: ``inputs`` gives the edges.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from typing import SupportsIndex, TypeVar

_N = TypeVar("_N")
Inputs = Callable[[_N], tuple[_N, ...]]


class _Local(threading.local):
    def __init__(self) -> None:
        self.shallow: set[object] = set()
        """Nodes a walk handed to pickle and pickle has not saved yet."""
        self.walks = 0
        """Walks running on this thread; a second one means the session was stale."""
        self.session: weakref.ref[_Session] | None = None


_local = _Local()


class _Session:
    """The nodes the current pickler has saved through walks, holding them.

    Every root's reduction names the session, so pickle saves it once and
    memoizes it: a memo hit (no `__reduce__` call) means the same pickler as
    the previous root, whose memo holds every node in ``saved``. A pickler
    that has not seen the session calls `__reduce__`, which forgets them.
    The memo is the only strong reference: the session dies with its pickler.
    """

    __slots__ = ("__weakref__", "saved")

    def __init__(self) -> None:
        self.saved: set[object] = set()

    def __reduce__(self) -> tuple[Callable[[], None], tuple[()]]:
        self.saved.clear()  # this pickler's memo holds none of them
        return _nothing, ()


def _session() -> _Session:
    ref = _local.session
    session = ref() if ref is not None else None
    if session is None:
        session = _Session()
        _local.session = weakref.ref(session)
    return session


def _nothing() -> None:
    """What a session loads as: loading needs nothing from it."""


def _last(session: None, nodes: list[_N]) -> _N:
    """The root of a loaded subgraph: the post-order ends with it."""
    return nodes[-1]


class _Subgraph:
    """Pickled as a list whose items pickle draws from the walk as it writes them."""

    __slots__ = ("walk",)

    def __init__(self, walk: Iterator[object]) -> None:
        self.walk = walk

    def __reduce__(self) -> tuple[object, ...]:
        return list, (), None, self.walk


def reduce_node(node: _N, protocol: SupportsIndex, inputs: Inputs[_N]) -> str | tuple[object, ...]:
    """A node's ``__reduce_ex__``: pickle's own from a walk or for a leaf, else a walk."""
    shallow = _local.shallow
    if node in shallow:
        shallow.discard(node)
        return object.__reduce_ex__(node, protocol)
    if not inputs(node):
        return object.__reduce_ex__(node, protocol)
    session = _session()
    if _local.walks:  # pickle met an input a walk skipped as saved: the session was stale
        session.saved.clear()  # so this walk writes all it reaches: one level of nesting
    walk = _walk(node, inputs, session.saved)
    return _last, (session, _Subgraph(walk))


def _walk(root: _N, inputs: Inputs[_N], saved: set[object]) -> Iterator[_N]:
    """``root``'s subgraph in post-order, not entering nodes pickle has saved."""
    if not _local.walks:
        _local.shallow.clear()  # the last walk's list is written: nothing is pending
    _local.walks += 1
    shallow, save = _local.shallow.add, saved.add
    try:
        for node in _postorder(root, inputs, saved):
            shallow(node)
            save(node)  # pickle writes it before it draws the walk's next list
            yield node
    finally:
        _local.walks -= 1


def _postorder(root: _N, inputs: Inputs[_N], saved: set[object]) -> Iterator[_N]:
    """Inputs before users, each node once; leaves and ``saved`` nodes are left out.

    The root is last, so the loaded list ends with it. As `_trace.toposort`,
    which this module cannot import (the node module imports this one).
    """
    if root in saved:  # pickle asked for it, so its memo does not hold it: stale
        saved.clear()
    entered: dict[_N, bool] = {}  # True once yielded
    stack = [root]
    push, pop, extend = stack.append, stack.pop, stack.extend
    while stack:
        node = pop()
        done = entered.get(node)
        if done is None:
            if node in saved:
                continue
            ins = inputs(node)
            if not ins:  # a leaf is written inside its first user's state
                continue
            entered[node] = False
            push(node)  # come back to yield it after its inputs
            extend(reversed(ins))
        elif not done:
            entered[node] = True
            yield node
