"""Random scalar programs under random transform stacks, eager against `jit`, bit for bit.

A case is a straight-line `Program` of 1-3 scalar inputs over a register
file (so outputs are often inputs, constants, or the same node twice, and
subexpressions are shared), a stack of 1-3 transforms (`grad`, `hessian`,
`jacobian`, `jvp`, `vjp`, `value_and_grad`, `vmap`) with `jit` at a random
level, and two sets of arguments of the same structure. The stack is run
with and without its `jit` stages on both sets through one wrapper, so the
second call runs the compiled code, and the results must agree bit for bit.

With NumPy, a `jit` directly over `vmap` runs one batched program, which must
give the loop's bits too (NumPy's own functions, `Options.numpy_functions`,
are checked within their ulps in tests/test_vmap_batched.py).

Used by tests/test_jit_compose.py, and as a script that tallies failures by
cause (it never stops at the first)::

    python tests/compose_fuzz.py --count 500
"""

from __future__ import annotations

import argparse
import importlib
import math
import re
import struct
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeAlias, cast

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar
from autograd.compiler.jit import FALLBACKS
from autograd.compiler.options import DEFAULT, Options

UnaryFn: TypeAlias = Callable[[Scalar], Scalar]
BinaryFn: TypeAlias = Callable[[Scalar, Scalar], Scalar]
Fn: TypeAlias = Callable[..., object]

OPTIONAL_UNARY = ("exp", "log", "tanh", "relu", "sigmoid", "abs", "sqrt", "sin", "cos")
UNARY: dict[str, UnaryFn] = {
    "neg": lambda x: -x,
    **{name: cast(UnaryFn, getattr(ag, name)) for name in OPTIONAL_UNARY if hasattr(ag, name)},
}
"""Unary ops: every public function of one scalar the package offers today."""

BINARY: dict[str, BinaryFn] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: x**y,
}

INF, NAN = math.inf, math.nan
EDGES: tuple[float, ...] = (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, 5e-324, -5e-324)
EDGES += (1e-310, 1e300, -1e300, 1.7976931348623157e308, INF, -INF, NAN)
"""Argument values: zeros of both signs, subnormals, huge, infinite, nan, negative bases."""

EXPONENTS = (0.0, 0.5, 2.0, -1.0, 1.0, 3.0, -0.5, 1.5, -2.0, 1.0 / 3.0)
CONSTANTS = (0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, INF, 1e300, 5e-324)


# ---- programs ----------------------------------------------------------------------------


OPTIONS: Options = DEFAULT
"""The compiler's options every `jit` of a case compiles with (tests set their own)."""


@attrs.frozen
class Op1:
    """``regs[x]`` through a unary op."""

    name: str
    x: int


@attrs.frozen
class Op2:
    """A binary op; an operand is a register (int) or a constant (float), never both constants."""

    name: str
    x: int | float
    y: int | float


@attrs.frozen
class Reduce:
    """``ag.sum``, ``ag.mean`` or ``ag.dot`` (first half with second half) of registers."""

    name: str
    xs: tuple[int, ...]


Instr: TypeAlias = Op1 | Op2 | Reduce


@attrs.frozen
class Reg:
    """The output ``regs[i]``."""

    i: int


@attrs.frozen
class Lit:
    """A constant output."""

    c: float


@attrs.frozen
class Tree:
    """A list, tuple or dict of outputs."""

    kind: str
    items: tuple[Out, ...]


Out: TypeAlias = Reg | Lit | Tree


@attrs.frozen
class Program:
    """``nargs`` scalars in, ``out`` built from the registers after ``body``.

    An op on two plain floats (arguments that are not differentiated) runs
    Python's float arithmetic, as a user's function would; where that gives a
    complex number it raises `Complex`, so the case is skipped.
    """

    nargs: int
    body: tuple[Instr, ...]
    out: Out

    def __call__(self, *xs: Scalar) -> object:
        regs: list[Scalar] = list(xs)
        for ins in self.body:
            regs.append(_step(ins, regs))
        return _build(self.out, regs)


class Complex(ArithmeticError):
    """Python's float ``**`` gave a complex number: the case is skipped."""


def _operand(v: int | float, regs: Sequence[Scalar]) -> Scalar:
    return regs[v] if isinstance(v, int) else v


def _step(ins: Instr, regs: Sequence[Scalar]) -> Scalar:
    match ins:
        case Op1(name, x):
            return UNARY[name](regs[x])
        case Op2(name, x, y):
            value: object = BINARY[name](_operand(x, regs), _operand(y, regs))
            if isinstance(value, complex):  # (-8.0) ** (1/3) on plain floats
                raise Complex(value)
            return cast(Scalar, value)
        case Reduce("sum", xs):
            return ag.sum([regs[i] for i in xs])
        case Reduce("mean", xs):
            return ag.mean([regs[i] for i in xs])
        case Reduce(_, xs):
            half = len(xs) // 2
            return ag.dot([regs[i] for i in xs[:half]], [regs[i] for i in xs[half : 2 * half]])


def _build(out: Out, regs: Sequence[Scalar]) -> object:
    match out:
        case Reg(i):
            return regs[i]
        case Lit(c):
            return c
        case Tree("list", items):
            return [_build(o, regs) for o in items]
        case Tree("tuple", items):
            return tuple(_build(o, regs) for o in items)
        case Tree(_, items):
            return {f"o{len(items) - k}": _build(o, regs) for k, o in enumerate(items)}


@st.composite
def _instr(draw: st.DrawFn, size: int) -> Instr:
    reg = st.integers(0, size - 1)
    kind = draw(st.sampled_from(["op1", "op1", "op2", "op2", "pow_c", "c_pow", "op2_c", "reduce"]))
    if kind == "op1":
        return Op1(draw(st.sampled_from(sorted(UNARY))), draw(reg))
    if kind == "op2":
        return Op2(draw(st.sampled_from(sorted(BINARY))), draw(reg), draw(reg))
    if kind == "pow_c":  # a constant exponent
        return Op2("pow", draw(reg), draw(st.sampled_from(EXPONENTS)))
    if kind == "c_pow":  # a constant base, the exponent a node
        return Op2("pow", draw(st.sampled_from((2.0, 0.0, -2.0, 0.5, -0.0))), draw(reg))
    if kind == "op2_c":
        c, x = draw(st.sampled_from(CONSTANTS)), draw(reg)
        name = draw(st.sampled_from(sorted(BINARY)))
        return Op2(name, c, x) if draw(st.booleans()) else Op2(name, x, c)
    xs = draw(st.lists(reg, min_size=1, max_size=4))
    return Reduce(draw(st.sampled_from(["sum", "mean", "dot"])), tuple(xs))


def _out(size: int, depth: int) -> st.SearchStrategy[Out]:
    leaf: st.SearchStrategy[Out] = st.one_of(
        st.builds(Reg, st.integers(0, size - 1)),
        st.builds(Reg, st.integers(0, size - 1)),
        st.builds(Lit, st.sampled_from(CONSTANTS)),
    )
    if depth == 0:
        return leaf
    kids = st.lists(_out(size, depth - 1), min_size=1, max_size=3).map(tuple)
    tree = st.builds(Tree, st.sampled_from(["list", "tuple", "dict"]), kids)
    return st.one_of(leaf, leaf, tree)


@st.composite
def programs(draw: st.DrawFn, nargs: int) -> Program:
    """Random straight-line programs of ``nargs`` scalars (0-8 instructions)."""
    body: list[Instr] = []
    for _ in range(draw(st.integers(0, 8))):
        body.append(draw(_instr(nargs + len(body))))
    size = nargs + len(body)
    last = st.just(Reg(size - 1))  # usually the last register, so the whole body matters
    return Program(nargs, tuple(body), draw(st.one_of(last, last, last, _out(size, 2))))


@st.composite
def post_programs(draw: st.DrawFn) -> Program:
    """Programs for a `THEN` stage: random, but first a power of an input by a constant.

    Where the eager call holds its input as a float, that is Python's ``**``,
    and where it holds a node, PyTorch's scalar-exponent path: other bits.
    """
    nargs = draw(st.integers(1, 3))
    power = Op2("pow", draw(st.integers(0, nargs - 1)), draw(st.sampled_from(EXPONENTS[3:])))
    if draw(st.booleans()):  # the power alone: nothing after it rounds its last bit away
        return Program(nargs, (power,), Reg(nargs))
    rest = draw(programs(nargs + 1))  # its last input is the power's register
    return Program(nargs, (power, *rest.body), rest.out)


# ---- transform stacks --------------------------------------------------------------------


@attrs.frozen
class Stage:
    """One transform of a stack.

    ``pick`` says which output leaf a transform needing a scalar (`grad`,
    `value_and_grad`, `hessian`) differentiates, modulo the leaf count; ``-1``
    sums all leaves. ``seed`` is every leaf of `jvp`'s tangents and `vjp`'s
    cotangent: a constant, or ``None`` for a traced one (the first argument's
    first leaf).
    """

    kind: str
    argnums: int | tuple[int, ...] = 0
    pick: int = -1
    has_aux: bool = False
    seed: float | None = 1.0
    in_axes: tuple[int | None, ...] = ()
    size: int = 2
    post: Program | None = None

    def __call__(self, fn: Fn) -> Fn:
        """``fn`` under this transform, as a function of the same positional arguments."""
        match self.kind:
            case "jit":
                return ag.jit(fn, options=OPTIONS)
            case "grad":
                return _erased(ag.grad)(_scalar(fn, self.pick), argnums=self.argnums)
            case "hessian":
                return _erased(ag.hessian)(_scalar(fn, self.pick), argnums=self.argnums)
            case "jacobian":
                return _erased(ag.jacobian)(fn, argnums=self.argnums)
            case "value_and_grad":
                inner = _with_aux(fn, self.pick) if self.has_aux else _scalar(fn, self.pick)
                vag = _erased(ag.value_and_grad)
                return vag(inner, argnums=self.argnums, has_aux=self.has_aux)
            case "vmap":
                return ag.vmap(fn, in_axes=self.in_axes)
            case "jvp":
                return self._jvp(fn)
            case "then":
                return self._then(fn)
            case "at":
                return self._at(fn)
            case _:
                return self._vjp(fn)

    def _jvp(self, fn: Fn) -> Fn:
        def pushed(*xs: object) -> object:
            t = leaves(xs)[0] if self.seed is None else self.seed
            return ag.jvp(fn, xs, cast("tuple[object, ...]", tree_map(lambda _: t, xs)))

        return pushed

    def _then(self, fn: Fn) -> Fn:
        """``post`` on leaves of ``fn``'s result: what a transform gave, computed on further."""
        post = self.post
        assert post is not None, "a `then` stage has its program"

        def then(*xs: object) -> object:
            got = leaves(fn(*xs)) or [0.0]
            return post(*(got[(self.pick + i) % len(got)] for i in range(post.nargs)))

        return then

    def _at(self, fn: Fn) -> Fn:
        """``fn`` with every leaf of its first argument the constant ``seed``: a transform
        just inside differentiates at a constant point (its variables are no inputs)."""
        c = 0.5 if self.seed is None else self.seed

        def at(*xs: object) -> object:
            return fn(tree_map(lambda _: c, xs[0]), *xs[1:])

        return at

    def _vjp(self, fn: Fn) -> Fn:
        def pulled(*xs: object) -> object:
            out, vjp_fn = ag.vjp(fn, *xs)
            g = leaves(xs)[0] if self.seed is None else self.seed
            return vjp_fn(tree_map(lambda _: g, out))

        return pulled


def _erased(transform: Callable[..., Fn]) -> Callable[..., Fn]:
    """A transform with its overloads erased: a drawn case's argnums are only known at run time."""
    return transform


def _scalar(fn: Fn, pick: int) -> Fn:
    def scalar(*xs: object) -> Scalar:
        return pick_leaf(fn(*xs), pick)

    return scalar


def _with_aux(fn: Fn, pick: int) -> Fn:
    def with_aux(*xs: object) -> tuple[Scalar, object]:
        out = fn(*xs)
        return pick_leaf(out, pick), [out, xs[0]]  # the aux holds the output and an input

    return with_aux


def pick_leaf(tree: object, pick: int) -> Scalar:
    """Leaf ``pick`` (modulo the count) of a pytree, or the sum of all for ``-1``."""
    ls = leaves(tree)
    if not ls:
        return 0.0
    return ag.sum(ls) if pick < 0 else ls[pick % len(ls)]


def leaves(tree: object) -> list[Scalar]:
    """Leaves of nested lists, tuples and dicts, in order (dicts in insertion order)."""
    out: list[Scalar] = []
    stack = [tree]
    while stack:
        t = stack.pop()
        # a traced array is a list subclass, as it is traced (docs/vmap.md): a leaf here,
        # as the array is eagerly; `isinstance(x, list)` itself would tell them apart
        if isinstance(t, list | tuple) and type(t).__name__ != "TracedArray":
            stack.extend(reversed(t))
        elif isinstance(t, dict):
            stack.extend(reversed(t.values()))
        else:
            out.append(cast(Scalar, t))
    return out


def tree_map(f: Callable[[object], object], tree: object) -> object:
    """``tree`` with every leaf replaced by ``f(leaf)``, containers by type."""
    if isinstance(tree, list):
        return [tree_map(f, v) for v in tree]
    if isinstance(tree, tuple):
        return tuple(tree_map(f, v) for v in tree)
    if isinstance(tree, dict):
        return {k: tree_map(f, v) for k, v in tree.items()}
    return f(tree)


TRANSFORMS = ("grad", "hessian", "jacobian", "jvp", "vjp", "value_and_grad", "vmap")

THEN = "then"
"""Not a transform: a second program on leaves of the result so far (`Stage._then`), so what
a transform returns is computed on where the eager call holds it as a float. Its leaves
must be scalars: not drawn where lists of numbers are NumPy arrays."""

AT = "at"
"""Not a transform: the first argument replaced by a constant of its shape (`Stage._at`), so
the transform inside runs at a constant point. Not drawn where arguments are NumPy arrays."""

Shape: TypeAlias = "list[Shape] | None"
"""An argument's structure: a scalar, or a (batched) list of shapes."""


@st.composite
def stages(
    draw: st.DrawFn, kind: str, shapes: list[Shape], sizes: Sequence[int] = (1, 2, 3)
) -> Stage:
    """One transform for arguments of ``shapes``; `vmap` batches them in place."""
    n = len(shapes)
    single = st.integers(0, n - 1)
    several = st.lists(single, min_size=1, max_size=n, unique=True).map(tuple)
    argnums: int | tuple[int, ...] = draw(st.one_of(single, several))
    pick = draw(st.integers(-1, 5))
    seed = draw(st.one_of(st.none(), st.sampled_from((1.0, -0.5, 0.0, -0.0, 2.0))))
    if kind == THEN:
        return Stage(kind, pick=pick, post=draw(post_programs()))
    if kind != "vmap":
        return Stage(kind, argnums, pick, draw(st.booleans()), seed)
    in_axes = draw(st.lists(st.sampled_from([0, None]), min_size=n, max_size=n))
    in_axes[draw(single)] = 0  # at least one argument is mapped
    size = draw(st.sampled_from(sizes))
    for i, axis in enumerate(in_axes):
        if axis == 0:
            shapes[i] = _batched(shapes[i], size)
    return Stage(kind, in_axes=tuple(in_axes), size=size)


def _batched(shape: Shape, size: int) -> Shape:
    if shape is None:
        return [None] * size
    return [_batched(s, size) for s in shape]


# ---- cases -------------------------------------------------------------------------------


@attrs.frozen
class Case:
    """A program, its stack (innermost first, `jit` among them) and two calls' arguments."""

    program: Program
    stack: tuple[Stage, ...]
    args: tuple[object, ...]
    args2: tuple[object, ...]

    def build(self, jitted: bool) -> Fn:
        """The stacked function, with its `jit` stages or without them (the eager oracle)."""
        fn: Fn = self.program
        for stage in self.stack:
            if jitted or stage.kind != "jit":
                fn = stage(fn)
        return fn


def values() -> st.SearchStrategy[float]:
    """Argument values: mostly edges, some ordinary, some any float at all."""
    return st.one_of(st.sampled_from(EDGES), st.floats(-3.0, 3.0), st.floats())


@st.composite
def _filled(draw: st.DrawFn, shape: Shape) -> object:
    if shape is None:
        return draw(values())
    return [draw(_filled(s)) for s in shape]


@st.composite
def cases(
    draw: st.DrawFn,
    kinds: Sequence[str] | None = None,
    jit_level: int | None = None,
    nested_jit: bool | None = False,
    sizes: Sequence[int] = (1, 2, 3),
    then: bool = False,
) -> Case:
    """Random cases: a program under ``kinds`` (innermost first; 1-3 random ones
    if None) with `jit` at ``jit_level`` (0 jits the program itself, ``len(kinds)``
    the whole stack; random if None), and with ``nested_jit`` a second `jit`
    just inside or outside the first (now and then if None); a `vmap` maps
    one of ``sizes`` examples (from `Options.batch_from`, 8, `jit` runs one batch); with
    ``then``, random kinds include `THEN` and `AT`."""
    nargs = draw(st.integers(1, 3))
    program = draw(programs(nargs))
    if kinds is None:
        drawn = (*TRANSFORMS, THEN, AT) if then else TRANSFORMS
        kinds = draw(st.lists(st.sampled_from(drawn), min_size=1, max_size=3))
    shapes: list[Shape] = [None] * nargs
    stack = [draw(stages(kind, shapes, sizes)) for kind in kinds]
    level = draw(st.integers(0, len(kinds))) if jit_level is None else jit_level
    stack.insert(level, Stage("jit"))
    if nested_jit or (nested_jit is None and draw(st.integers(0, 5)) == 0):
        stack.insert(draw(st.integers(0, len(stack))), Stage("jit"))
    args = tuple(draw(_filled(s)) for s in shapes)
    args2 = tuple(draw(_filled(s)) for s in shapes)
    return Case(program, tuple(stack), args, args2)


SKIPPED = "skipped"


def check(case: Case, arrays: bool = False) -> str | None:
    """None if jit agrees with eager bit for bit on both calls, `SKIPPED`, or why not.

    A case is skipped when the eager call raises an arithmetic error or gives
    a complex number: Python's float operators do that on two plain floats
    (an argument that is not differentiated) where IEEE gives ``inf`` or ``nan``.
    With ``arrays``, each list of numbers among the arguments is a NumPy array
    (as a user of `vmap` would pass it); where eager refuses that with a
    `TypeError`, jit must refuse it too.
    """
    eager, jitted = case.build(jitted=False), case.build(jitted=True)
    calls = (("first", case.args), ("second", case.args2))
    for call, args in ((c, tuple(map(as_arrays, a)) if arrays else a) for c, a in calls):
        try:
            want = bits(eager(*args))
        except (ArithmeticError, ValueError):
            return SKIPPED
        except TypeError:
            if arrays:
                try:
                    jitted(*args)
                except TypeError:
                    return None
                return f"{call} call: eager raised TypeError, jit did not"
            raise
        if "complex" in repr(want):
            return SKIPPED
        external = FALLBACKS["external node"]
        try:
            got = bits(jitted(*args))
        except Exception as e:
            return f"{call} call raised {type(e).__name__}: {e}"
        if got != want:
            return f"{call} call: eager {eager(*args)!r}, jit {jitted(*args)!r}"
        if FALLBACKS["external node"] != external:  # no case reads a node from outside
            return f"{call} call ran eagerly: jit found a node from outside the call"
    return None


def as_arrays(tree: object) -> object:
    """``tree`` with each non-empty list of floats a float64 NumPy array."""
    if isinstance(tree, list):
        if tree and all(type(v) is float for v in tree):
            return importlib.import_module("numpy").array(tree, dtype="float64")
        return [as_arrays(v) for v in tree]
    return tree


def bits(x: object) -> object:
    """A result tree's bits: floats by ``struct.pack`` (so ``-0.0 != 0.0``), every nan
    alike (IEEE leaves nan payloads unspecified), containers by type and keys, a
    NumPy array as its dtype and elements."""
    if type(x) is float:
        return "nan" if math.isnan(x) else struct.pack("<d", x)
    if type(x).__name__ == "ndarray":
        return ("array", str(x.dtype), [bits(float(v)) for v in x.tolist()])  # type: ignore[attr-defined]  # an array
    if isinstance(x, list | tuple):
        return (type(x).__name__, [bits(v) for v in x])
    if isinstance(x, dict):
        return ("dict", [(k, bits(v)) for k, v in x.items()])
    return ("other", type(x).__name__, repr(x))  # a node or anything else: never a float


def describe(case: Case) -> str:
    """The stack as an expression, such as ``grad(jit(hessian(f)))``."""
    text = "f"
    for stage in case.stack:
        text = f"{stage.kind}({text})"
    return text


def cause(why: str) -> str:
    """A failure message with its values and source locations blurred, to group by."""
    why = re.sub(r"\(value=[^)]*\)", "", why)
    why = re.sub(r"\(\S*/(\w+\.py:\d+)\)", r"at \1", why)  # the rule's line, not the machine's path
    why = re.sub(r"eager .*", "results differ", why)
    return why.replace("first call", "call").replace("second call", "call")[:160]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``--count`` random cases; print outcomes by stack and failures by cause."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--show", type=int, default=3, help="examples printed per cause")
    parser.add_argument("--depth", type=int, help="transforms per stack, jit outermost")
    parser.add_argument(
        "--arrays", action="store_true", help="lists of numbers passed as NumPy arrays"
    )
    ns = parser.parse_args(argv)
    outcomes: Counter[str] = Counter()
    causes: dict[str, list[str]] = {}

    sizes = (1, 2, 3, 40) if ns.arrays else (1, 2, 3)  # batches `jit` runs as one, too
    if ns.depth is None:
        drawn = cases(nested_jit=None, sizes=sizes, then=not ns.arrays)
    else:
        kinds = st.lists(st.sampled_from(TRANSFORMS), min_size=ns.depth, max_size=ns.depth)
        drawn = kinds.flatmap(lambda k: cases(k, jit_level=len(k)))

    @settings(
        max_examples=ns.count,
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(drawn)
    def run(case: Case) -> None:
        why = check(case, ns.arrays)
        outcomes["agreed" if why is None else "skipped" if why == SKIPPED else "failed"] += 1
        if why is not None and why != SKIPPED:
            causes.setdefault(cause(why), []).append(f"{describe(case)}: {case!r}")

    run()
    print(" ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for why, found in sorted(causes.items(), key=lambda kv: -len(kv[1])):
        print(f"\n{len(found)} x {why}")
        for example in sorted(found, key=len)[: ns.show]:
            print("   ", example[:600])
    return 1 if causes else 0


if __name__ == "__main__":
    sys.exit(main())
