"""An op's float code, written from its definition: the forward, the sweep's rules, the builders.

`nodes.define` completes each op class with code compiled from the op's own
rule: the rule is run on `Sym`, and the text that comes out is compiled, so
the float code *is* the rule written out, never a second copy of it.

This module knows nothing of the node classes but what a `Kit` hands it (the
classes `Const` and `Leaf`, the sweep's `SHARED` marker, the module holding the
seams), so the graph module can import it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, TypeAlias, TypeVar, cast

import attrs

from autograd.core.holders import ONE_HOLDER, refcount
from autograd.core.sym import HELPERS, Sym, sym

if TYPE_CHECKING:
    from autograd.core.nodes import Const, Leaf, Node, Op, _Arith


@attrs.frozen
class Kit:
    """What the compiled code needs of the graph module."""

    const: type[Const]
    leaf: type[Leaf]
    shared: object
    """`nodes.SHARED`: pushed after an input that may have other users (``vjp_push``)."""
    seams: ModuleType
    """The module whose ``on_build`` (`debug_nans`) and ``produced_nan`` the code reads when run."""


RAW_VALUE = "_raw_value"
"""Each node class's ``value`` slot under a second name that `guard_values` never wraps.

The forward code compiled from the ops' definitions (the builders) reads its inputs'
values through it: a trace's guard checks reads from the user's code, and a builder's
read of a traced value is what the compiled code repeats. It is the slot itself, as fast
as ``.value``; reading it from elsewhere is reaching past the guard on purpose.
"""


def alias_value_slot(cls: type) -> None:
    """Give a node class its `RAW_VALUE` alias of the ``value`` slot (at its definition).

    A class whose slot is its base's (an attrs subclass) inherits the base's alias.
    """
    slot = cls.__dict__.get("value")  # attrs slots=True: the member descriptor
    if slot is not None:
        setattr(cls, RAW_VALUE, slot)


_new = object.__new__
_Rule: TypeAlias = "Callable[[Op, float], tuple[float | None, ...]]"


def slot_setter(cls: type, name: str) -> Callable[[object, object], None]:
    """The setter of slot ``name`` of an attrs class: sets a frozen field without its checks."""
    setter: Callable[[object, object], None] = cls.__dict__[name].__set__  # attrs slots=True
    return setter


def template(cls: type[Op], kit: Kit, const: bool) -> tuple[Op, dict[Node, Sym]]:
    """A node of ``cls`` over stand-in inputs, and each stand-in's name in compiled code."""
    node = _new(cls)
    names: dict[Node, Sym] = {cast("Node", node): Sym("out", ("out",))}
    for i, field in enumerate(cls.inputs):
        x = kit.const(1.0) if const and i == cls.const_variant else kit.leaf(1.0)
        slot_setter(cls, field)(node, x)
        names[x] = Sym(field, (field,))
    return node, names


def _compile(
    cls: type[Op], kit: Kit, src: str, name: str, names: Mapping[str, object] | None = None
) -> Callable[..., object]:
    namespace = {**HELPERS, "__name__": __name__, "produced_nan": kit.seams.produced_nan}
    namespace.update(names or {})
    exec(compile(src, f"<autograd rule {cls.__name__}.{name}>", "exec"), namespace)
    return cast("Callable[..., object]", namespace[name])


COMPILED_FORWARDS: dict[type[Op], Callable[[Op], float]] = {}
"""The ops whose ``_forward`` was compiled here: their builders have its text written in."""


def compiled_forward(cls: type[Op], kit: Kit) -> Callable[[Op], float]:
    """``_forward``: the op's forward on its inputs' values (reporting a nan it makes)."""
    node, _ = template(cls, kit, const=False)
    reads = [f"self.{field}.{RAW_VALUE}" for field in cls.inputs]
    body = node.forward_source([Sym(r) for r in reads]).src
    src = (
        "def _forward(self):\n"
        f"    v = {body}\n"
        "    if v != v:\n"
        "        produced_nan(self)\n"
        "    return v\n"
    )
    forward = cast("Callable[[Op], float]", _compile(cls, kit, src, "_forward"))
    COMPILED_FORWARDS[cls] = forward
    return forward


def _rule_outputs(cls: type[Op], kit: Kit, const: bool) -> tuple[list[Sym | None], set[str]]:
    """The rule run on `Sym`: each input's cotangent as code (or None), and the names read."""
    node, names = template(cls, kit, const)
    outs = [None if o is None else sym(o) for o in node.vjp(Sym("g", ("g",)), names.__getitem__)]
    if len(outs) != len(cls.inputs):  # checked once here, so the float sweep need not
        raise TypeError(
            f"{cls.__name__}.vjp returns {len(outs)} cotangent(s) for {len(cls.inputs)} input(s)"
        )
    return outs, {u for o in outs if o is not None for u in o.uses}


def _rule_source(cls: type[Op], kit: Kit, const: bool, name: str) -> str:
    outs, used = _rule_outputs(cls, kit, const)
    lines = [f"def {name}(self, g):"]
    if "out" in used:
        lines.append("    out = self.value")
    lines += [f"    {f} = self.{f}.value" for f in cls.inputs if f in used]
    items = ["None" if o is None else o.src for o in outs]
    lines.append(f"    return ({''.join(i + ', ' for i in items)})")
    return "\n".join(lines) + "\n"


def compiled_rule(cls: type[Op], kit: Kit) -> Callable[[Op, float], tuple[float | None, ...]]:
    """``vjp`` on floats, compiled from the rule run on `Sym` (as fast as hand-written code)."""
    plain = cast(_Rule, _compile(cls, kit, _rule_source(cls, kit, False, "vjp_float"), "vjp_float"))
    if cls.const_variant is None:
        return plain
    const = cast(_Rule, _compile(cls, kit, _rule_source(cls, kit, True, "vjp_float"), "vjp_float"))
    field = cls.inputs[cls.const_variant]
    get = operator.attrgetter(field)
    Const = kit.const

    def vjp_float(self: Op, g: float) -> tuple[float | None, ...]:
        return (const if type(get(self)) is Const else plain)(self, g)

    return vjp_float


def _accumulate_lines(cls: type[Op], kit: Kit, const: bool, push: bool) -> list[str]:
    """The float rule as statements adding each input's cotangent where it goes."""
    outs, used = _rule_outputs(cls, kit, const)
    lines = ["out = self.value"] if "out" in used else []
    read = [push or o is not None or f in used for f, o in zip(cls.inputs, outs, strict=True)]
    lines += [f"_in{i} = self.{f}" for i, f in enumerate(cls.inputs) if read[i]]
    lines += [f"{f} = _in{i}.value" for i, f in enumerate(cls.inputs) if f in used]
    for i, o in enumerate(outs):
        x, shared = f"_in{i}", [f"_push(_in{i})", "_push(_SHARED)"]
        if o is None:  # no cotangent, but its inputs may have one from elsewhere: walked
            if push:
                lines += [f"if type({x}) is not Const and type({x}) is not Leaf:", *_indent(shared)]
            continue
        add = [
            f"_g = {o.src}",
            f"_prev = _cotangents.get({x})",
            f"_cotangents[{x}] = _g if _prev is None else _prev + _g",
        ]
        lines.append(f"_type = type({x})")
        if not push:
            lines += ["if _type is not Const:", *_indent(add)]  # a constant's is never read
            continue
        lines += [  # the cotangent of an input only this node holds goes on the stack
            f"if _type is not Const and _type is not Leaf and _refcount({x}) <= _ONE:",
            f"    _push({x})",
            f"    _push({o.src})",
            "elif _type is not Const:",
            *_indent(add),
            "    if _type is not Leaf:",
            *_indent(_indent(shared)),
        ]
    return lines or ["pass"]


def _indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def compiled_accumulate(cls: type[Op], kit: Kit, push: bool) -> Callable[..., None]:
    """``vjp_accumulate`` or ``vjp_push`` compiled from the rule run on `Sym`, as ``vjp_float``."""
    # named vjp_float as what it is, the float rule: jit's read guard knows rules by that name
    lines = [f"def vjp_float(self, g, _cotangents{', _push' if push else ''}):"]
    if cls.const_variant is None:
        lines += _indent(_accumulate_lines(cls, kit, False, push))
    else:  # both variants in one function, chosen as `compiled_rule` chooses
        lines.append(f"    if type(self.{cls.inputs[cls.const_variant]}) is Const:")
        lines += _indent(_indent(_accumulate_lines(cls, kit, True, push)))
        lines.append("    else:")
        lines += _indent(_indent(_accumulate_lines(cls, kit, False, push)))
    names = {"Const": kit.const, "Leaf": kit.leaf, "_SHARED": kit.shared, "_refcount": refcount}
    names["_ONE"] = ONE_HOLDER
    src = "\n".join(lines) + "\n"
    return cast("Callable[..., None]", _compile(cls, kit, src, "vjp_float", names))


# --- fast construction ---
# `Add(x, y)` runs attrs' generated __init__, which sets each field through
# `object.__setattr__` and then calls the `value` default. The operators build
# the same objects with the fields' own slot setters and the class's own
# `_forward`: the same node, about a third cheaper (see bench/README.md).
_B = TypeVar("_B", bound="Op")


def build2(cls: type[_B], kit: Kit) -> Callable[[_Arith, _Arith], _B]:
    """The fast builder of a two-input op: ``build(x, y)`` is ``cls(x, y)``, for nodes."""
    if cls in COMPILED_FORWARDS:
        return cast("Callable[[_Arith, _Arith], _B]", _inlined_build(cls, kit))
    set_x, set_y = slot_setter(cls, "x"), slot_setter(cls, "y")
    set_value, forward, seams = slot_setter(cls, "value"), cls._forward, kit.seams

    def build(x: _Arith, y: _Arith) -> _B:  # every _Arith is a Node
        node = _new(cls)
        set_x(node, x)
        set_y(node, y)
        set_value(node, forward(node))
        if seams.on_build is not None:
            seams.on_build(node)
        return node

    return build


def build1(cls: type[_B], kit: Kit) -> Callable[[_Arith], _B]:
    """The fast builder of a one-input op: ``build(x)`` is ``cls(x)``, for a node."""
    if cls in COMPILED_FORWARDS:
        return cast("Callable[[_Arith], _B]", _inlined_build(cls, kit))
    set_x, set_value, forward = slot_setter(cls, "x"), slot_setter(cls, "value"), cls._forward
    seams = kit.seams

    def build(x: _Arith) -> _B:
        node = _new(cls)
        set_x(node, x)
        set_value(node, forward(node))
        if seams.on_build is not None:
            seams.on_build(node)
        return node

    return build


def _inlined_build(cls: type[Op], kit: Kit) -> Callable[..., Op]:
    """A builder with the compiled forward's text written in: one call a node, not two."""
    xs = [f"_x{i}" for i in range(len(cls.inputs))]
    node, _ = template(cls, kit, const=False)
    body = node.forward_source([Sym(f"{x}.{RAW_VALUE}") for x in xs]).src
    lines = [f"def build({', '.join(xs)}):", "    _node = _new(_cls)"]
    lines += [f"    _set{i}(_node, {x})" for i, x in enumerate(xs)]
    lines += [
        f"    _v = {body}",
        "    if _v != _v:",
        "        produced_nan(_node)",
        "    _set_value(_node, _v)",
        "    if _hooks.on_build is not None:",  # `debug_nans` sets it on the seams' module
        "        _hooks.on_build(_node)",
        "    return _node",
    ]
    names: dict[str, object] = {"_new": _new, "_cls": cls, "_hooks": kit.seams}
    names.update({f"_set{i}": slot_setter(cls, f) for i, f in enumerate(cls.inputs)})
    names["_set_value"] = slot_setter(cls, "value")
    return cast("Callable[..., Op]", _compile(cls, kit, "\n".join(lines) + "\n", "build", names))
