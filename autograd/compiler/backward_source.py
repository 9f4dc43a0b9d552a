"""A backward loop function's source, written once its iterations' statements are known.

`backward_loops` sweeps a rolled run's iterations on the loop's locals and
hands each one's statements here (a `Block`): those before the sweep's state
repeats are the prologue, written straight; the repeating ones the ``for``
body. A loop that only keeps one value an iteration is one comprehension.
"""

from __future__ import annotations

from collections.abc import Callable

from autograd.compiler.loops import Loop

State = list[str | None]
"""What one iteration's sweep hands the one before, as loop expressions (None: no
cotangent): per node of an iteration, then per fixed node."""

Block = tuple[list[str], list[str | None], list[str]]
"""One iteration of a backward loop: its statements, its variables' cotangents (appended
to lists after the statements), and the statement setting the carried locals it leaves."""


class Source:
    """A backward loop function being written: its prologue's iterations, then its body's."""

    def __init__(self, loop: Loop, looped: int, variables: int, pre: list[tuple[str, str]]):
        self.loop = loop
        self.looped = looped  # iterations
        self.variables = variables  # variable streams: the first items of each block's kept
        self.pre = pre  # the carried locals' first values
        self.prologue: list[Block] = []
        self.body: list[Block] = []
        self.kept: dict[str, list[str]] = {}  # a list -> what each iteration appends, in turn

    def returns(self, state: State, zero: Callable[[], str]) -> tuple[list[str], list[str | None]]:
        """What the loop returns (its state's values, then its lists), and per variable stream.

        Per variable stream: its iterations' cotangents are None (none), one
        parameter (each), an input stream's item (a product's ``x`` of ``w``),
        or a list the loop keeps.
        """
        blocks = self.prologue + self.body
        lists: list[str | None] = []
        for i in range(self.variables):
            got = list(dict.fromkeys(kept[i] for _, kept, _ in blocks))
            if got == [None]:
                lists.append(None)
            elif len(got) == 1 and str(got[0]).startswith(("_p", "_i")):
                lists.append(got[0])  # one parameter, or an input stream's item: no list
            else:
                name = f"_m{len(self.kept)}"
                self.kept[name] = [kept[i] or zero() for _, kept, _ in blocks]
                lists.append(name)
        values = [v for v in state if v is not None and not v.startswith("_p")]
        return values + list(self.kept), lists

    def write(self, returns: list[str]) -> str:
        """The function's source: carried locals set, the prologue, the body's loop."""
        loop = self.loop
        streams = list(loop.streams.values())
        unpack = ", ".join(v for v, _ in streams)
        zipped = streams[0][1] if len(streams) == 1 else f"zip({', '.join(e for _, e in streams)})"
        lines = [f"def {loop.name}({', '.join(loop.params.values())}):"]
        lines += self._copies(streams)
        listed = self._listed(unpack, zipped)
        if listed is not None:  # the whole loop: one list, built by a comprehension
            return "\n".join([*lines, listed, f"    return ({''.join(f'{r}, ' for r in returns)})"])
        lines += [f"    {c} = {v}" for c, v in self.pre]
        lines += [f"    {v} = []; _a{v} = {v}.append" for v in self.kept]
        nexts = bool(streams) and (bool(self.prologue) or len(self.body) > 1)
        if nexts:
            lines.append(f"    _it = iter({zipped})")
        for k, (block, _, sets) in enumerate(self.prologue):
            lines += [f"    {unpack} = next(_it)"] if streams else []
            lines += [f"    {s}" for s in [*block, *self._appends(k), *sets]]
        if self.body and (any(block or sets for block, _, sets in self.body) or self.kept):
            steps = (self.looped - len(self.prologue)) // len(self.body)
            over = "_it" if nexts else zipped
            lines.append(
                f"    for {unpack} in {over}:" if streams else f"    for _ in range({steps}):"
            )
            for k, (block, _, sets) in enumerate(self.body):
                lines += [f"        {unpack} = next(_it)"] if k and streams else []
                appends = self._appends(len(self.prologue) + k)
                lines += [f"        {s}" for s in [*block, *appends, *sets]]
        lines.append(f"    return ({''.join(f'{r}, ' for r in returns)})")
        return "\n".join(lines)

    def _copies(self, streams: list[tuple[str, str]]) -> list[str]:
        """Statements setting each kept list that is a stream's items, taken from the loop.

        Where every iteration keeps its item of one stream as it is (a product's
        cotangent of one factor is the other), the list is that stream's items,
        in order: `list` makes it at C speed, not an append an iteration.
        """
        if self.pre or self.prologue or len(self.body) != 1:
            return []
        local = dict(streams)
        out = []
        for name, values in list(self.kept.items()):
            if values[0] in local:
                out.append(f"    {name} = list({local[values[0]]})")
                del self.kept[name]
        return out

    def _listed(self, unpack: str, zipped: str) -> str | None:
        """The loop as one comprehension, if it only keeps one value an iteration.

        That is: one list, no carried locals, no prologue, and a body of one
        iteration whose one statement computes the value kept (a ``tanh``'s
        slope times its cotangent): the same expression, evaluated in the same
        order, without the appends.
        """
        if self.pre or self.prologue or len(self.body) != 1 or len(self.kept) != 1 or not unpack:
            return None
        block, _, sets = self.body[0]
        ((name, values),) = self.kept.items()
        if sets or len(block) != 1 or not block[0].startswith(f"{values[0]} = "):
            return None
        expr = block[0][len(values[0]) + 3 :]
        return f"    {name} = [{expr} for {unpack} in {zipped}]"

    def _appends(self, k: int) -> list[str]:
        """Iteration ``k``'s appends to the kept lists."""
        return [f"_a{name}({values[k]})" for name, values in self.kept.items()]


def assign(sets: list[tuple[str, str]]) -> list[str]:
    """One statement setting each local at once (a value may read another local set here)."""
    if not sets:
        return []
    return [f"{', '.join(c for c, _ in sets)} = {', '.join(v for _, v in sets)}"]
