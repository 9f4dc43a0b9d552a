"""Reference counts: whether a node is held by one object only, its one user.

CPython counts every reference, so a node that one field of one user holds
(and nothing else: no second user, no variable, no list) can be reached by
one path only. Graph walks read this to skip their set of nodes seen, and the
first-order sweep to carry a cotangent on its stack instead of in its dict
(NumPy elides temporaries on the same test).
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def _one_holder() -> int:
    """What `refcount` reads for a node one object holds, while a local holds it too.

    That holder, plus the local and the argument of `sys.getrefcount`, as far as
    the interpreter counts them: CPython versions may differ in counting the references of
    locals and arguments, so this is measured on a local nothing else holds, plus one.
    """
    probe = object()  # held by this local only
    return refcount(probe) + 1


if sys.implementation.name == "cpython":
    refcount: Callable[[object], int] = sys.getrefcount
    ONE_HOLDER = _one_holder()
else:  # no reference counts to read: every node counts as held by several
    refcount, ONE_HOLDER = id, -1
"""A node that `refcount` finds at `ONE_HOLDER`, read from a local (a loop's variable, a
rule's name for an input), is held by one object besides: its one user."""
