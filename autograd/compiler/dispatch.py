"""A jitted function's per-call fast path: a generated check of one argument structure.

`jit` keys its cache by the structure of the arguments (`jit._shape`): a
walk that costs about a microsecond for a dict of two floats, more than the
compiled code it selects. Once a structure has run, `checker` writes a
function for exactly that structure: it tests the containers' exact types,
lengths and (string) keys in order and that every leaf is a ``float``, and
returns the leaves as a fresh list, in `jit._shape`'s order; or ``None`` for
anything else, which then takes the general path. It accepts only what the
general path keys the same way, so it selects the same compiled code.

>>> check = checker(((dict, ("w1", "w2"), 2),))
>>> check(({"w1": 2.0, "w2": 3.0},)), check(({"w1": 2.0, "w2": 3},))
([2.0, 3.0], None)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import count

Checker = Callable[[tuple[object, ...]], list[float] | None]
"""Arguments to their flat floats, if they have the structure the checker was written for."""

UNROLL = 8
"""Containers up to this many items are checked item by item; longer ones in one pass."""

MAX_LINES = 4_000
"""A structure needing more lines than this (thousands of nested containers) gets no check:
compiling it would cost more than the calls it speeds up."""


class _Unsupported(Exception):
    """A structure the checker does not write (keys that are not strings, arrays, ...)."""


def checker(shapes: tuple[object, ...]) -> Checker | None:
    """A function recognising arguments of structure ``shapes`` (`jit._shape`'s, per argument).

    None if that structure has a part it does not check (a key that is not a
    string, an array, a container `jit._shape` does not key).
    """
    lines: list[str] = [f"    if len(args) != {len(shapes)}:", "        return None"]
    outs: list[str] = []
    names = [f"a{i}" for i in range(len(shapes))]
    if shapes:
        lines.append(f"    {', '.join(names)}, = args")
    counter = count()
    consts: dict[str, object] = {}
    try:
        for name, shape in zip(names, shapes, strict=True):
            _write(name, shape, lines, outs, counter, consts)
    except _Unsupported:
        return None
    if len(lines) > MAX_LINES:
        return None
    lines.append(f"    return [{', '.join(outs)}]")
    src = "def check(args):\n" + "\n".join(lines)
    namespace: dict[str, object] = dict(consts)
    exec(compile(src, "<autograd.jit argument check>", "exec"), namespace)
    # popped: left in its own globals, the function would make a cycle only the collector frees
    return namespace.pop("check")  # type: ignore[return-value]  # the function just compiled


def _write(
    e: str,
    shape: object,
    lines: list[str],
    outs: list[str],
    counter: Iterator[int],
    consts: dict[str, object],
) -> None:
    """Lines checking that the value named ``e`` has ``shape``; its leaves added to ``outs``."""
    if shape is float:
        _test(lines, f"type({e}) is float")
        outs.append(e)
        return
    if type(shape) is not tuple or not shape:
        raise _Unsupported(shape)
    t = shape[0]
    if t is list or t is tuple:
        items = shape[1:]
        if len(items) == 1 and type(items[0]) is int:  # all floats: their number
            _test(lines, f"type({e}) is {t.__name__} and len({e}) == {items[0]}")
            _floats(e, items[0], lines, outs, counter)
            return
        if all(item is float for item in items):  # an int among them: floats key apart
            raise _Unsupported(shape)
        _test(lines, f"type({e}) is {t.__name__} and len({e}) == {len(items)}")
        for i, item in enumerate(items):
            _write(_fresh(e, i, lines, counter), item, lines, outs, counter, consts)
        return
    if t is dict:
        keys = shape[1]
        if type(keys) is not tuple or any(type(k) is not str for k in keys):
            raise _Unsupported(keys)
        values = shape[2:]
        if values and all(value is float for value in values):  # as for a list
            raise _Unsupported(shape)
        _test(lines, f"type({e}) is dict and len({e}) == {len(keys)}")
        _keys(e, keys, lines, counter, consts)
        if len(values) == 1 and type(values[0]) is int:  # all floats: their number
            _floats(f"{e}.values()", len(keys), lines, outs, counter)
            return
        for k, value in zip(keys, values, strict=True):
            v = f"_v{next(counter)}"
            lines.append(f"    {v} = {e}[{k!r}]")
            _write(v, value, lines, outs, counter, consts)
        return
    raise _Unsupported(shape)


def _floats(items: str, n: int, lines: list[str], outs: list[str], counter: Iterator[int]) -> None:
    """Check that the ``n`` values ``items`` iterates (length checked) are floats: leaves."""
    if n <= UNROLL:
        xs = [f"_f{next(counter)}" for _ in range(n)]
        if xs:
            lines.append(f"    {', '.join(xs)}, = {items}")
            _test(lines, " and ".join(f"type({x}) is float" for x in xs))
        outs.extend(xs)
        return
    _test(lines, f"list(map(type, {items})).count(float) == {n}")
    outs.append(f"*{items}")


def _keys(
    e: str,
    keys: tuple[str, ...],
    lines: list[str],
    counter: Iterator[int],
    consts: dict[str, object],
) -> None:
    """Check that dict ``e`` has exactly ``keys`` in this order, each a ``str``."""
    if not keys:
        return
    if len(keys) <= UNROLL:
        ks = [f"_k{next(counter)}" for _ in keys]
        lines.append(f"    {', '.join(ks)}, = {e}")
        _test(
            lines,
            " and ".join(
                f"type({x}) is str and {x} == {k!r}" for x, k in zip(ks, keys, strict=True)
            ),
        )
        return
    name = f"_K{len(consts)}"
    consts[name] = keys
    _test(lines, f"list(map(type, {e})).count(str) == {len(keys)} and tuple({e}) == {name}")


def _fresh(e: str, i: int, lines: list[str], counter: Iterator[int]) -> str:
    """A local holding item ``i`` of sequence ``e``."""
    x = f"_s{next(counter)}"
    lines.append(f"    {x} = {e}[{i}]")
    return x


def _test(lines: list[str], cond: str) -> None:
    lines.append(f"    if not ({cond}):")
    lines.append("        return None")
