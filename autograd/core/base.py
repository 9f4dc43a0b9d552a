"""What every node is: `Leaf`, `Const`, the `Op` base class, and the operators they share.

`_Arith` gives every node class its operators (``x + 1.0`` lifts the number
to a shared `Const` and builds an `Add`); `Op` is what an op class declares
(the op classes are in `autograd.core.ops` and `more_ops`, their rule vocabulary
in `rules`, `define` in `define`).
The operators build through `_add`, `_mul`, `_div` and `_pow`, which `nodes`
sets once its op classes exist: this module is below them and cannot name them.

The seams `debug_nans` hooks into (`on_build`, `on_nan`) and `jit`'s read guard
(`guard_values`) live here, with `OPS`, the registry of op classes by name.
"""

from __future__ import annotations

import math
import numbers
import operator
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, Self, SupportsIndex, TypeAlias, TypeVar, cast, final

import attrs

from autograd.core import pickling as _pickling
from autograd.core import rulegen
from autograd.core.convert import to_float
from autograd.core.floats import int_to_float
from autograd.core.sym import Sym, call, infix

if TYPE_CHECKING:
    from autograd.core.nodes import Scalar


def _unbuilt(x: _Arith, y: _Arith) -> Node:
    raise RuntimeError("the op classes are defined in autograd.core.nodes: import it first")


# The operators' builders: `nodes` sets each once its op classes exist.
_add: Callable[[_Arith, _Arith], Node] = _unbuilt
_mul: Callable[[_Arith, _Arith], Node] = _unbuilt
_div: Callable[[_Arith, _Arith], Node] = _unbuilt
_pow: Callable[[_Arith, _Arith], Node] = _unbuilt


def _never(node: Node) -> bool:
    return False


_plain_in_trace: Callable[[Node], bool] = _never
"""Whether a node is a number in the eager call `jit` is tracing (`rules.plain_in_eager`,
set by `nodes`): NumPy would compute on it as float64, in its own way."""

_INF = math.inf
_NAN = math.nan
_Number = numbers.Number  # float, int, bool, complex, Fraction, Decimal, NumPy scalars


# --- the seams `debug_nans` hooks into: None (one test, no cost) unless a block is open ---

on_build: Callable[[_Arith], None] | None = None
"""Called with each op node built, to record where (`debug_nans` sets it while open)."""

on_nan: Callable[[_Arith], None] | None = None
"""Called with a node whose forward rule made nan (`debug_nans` sets it while open)."""


def guard_values(wrap: Callable[[object], object] | None) -> None:
    """The seam `jit`'s trace guard uses: read every node's ``value`` through ``wrap(slot)``.

    ``wrap`` gets each class's slot descriptor and returns the descriptor to read
    through while traces run; None puts the slots back. Outside traces the
    classes hold their plain slots, so reading ``.value`` costs nothing extra.
    """
    for cls in (Leaf, Const, *OPS.values()):
        slot = _VALUE_SLOTS.setdefault(cls, cls.__dict__["value"])
        cls.value = slot if wrap is None else wrap(slot)  # type: ignore[attr-defined]  # a descriptor, as attrs made it


_VALUE_SLOTS: dict[type, object] = {}  # each class's own `value` slot, while it is wrapped


def produced_nan(node: _Arith) -> None:
    """Called by a forward rule whose result is nan: report it under `debug_nans`."""
    if on_nan is not None:
        on_nan(node)


# --- the nodes ---


@final
class CompareDotValue:
    """What mypy names when a node is ordered like a number.

    ``node < 1`` is the type error ``"CompareDotValue" not callable``; at run
    time it raises `TypeError`.

    Compare ``node.value``; under a transform use `autograd.where` and the ops'
    own rules (`relu`, `abs`, `maximum`) instead of branching on a node.
    """

    __slots__ = ()


class Node:
    """A node of the graph: the nominal base of every node class, and the operator sugar.

    What annotations and messages name (`Scalar` is ``float | Node``). Every
    concrete class is `@final`; `NodeUnion` is their closed union, for an
    exhaustive ``match``. Holds no data itself: each class has its slots.
    """

    __slots__ = ()
    __array_ufunc__ = None

    def __array__(self, dtype: object = None, copy: object = None) -> object:
        """What NumPy makes of a node: a 0-d object array holding it (NumPy is loaded).

        Refused in a `jit` trace where the eager call holds a number: there
        NumPy would compute in float64 its own way (``np.sum`` adds pairwise),
        which the traced nodes cannot reproduce.
        """
        if _plain_in_trace(self):
            raise TypeError(
                f"jit: NumPy was given {self!r}, a number in the eager call: NumPy's own "
                "arithmetic on it (np.sum adds pairwise) cannot be traced; use autograd's "
                "functions (autograd.sum, autograd.mean, ...) inside jit"
            )
        held = sys.modules["numpy"].empty((), dtype=object)
        held[()] = self
        return held

    if TYPE_CHECKING:  # what every node class (`Leaf`, `Const`, each `Op`) defines: the sweeps'

        @property
        def value(self) -> float: ...  # each class's frozen slot: the forward result, read-only

        def vjp_float(self, g: float) -> tuple[float | None, ...]: ...
        def vjp_accumulate(self, g: float, cotangents: dict[Node, float]) -> None: ...
        def vjp_push(self, g: float, cotangents: dict[Node, float], push: Push) -> None: ...
        def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]: ...
        def jvp(self, t: Mapping[Node, S], p: Primal[S]) -> S | None: ...
    # numpy scalars on the left defer to our reflected operators

    # The hot paths: a node operand skips `lift`, and nodes are built by `_build`.
    def __add__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _add(self, y)

    def __radd__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _add(x, self)

    # `x - c` is `x + (-c)`, as micrograd builds it: IEEE defines subtraction so, bit for bit
    def __sub__(self, other: float | Node) -> Node:
        if type(other) is float:
            return _add(self, _const(-other))
        if isinstance(other, _Arith):
            return _add(self, _mul(_self(other), MINUS_ONE))
        y = lift(other)
        return NotImplemented if y is None else _add(self, _const(-y.value))

    def __rsub__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _add(x, _mul(self, MINUS_ONE))

    def __mul__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _mul(self, y)

    def __rmul__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _mul(x, self)

    # One IEEE division, as torch.div: `x * (1 / y)` rounds twice, and `1 / y`
    # overflows for a subnormal y (then 0 / 1e-310 would be nan, not 0).
    def __truediv__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _div(self, y)

    def __rtruediv__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _div(x, self)

    def __pow__(self, other: float | Node) -> Node:
        y = other if isinstance(other, _Arith) else lift(other)
        return NotImplemented if y is None else _pow(self, y)

    def __rpow__(self, other: float) -> Node:
        x = lift(other)
        return NotImplemented if x is None else _pow(x, self)

    def __neg__(self) -> Node:
        return _mul(self, MINUS_ONE)

    def __pos__(self) -> Node:
        return _self(self)

    # A node is immutable and *is* its variable: a copy is the node itself, so a
    # copied parameter keeps its gradient (JAX treats a copy as the identity).
    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[object, ...]:
        # pickle's default recursion goes one C frame set per node: walk the graph instead
        return _pickling.reduce_node(self, protocol, _inputs)

    if TYPE_CHECKING:
        # Declared as a non-callable attribute, `node < 1` is one type error on the whole
        # union (`"CompareDotValue" not callable`), where a missing method gave one per node
        # class. A float on the left (`1 < node`) still gets one per class: mypy reports a
        # reflected operator for each member of a union.
        __lt__: ClassVar[CompareDotValue]
        __le__: ClassVar[CompareDotValue]
        __gt__: ClassVar[CompareDotValue]
        __ge__: ClassVar[CompareDotValue]
    else:  # at run time they raise; hidden from mypy, so `float(node)` stays a type error

        def _refuse(self, *_: object) -> bool:
            raise TypeError(
                f"{self!r} is a graph node, not a number: compare or convert its "
                "`.value`, and use autograd.exp/log/tanh/... instead of math.*"
            )

        __bool__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
        __float__ = __int__ = __index__ = __complex__ = __round__ = _refuse
        __abs__ = _refuse  # Python's own message names no way out: `autograd.abs` is one

        # Between two nodes `==` is identity (two leaves are two variables), as dict keys
        # need. Against a number it would be an identity test too, always False: the
        # other branch of `0.0 if x == 0.0 else x` taken silently under a transform.
        def __eq__(self, other: object) -> bool:
            if isinstance(other, _Number):
                self._refuse()
            return self is other

        def __ne__(self, other: object) -> bool:
            if isinstance(other, _Number):
                self._refuse()
            return self is not other

        __hash__ = object.__hash__


_Arith = Node
"""The old name of `Node` inside the package."""


def _inputs(node: _Arith) -> tuple[_Arith, ...]:
    """A node's inputs, for any node class: its fields that take nodes, in order."""
    get = _input_getters.get(type(node))
    if get is None:  # first use of the class: its fields with the `_input` converter
        fields = attrs.fields(type(node))  # type: ignore[arg-type]  # every _Arith is attrs
        names = [f.name for f in fields if f.converter is _input]
        get = _input_getters[type(node)] = _getter(names)
    return get(node)


def parents(node: Node) -> tuple[Node, ...]:
    """The inputs of ``node``, in field order."""
    return _inputs(node)


def _getter(names: list[str]) -> Callable[[_Arith], tuple[_Arith, ...]]:
    if not names:
        return lambda node: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda node: (one(node),)
    return operator.attrgetter(*names)


_input_getters: dict[type, Callable[[_Arith], tuple[_Arith, ...]]] = {}
PARENTS = _input_getters
"""`parents` as a table: each node class seen so far (by `parents`) to its inputs getter.
A graph walk's hot loop reads ``PARENTS[type(node)](node)``, one call, falling back to
`parents` (which fills the table) for a class it does not have yet."""


def _self(node: Node) -> Node:
    return node


def lift(v: object) -> Node | None:
    """A node for an operand: nodes as they are, numbers as `Const`, else None.

    Raises:
        ValueError: for a real number float64 does not hold exactly (`to_float`):
            ``node + Fraction(1, 3)`` would otherwise round silently.
    """
    t = type(v)
    if t is float:
        return _const(v)  # type: ignore[arg-type]  # mypy does not narrow on `type(v) is`
    if t is int:  # before the test for a node: the operators pass nodes by themselves
        try:
            return _const(float(v))  # type: ignore[arg-type]  # an int, as tested
        except OverflowError:  # beyond float64: a signed infinity
            return _const(int_to_float(cast(int, v)))
    if isinstance(v, _Arith):
        return _self(v)
    if isinstance(v, float):  # numpy.float64 and other float subclasses
        return _const(float(v))
    if isinstance(v, int) and not isinstance(v, bool):
        return _const(int_to_float(v))
    try:  # the rare operands: NumPy scalars, Fraction, Decimal, bool, complex
        return _const(to_float(v))
    except TypeError:  # Python then tries the other operand, and says "unsupported operand"
        return None
    except ValueError as e:
        raise ValueError(f"an operand {type(v).__name__} {v!r:.60}: {e}") from None


def _as_float(v: float) -> float:
    """Normalise a `Leaf`/`Const` value to a plain float; refuse non-numbers."""
    if type(v) is float:
        return v
    try:
        return to_float(v)
    except TypeError:
        raise TypeError(
            f"a node value must be a float or an int, got {type(v).__name__} {v!r:.60}"
        ) from None
    except ValueError as e:
        raise ValueError(f"a node value of {type(v).__name__} {v!r:.60}: {e}") from None


def _check_input(v: Node, self: object, field: attrs.Attribute[Node]) -> Node:
    # The signature says Node, but a direct `Add(1.0, 2.0)` is untyped user code.
    if not isinstance(cast(object, v), _Arith):
        raise TypeError(
            f"{type(self).__name__}({field.name}=...) needs a node, got {type(v).__name__} "
            f"{v!r:.60}: wrap numbers in Const(...), or use the operators (node + 1.0), "
            "which lift them"
        )
    return v


# The converter of every op's input fields: it names the class and field of a
# non-node. Only a direct ``Add(x, y)`` runs it; the operators' fast builders
# take nodes they lifted. mypy's attrs plugin reads only named functions as
# converters, so it is shown one with the same types (the __init__ takes Node).
if TYPE_CHECKING:

    def _input(v: Node) -> Node: ...

else:
    _input = attrs.Converter(_check_input, takes_self=True, takes_field=True)


S = TypeVar("S", float, "Scalar", Sym)
"""The scalar a rule computes with: `float` in a first-order sweep, `Scalar` in one
that is differentiated again, `Sym` when the rule is written out as code."""

V = TypeVar("V", float, "Scalar")
"""What a sweep carries: floats in a first-order sweep, nodes in one differentiated again."""

Primal: TypeAlias = Callable[["Node"], S]
"""A sweep's view of a node's primal: its value, the node itself, or its name in code."""


@final
@attrs.frozen(eq=False)
class Leaf(_Arith):
    """An input variable: ``Leaf(2.0)``. Two leaves are two variables."""

    value: float = attrs.field(converter=_as_float)
    name: str | None = attrs.field(default=None, kw_only=True, repr=False)

    def vjp_float(self, g: float) -> tuple[float | None, ...]:
        return ()

    def vjp_accumulate(self, g: float, cotangents: dict[Node, float]) -> None:
        pass  # no inputs

    def vjp_push(self, g: float, cotangents: dict[Node, float], push: Push) -> None:
        pass  # no inputs

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return ()

    def jvp(self, t: Mapping[Node, S], p: Primal[S]) -> S | None:
        return None  # no inputs: a zero tangent unless a transform seeds this node


@final
@attrs.frozen(eq=False)
class Const(_Arith):
    """A constant: a number folded into the graph, or a `stop_gradient` result."""

    value: float = attrs.field(converter=_as_float)

    def vjp_float(self, g: float) -> tuple[float | None, ...]:
        return ()

    def vjp_accumulate(self, g: float, cotangents: dict[Node, float]) -> None:
        pass  # no inputs

    def vjp_push(self, g: float, cotangents: dict[Node, float], push: Push) -> None:
        pass  # no inputs

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        return ()

    def jvp(self, t: Mapping[Node, S], p: Primal[S]) -> S | None:
        return None  # no inputs: a zero tangent unless a transform seeds this node


rulegen.alias_value_slot(Leaf)
rulegen.alias_value_slot(Const)


class Op(_Arith):
    """An op's definition: its node class holds the float forward and the derivative rule.

    A subclass, decorated with `define` after ``attrs.frozen``, declares:

    - its input fields (``attrs.field(converter=_input)``) and ``value`` (``init=False``);
    - ``impl``, the float forward (a never-raising float64 helper), or ``infix``;
    - ``vjp(self, g, p)``, the derivative rule, written once over the scalar ``S``
      with the vocabulary of `autograd.core.rules` (operators, `divide`, `power`, `where`,
      `le`, ...; a choice on values is a `where`, never a Python ``if``);
    - ``name`` (the public function, the expression grammar's word) and ``label``
      (drawings).

    `define` derives the rest: the float forward run when a node is built and the
    float rule of the first-order sweep are compiled from the rule run on `Sym`
    (so they are the rule, not a copy of it); `jvp` applies the rule to each
    input's tangent (the rule is linear in ``g``); the builder the operators
    and public functions use; the entry in `OPS`.
    """

    __slots__ = ()
    name: ClassVar[str]
    label: ClassVar[str]
    impl: ClassVar[Callable[..., float]]
    infix: ClassVar[str | None] = None
    inputs: ClassVar[tuple[str, ...]] = ()
    const_variant: ClassVar[int | None] = None
    """An input whose being a `Const` changes the rules (Pow's exponent), if any."""
    static_fields: ClassVar[tuple[str, ...]] = ()
    """Fields that are neither inputs nor ``value`` (`Compare`'s operator), set by `define`."""
    value: float

    def _forward(self) -> float:
        raise NotImplementedError  # compiled by `define`

    def vjp_float(self, g: float) -> tuple[float | None, ...]:
        raise NotImplementedError  # compiled by `define`

    def vjp_accumulate(self, g: float, cotangents: dict[Node, float]) -> None:
        """``vjp_float`` adding each input's cotangent into ``cotangents`` (a constant's is not).

        Compiled by `define` from the rule, as ``vjp_float`` is.
        """
        raise NotImplementedError

    def vjp_push(self, g: float, cotangents: dict[Node, float], push: Push) -> None:
        """`vjp_accumulate`, but an op input is given to ``push`` with its cotangent, in order.

        An input that only this node holds gets its cotangent pushed after it;
        one that may have other users gets it added into ``cotangents`` and
        `SHARED` pushed after it (so does one the rule gives no cotangent).
        Leaves' cotangents go into ``cotangents``; constants' nowhere. Compiled by `define`.
        """
        raise NotImplementedError

    def vjp(self, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        """Cotangents of the inputs, in field order; None where there is none."""
        raise NotImplementedError

    def jvp(self, t: Mapping[Node, S], p: Primal[S]) -> S | None:
        """The tangent of this node: the rule applied to each input's tangent, summed in order.

        Forward mode is the same rule as reverse mode, so the two cannot disagree.
        An input without a tangent adds nothing; None if no input has one.
        """
        out: S | None = None
        for i, x in enumerate(_inputs(self)):
            dx = t.get(_self(x))
            if dx is not None:
                c = self.vjp(dx, p)[i]
                if c is not None:
                    out = c if out is None else out + c
        return out

    def forward_source(self, xs: Sequence[Sym]) -> Sym:
        """The forward as code over the inputs' names (`jit`, and the compiled ``_forward``)."""
        if self.infix is not None:
            return infix(xs[0], self.infix, xs[1])
        return call(type(self).impl, *xs)

    def float_source(self, xs: Sequence[Sym]) -> Sym:
        """The forward as Python computes it on plain numbers (`jit` of a user's float math)."""
        return self.forward_source(xs)


_new = object.__new__
_slot_setter = rulegen.slot_setter


OPS: dict[str, type[Op]] = {}
"""Every op class by its public name, in definition order: what the expression
grammar, drawings, the JSON form and `autograd.testing` read."""


Push: TypeAlias = Callable[[object], None]
"""`Op.vjp_push`'s ``push``: takes an input node, then its cotangent or `SHARED`."""

SHARED = object()
"""Pushed by `Op.vjp_push` after an input that may have other users: its cotangent is in the
dict, and the sweep must walk the rest of the graph to find where that input comes."""

_KIT = rulegen.Kit(Const, Leaf, SHARED, sys.modules[__name__])
"""What `rulegen` compiles op code with: this module's constants, leaves and seams."""


def _forwarded(node: Op) -> float:
    """The ``value`` default of an op built by its class (``Add(x, y)``): its forward rule."""
    value = node._forward()
    if on_build is not None:
        on_build(node)
    return value


def _const(value: float) -> Const:
    """``Const(value)`` for a value that is already a plain float (no converter to run).

    The constants of operators (``0.9 * x``) are shared: a `Const` is immutable
    and gets no cotangent, so one node per value serves every op that reads it,
    and a loop's graph does not build a new one each step. Zeros are not
    shared (``0.0`` and ``-0.0`` are equal keys); nor are more than
    `_SHARED_CONSTS` values at once.
    """
    node = _shared_consts.get(value)
    if node is None:
        node = _new(Const)
        _set_const_value(node, value)
        if value != 0.0 and type(value) is float:  # an int 2 would answer for 2.0
            if len(_shared_consts) >= _SHARED_CONSTS:
                _shared_consts.clear()
            _shared_consts[value] = node
    return node


_SHARED_CONSTS = 1024
_shared_consts: dict[float, Const] = {}


_set_const_value = _slot_setter(Const, "value")


def fresh_leaf(value: float) -> Leaf:
    """``Leaf(value)`` for a value that is already a plain float: a transform's variable."""
    node = _new(Leaf)
    _set_leaf_value(node, value)
    _set_leaf_name(node, None)
    return node


_set_leaf_value, _set_leaf_name = _slot_setter(Leaf, "value"), _slot_setter(Leaf, "name")


MINUS_ONE = Const(-1.0)  # shared by every `-x` and `x - y`: nodes are immutable
VARIABLE_ONE = Const(1.0)
"""A transform's variable for a node it is given is ``Mul(node, VARIABLE_ONE)``: `jit` reads
this mark to know the variable is a node in the eager call, whatever its input is."""
RESULT_ONE = Const(1.0)
"""In a `jit` trace, a transform's result that the eager call holds as a float (the transform
closed, none around it) is ``Mul(node, RESULT_ONE)``: `jit` reads this mark to compute on it
as on a float (Python's ``**``, NumPy's float64), whatever its input is (`rules.float_result`)."""


def _lift_scalar(v: Scalar) -> Node:
    node = lift(v)
    assert node is not None, "rules only combine floats and nodes"
    return node
