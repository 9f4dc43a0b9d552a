"""`equations.walk`: the one walk of a traced graph, each equation keyed, code written per key."""

from __future__ import annotations

import random
import struct
from typing import cast

import pytest

import autograd as ag
from autograd.compiler import equations
from autograd.compiler.codegen import Program
from autograd.compiler.options import Options
from autograd.compiler.stmts import fields
from autograd.core.nodes import PLAIN, Const, Leaf, Node, Op, eager_kind
from autograd.expr import evaluate
from autograd.programs import random_program
from autograd.walks import toposort


def bits(v: float) -> bytes:
    return struct.pack("<d", v)


def _traced(seed: int) -> tuple[list[Node], list[Node], Node]:
    """A random program built on fresh variables, half of them plain numbers."""
    rng = random.Random(seed)
    program = random_program(rng, max_nodes=14, hessian=False)
    names = list(program.inputs)
    leaves: list[Node] = [Leaf(program.inputs[n]) for n in names]
    plain = [x for x in leaves if rng.random() < 0.5]
    out = evaluate(program.expr, dict(zip(names, leaves, strict=True)))
    return leaves, plain, out if isinstance(out, Node) else Leaf(0.0)


@pytest.mark.parametrize("seed", range(300))
def test_each_key_is_what_its_inputs_and_kinds_give(seed: int) -> None:
    """The walk's keys, found through a cache of signatures, against two oracles.

    Each equation's key is computed again from its atoms alone (`equations._key`:
    names and bits, no node identity, no cache), and each plain flag from the
    eager kind walked from scratch (`eager_kind`).
    """
    inputs, plain, out = _traced(seed)
    floats: set[Node] = set()
    walk = equations.walk(inputs, [out], frozenset(plain), floats)
    _, eqns, names = equations.equations_of(walk, inputs, frozenset(plain))
    for (node, _), e in zip(walk.order, eqns, strict=True):
        again = equations._key(e.prim, e.outs[0].plain, e.ins, equations._bits(e.params))
        assert e.key == again
        assert (node in floats) == (eager_kind(node, frozenset(plain), {}) == PLAIN)
        assert names[node] is e.outs[0]
    assert len(walk.order) == sum(1 for _, ins in toposort(out, stop=inputs) if ins)


@pytest.mark.parametrize("seed", range(100))
def test_equations_with_one_key_have_one_structure(seed: int) -> None:
    """A key stands for everything an equation's code depends on but its names: its
    class and static fields, each input's bits if a constant or plain-ness if not, and
    which inputs are one node. Code is written once per key, so no key may hold two."""
    inputs, plain, out = _traced(seed)
    floats: set[Node] = set()
    walk = equations.walk(inputs, [out], frozenset(plain), floats)
    by_form: dict[int, set[tuple[object, ...]]] = {}
    for (node, ins), form in zip(walk.order, walk.forms, strict=True):
        seen: list[Node] = []
        roles: list[object] = []
        for x in ins:
            if type(x) is Const:
                roles.append(bits(x.value))
                continue
            i = next((j for j, y in enumerate(seen) if y is x), len(seen))
            if i == len(seen):
                seen.append(x)
            roles.append((i, x in floats or x in plain))
        op = cast(Op, node)
        statics = equations._bits(equations._params(op, op.static_fields))
        by_form.setdefault(form, set()).add((type(node), node in floats, tuple(roles), statics))
    assert all(len(shapes) == 1 for shapes in by_form.values())


def _plain_chain(x: ag.Scalar, n: ag.Scalar, steps: int, at: int) -> ag.Scalar:
    """A chain of ``x``, and one of the plain number ``n``, one of whose values is compared."""
    compared = n
    for i in range(steps):
        x = ag.tanh(0.9 * x + 0.1)
        n = ag.tanh(0.5 * n + 0.2)
        if i == at:
            compared = n
    return ag.where(ag.lt(compared, 0.0), x, -x) + n


@pytest.mark.parametrize("at", [-1, 1500])
def test_a_program_with_guards_rolls_its_runs(at: int) -> None:
    """Guards are checked after the walk, so their program's runs roll too; a value a
    guard compares is read by name, so no loop computes it."""

    def f(x: ag.Scalar, n: ag.Scalar) -> ag.Scalar:
        return _plain_chain(x, n, 3000, at)

    jitted = ag.jit(ag.value_and_grad(f), options=Options(loops_from=500))
    lowered = jitted.lower(0.3, 0.7)
    assert "fwd_loop" in lowered.source
    assert "bwd_loop" in lowered.source
    assert "guard" in lowered.as_text()
    for n in (0.7, -0.7, 0.7):  # the guard goes the other way, and back
        got = jitted(0.3, n)
        want = ag.value_and_grad(f)(0.3, n)
        assert [bits(v) for v in got] == [bits(v) for v in want]


@pytest.mark.parametrize("seed", range(100))
def test_each_statement_reads_its_names_once(seed: int) -> None:
    """A statement's uses are the names its template reads, each once (`stmts`), also
    where two slots hold one name: a node and its alias (``x * 1.0`` is ``x``)."""
    inputs, plain, out = _traced(seed)
    x = Leaf(0.3)
    alias = x * 1.0  # named as its input: ``alias + x`` reads one name twice
    out = ag.tanh(alias + x) * alias + out * alias
    program = Program([*inputs, x], Options(), plain)
    program.forward([out])
    assert any(len(fields(template)) > len(uses) for _, template, uses in program.stmts)
    for _, template, uses in program.stmts:
        assert sorted(uses) == sorted(set(fields(template)))
