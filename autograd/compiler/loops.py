"""Loop functions as generated code: the one writer every rolled loop goes through.

A run of repeated statements (`compiler.periods` finds runs of graph nodes,
`compiler.reroll` runs of written statements) becomes one generated function,
called once by the program::

    def fwd_loop0(_p0, _p1, _p2):
        _s2 = _p0                          # carried: the value before the loop
        _l0 = []; _a_l0 = _l0.append       # a value kept at every iteration
        for _x0 in _p1[3:1994]:            # a stream: one item an iteration
            _s0 = tanh(_s2)                # the body: one iteration's statements
            _s1 = (_p2 * _s0)
            _s2 = (_s1 + _x0)
            _a_l0(_s0)
        return (_s0, _s1, _s2, _l0, )

Its locals: ``_s{k}``, this iteration's statement k; carried locals, which
start as a parameter and take a statement's value at the end of each
iteration (or are that statement's local, when nothing reads them after it
is set); streams, whose items the ``for`` unpacks; parameters ``_p{n}``, one
per argument expression, the same at every iteration. `Loop` collects these
while its caller places each name of the body, and writes the source once.
The body runs the very statements in the very order, so values keep their bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

Piece = tuple[str, int, int, int] | tuple[str, ...]
"""Part of a stream of cotangents from outside a run: ``(list, first, step, count)`` items of
a loop's list, or ``("", name, ...)`` names."""


class Loop:
    """A loop function being written: its parameters, carried values, streams and body."""

    __slots__ = ("count", "kept", "lines", "name", "params", "post", "pre", "streams")

    def __init__(self, name: str, count: int) -> None:
        self.name = name
        self.count = count  # iterations, when no stream says how many
        self.params: dict[str, str] = {}  # an argument expression -> its parameter
        self.pre: list[str] = []  # lines before the ``for``: carried values' first values
        self.post: list[str] = []  # lines ending an iteration: carried values' next values
        self.streams: dict[object, tuple[str, str]] = {}  # a key -> (local, its items)
        self.lines: list[str] = []  # the body
        self.kept: dict[str, str] = {}  # a list's name -> what each iteration appends

    def param(self, arg: str) -> str:
        """The parameter standing for the argument expression ``arg`` (one per expression)."""
        name = self.params.get(arg)
        if name is None:
            name = self.params[arg] = f"_p{len(self.params)}"
        return name

    def carry(self, local: str, first: str, last: str | None) -> None:
        """A carried ``local``: the argument ``first`` before the loop, ``last`` after each.

        ``last`` None: ``local`` is a statement's own local, which the body sets.
        """
        self.pre.append(f"    {local} = {self.param(first)}")
        if last is not None:
            self.post.append(f"        {local} = {last}")

    def stream(self, key: object, local: str, items: str) -> str:
        """The local holding an iteration's item of ``items`` (once per ``key``)."""
        got = self.streams.get(key)
        if got is None:
            got = self.streams[key] = (local, items)
        return got[0]

    def assign(self, k: int, expr: str) -> None:
        """The body's statement ``k``: ``_s{k} = expr``."""
        self.lines.append(f"        _s{k} = {expr}")

    def keep(self, name: str, value: str) -> None:
        """Keep ``value`` of every iteration in the list ``name``, in order."""
        self.kept[name] = value

    def over(self) -> str:
        """What the ``for`` runs over: its streams' items, zipped, or ``count`` times."""
        iters = list(self.streams.values())
        if not iters:
            return f"_ in range({self.count})"
        if len(iters) == 1:
            return f"{iters[0][0]} in {iters[0][1]}"
        return f"{', '.join(v for v, _ in iters)} in zip({', '.join(e for _, e in iters)})"

    def source(self, returns: Sequence[str]) -> str:
        """``def name(params): ...`` returning ``returns`` (a tuple) after the loop."""
        lists = list(self.kept)
        if not self.pre and not self.post and len(self.lines) == 1 and lists == ["_l0"]:
            value = self.lines[0].split(" = ", 1)[1]  # one statement, kept: a comprehension
            if self.kept["_l0"] == "_s0":
                returned = ["_l0[-1]" if r == "_s0" else r for r in returns]
                return "\n".join(
                    [
                        f"def {self.name}({', '.join(self.params.values())}):",
                        f"    _l0 = [{value} for {self.over()}]",
                        f"    return ({''.join(f'{r}, ' for r in returned)})",
                    ]
                )
        return "\n".join(
            [
                f"def {self.name}({', '.join(self.params.values())}):",
                *self.pre,
                *(f"    {v} = []; _a{v} = {v}.append" for v in lists),
                f"    for {self.over()}:",
                *(self.lines or ["        pass"]),
                *(f"        _a{v}({e})" for v, e in self.kept.items()),
                *self.post,
                f"    return ({''.join(f'{r}, ' for r in returns)})",
            ]
        )


def items(seq: str, first: int, step: int, count: int, length: int | None = None) -> str:
    """The items ``first, first + step, ...`` (``count`` of them) of the sequence ``seq``.

    ``length``, if known, lets a whole sequence or its reverse be read as it is.
    """
    last = first + step * (count - 1)
    if length is not None and count == length:
        if step == 1 and first == 0:
            return seq
        if step == -1 and first == length - 1:
            return f"reversed({seq})"
    if step == 1:
        return f"{seq}[{first}:{first + count}]"
    if step > 0:
        return f"{seq}[{first}:{last + 1}:{step}]"
    return f"{seq}[{first}:{last - 1 if last else ''}:{step}]"


def pieces(seq: list[str | tuple[str, int]]) -> list[Piece] | None:
    """``seq`` (names, and items ``(list, k)`` of loops' lists) as a few pieces, or None.

    Items of one list at steps of 1 or -1 are one piece; names next to each
    other another. More than four pieces, or more than four names (each is a
    parameter of the loop): None.
    """
    pieces: list[Piece] = []
    for v in seq:
        last = pieces[-1] if pieces else None
        if isinstance(v, str):
            if last is not None and last[0] == "":
                pieces[-1] = (*last, v)
            else:
                pieces.append(("", v))
            continue
        values, k = v
        if last is not None and last[0] == values and len(last) == 4:
            _, first, step, count = cast("tuple[str, int, int, int]", last)
            if count == 1 and k - first in (1, -1):
                pieces[-1] = (values, first, k - first, 2)
                continue
            if k == first + step * count:
                pieces[-1] = (values, first, step, count + 1)
                continue
        pieces.append((values, k, 1, 1))
    named = sum(len(p) - 1 for p in pieces if p[0] == "")
    return pieces if len(pieces) <= 4 and named <= 4 else None
