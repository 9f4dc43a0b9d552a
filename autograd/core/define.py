"""`define`: an op class completed from its definition, and the registries it fills.

`define` records an op class's inputs and static fields and registers it in
`OPS`; `complete_all` (called by `autograd.core.nodes` once every op of the
package exists, since their rules build each other's nodes) compiles each one's
float forward, float rules and fast builder (`autograd.core.rulegen`). An op
defined later, a user's, is completed at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

import attrs

from autograd.core import rulegen
from autograd.core.base import (
    _KIT,
    _VALUE_SLOTS,
    OPS,
    SHARED,
    Const,
    Leaf,
    Op,
    Push,
    _Arith,
    _input,
    _input_getters,
    _inputs,
    _self,
)
from autograd.core.sym import forget_helper

if TYPE_CHECKING:
    from autograd.core.nodes import Node

_OpT = TypeVar("_OpT", bound=Op)


def define(cls: type[_OpT]) -> type[_OpT]:
    """Complete an op class from its definition (see `Op`)."""
    fields = attrs.fields(cast("type[attrs.AttrsInstance]", cls))  # define follows attrs.frozen
    cls.inputs = tuple(f.name for f in fields if f.converter is _input)
    cls.static_fields = tuple(
        f.name for f in fields if f.converter is not _input and f.name != "value"
    )
    OPS[cls.name] = cls
    rulegen.alias_value_slot(cls)
    if _all_defined:  # an op defined after the package's (a user's): complete it now
        try:
            _complete(cls)
        except Exception:  # a rule that does not compile: the op is not defined
            undefine(cls)
            raise
    return cls


_all_defined = False  # the package's ops refer to each other: completed together (`complete_all`)


def _complete(cls: type[Op]) -> None:
    """Compile an op's float forward and float rule from its definition; make its builder."""
    kit = _KIT
    if "_forward" not in cls.__dict__:
        cls._forward = rulegen.compiled_forward(cls, kit)  # type: ignore[method-assign, assignment]  # filled in once
    if "vjp_float" in cls.__dict__:  # a hand-written float rule: the sweeps' forms call it
        cls.vjp_accumulate, cls.vjp_push = _accumulate_rule, _push_rule  # type: ignore[method-assign]  # filled in once
    else:
        cls.vjp_float = rulegen.compiled_rule(cls, kit)  # type: ignore[method-assign, assignment]  # filled in once
        cls.vjp_accumulate = rulegen.compiled_accumulate(cls, kit, push=False)  # type: ignore[method-assign]  # filled in once
        cls.vjp_push = rulegen.compiled_accumulate(cls, kit, push=True)  # type: ignore[method-assign]  # filled in once
    if len(cls.inputs) == 1:
        BUILD1[cls] = _build1(cls)


def undefine(cls: type[Op]) -> None:
    """Forget an op defined after import (a test's throwaway op): the registries drop it."""
    OPS.pop(cls.name, None)
    BUILD1.pop(cls, None)
    rulegen.COMPILED_FORWARDS.pop(cls, None)
    _input_getters.pop(cls, None)
    _VALUE_SLOTS.pop(cls, None)
    if rulegen.RAW_VALUE in cls.__dict__:
        delattr(cls, rulegen.RAW_VALUE)
    impl = cls.__dict__.get("impl")
    if impl is not None and all(op.__dict__.get("impl") is not impl for op in OPS.values()):
        forget_helper(impl)  # generated code named it for this op alone


_compiled_forwards = rulegen.COMPILED_FORWARDS
"""The ops whose ``_forward`` `define` compiled: their builders have its text written in."""

_B = TypeVar("_B", bound=Op)


def _build2(cls: type[_B]) -> Callable[[_Arith, _Arith], _B]:
    """The fast builder of a two-input op (`rulegen.build2`)."""
    return rulegen.build2(cls, _KIT)


def _build1(cls: type[_B]) -> Callable[[_Arith], _B]:
    """The fast builder of a one-input op (`rulegen.build1`)."""
    return rulegen.build1(cls, _KIT)


def _accumulate_rule(self: Op, g: float, cotangents: dict[Node, float]) -> None:
    """``vjp_accumulate`` of an op that writes its own ``vjp_float``: that rule, added in."""
    for x, gx in zip(_inputs(self), self.vjp_float(g)):  # noqa: B905  # lengths as the op's inputs
        if gx is not None and type(x) is not Const:  # a constant's cotangent is never read
            prev = cotangents.get(_self(x))
            cotangents[_self(x)] = gx if prev is None else prev + gx


def _push_rule(self: Op, g: float, cotangents: dict[Node, float], push: Push) -> None:
    """``vjp_push`` of an op that writes its own ``vjp_float``: every op input as shared."""
    _accumulate_rule(self, g, cotangents)
    for x in _inputs(self):
        if type(x) is not Const and type(x) is not Leaf:
            push(x)
            push(SHARED)


BUILD1: dict[type[Op], Callable[[_Arith], Op]] = {}
"""The fast builder of each one-input op."""


def complete_all() -> None:
    """Compile every op defined so far; `define` compiles each op defined after this at once."""
    global _all_defined
    for cls in OPS.values():
        _complete(cls)
    _all_defined = True
