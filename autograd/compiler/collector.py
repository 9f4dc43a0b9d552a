"""The cyclic garbage collector paused while `jit` compiles.

Compiling a big graph allocates millions of objects that live until it is
done (statements, their operands, forms), none of them in a reference
cycle. CPython's collector walks every live object at each full collection,
and full collections come more often as the heap grows: on the benchmark's
moons step at 1,000 points they took a quarter of the first call (19.5 s,
14.1 s with the collector off). The pause covers compiling only, never the
user's function being traced, and ends even when compiling raises.

The collector is global to the process: a pause that starts while it is on
turns it back on when the last concurrent compile ends; if it was off (the
user's choice), it stays off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0  # compiles running now, in any thread
_resume = False  # whether the last of them turns the collector back on


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off (if it was on), then as before.

    >>> import gc
    >>> with paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()
