"""A traced function as equations: what `to_jax` emits, one equation an op node.

`trace` calls a function on fresh `Leaf` variables, as `jit` does (its read
guard refuses a Python branch on a traced value), and `equations` walks the
graph it built in topological order: each op node is one `Equation`, its op
class, its inputs (a variable or a constant) and its static parameters. The
walk is this module's one function that reads the graph, so the compiler's
program of equations can take its place.

Every traced argument is a node in the call, as it is under `grad` (the
function an exporter differentiates), so a rule's choice on traced values is
a `Compare` and `Where` node, never a choice made at trace time; a choice on
constants and static arguments is the same at every call, so it is made once.
"""

from __future__ import annotations

import inspect
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import cast

import attrs

from autograd.compiler import equations as program
from autograd.compiler.guard import call_guarded
from autograd.core.context import debug_sites
from autograd.core.nodes import OPS, Const, Leaf, Node, Op
from autograd.core.rulegen import RAW_VALUE
from autograd.pytree import Kind, TreeDef, flatten_any, paths, unflatten


@attrs.frozen
class Literal:
    """A constant operand: a `Const` of the graph, or an op of constants only, as its float."""

    value: float


Atom = int | Literal
"""An operand: a variable (its index: the inputs first, then each equation's output) or a
constant."""


@attrs.frozen
class Equation:
    """One op node: its class, its operands in field order, its static parameters.

    ``params`` holds the op's static fields (`Compare`'s operator) and, for an
    op with a ``const_variant`` input (`Pow`'s exponent), ``("const", bool)``:
    whether that input is a `Const`, which selects the op's constant forward.
    """

    op: type[Op]
    ins: tuple[Atom, ...]
    params: tuple[tuple[str, object], ...] = ()


@attrs.frozen
class Equations:
    """A program: ``inputs`` variables, then one variable per equation, in order."""

    inputs: int
    body: tuple[Equation, ...]
    outputs: tuple[Atom, ...]


class ExternalNodeError(TypeError):
    """The traced function used a node it was not given (a `Leaf` it closes over)."""


def equations(outputs: Sequence[Node], inputs: Sequence[Node]) -> Equations:
    """The graph from ``inputs`` to ``outputs`` as equations, inputs before users.

    Read from the compiler's program of equations (`compiler.equations.forward`,
    every input a variable, as under ``grad``), numbered: the inputs first, then
    each equation's output. An op whose operands are all constants is folded to
    its value (its node built on those constants: the float forward's bits).

    Raises:
        ExternalNodeError: if the graph reaches a `Leaf` that is not one of ``inputs``.
    """
    try:
        variables, eqns, names = program.forward(inputs, (), outputs)
    except ValueError as error:  # a variable that is not an input
        raise ExternalNodeError(
            "the function uses a variable it was not given "
            "(a node it closes over, or one of an outer transform); pass it as an argument"
        ) from error
    atoms: dict[str, Atom] = {v.name: i for i, v in enumerate(variables)}

    def atom(a: program.Atom) -> Atom:
        return Literal(a.value) if isinstance(a, program.Lit) else atoms[a.name]

    body: list[Equation] = []
    for eqn in eqns:
        cls = OPS[eqn.prim]
        operands = tuple(atom(a) for a in eqn.ins)
        out = eqn.outs[0].name
        if all(isinstance(a, Literal) for a in operands):  # constants only: the node's value
            consts = [Const(cast(Literal, a).value) for a in operands]
            made = cls(**dict(zip(cls.inputs, consts, strict=True)), **dict(eqn.params))
            atoms[out] = Literal(getattr(made, RAW_VALUE))
            continue
        params = eqn.params
        if cls.const_variant is not None:
            params += (("const", type(eqn.ins[cls.const_variant]) is program.Lit),)
        atoms[out] = len(variables) + len(body)
        body.append(Equation(cls, operands, params))
    outs = [program.atom(x, names) for x in outputs]
    return Equations(len(variables), tuple(body), tuple(atom(a) for a in outs))


@attrs.frozen(eq=False)
class Traced:
    """A function traced once: its equations and the shapes of its arguments and result.

    ``trees`` holds each traced argument's shape (None for a static one);
    ``result`` the result's shape, whose leaves are ``program.outputs`` in order.
    """

    program: Equations
    trees: tuple[TreeDef | None, ...]
    result: TreeDef


def trace(
    fn: Callable[..., object],
    args: Sequence[object],
    static: frozenset[int],
    kwargs: Mapping[str, object],
) -> Traced:
    """Call ``fn`` on a fresh variable per leaf of each traced argument; its equations.

    Each leaf of a traced argument (whatever it holds: an array) becomes a
    `Leaf`; static and keyword arguments are passed as they are.

    Raises:
        TypeError: if ``fn`` reads ``.value`` of a traced node, uses a node it
            was not given (`ExternalNodeError`) or returns a leaf that is not a
            number or a node (naming its path).
    """
    inputs: list[Node] = []
    trees: list[TreeDef | None] = []
    new_args = list(args)
    for i, a in enumerate(args):
        if i in static:
            trees.append(None)
            continue
        leaves, tree = flatten_any(a, f"args[{i}]")
        variables = [Leaf(0.0) for _ in leaves]  # values do not shape the graph: no `.value` reads
        inputs.extend(variables)
        trees.append(tree)
        new_args[i] = unflatten(tree, variables)
    token = debug_sites.set(None)  # the variables' values are stand-ins: no nan of theirs counts
    try:
        result = call_guarded(fn, inputs, new_args, dict(kwargs))
    finally:
        debug_sites.reset(token)
    leaves, shape = flatten_any(result, "output")
    outputs: list[Node] = []
    for path, x in zip(paths(shape, "output"), leaves, strict=True):
        if isinstance(x, Node):
            outputs.append(x)
        elif isinstance(x, int | float) and not isinstance(x, bool):
            outputs.append(Const(x))
        else:
            raise TypeError(
                f"{path} is a {type(x).__name__} ({x!r:.60}): an exported function returns "
                "pytrees (lists, tuples, dicts, NamedTuples, attrs classes) of numbers"
            )
    return Traced(equations(outputs, inputs), tuple(trees), shape)


def attrs_classes(trees: Iterable[TreeDef | None]) -> list[type]:
    """The attrs classes among the containers of ``trees``, each once, outermost first."""
    found: dict[type, None] = {}
    stack = [t for t in trees if t is not None]
    while stack:
        t = stack.pop()
        if t.kind is Kind.ATTRS:
            found[t.meta[0]] = None  # type: ignore[index]  # an attrs node's meta is its class
        stack.extend(reversed(t.children))
    return list(found)


# ---- which arguments are static, and a call's key ----------------------------------


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class Statics:
    """``static_argnums`` and ``static_argnames`` resolved per call, as `jit` resolves them.

    Keyword arguments are always static (part of the key), as in `autograd.jit`.
    """

    def __init__(self, fn: Callable[..., object], nums: int | Sequence[int], names: Iterable[str]):
        self.nums = frozenset((nums,) if isinstance(nums, int) else nums)
        if not all(type(i) is int for i in self.nums):
            raise TypeError(f"static_argnums must be ints, got {nums!r:.60}")
        self.names = frozenset((names,) if isinstance(names, str) else names)
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):  # a builtin Python cannot inspect: names are keywords
            params = []
        positional = [p.name for p in params if p.kind in _POSITIONAL]
        self.nums |= {positional.index(n) for n in self.names if n in positional}

    def resolve(self, n: int) -> frozenset[int]:
        """The static positions of a call with ``n`` positional arguments."""
        return frozenset(i % n for i in self.nums if -n <= i < n)


_BITS = struct.Struct("<d")


def static_key(x: object, where: str) -> object:
    """``x`` as part of a trace's key: floats by bits (``0.0`` and ``-0.0`` differ), else ``==``.

    Raises:
        TypeError: if ``x`` is not hashable (an array passed by keyword, say).
    """
    if isinstance(x, float):
        return (type(x), _BITS.pack(x))
    if isinstance(x, tuple):
        return (type(x), *(static_key(v, where) for v in x))
    try:
        hash(x)
    except TypeError:
        raise TypeError(
            f"{where} is static (keyword arguments always are) and must be hashable, but it is "
            f"a {type(x).__name__} ({x!r:.60}); pass arrays as positional arguments"
        ) from None
    return (type(x), x)
