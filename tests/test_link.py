"""`link.Linker._element_returns`: outputs that are items of loops' lists, read as slices."""

from __future__ import annotations

import random
from typing import cast

import pytest

from autograd.compiler.codegen import Program, interleaved
from autograd.compiler.options import Options
from autograd.compiler.stmts import code


@pytest.mark.parametrize("seed", range(300))
def test_element_returns_read_every_output_once_run(seed: int) -> None:
    """Outputs mixing plain names and items of two lists (in runs up or down, in turn, or
    alone, maybe repeated): the statements written and the returns give each its value."""
    rng = random.Random(seed)
    lists = {"g1": [float(i) for i in range(12)], "g2": [100.0 + i for i in range(12)]}
    program = Program([], Options(splice=rng.choice([1, 2, 4])))
    env: dict[str, object] = {**lists, "interleaved": interleaved}
    names: list[str] = []
    want: list[float] = []
    at = (rng.choice(["g1", "g2"]), rng.randrange(12))
    for k in range(rng.randint(0, 30)):
        r = rng.random()
        if r < 0.2:  # a plain name
            name = f"v{k}"
            env[name] = -1.0 - k
        elif r < 0.3 and names:  # an output again
            name = rng.choice(names)
        else:  # the next item of a run (up or down, or the other list), or anywhere
            values, i = at
            step = rng.choice([1, -1, 0]) if r < 0.8 else rng.randrange(-12, 12)
            other = values if step else ("g2" if values == "g1" else "g1")
            at = (other, (i + (step or 1)) % 12)
            name = f"e{at[0]}_{at[1]}"
            program.elements[name] = at
        names.append(name)
    for name in names:
        element = program.elements.get(name)
        want.append(lists[element[0]][element[1]] if element else cast(float, env[name]))
    returns = program._element_returns(names)
    for target, template, _ in program.stmts:
        env[target] = eval(code(template), env)  # generated code, as jit runs it
    got = eval("(" + "".join(code(r) + ", " for r in returns) + ")", env)
    assert list(got) == want
