"""`Sym`: the scalar that writes source, so an op's one rule also becomes compiled code.

Running an op's derivative rule on `Sym` values instead of floats gives the
text of a Python expression computing the same floats. That text is what
`jit` compiles, and what each node class's float fast path is compiled from
when the class is made: the rule is written once, never transcribed.

The vocabulary (`autograd.core.nodes.where`, ``le``, `divide`, ...) recognises a
`Sym` operand and emits text; a choice on values becomes a conditional
expression tested when the code runs.
"""

from __future__ import annotations

import contextlib
import keyword
import math
from collections.abc import Callable, Iterator
from contextvars import ContextVar

HELPERS: dict[str, object] = {"inf": math.inf, "nan": math.nan}
"""The globals generated code may call: the float helpers a rule or forward names."""

_NAMES: dict[Callable[..., float], str] = {}
"""Each float helper's name in generated code: one name per function object."""


_RESERVED = frozenset({"R", "MISS", "interleaved", "produced_nan"})
"""Globals of generated code that are not helpers (the inputs, loop and rule globals)."""


def _generated_like(name: str) -> bool:
    """Whether ``name`` could be a name the compiler makes (``v12``, ``np_exp``, ``loop3``)."""
    head = name.rstrip("0123456789")
    return (
        (head != name and (len(head) <= 3 or head in ("chunk", "loop", "fwd_loop", "bwd_loop")))
        or name.startswith(("_", "np_", "batch_"))
        or name in _RESERVED
        or keyword.iskeyword(name)
    )


def helper(fn: Callable[..., float]) -> str:
    """The name generated code calls ``fn`` by (registered in `HELPERS`).

    The name is ``fn.__name__`` when that is free, else that name with a
    number: two ops whose forwards share a ``__name__`` (two modules each
    calling theirs ``f``) each call their own function. A ``__name__`` that
    generated code uses for something else (``v1``, ``R``, ``<lambda>``)
    is prefixed.
    """
    name = _NAMES.get(fn)
    if name is None:
        stem = fn.__name__
        if not stem.isidentifier() or _generated_like(stem):
            stem = "op_" + "".join(c if c.isalnum() else "_" for c in stem).strip("_")
        name, n = stem, 1
        while name in HELPERS:
            name, n = f"{stem}_{n}", n + 1
        _NAMES[fn] = name
        HELPERS[name] = fn
    return name


def forget_helper(fn: Callable[..., float]) -> None:
    """Drop ``fn``'s name from `HELPERS` (an op being undefined); a no-op if it has none."""
    name = _NAMES.pop(fn, None)
    if name is not None:
        del HELPERS[name]


_arrays: ContextVar[bool] = ContextVar("autograd_sym_arrays", default=False)
"""Whether code being written is in the NumPy dialect (`arrays`)."""


@contextlib.contextmanager
def arrays() -> Iterator[None]:
    """Within, code is written in the NumPy dialect of a batched program.

    Each helper call is its array twin (``np_tanh``, which calls the float
    helper on floats), a choice is an element-wise select (``np_select``),
    and a conjunction an element-wise ``and`` (``np_and``); arithmetic and
    comparisons mean the same on arrays. `compiler.arrays` defines the twins.
    """
    token = _arrays.set(True)
    try:
        yield
    finally:
        _arrays.reset(token)


def in_arrays() -> bool:
    """Whether code is being written in the NumPy dialect (`arrays`)."""
    return _arrays.get()


def literal(c: float) -> str:
    """Source text for a float constant, with its bits (``-0.0``, ``inf``, ``nan``)."""
    if c != c:
        return "nan"
    if c in (math.inf, -math.inf):
        return "inf" if c > 0 else "(-inf)"
    text = repr(c)
    return f"({text})" if text.startswith("-") else text


class Sym:
    """A float computed by generated code: the expression's text and the names it reads.

    ``value`` is set for a constant known when the code is written (a `Const`
    node of the graph `jit` compiles), so a rule's choice on it is made then.
    ``unit`` marks a float that is exactly ``1.0`` in a scalar program (the
    seed cotangent, a constant 1.0 of the graph): a product with it is the
    other factor, written without the multiplication, since ``1.0 * x`` is
    ``x`` in every bit for a float.

    Code written in the NumPy dialect (`arrays`) also says what packing a
    batch's statements (`compiler.pack`) needs, so nothing reads the code
    back: ``array``, whether it surely gives an array (True), surely one
    number (False), or is not an operation per element (None); and
    ``fixed``, the names read by its helper calls none of whose arguments
    is an array (the float helper runs there: one value for every row of a
    pack). A name's `Sym` is told ``array``; a literal is one number.
    """

    __slots__ = ("array", "fixed", "src", "unit", "uses", "value")

    def __init__(
        self,
        src: str,
        uses: tuple[str, ...] = (),
        value: float | None = None,
        unit: bool = False,
        array: bool | None = False,
        fixed: frozenset[str] = frozenset(),
    ) -> None:
        self.src = src
        self.uses = uses
        self.value = value
        self.unit = unit
        self.array = array
        self.fixed = fixed

    def __repr__(self) -> str:
        return f"Sym({self.src!r})"

    def __add__(self, other: float | Sym) -> Sym:
        return infix(self, "+", other)

    def __radd__(self, other: float) -> Sym:
        return infix(other, "+", self)

    def __sub__(self, other: float | Sym) -> Sym:
        return infix(self, "-", other)

    def __rsub__(self, other: float) -> Sym:
        return infix(other, "-", self)

    def __mul__(self, other: float | Sym) -> Sym:
        return infix(self, "*", other)

    def __rmul__(self, other: float) -> Sym:
        return infix(other, "*", self)

    def __neg__(self) -> Sym:
        return Sym(f"(-{self.src})", self.uses, None, False, self.array, self.fixed)


def sym(x: float | Sym) -> Sym:
    """``x`` as a `Sym`: a float becomes its literal."""
    return x if isinstance(x, Sym) else Sym(literal(x))


def infix(x: float | Sym, op: str, y: float | Sym) -> Sym:
    """``(x op y)``, for an arithmetic or comparison operator.

    A product with a `Sym.unit` is the other factor: ``1.0 * x`` is ``x``.
    """
    a, b = sym(x), sym(y)
    if op == "*":
        if a.unit:
            return b
        if b.unit:
            return a
    src, uses = f"({a.src} {op} {b.src})", a.uses + b.uses
    if not _arrays.get():
        return Sym(src, uses)
    # an array if either side is; arrays meet numbers element by element
    array = None if a.array is None or b.array is None else a.array or b.array
    return Sym(src, uses, None, False, array, a.fixed | b.fixed)


def call(fn: Callable[..., float], *args: float | Sym) -> Sym:
    """``fn(args)`` in generated code; ``fn`` is a float helper."""
    syms = [sym(a) for a in args]
    uses = tuple(u for s in syms for u in s.uses)
    name = helper(fn)
    if not _arrays.get():
        return Sym(f"{name}({', '.join(s.src for s in syms)})", uses)
    return _twin_call("np_" + name, syms, uses)


def _twin_call(name: str, syms: list[Sym], uses: tuple[str, ...]) -> Sym:
    """``name(syms)``, an array twin's call: an array if an argument is.

    On no array the twin runs the float helper itself, so every name its
    arguments read is `Sym.fixed`.
    """
    src = f"{name}({', '.join(s.src for s in syms)})"
    if any(s.array is None for s in syms):
        return Sym(src, uses, None, False, None)
    array = any(s.array for s in syms)
    fixed = frozenset().union(*(s.fixed for s in syms)) if array else frozenset(uses)
    return Sym(src, uses, None, False, array, fixed)


def select(c: Sym, a: float | Sym, b: float | Sym) -> Sym:
    """``(a if c else b)``: only the chosen branch runs."""
    x, y = sym(a), sym(b)
    uses = c.uses + x.uses + y.uses
    if not _arrays.get():
        return Sym(f"({x.src} if {c.src} else {y.src})", uses)
    src = f"np_select({c.src}, {x.src}, {y.src})"
    if c.array is None or x.array is None or y.array is None:
        return Sym(src, uses, None, False, None)
    array = selects_array(c.array, x.array, y.array)
    return Sym(src, uses, None, False, array, c.fixed | x.fixed | y.fixed)


def selects_array(c: bool, a: bool, b: bool) -> bool:
    """Whether a select surely gives an array, given whether its condition and branches do.

    On one number it gives one branch as it is: an array only if that branch surely is.
    """
    return c or (a and b)


def conjunction(c: Sym, d: Sym) -> Sym:
    """``c and d`` of two conditions in code; in a batch, element by element (``np_and``)."""
    if not _arrays.get():
        return Sym(f"({c.src} and {d.src})", c.uses + d.uses)
    return _twin_call("np_and", [c, d], c.uses + d.uses)
