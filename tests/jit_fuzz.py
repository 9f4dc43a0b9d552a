"""Random programs run eagerly and under `jit`, compared bit for bit.

A case is a random function of random pytree arguments: a straight-line
program over a register file that starts with the arguments' leaves, whose
output is a random pytree of registers (so outputs are often inputs,
constants, plain floats, or the same node twice), under a random transform
(none, `grad` or `value_and_grad`, random ``argnums``, with or without
``has_aux``). Each case is called twice through one `jit` wrapper, the second
time with new values, so a value frozen into the compiled code shows up.

Used by tests/test_jit_fuzz.py, and as a script for long runs::

    python tests/jit_fuzz.py --count 10000 --seed 0 [--chunk 3]
    python tests/jit_fuzz.py --count 2000 --reroll [--depth | --points --long]
    python tests/jit_fuzz.py --count 2000 --periods [--points] [--sink] [--settle 0]
    python tests/jit_fuzz.py --count 2000 --periods --depth --wide
    python tests/jit_fuzz.py --count 2000 --periods [--traced] [--settle 0]

prints how many cases agreed, disagreed and were skipped (the eager call
raised a Python exception, as ``0.0 ** -1.0`` on two plain floats does).
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any, cast

import attrs

import autograd as ag
from autograd.compiler.options import DEFAULT, Options
from autograd.core.functions import BINARY_FUNCTIONS, FUNCTIONS
from autograd.core.nodes import Scalar

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 3.0, math.inf, -math.inf, math.nan, 1e300, 5e-324]
EXPONENTS = [0.0, 1.0, 2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.5]
UNARY: list[Callable[[Scalar], Scalar]] = [*FUNCTIONS.values(), lambda a: -a]  # every op
BINARY: list[Callable[[Scalar, Scalar], Scalar]] = [
    lambda a, b: a + b,
    lambda a, b: a - b,
    lambda a, b: a * b,
    lambda a, b: a / b,
    lambda a, b: a**b,
    lambda a, b: ag.where(ag.lt(a, b), a * b, a - b),  # a choice compiled as a test
    lambda a, b: ag.where(ag.ge(a, b), a * b, a - b),  # the same but for the comparison
    lambda a, b: ag.where(ag.eq(a, 0.0), b, ag.log(a)),  # the unselected branch is nan-prone
    *BINARY_FUNCTIONS.values(),  # arctan2, hypot, maximum, minimum: from their definitions
]
# erased: a random case's argnums and has_aux are only known at run time
_TRANSFORMS: dict[str, Callable[..., Callable[..., object]]] = {
    "grad": ag.grad,
    "value_and_grad": ag.value_and_grad,
}
Tree = object  # a pytree: floats, ("r", i) register references, lists, tuples, dicts
Instr = tuple[object, ...]


@attrs.frozen
class Case:
    """One random function, its arguments for two calls, and the transform to jit."""

    seed: int
    args: tuple[Tree, ...]
    args2: tuple[Tree, ...]
    program: tuple[Instr, ...]
    out: Tree  # for a transform, the scalar's register; its aux pytree is ``aux``
    aux: Tree
    transform: str  # "none", "grad" or "value_and_grad"
    argnums: int | tuple[int, ...]
    has_aux: bool
    sequence: bool = False  # the last argument is a sequence loops read (`_over_sequence`)

    def function(self) -> Callable[..., object]:
        """The case as a Python function of its arguments."""

        def fn(*args: object) -> object:
            sequence = _leaves(args[-1]) if self.sequence else []  # read by STEP operands alone
            regs: list[Scalar] = _leaves(args[:-1] if self.sequence else args)
            for ins in self.program:
                if ins[0] in ("l", "m"):  # ("l", reps, body): operands < 0 count from the end
                    ends: list[Scalar] = []
                    for q in range(cast(int, ins[1])):
                        item = None  # ("l", reps, body, first, step): item first + step * q
                        if len(ins) == 5:
                            item = sequence[cast(int, ins[3]) + cast(int, ins[4]) * q]
                        for body_ins in cast("tuple[Instr, ...]", ins[2]):
                            regs.append(_step(body_ins, regs, item))
                        ends.append(regs[-1])
                    if ins[0] == "m":  # ("m", reps, body, how): the iterations' ends reduced
                        regs.append(ag.sum(ends) if ins[3] == "sum" else ag.mean(ends))
                else:
                    regs.append(_step(ins, regs, None, sequence))
            out = _build(self.out, regs)
            return (out, _build(self.aux, regs)) if self.has_aux else out

        return fn

    def transformed(self) -> Callable[..., object]:
        """The case's function under its transform (not yet jitted)."""
        fn = self.function()
        if self.transform == "none":
            return fn
        make = _TRANSFORMS[self.transform]
        if SECOND:  # differentiated twice: the sweep jit writes reads the traced sweep's nodes
            fn = _first_derivative(fn, self.argnums, self.has_aux)
        made = make(fn, argnums=self.argnums, has_aux=self.has_aux)
        if TRACED:  # a plain function to jit: the sweep is traced as nodes, read in reverse
            return lambda *args: made(*args)
        return made


def _first_derivative(
    fn: Callable[..., object], argnums: int | tuple[int, ...], has_aux: bool
) -> Callable[..., object]:
    """A scalar of ``fn``'s gradient (`SECOND`): ``sum(g * g + g)`` over its leaves, and the aux.

    Differentiated again under `jit`, the trace holds the first sweep as nodes
    (a chain's sweep reads the chain's values last first), and the compiled
    sweep reads them.
    """
    first = _TRANSFORMS["value_and_grad"](fn, argnums=argnums, has_aux=has_aux)

    def scalar(*args: object) -> object:
        value, grads = cast("tuple[object, object]", first(*args))
        aux = None
        if has_aux:  # ((value, aux), grads)
            value, aux = cast("tuple[object, object]", value)
        total = ag.sum([g * g + g for g in _leaves(grads)]) + cast(Scalar, value) * 0.5
        return (total, aux) if has_aux else total

    return scalar


def make_case(seed: int) -> Case:
    """A random case, the same for the same seed (on every Python hash seed)."""
    rng = random.Random(seed)
    nargs = rng.randint(1, 3)
    args = tuple(_tree(rng, rng.randint(0, 2)) for _ in range(nargs))
    if PERIODS:  # a last argument: a sequence, which loops read an item an iteration
        args = (*args, [rng.uniform(-2.0, 2.0) for _ in range(SEQUENCE)])
    args2 = tuple(_refill(rng, a) for a in args)
    n = len(_leaves(args[:-1] if PERIODS else args))  # the sequence is not in the registers
    program: list[Instr] = []
    size = n
    wide: list[int] = []  # the registers of `_wide` sums (`--wide`)
    sizes = [size]  # registers after each instruction
    for _ in range(rng.randint(0, 10)):
        if rng.random() < (0.5 if PERIODS else 0.15):  # a loop, which `reroll` makes a loop again
            ins, size = _loop(rng, size, program[-1] if program else None)
            if PERIODS and rng.random() < 0.5:  # each iteration reads its own item
                ins = _over_sequence(rng, ins)
            if POINTS and len(ins) == 3 and rng.random() < 0.5:  # a loss over points: a sum
                ins, size = ("m", ins[1], ins[2], rng.choice(["sum", "mean"])), size + 1
        elif rng.random() < (0.3 if WIDE else 0.1) and size >= 4:  # a sum of many: a tree
            k = rng.randint(4, min(size, 40))  # rolled level by level
            if WIDE and PERIODS and rng.random() < 0.3:
                ins = _states(rng, size)
                wide.append(size)
            elif WIDE and rng.random() < 0.7:
                ins = _wide(rng, size, n, k)
                wide.append(size)
            elif rng.random() < 0.5:
                ins = ("t", k, rng.choice(["sum", "dot"]))
            else:
                ins = ("t", rng.randint(4, 70), "same", rng.randrange(size), rng.randrange(size))
            size += 1
        else:
            ins, size = _instr(rng, size), size + 1
        program.append(ins)
        sizes.append(size)
    if WIDE and PERIODS and rng.random() < 0.3:  # an RNN's states summed, and little else
        program = [*program[:2], _states(rng, n)]
        size = sizes[min(len(sizes) - 1, 2)] + 1
        wide = [size - 1]
    transform = rng.choice(["none", "grad", "value_and_grad"])
    single = rng.random() < 0.5
    argnums: int | tuple[int, ...] = (
        rng.randrange(nargs) if single else tuple(rng.sample(range(nargs), rng.randint(1, nargs)))
    )
    if PERIODS and rng.random() < (1.0 if REREAD else 0.2):  # the sequence differentiated
        argnums = (*(argnums if isinstance(argnums, tuple) else (argnums,)), nargs)
    has_aux = transform != "none" and rng.random() < 0.4
    if transform == "none":
        out = _out_tree(rng, size, rng.randint(0, 2))
        aux: Tree = None
    else:
        out = ("r", rng.randrange(size)) if rng.random() < 0.9 else rng.choice(SPECIAL)
        if PERIODS and rng.random() < 0.5:  # the last register: the loops before it feed it
            out = ("r", size - 1)
        if wide and rng.random() < 0.7:  # a wide sum: its runs swept in depth order
            out = ("r", rng.choice(wide))
        aux = _out_tree(rng, size, rng.randint(0, 2)) if has_aux else None
    return Case(seed, args, args2, tuple(program), out, aux, transform, argnums, has_aux, PERIODS)


def _wide(rng: random.Random, size: int, leaves: int, k: int) -> Instr:
    """``("w", k, layers, how, first, step)``: a sum or mean of k terms, each a few ops on
    one item: of the sequence, ``first + step * i`` (with `PERIODS`, mostly), or of the
    last k registers (``first`` None). By depth, each op is a run reading the run before,
    an item each.

    The first ``leaves`` registers are the arguments'. A layer is ``("u", op)``,
    ``("c", factor)``, ``("b", op, register)`` (a register every term reads), or
    ``("i", op)`` (the term's own item read again).
    """
    layers: list[Instr] = []
    if leaves and rng.random() < 0.6:  # each item meets an argument's leaf first
        layers.append(("b", rng.randrange(5), rng.randrange(leaves)))
    layers += [_layer(rng, size) for _ in range(rng.randint(1, 3))]
    how = rng.choice(["sum", "mean"])
    if not PERIODS or rng.random() < 0.3:
        return ("w", k, tuple(layers), how, None, 1)
    k = rng.randint(4, SEQUENCE // 2)
    step = rng.choice([1, 1, 2, -1])
    first = rng.randrange(SEQUENCE - step * (k - 1)) if step > 0 else SEQUENCE - 1
    return ("w", k, tuple(layers), how, first, step)


def _layer(rng: random.Random, size: int) -> Instr:
    """One op of a `_wide` term, at random."""
    kind = rng.choice("uiicbi" if REREAD else "uuucbi")
    if kind == "u":
        return ("u", rng.randrange(len(UNARY)))
    if kind == "c":
        return ("c", rng.choice([-0.0, 0.5, 2.0, 3.0]))
    if kind == "b":
        return ("b", rng.randrange(5), rng.randrange(size))
    return ("i", rng.randrange(5))


def _states(rng: random.Random, size: int) -> Instr:
    """``("z", k, step, terms, start, first, stride, last)``: a sum over an RNN's states.

    From register ``start``, k states, each the last one through ``step``'s
    layers (an ``("i", op)`` layer reads the sequence's item ``first + stride *
    i``); then a sum of each state through ``terms``'s layers, plus the last
    state if ``last`` says (``"first"``: ``p + total``, ``"after"``). Traced depth
    first, the sum's additions fall between the states (`orders.sink` moves
    them); with ``"first"`` the states come first, and the terms read them as
    an earlier run's values.
    """

    def layers(count: int) -> list[Instr]:
        return [_layer(rng, size) for _ in range(count)]

    stride = rng.choice([1, 1, -1, 2])
    k = rng.randint(8, SEQUENCE // abs(stride))
    first = rng.randrange(SEQUENCE - stride * (k - 1)) if stride > 0 else SEQUENCE - 1
    step = (("i", rng.randrange(5)), *layers(rng.randint(0, 2)))
    terms = tuple(layers(rng.randint(1, 2)))
    last = rng.choice([None, "first", "after"])
    return ("z", k, step, terms, rng.randrange(size), first, stride, last)


def _term(
    layers: tuple[Instr, ...], item: Scalar, regs: list[Scalar], read: Scalar | None = None
) -> Scalar:
    """One term of a `_wide` instruction: its layers applied to ``item`` (``("i", op)``
    reads ``read``, else ``item`` again)."""
    v = item
    read = item if read is None else read
    for layer in layers:
        match layer:
            case ("u", int(u)):
                v = UNARY[u](v)
            case ("c", float(c)):
                v = v * c
            case ("b", int(b), int(j)):
                v = BINARY[b](v, regs[j])
            case ("i", int(b)):
                v = BINARY[b](v, read)
            case _:
                raise AssertionError(layer)
    return v


SKIPPED = "skipped"

SECOND = False
"""Differentiate each case twice (`--second`): the function jit's transform differentiates
is a scalar of the case's gradient (`_first_derivative`), so the compiled graph holds a
sweep as nodes, whose runs read the forward's runs backwards, and jit sweeps it again (what
`jit(grad(grad(f)))` compiles). Off by default."""

TRACED = False
"""Jit each transformed function as a plain one (`--traced`): the transform runs inside
the trace, so the compiled graph holds its sweep as nodes, runs reading earlier runs
backwards (what `jit(hessian)` compiles). Off by default."""

WIDE = False
"""Make most sums of many a sum of terms, each a few ops on one item (`--wide`): in depth
order, runs reading earlier runs' values, an item each; with `PERIODS`, some a sum over an
RNN's states (`_states`). Off by default, as `POINTS` is."""

POINTS = False
"""Make half the loops sums over their iterations, as a loss over data points is
(`--points`): a balanced sum whose additions `orders.sink` moves after the points.
Off by default, so the default cases stay what they were for each seed."""


REREAD = False
"""Differentiate the sequence in every case, and make `_wide`'s terms read their item again
more often (`--reread`): by depth, an input each term reads at two depths is read by two
runs, whose backward loops add to its cotangent in turn (`BackwardLoops._prior`). Off by
default, as `POINTS` is."""


OPTIONS: Options = DEFAULT
"""The compiler's options every case is jitted with (the flags of `main`)."""

PERIODS = False
"""Loops of 8 to 16 iterations, and `compiler.periods` rolling every run of nodes it
finds, however small (`--periods`). Off by default, as `POINTS` is."""


def check(case: Case) -> str | None:
    """None if `jit` agrees with eager bit for bit on both calls, `SKIPPED`, or why not.

    A case is skipped when the eager call raises or returns a complex number:
    Python's own float operators do that where IEEE (and so compiled code)
    gives ``inf`` or ``nan``.
    """
    jitted = ag.jit(case.transformed(), options=OPTIONS)
    eager = case.transformed()
    for args in (case.args, case.args2):
        try:
            want = eager(*args)
        except (ArithmeticError, ValueError, TypeError):
            return SKIPPED
        if "complex" in repr(bits(want)):  # Python's float ** gave a complex number
            return SKIPPED
        got = jitted(*args)
        if bits(got) != bits(want):
            return f"case {case.seed}: eager {want!r}, jit {got!r} on {args!r}"
    return None


def bits(x: object) -> object:
    """Bitwise identity of a result tree, with every nan alike and containers by type."""
    if type(x) is float:
        return "nan" if math.isnan(x) else struct.pack("<d", x)
    if isinstance(x, list | tuple):
        return (type(x).__name__, [bits(v) for v in x])
    if isinstance(x, dict):
        return ("dict", [(k, bits(v)) for k, v in x.items()])
    return ("other", type(x).__name__, repr(x))  # a node or anything else: never equal to a float


# ---- building blocks ---------------------------------------------------------------------


def _value(rng: random.Random) -> float:
    r = rng.random()
    if r < 0.6:
        return rng.choice(SPECIAL)
    if r < 0.8:
        return rng.uniform(-3.0, 3.0)
    value: float = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
    return value  # any bit pattern: subnormals, nan payloads, huge magnitudes


def _tree(rng: random.Random, depth: int) -> Tree:
    if depth == 0 or rng.random() < 0.3:
        return _value(rng)
    kids = [_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    kind = rng.choice(["list", "tuple", "dict"])
    if kind == "list":
        return kids
    if kind == "tuple":
        return tuple(kids)
    return {f"k{i}": k for i, k in enumerate(reversed(kids))}  # keys not in sorted order


def _refill(rng: random.Random, tree: Tree) -> Tree:
    """The same structure with new leaf values."""
    if isinstance(tree, float):
        return _value(rng)
    if isinstance(tree, list):
        return [_refill(rng, v) for v in tree]
    if isinstance(tree, tuple):
        return tuple(_refill(rng, v) for v in tree)
    return {k: _refill(rng, v) for k, v in cast("dict[str, Tree]", tree).items()}


def _instr(rng: random.Random, size: int, pick: Callable[[], int] | None = None) -> Instr:
    """A random instruction on registers ``pick()`` (default: any of the ``size`` so far)."""
    reg = pick or (lambda: rng.randrange(size))
    kind = rng.choice("uubbbpcs")
    i = reg()
    if kind == "u":
        return ("u", rng.randrange(len(UNARY)), i)
    if kind == "b":
        return ("b", rng.randrange(len(BINARY)), i, reg())
    if kind == "p":
        return ("p", rng.choice(EXPONENTS), i)
    if kind == "c":
        return ("c", rng.choice([-0.0, 0.5, math.inf, 2.0, 3.0]), i)
    return ("s", i, reg(), reg())


def _loop(rng: random.Random, size: int, before: Instr | None) -> tuple[Instr, int]:
    """``("l", reps, body)`` and the register count after it.

    Body operands are mostly counted from the end (negative): this iteration's
    registers, the previous iteration's (a carried value; the first iteration
    reads registers before the loop), two iterations back (no loop can carry
    that: `reroll` must refuse or split it), or, after a loop of the same
    shape, that loop's registers in step (a run read as a list). The rest
    are fixed registers.
    """
    twin = False
    if before is not None and before[0] == "l" and rng.random() < 0.5:
        twin = True
        reps, period = cast(int, before[1]), len(cast("tuple[Instr, ...]", before[2]))
    else:
        reps, period = rng.randint(8, 16) if PERIODS else rng.randint(2, 6), rng.randint(1, 4)
    body: list[Instr] = []
    for b in range(period):
        pick = functools.partial(_body_operand, rng, size, b, period, reps if twin else 0)
        body.append(_instr(rng, size, pick))
    return ("l", reps, tuple(body)), size + reps * period


SEQUENCE = 48
"""Length of the sequence argument cases have with `PERIODS`."""

STEP = 1 << 40
"""A body operand standing for the sequence's item at the iteration (`_over_sequence`)."""


def _over_sequence(rng: random.Random, loop: Instr) -> Instr:
    """``loop`` reading, in some operands, one item of the sequence an iteration.

    ``("l", reps, body, first, step)``: iteration q reads the sequence's item
    ``first + step * q`` (the case's last argument) where an operand is `STEP`.
    """
    reps = cast(int, loop[1])
    step = rng.choice([1, 2, -1, 3])
    if step > 0:
        first = rng.randrange(SEQUENCE - step * (reps - 1))
    else:
        first = SEQUENCE - 1 - rng.randrange(SEQUENCE + step * (reps - 1))
    body = []
    # half the loops read the item once an iteration: a differentiated one's cotangent is
    # then the loop's alone (kept in a list), not a sum of the body's parts
    once, read = rng.random() < 0.5, False
    for ins in cast("tuple[Instr, ...]", loop[2]):
        parts = list(ins)
        # one operand of a binary op or a three-operand one: the other one is mostly the
        # loop's own value, so this one's plain number meets a node (no guard in between)
        if parts[0] in ("b", "s") and not (once and read) and rng.random() < 0.7:
            parts[rng.randrange(len(parts) - 2, len(parts))] = STEP
            read = True
        body.append(tuple(parts))
    return ("l", reps, tuple(body), first, step)


def _body_operand(rng: random.Random, size: int, b: int, period: int, twin_reps: int) -> int:
    """A register for body instruction ``b`` of a loop (`_loop` says which kinds)."""
    have = size + b  # registers when the first iteration runs this instruction
    r = rng.random()
    if r < 0.5:
        return -rng.randint(1, min(have, b + period))
    if r < 0.6:
        return -rng.randint(1, min(have, b + 2 * period))
    if twin_reps and r < 0.8:
        return -(twin_reps * period)  # the same slot of the loop before, same iteration
    return rng.randrange(size)


def _out_tree(rng: random.Random, size: int, depth: int) -> Tree:
    if depth == 0 or rng.random() < 0.3:
        return ("r", rng.randrange(size)) if rng.random() < 0.85 else rng.choice(SPECIAL)
    kids = [_out_tree(rng, size, depth - 1) for _ in range(rng.randint(1, 3))]
    kind = rng.choice(["list", "tuple", "dict"])
    if kind == "list":
        return kids
    if kind == "tuple":
        return ("t", *kids)
    return {f"o{i}": k for i, k in enumerate(kids)}


def _step(
    ins: Instr, regs: list[Scalar], item: Scalar | None = None, sequence: Sequence[Scalar] = ()
) -> Scalar:
    """One instruction's value; ``item``: what operand `STEP` reads, in a loop over a sequence;
    ``sequence``: what `_wide` terms may read."""

    def r(i: int) -> Scalar:
        return regs[i] if i != STEP or item is None else item

    match ins:
        case ("u", int(k), int(i)):
            return UNARY[k](r(i))
        case ("b", int(k), int(i), int(j)):
            return BINARY[k](r(i), r(j))
        case ("p", float(c), int(i)):
            return r(i) ** c
        case ("c", float(c), int(i)):
            return r(i) * c
        case ("s", int(i), int(j), int(k)):
            return ag.mean([r(i), r(j), r(k)]) + ag.dot([r(i)], [r(k)])
        case ("t", int(k), "sum"):  # a balanced tree over the last k: levels `reroll` rolls
            return ag.sum(regs[-k:])
        case ("t", int(k), "dot"):
            return ag.dot(regs[-k:], regs[-2 * k : -k] if 2 * k <= len(regs) else regs[-k:])
        case ("w", int(k), tuple(layers), str(how), first, int(step)):  # k terms of few ops
            xs = (
                regs[-k:]
                if first is None
                else [sequence[cast(int, first) + step * i] for i in range(k)]
            )
            terms = [_term(cast("tuple[Instr, ...]", layers), x, regs) for x in xs]
            return ag.sum(terms) if how == "sum" else ag.mean(terms)
        case ("z", int(k), tuple(step), tuple(terms), int(start), int(first), int(stride), last):
            p, states = regs[start], []
            for i in range(k):
                p = _term(cast("tuple[Instr, ...]", step), p, regs, sequence[first + stride * i])
                states.append(p)
            total = ag.sum([_term(cast("tuple[Instr, ...]", terms), q, regs) for q in states])
            return total if last is None else p + total if last == "first" else total + p
        case ("t", int(k), "same", int(i), int(j)):  # k products of one depth: a run, then levels
            return ag.sum([regs[i] * regs[j] + regs[i] for _ in range(k)])
        case _:
            raise AssertionError(ins)


def _build(spec: Tree, regs: Sequence[Scalar]) -> object:
    """The output pytree: register references replaced by the registers' contents."""
    if isinstance(spec, float) or spec is None:
        return spec
    if isinstance(spec, list):
        return [_build(s, regs) for s in spec]
    if isinstance(spec, dict):
        return {k: _build(s, regs) for k, s in cast("dict[str, Tree]", spec).items()}
    tag, *rest = cast("tuple[object, ...]", spec)
    if tag == "r":
        return regs[cast(int, rest[0])]
    return tuple(_build(s, regs) for s in rest)


def _leaves(tree: object) -> list[Scalar]:
    """Leaves of nested lists, tuples and dicts, in order (dicts in insertion order)."""
    out: list[Scalar] = []
    stack = [tree]
    while stack:
        t = stack.pop()
        if isinstance(t, list | tuple):
            stack.extend(reversed(t))
        elif isinstance(t, dict):
            stack.extend(reversed(t.values()))
        else:
            out.append(cast(Scalar, t))
    return out


EVERY_RUN: dict[str, Any] = {"reroll_from": 0, "min_reps": 2, "min_statements": 2, "stride": 1}
"""`Options` that make `reroll` roll every run it can, however short (it waits for big programs)."""

EVERY_PERIOD: dict[str, Any] = {"loops_from": 0, "min_run": 0, "min_looped": 1}
"""`Options` that make `compiler.periods` roll every run of nodes it finds (it waits for big
graphs)."""

LONG_PERIODS: dict[str, Any] = {"max_period": 0, "window": 2, "long_skip": 1}
"""`Options` that make `reroll` find every period through its windows (`runs.Windows`),
searched at every position."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``--count`` cases from ``--seed`` on; print the tally and the first disagreements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=5)
    parser.add_argument("--chunk", type=int, help="statements per compiled function (the linker)")
    parser.add_argument(
        "--reroll", action="store_true", help="roll every run of two or more repeats into a loop"
    )
    parser.add_argument(
        "--depth", action="store_true", help="with --reroll: always roll in depth order"
    )
    parser.add_argument(
        "--points", action="store_true", help="make half the loops sums over their iterations"
    )
    parser.add_argument(
        "--wide",
        action="store_true",
        help="make most sums of many sums of a few ops per item, or over an RNN's states",
    )
    parser.add_argument(
        "--long", action="store_true", help="with --reroll: find periods through windows"
    )
    parser.add_argument(
        "--periods",
        action="store_true",
        help="longer loops, each run of nodes rolled before statements are written",
    )
    parser.add_argument(
        "--traced",
        action="store_true",
        help="jit grad and value_and_grad as plain functions: their sweeps traced as nodes",
    )
    parser.add_argument(
        "--sink",
        action="store_true",
        help="with --periods: sink the joins of every program whose runs are not as traced",
    )
    parser.add_argument(
        "--reread",
        action="store_true",
        help="with --periods: the sequence differentiated, its items read again by wide sums",
    )
    parser.add_argument(
        "--second",
        action="store_true",
        help="differentiate each case twice; each run's values kept as traced (`keep_always`)",
    )
    parser.add_argument(
        "--settle",
        type=int,
        help="with --periods: iterations a backward loop may take to settle (0: all prologue)",
    )
    ns = parser.parse_args(argv)
    global POINTS, PERIODS, REREAD, SECOND, TRACED, WIDE  # a script's switches, read by make_case
    POINTS, PERIODS, TRACED, WIDE = ns.points, ns.periods, ns.traced, ns.wide
    REREAD, SECOND = ns.reread, ns.second
    global OPTIONS  # a script's compiler options, read by check
    changes: dict[str, Any] = {}
    if ns.periods:
        changes.update(EVERY_PERIOD)
    if ns.long:
        changes.update(LONG_PERIODS)
    if ns.chunk is not None:
        changes["chunk"] = ns.chunk
    if ns.reroll:
        changes.update(EVERY_RUN)
    if ns.depth:  # try the depth order on every program, and keep it
        changes["depth_always"] = True
    if ns.settle is not None:
        changes["settle"] = ns.settle
    if ns.sink:
        changes["sink_always"] = True
    if ns.second:
        changes["keep_always"] = True
    OPTIONS = attrs.evolve(DEFAULT, **changes)
    bad: list[str] = []
    skipped = 0
    for seed in range(ns.seed, ns.seed + ns.count):
        why = check(make_case(seed))
        if why == SKIPPED:
            skipped += 1
        elif why is not None:
            bad.append(why)
    agreed = ns.count - skipped - len(bad)
    print(f"cases {ns.count} agreed {agreed} skipped {skipped} disagreed {len(bad)}")
    for why in bad[: ns.show]:
        print(why)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
