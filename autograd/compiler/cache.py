"""The trace cache of one jitted function: its compiled entries, least recently used first.

Entries are keyed by the structure of the traced arguments and by the static
and keyword arguments (`compiler.keys`); each jitted function keeps the
`CACHE_SIZE` most recently used. The cache also holds the last call's entry
with a generated check of its argument structure (`compiler.dispatch`): a call
with that structure runs one function, skipping the key and the lookup.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection

from autograd.compiler.dispatch import Fast, fast_path
from autograd.compiler.entries import Entry, flat_outputs

CACHE_SIZE = 128
"""Traces each jitted function keeps, least recently used dropped first (as
``functools.lru_cache``'s default)."""

NO_STATIC: frozenset[int] = frozenset()
"""The static argument positions of a function that has none."""


class Cache:
    """The entries of one jitted function, least recently used first, at most `CACHE_SIZE`."""

    def __init__(self) -> None:
        self.entries: OrderedDict[object, Entry] = OrderedDict()
        self.lock = threading.RLock()  # reentrant: a static argument's __eq__ may call jit
        self.last: tuple[Fast, Entry] | None = None
        """The last call's entry, and a function (`dispatch.fast_path`) that checks the
        arguments have its structure and runs its program: a call with that structure
        skips the key and the lookup. One tuple, set at once."""

    def remember(
        self, shapes: tuple[object, ...], entry: Entry, static: Collection[int] = NO_STATIC
    ) -> None:
        """Make ``entry`` the last one called, for arguments of structure ``shapes``.

        The arguments at ``static`` are static: their shapes are their keys (`static_key`).
        """
        last = self.last
        if (last is not None and last[1] is entry) or entry.program is None or entry.expand:
            return
        if not entry.checked:
            finish = None if entry.finish is flat_outputs else entry.finish
            entry.fast = fast_path(shapes, entry.program, finish, entry.chunk, static)
            entry.checked, entry.chunk = True, None  # compiled: its statements are not needed again
        if entry.fast is not None:
            self.last = (entry.fast, entry)

    def get(self, key: object) -> Entry | None:
        # No lock (a call's fixed cost): each OrderedDict operation is atomic, and an entry
        # another thread dropped in between is still a good entry for this call.
        entry = self.entries.get(key)
        if entry is not None:
            try:  # noqa: SIM105  # contextlib.suppress is two Python calls more per call
                self.entries.move_to_end(key)
            except KeyError:
                pass
        return entry

    def put(self, key: object, entry: Entry) -> Entry:
        """Store ``entry`` as the most recently used, dropping the least if over `CACHE_SIZE`."""
        with self.lock:
            self.entries[key] = entry
            self.entries.move_to_end(key)
            while len(self.entries) > CACHE_SIZE:
                self.entries.popitem(last=False)
        return entry
