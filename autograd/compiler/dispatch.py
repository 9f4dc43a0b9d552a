"""A jitted function's per-call fast path: a generated check of one argument structure.

`jit` keys its cache by the structure of the arguments (`keys.shape_of`): a
walk that costs about a microsecond for a dict of two floats, more than the
compiled code it selects. Once a structure has run, `checker` writes a
function for exactly that structure: it tests the containers' exact types,
lengths and (string) keys in order and that every leaf is a ``float``, and
returns the leaves as a fresh list, in `keys.shape_of`'s order; or ``None`` for
anything else, which then takes the general path. It accepts only what the
general path keys the same way, so it selects the same compiled code.

>>> check = checker(((dict, ("w1", "w2"), 2),))
>>> check(({"w1": 2.0, "w2": 3.0},)), check(({"w1": 2.0, "w2": 3},))
([2.0, 3.0], None)

`fast_path` joins that check, the compiled program and the step building the
result into the one function a call runs. When the program is one short
generated function, its statements are written into the check's own body,
reading the arguments' floats where they were found: a call then makes one
Python call instead of three and builds no list of inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from itertools import count
from typing import Final

from autograd.compiler.chunks import Chunk
from autograd.compiler.keys import BITS

Checker = Callable[[tuple[object, ...]], list[float] | None]
"""Arguments to their flat floats, if they have the structure the checker was written for."""

CHECK_UNROLL = 8
"""Containers up to this many items are checked item by item; longer ones in one pass."""

MAX_LINES = 4_000
"""A structure needing more lines than this (thousands of nested containers) gets no check:
compiling it would cost more than the calls it speeds up."""


FUSE_LINES = 400
"""A program of at most this many lines is written into its call's check (`fast_path`);
a longer one runs as its own function (a call costs little next to it, and compiling
it twice would cost much)."""


class _Miss:
    """The type of `MISS`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISS"


MISS: Final = _Miss()
"""What a `fast_path` function returns for arguments of another structure."""

Fast = Callable[[tuple[object, ...]], object]
"""A call's arguments to its result, or `MISS` (`fast_path`)."""


class _Unsupported(Exception):
    """A structure the checker does not write (keys that are not strings, arrays, ...)."""


def checker(shapes: tuple[object, ...]) -> Checker | None:
    """A function recognising arguments of structure ``shapes`` (`keys.shape_of`'s, per argument).

    None if that structure has a part it does not check (a key that is not a
    string, an array, a container `keys.shape_of` does not key).
    """
    written = _check_lines(shapes)
    if written is None:
        return None
    lines, outs, consts, _ = written
    lines.append(f"    return [{', '.join(outs)}]")
    return _compiled("check", lines, consts)  # type: ignore[return-value]  # its lines say so


def fast_path(
    shapes: tuple[object, ...],
    program: Callable[[list[float]], tuple[float, ...]],
    finish: Callable[[tuple[float, ...]], object] | None,
    chunk: Chunk | None = None,
    static: Collection[int] = (),
) -> Fast | None:
    """One function for a call with arguments of structure ``shapes``.

    It returns ``finish(program(floats))`` (``finish`` None: the program's
    result itself), with ``floats`` the arguments' leaves as `checker` finds
    them, or `MISS` for arguments of any other structure. ``chunk``, if
    given, is ``program`` as data (`chunks.Chunk`, reading its inputs from
    ``R``): up to `FUSE_LINES` statements, they become the function's body.
    The arguments at ``static`` must be the very values their shapes key
    (`keys.static_key`): a ``str``, ``int``, ``bool`` or ``None`` equal to
    it, a ``float`` with its bits. None if no check is written for
    ``shapes`` (another kind of static value, say).
    """
    written = _check_lines(shapes, static)
    if written is None:
        return None
    lines, outs, consts, local = written
    lines = [f"        return {_MISS}" if line == _NONE else line for line in lines]
    fused = _fused(lines, outs, consts, local, program, finish, chunk)
    if fused is not None:
        return fused
    lines.append(f"    return {_FIN}({_PROGRAM}([{', '.join(outs)}]))")
    consts[_PROGRAM], consts[_FIN], consts[_MISS] = program, finish or _identity, MISS
    return _compiled("fast", lines, consts)


_NONE = "        return None"
"""A check's line for arguments of another structure (`_test`)."""

_MISS, _FIN, _PROGRAM = "_MISS", "_FIN", "_PROGRAM"
"""Globals of a `fast_path` function: `MISS`, the finish, the program."""


def fusable(chunk: Chunk | None) -> Chunk | None:
    """``chunk`` if it is short enough to be written into a call's check (`FUSE_LINES`)."""
    return chunk if chunk is not None and len(chunk.body) <= FUSE_LINES else None


def _identity(out: tuple[float, ...]) -> object:
    return out


def _fused(
    lines: list[str],
    outs: list[str],
    consts: dict[str, object],
    local: set[str],
    program: Callable[[list[float]], tuple[float, ...]],
    finish: Callable[[tuple[float, ...]], object] | None,
    chunk: Chunk | None,
) -> Fast | None:
    """The check's ``lines`` followed by the statements of ``chunk`` (``program`` as data).

    The chunk's loads of its inputs read the check's names instead (or, if
    ``R`` is read whole, ``R`` is built from them); its return is wrapped in
    ``finish``. None if there is no chunk, it is too long, or it does not
    return (one of several chunks).
    """
    if chunk is None or fusable(chunk) is None or chunk.returns is None or chunk.index != 0:
        return None
    namespace = getattr(program, "__globals__", None)
    if namespace is None:
        return None
    mine = {"args", _MISS, _FIN, *consts, *local}
    if any(name in namespace for name in mine):  # a helper of the program would be shadowed
        return None
    body: list[str] = []
    if chunk.reads_r or any(o.startswith("*") for o in outs):
        body.append(f"    R = [{', '.join(outs)}]")  # R is read as a list: make one
        body += [f"    {r} = {f'R[{at}]' if type(at) is int else at}" for r, at in chunk.loads]
    else:
        for r, at in chunk.loads:
            if type(at) is int and at >= len(outs):  # not one of the inputs: left to R
                return None
            body.append(f"    {r} = {outs[at] if type(at) is int else at}")
    lines += body
    lines += [f"    {line}" for line in chunk.body]
    if chunk.stores:  # a lone chunk stores nothing: it returns
        return None
    lines.append(f"    return {_FIN}({chunk.returns})" if finish else f"    return {chunk.returns}")
    ns = {**namespace, **consts, _MISS: MISS}
    if finish is not None:
        ns[_FIN] = finish
    return _compiled("fast", lines, ns)


def _check_lines(
    shapes: tuple[object, ...], static: Collection[int] = ()
) -> tuple[list[str], list[str], dict[str, object], set[str]] | None:
    """The lines of a check of ``shapes`` (`checker`): they return None for other arguments.

    Also the expressions of the leaves found, the constants the lines read,
    and the local names they set. None if `checker` writes no check for
    ``shapes``. The arguments at ``static`` are static (`fast_path`).
    """
    lines: list[str] = [f"    if len(args) != {len(shapes)}:", _NONE]
    outs: list[str] = []
    names = [f"a{i}" for i in range(len(shapes))]
    if shapes:
        lines.append(f"    {', '.join(names)}, = args")
    counter = count()
    consts: dict[str, object] = {}
    try:
        for i, (name, shape) in enumerate(zip(names, shapes, strict=True)):
            if i in static:
                _static(name, shape, lines, consts, counter)
            else:
                _write(name, shape, lines, outs, counter, consts)
    except _Unsupported:
        return None
    if len(lines) > MAX_LINES:
        return None
    made = next(counter)  # the locals are a0, a1, ... and one name for each count before
    local = {*names, *(f"_{kind}{i}" for kind in "fvskt" for i in range(made))}
    return lines, outs, consts, local


def _compiled(name: str, lines: list[str], namespace: dict[str, object]) -> Fast:
    """``def {name}(args):`` with ``lines`` as its body, compiled in ``namespace``."""
    src = f"def {name}(args):\n" + "\n".join(lines)
    namespace = dict(namespace)
    exec(compile(src, "<autograd.jit argument check>", "exec"), namespace)
    # popped: left in its own globals, the function would make a cycle only the collector frees
    return namespace.pop(name)  # type: ignore[return-value]  # the function just compiled


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


_STATIC_TYPES = (int, bool, type(None))
"""Static values a check compares with ``==`` after their exact type (`keys.static_key`
keys them as ``(type, value)``); a ``str`` is its own key, a ``float`` its bits, a
``tuple`` (or a named tuple) its items' keys."""


def _static(
    e: str, key: object, lines: list[str], consts: dict[str, object], counter: Iterator[int]
) -> None:
    """Check that the static argument named ``e`` is the value keyed ``key``."""
    name = f"_C{len(consts)}"
    if type(key) is str:
        consts[name] = key
        _test(lines, f"type({e}) is str and {e} == {name}")
        return
    if type(key) is not tuple or not key:
        raise _Unsupported(key)
    t = key[0]
    if isinstance(t, type) and issubclass(t, tuple):  # keyed item by item: checked so
        if t.__iter__ is not tuple.__iter__ or t.__len__ is not tuple.__len__:
            raise _Unsupported(key)  # its items might not be what its length says
        consts[name] = t
        items = key[1:]
        _test(lines, f"type({e}) is {name} and len({e}) == {len(items)}")
        xs = [f"_t{next(counter)}" for _ in items]
        if xs:
            lines.append(f"    {', '.join(xs)}, = {e}")
        for x, item in zip(xs, items, strict=True):
            _static(x, item, lines, consts, counter)
        return
    if len(key) != 2:
        raise _Unsupported(key)
    t, value = key
    if t is float:  # by bits: -0.0 is not 0.0, and a nan is itself
        consts[name], consts["_BITS"] = value, BITS.pack
        _test(lines, f"type({e}) is float and _BITS({e}) == {name}")
        return
    if t not in _STATIC_TYPES:
        raise _Unsupported(key)
    consts[name], consts[f"_T{name}"] = value, t
    _test(lines, f"type({e}) is _T{name} and {e} == {name}")


def _floats(items: str, n: int, lines: list[str], outs: list[str], counter: Iterator[int]) -> None:
    """Check that the ``n`` values ``items`` iterates (length checked) are floats: leaves."""
    if n <= CHECK_UNROLL:
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
    if len(keys) <= CHECK_UNROLL:
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
    lines.append(_NONE)
