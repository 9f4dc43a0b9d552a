"""The program of equations: a traced graph as data, the role JAX's jaxpr plays.

A traced function becomes a `Program`: its inputs (variables, each a plain
number of the eager call or a variable that is differentiated), its
equations in the order the eager call computes them (an op, its input
atoms, its output variable, its static parameters), its outputs and the
guards the trace recorded. Each equation's structural key (the op, its
static parameters, and its inputs by role: a constant's bits, or which of
the equation's distinct variables it reads) is computed once, when the
equation is made: two equations with equal keys compute the same code up to
the names of their variables. Under ``grad``, the backward equations are the
op's rule applied to each forward equation in the eager sweep's order
(`backward`), each contribution added into its input's cotangent.

`jit(f).lower(*args).as_text()` prints a program; runs of repeated equations
(`compiler.periods`, the loop finder the compiler runs on these keys) print
as loop blocks.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple, cast

import attrs

from autograd.compiler import periods
from autograd.compiler.options import DEFAULT
from autograd.compiler.stmts import ref
from autograd.core.batching import BATCH_SUM
from autograd.core.nodes import (
    COMPARE_SYMBOLS,
    CONST,
    NODE,
    OPS,
    PLAIN,
    RESULT_ONE,
    VARIABLE_ONE,
    Const,
    Leaf,
    Mul,
    Node,
    Op,
)
from autograd.core.sym import Sym, literal, sym
from autograd.walks import toposort


class Var(NamedTuple):
    """A variable: an input (``a0``, ...) or an equation's result (``v3``); ``g`` a cotangent."""

    name: str
    plain: bool
    """A plain number in the eager call (Python's float arithmetic), not a traced variable."""
    batch: int = 0
    """Under ``jit`` of ``vmap``: how many examples it holds one value for (0: one number)."""


class Lit(NamedTuple):
    """A constant, by its value (signed zeros and NaN kept)."""

    value: float


Atom = Var | Lit


class Eqn(NamedTuple):
    """One equation: ``outs = prim[params](ins)``, and its structural key."""

    prim: str
    ins: tuple[Atom, ...]
    outs: tuple[Var, ...]
    params: tuple[tuple[str, object], ...]
    key: tuple[object, ...]
    """Equal for equations that compute the same code up to their variables' names."""


class Guard(NamedTuple):
    """A choice the trace made on plain numbers: the compiled code checks it still holds."""

    op: str
    x: Atom
    y: Atom
    outcome: bool


@attrs.frozen
class Program:
    """A traced function's equations: inputs, equations, outputs, guards, backward part."""

    inputs: tuple[Var, ...]
    eqns: tuple[Eqn, ...]
    outputs: tuple[Atom, ...]
    guards: tuple[Guard, ...] = ()
    backward: tuple[Eqn, ...] = ()
    """Under ``grad``: the cotangent equations, in the eager sweep's order."""
    gradients: tuple[Atom, ...] = ()
    """Under ``grad``: each differentiated input's cotangent (``0.0`` if it has none)."""

    def as_text(self) -> str:
        """The program printed, one equation a line, repeated runs as loop blocks."""
        return _text(self)


def atom(x: Node, names: dict[Node, Var]) -> Atom:
    """A node of the trace as an equation reads it: a constant's value, else its variable."""
    if type(x) is Const:
        return Lit(x.value)
    return names[x]


def _key(
    prim: str, plain: bool, ins: tuple[Atom, ...], params: tuple[object, ...]
) -> tuple[object, ...]:
    """An equation's structure: its inputs by role, never by name."""
    seen: list[str] = []
    roles: list[object] = []
    for a in ins:
        if type(a) is Lit:
            roles.append(_BITS(a.value))
            continue
        v = cast(Var, a)
        if v.name not in seen:
            seen.append(v.name)
        roles.append((seen.index(v.name), v.plain))
    return (prim, plain, tuple(roles), params)


_BITS = struct.Struct("<d").pack


def _params(node: Op, fields: tuple[str, ...]) -> tuple[tuple[str, object], ...]:
    return tuple([(f, getattr(node, f)) for f in fields]) if fields else ()


def _bits(params: tuple[tuple[str, object], ...]) -> tuple[object, ...]:
    if not params:
        return ()
    return tuple([_BITS(v) if type(v) is float else v for _, v in params])


class ExternalNodeError(ValueError):
    """The graph reaches a variable that is not one of the traced inputs."""


class NotBatchable(Exception):
    """A batched trace mixes what one batched program cannot compute: `jit` loops instead."""


class Walk:
    """A traced graph's equations as the compiler reads them, inputs before users.

    Per equation (a node of the graph with inputs): its node and input nodes
    (``order``) and the number of its structural key (``forms``; ``keys[f]`` is
    key ``f``). Constants and inputs are not equations: they are read by them.
    """

    __slots__ = ("at", "consts", "ends", "forms", "keys", "operands", "order")

    def __init__(self) -> None:
        self.order: list[tuple[Node, tuple[Node, ...]]] = []
        self.forms: list[int] = []
        self.keys: list[tuple[object, ...]] = []
        self.consts: list[Const] = []
        """The constants the equations read, first read first."""
        self.ends: list[int] = []
        """Per output walked: how many equations compute it and the outputs before it."""
        self.operands: list[list[int]] = []
        """Per equation, its distinct variables' positions, as its key numbers them: an
        equation's, or an input's ``-1 - index``. What the loop finder reads (`runs`)."""
        self.at: dict[Node, int] = {}
        """Each input's and equation's position, as in ``operands``."""


def walk(
    inputs: Sequence[Node], outputs: Sequence[Node], plain: Collection[Node], floats: set[Node]
) -> Walk:
    """The equations computing ``outputs`` from ``inputs``, in `toposort`'s order, keyed.

    ``plain``: the inputs that are plain numbers in the eager call; ``floats``
    gets every node that is (`nodes.eager_kind` `PLAIN`). A key is the op,
    whether it is a plain float, its inputs by role (a constant's bits, or
    which of its distinct variables it reads and whether that one is plain)
    and its static fields: equal keys compute the same code up to names.

    Raises:
        ExternalNodeError: if the graph reaches a variable that is not an input.
    """
    w = Walk()
    order, forms, consts, operands = w.order, w.forms, w.consts, w.operands
    at = w.at = {x: -1 - i for i, x in enumerate(inputs)}
    kinds = {x: PLAIN for x in inputs if x in plain}  # a node's kind, if not `NODE`
    kind_of = kinds.get
    ids: dict[tuple[object, ...], int] = {}
    bits: dict[Node, bytes] = {}  # a constant's, read by many equations
    # most equations' keys follow from their class and what they read (kinds, constants'
    # bits): that signature's key number and kind, once per signature (`_key_of`)
    signatures: dict[object, tuple[int, int]] = {}
    statics: set[type] = set()
    seen = set(inputs)  # each node is listed once, by the first output's walk reaching it
    for out in outputs:
        for item in toposort(out, (), seen):
            node, ins = item
            kind = type(node)
            if kind is Const:
                bits[node] = _BITS(cast(Const, node).value)
                consts.append(cast(Const, node))
                continue
            if not ins:
                raise ExternalNodeError(
                    f"the graph reaches a variable that is not an input: {node!r}"
                )
            sig, ops = _signature(kind, ins, kind_of, bits, at)
            got = signatures.get(sig) if kind not in statics else None
            if got is None:
                got = _key_of(cast(Op, node), ins, kinds, ids)
                if cast(Op, node).static_fields:
                    statics.add(kind)
                elif sig is not None:
                    signatures[sig] = got
            form, k = got
            if k != NODE:
                kinds[node] = k
                if k == PLAIN:
                    floats.add(node)
            at[node] = len(order)
            order.append(item)
            operands.append(ops)
            forms.append(form)
        w.ends.append(len(order))
    w.keys = list(ids)
    return w


def _signature(
    kind: type,
    ins: tuple[Node, ...],
    kind_of: Callable[[Node, int], int],
    bits: dict[Node, bytes],
    at: dict[Node, int],
) -> tuple[object, list[int]]:
    """What an equation of one or two inputs' key follows from (None: not known), its operands.

    Its class, and per input a constant's bits or a variable's kind (and whether
    both inputs are one); a constant second input's marks, `VARIABLE_ONE`,
    `BATCH_SUM` or `RESULT_ONE`. The operands: the positions of its distinct variables.
    """
    if len(ins) == 1:
        x = ins[0]
        if type(x) is Const:
            return (kind, bits[x]), []
        return (kind, kind_of(x, NODE)), [at[x]]
    if len(ins) != 2:
        return None, _positions(ins, at)
    x, y = ins
    if type(y) is Const:
        marks = y is VARIABLE_ONE, y is BATCH_SUM, y is RESULT_ONE
        if type(x) is Const:
            return (kind, bits[x], bits[y], marks), []
        return (kind, kind_of(x, NODE), bits[y], marks), [at[x]]
    if type(x) is Const:
        return (kind, bits[x], kind_of(y, NODE)), [at[y]]
    if x is y:
        return (kind, kind_of(x, NODE), None), [at[x]]
    return (kind, kind_of(x, NODE), kind_of(y, NODE)), [at[x], at[y]]


def _positions(ins: tuple[Node, ...], at: dict[Node, int]) -> list[int]:
    """The positions of an equation's distinct variables, in the order they are read."""
    ops: list[int] = []
    for x in ins:
        if type(x) is not Const and at[x] not in ops:
            ops.append(at[x])
    return ops


def _key_of(
    op: Op, ins: tuple[Node, ...], kinds: dict[Node, int], ids: dict[tuple[object, ...], int]
) -> tuple[int, int]:
    """An equation's key's number (a new key gets the next) and its eager kind (`walk`).

    The key is `_key`'s, of the equation's atoms: a variable is named by its
    node's identity, plain if its kind is. Kinds: a node if an input is (or a
    transform's variable, ``x * VARIABLE_ONE``), else plain if one is, else a constant; a
    transform's result the eager call holds as a float (``x * RESULT_ONE``) is plain.
    """
    prim = op.name
    if type(op) is Mul and op.y is BATCH_SUM:
        ins, prim = ins[:1], "batch_sum"  # a vmap's batch summed: one number again
    got = {kinds.get(x, NODE) for x in ins if type(x) is not Const}
    if type(op) is Mul and op.y is RESULT_ONE:  # a transform's result, a float in the eager call
        k = PLAIN
    elif NODE in got or (type(op) is Mul and op.y is VARIABLE_ONE):  # a transform's variable
        k = NODE
    else:
        k = PLAIN if PLAIN in got else CONST
    atoms = tuple(
        [Lit(x.value) if type(x) is Const else Var(str(id(x)), kinds.get(x) == PLAIN) for x in ins]
    )
    key = _key(prim, k == PLAIN, atoms, _bits(_params(op, op.static_fields)))
    return ids.setdefault(key, len(ids)), k


def forward(
    inputs: Sequence[Node],
    plain: Sequence[Node],
    outputs: Sequence[Node],
    batches: Mapping[Node, int] | None = None,
) -> tuple[list[Var], list[Eqn], dict[Node, Var]]:
    """The equations computing ``outputs`` from ``inputs``, inputs before users.

    ``plain``: the inputs that are plain numbers in the eager call;
    ``batches``: under ``jit`` of ``vmap``, the examples each node that varies holds.

    Raises:
        ExternalNodeError: if the graph reaches a variable that is not an input.
    """
    plain_set = frozenset(plain)
    w = walk(inputs, outputs, plain_set, set())
    return equations_of(w, inputs, plain_set, batches)


def equations_of(
    w: Walk,
    inputs: Sequence[Node],
    plain: Collection[Node],
    batches: Mapping[Node, int] | None = None,
) -> tuple[list[Var], list[Eqn], dict[Node, Var]]:
    """A walk's equations as records: each a `Var` per node, its input atoms and its key."""
    get_batch = batches.get if batches else None
    names: dict[Node, Var] = {}
    for i, x in enumerate(inputs):
        names[x] = Var(f"a{i}", x in plain, get_batch(x, 0) if get_batch else 0)
    eqns: list[Eqn] = []
    keys = w.keys
    for (node, ins), form in zip(w.order, w.forms, strict=True):
        op = cast(Op, node)
        key = keys[form]
        prim = cast(str, key[0])
        if prim == "batch_sum":
            ins = ins[:1]
        batch = get_batch(node, 0) if get_batch is not None else 0
        out = names[node] = Var(f"v{len(names)}", cast(bool, key[1]), batch)
        atoms = tuple([Lit(x.value) if type(x) is Const else names[x] for x in ins])
        eqns.append(Eqn(prim, atoms, (out,), _params(op, op.static_fields), key))
    return [names[x] for x in inputs], eqns, names


def backward(
    graph: list[tuple[Node, tuple[Node, ...]]],
    names: dict[Node, Var],
    forward_eqns: Sequence[Eqn],
    root: Node,
    wrt: Sequence[Node],
) -> tuple[list[Eqn], list[Atom]]:
    """The cotangent equations of ``wrt`` from ``root``, in the eager sweep's order.

    Each op's rule runs on `Sym` stand-ins named as the variables, so each
    contribution's equation records which variables the rule reads.
    """
    needs = set(wrt)
    for node, ins in graph:
        if not needs.isdisjoint(ins):
            needs.add(node)
    if root not in needs:
        return [], [Lit(0.0)] * len(wrt)
    eqns: list[Eqn] = []
    cot: dict[Node, Atom] = {root: Lit(1.0)}
    made = {e.outs[0]: e.key for e in forward_eqns}
    rules: dict[tuple[object, ...], list[tuple[str, tuple[int, ...]] | None]] = {}
    fresh = iter(range(1 << 62))
    for node, ins in reversed(graph):
        g = cot.get(node)
        if not ins or node not in needs or g is None:
            continue
        op = cast(Op, node)
        # the rule's code follows from its forward equation's key and the seed's being 1.0
        key = (made[names[node]], type(g) is Lit)
        forms = rules.get(key)
        if forms is None:
            forms = rules[key] = _rule(op, ins, type(g) is Lit, names)
        slots = [*(Lit(x.value) if type(x) is Const else names[x] for x in ins), names[node], g]
        shown = {f"_{k}": _show(a) for k, a in enumerate(slots)}
        for i, (x, form) in enumerate(zip(ins, forms, strict=True)):
            if x not in needs or form is None:
                continue
            src = form[0].format_map(shown)
            out: Atom
            if src == _show(g):  # the rule passes ``g`` on (`Add`): the same value, no equation
                out = g
            else:
                atoms = tuple([slots[k] for k in form[1]])
                out = Var(f"g{next(fresh)}", False)
                params = (("op", op.name), ("input", i), ("rule", src))
                eqns.append(Eqn("vjp", atoms, (out,), params, _key("vjp", False, atoms, (*key, i))))
            prev = cot.get(x)
            if prev is not None:
                total = Var(f"g{next(fresh)}", False)
                adds = (prev, out)
                eqns.append(Eqn("add_any", adds, (total,), (), _key("add_any", False, adds, ())))
                out = total
            cot[x] = out
    return eqns, [cot.get(x, Lit(0.0)) for x in wrt]


def _rule(
    op: Op, ins: tuple[Node, ...], seed: bool, names: dict[Node, Var]
) -> list[tuple[str, tuple[int, ...]] | None]:
    """``op``'s rule on `Sym` stand-ins for its slots: each input's contribution as a template.

    Slot k (``{_k}``) is input k (a slot holding the node of an earlier one
    stands for that one; a constant is its literal), then the node's own
    value, then the cotangent, unless it is the ``seed`` 1.0 (a product with it
    is the other factor, as compiled). Each contribution: its template, and
    the slots it reads. An input that is a plain number in the eager call
    (Pow's exponent) was a `Const` there, so the rule runs on a copy holding a
    stand-in `Const` (what `codegen` compiles does the same).
    """
    syms: dict[Node, Sym] = {}
    for k, x in enumerate(ins):
        if x not in syms:
            f = f"_{k}"
            syms[x] = Sym(literal(x.value), (), x.value) if type(x) is Const else Sym(ref(f), (f,))
    own, cotangent = f"_{len(ins)}", f"_{len(ins) + 1}"
    syms[op] = Sym(ref(own), (own,))
    i = op.const_variant
    if i is not None and ins[i] in names and names[ins[i]].plain:
        op = as_eager(op, i, syms)
    gs = Sym(literal(1.0), (), 1.0, True) if seed else Sym(ref(cotangent), (cotangent,))
    outs = [None if o is None else sym(o) for o in op.vjp(gs, syms.__getitem__)]
    return [None if o is None else (o.src, tuple([int(u[1:]) for u in o.uses])) for o in outs]


def as_eager(op: Op, i: int, syms: dict[Node, Sym]) -> Op:
    """``op`` as the eager call built it, where its input ``i`` was a plain number.

    The eager call lifted that number to a `Const` (``x ** c`` takes PyTorch's
    scalar path); traced, it is a variable. The rule then runs on a copy
    holding a stand-in `Const`, which ``syms`` (updated) names as the input;
    the copy reads as ``op`` does.
    """
    stand_in = Const(math.nan)  # only that it is a constant is read, never its value
    copy = attrs.evolve(op, **{op.inputs[i]: stand_in})  # type: ignore[misc]  # every Op is attrs; the plugin wants a concrete class
    syms[stand_in] = syms[getattr(op, op.inputs[i])]
    if op in syms:
        syms[cast(Node, copy)] = syms[op]
    return copy


def find_loops(eqns: Sequence[Eqn], outside: Sequence[Var]) -> list[periods.Period]:
    """Runs of repeated equations worth a loop, by their keys (`periods.find`).

    A run's values may be read after it, and a run may read an earlier one's
    at a stride (a Hessian's sweeps over its chain): each is printed as a loop.

    ``outside``: the variables the equations read but do not set (a
    forward program's inputs; the forward variables a backward one reads),
    which an iteration may read at a stride, as an RNN reads its data.
    """
    if len(eqns) < DEFAULT.loops_from:
        return []
    ids: dict[tuple[object, ...], int] = {}
    at: dict[str, int] = {v.name: -1 - i for i, v in enumerate(outside)}
    forms: list[int] = []
    operands: list[list[int]] = []
    for p, e in enumerate(eqns):
        forms.append(ids.setdefault(e.key, len(ids)))
        ops: list[int] = []
        for a in e.ins:
            if type(a) is Var and at[a.name] not in ops:
                ops.append(at[a.name])
        operands.append(ops)
        at[e.outs[0].name] = p
    return periods.find(forms, operands, stacked=True)


def _text(p: Program) -> str:
    lines = ["{ lambda " + " ".join(_spans(p.inputs, lambda v: _decl(cast(Var, v)))) + ". let"]
    lines += _block(p.eqns, find_loops(p.eqns, p.inputs), "    ")
    for guard in p.guards:
        test = f"{_show(guard.x)} {COMPARE_SYMBOLS[guard.op]} {_show(guard.y)}"
        lines.append(f"    guard {test} is {guard.outcome}")
    if p.backward or p.gradients:
        lines.append("  backward (the cotangent of the output starts at 1.0)")
        outside = [*p.inputs, *(e.outs[0] for e in p.eqns)]
        lines += _block(p.backward, find_loops(p.backward, outside), "    ")
        lines.append("  gradients " + " ".join(_spans(p.gradients, _show)))
    lines.append("  in (" + ", ".join(_spans(p.outputs, _show)) + ") }")
    return "\n".join(lines)


def _block(eqns: Sequence[Eqn], loops: list[periods.Period], indent: str) -> list[str]:
    lines: list[str] = []
    p = 0
    for per in loops:
        lines += [indent + _line(e) for e in eqns[p : per.start]]
        body = eqns[per.start : per.start + per.size]
        lines.append(
            f"{indent}loop {per.count} times {{  # the first iteration; each reads the last"
        )
        lines += [indent + "  " + _line(e) for e in body]
        lines.append(indent + "}")
        p = per.start + per.size * per.count
    lines += [indent + _line(e) for e in eqns[p:]]
    return lines


SPANS = 8
"""More variables than this in a row (``a0:var a1:var ...``, ``g9 g8 ...``) print as the
first, ``...`` and the last."""


def _spans(atoms: Sequence[Atom], show: Callable[[Atom], str]) -> list[str]:
    """Each atom shown, a long row of variables of one kind numbered one apart shortened.

    A variable's kind is its letter (``a``, ``v``, ``g``), `Var.plain` and `Var.batch`;
    its number, what follows the letter (`equations_of` and `backward` name them so).
    """

    def kind(a: Atom) -> tuple[object, ...] | None:
        return (a.name[0], a.plain, a.batch) if type(a) is Var else None

    def number(a: Atom) -> int:
        return int(cast(Var, a).name[1:])

    shown: list[str] = []
    i = 0
    while i < len(atoms):
        j = i + 1
        if kind(atoms[i]) is not None and j < len(atoms) and kind(atoms[j]) == kind(atoms[i]):
            step = number(atoms[j]) - number(atoms[i])
            while (
                step in (1, -1)
                and j < len(atoms)
                and kind(atoms[j]) == kind(atoms[i])
                and number(atoms[j]) == number(atoms[i]) + step * (j - i)
            ):
                j += 1
        row = [show(a) for a in atoms[i:j]]
        shown += row if len(row) <= SPANS else [row[0], "...", row[-1]]
        i = j
    return shown


def _decl(v: Var) -> str:
    return f"{v.name}:{'float' if v.plain else 'var'}{f'[{v.batch}]' if v.batch else ''}"


def _show(a: Atom) -> str:
    return a.name if isinstance(a, Var) else repr(a.value)


def _line(e: Eqn) -> str:
    outs = " ".join(_decl(v) if e.prim != "vjp" and e.prim != "add_any" else v.name for v in e.outs)
    params = dict(e.params)
    if e.prim == "vjp":
        return f"{outs} = vjp[{params['op']}, {params['input']}] {params['rule']}"
    shown = "".join(f"[{k}={v}]" for k, v in params.items())
    return f"{outs} = {e.prim}{shown} " + " ".join(_show(a) for a in e.ins)


def evaluate(program: Program, args: Sequence[float]) -> list[float]:
    """The program's outputs on ``args``, each equation run as the eager call runs it.

    Each equation builds its op's node (`OPS`) from its inputs' nodes: a
    plain input is a `Const`, as the eager call lifts a plain number, a
    variable a `Leaf`. A reference for the compiled code and for exports:
    a faithful program gives the traced function's values, bit for bit.
    """
    nodes: dict[str, Node] = {}
    for v, a in zip(program.inputs, args, strict=True):
        nodes[v.name] = Const(a) if v.plain else Leaf(a)

    def node(a: Atom) -> Node:
        return Const(a.value) if type(a) is Lit else nodes[cast(Var, a).name]

    for e in program.eqns:
        if e.prim == "batch_sum":
            raise ValueError("a vmap's batch sum runs only over a batch")
        cls = OPS[e.prim]
        fields = dict(zip(cls.inputs, map(node, e.ins), strict=True))
        nodes[e.outs[0].name] = cls(**fields, **dict(e.params))
    return [node(a).value for a in program.outputs]
