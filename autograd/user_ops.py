"""`define_op`: a user's op from a float forward and one derivative rule.

The op gets what the package's own ops get from their definitions: a node
class, a public function (floats in, a float out; a node in, a node out),
every transform, `jit` (its rule compiled, its forward called), `vmap` under
`jit` (its forward applied element by element), drawings, the expression
grammar of the command line and `autograd.testing`, and `check_grads`. It is
the equivalent of JAX's ``custom_vjp``, HIPS autograd's ``defvjp`` and
PyTorch's ``autograd.Function``, written once.

>>> import math
>>> import autograd as ag
>>> from autograd import rules
>>> def softplus_float(x: float) -> float:
...     return max(x, 0.0) + math.log1p(math.exp(-abs(x)))  # never overflows
>>> def softplus_vjp(g: rules.S, x: rules.S, out: rules.S) -> tuple[rules.S]:
...     return (g * rules.apply(ag.Sigmoid, x),)
>>> softplus = ag.define_op("softplus_doc", softplus_float, softplus_vjp)
>>> softplus(0.0), ag.grad(softplus)(0.0), ag.jit(ag.grad(softplus))(0.0)
(0.6931471805599453, 0.5, 0.5)
>>> ag.undefine_op("softplus_doc")
"""

from __future__ import annotations

import inspect
import keyword
import math
from collections.abc import Callable
from typing import Protocol, cast, overload

import attrs

from autograd.compiler.jit import jit
from autograd.core.base import S, _forwarded, _input
from autograd.core.functions import (
    BINARY_FUNCTIONS,
    FUNCTIONS,
    Binary,
    Elementwise,
    binary,
    elementwise,
)
from autograd.core.nodes import OPS, Op, Primal, Scalar, define, undefine
from autograd.transforms.grad import grad

_PROBES = (0.5, -1.5, 0.0, -0.0, 3.0, math.inf, -math.inf, math.nan)
"""Inputs a forward must answer without raising (IEEE: ``inf`` and ``nan`` are answers)."""


class UnaryRule(Protocol):
    """``(g, x, out) -> (gx,)``: the cotangent of ``x`` given the output's ``g``.

    ``out`` is the op's value at ``x`` (for rules such as tanh's ``1 - out**2``).
    Generic in the scalar ``S`` (floats, nodes, `jit`'s code): write it with the
    operators and `autograd.rules`.
    """

    def __call__(self, g: S, x: S, out: S, /) -> tuple[S | None]: ...


class BinaryRule(Protocol):
    """``(g, x, y, out) -> (gx, gy)``; ``None`` for an input that has no cotangent."""

    def __call__(self, g: S, x: S, y: S, out: S, /) -> tuple[S | None, S | None]: ...


@overload
def define_op(
    name: str,
    forward: Callable[[float], float],
    vjp: UnaryRule,
    *,
    label: str | None = None,
    doc: str | None = None,
) -> Elementwise: ...
@overload
def define_op(
    name: str,
    forward: Callable[[float, float], float],
    vjp: BinaryRule,
    *,
    label: str | None = None,
    doc: str | None = None,
) -> Binary: ...
def define_op(
    name: str,
    forward: Callable[..., float],
    vjp: UnaryRule | BinaryRule,
    *,
    label: str | None = None,
    doc: str | None = None,
) -> Elementwise | Binary:
    """Define an op from its float forward and its derivative rule; return its function.

    Args:
        name: the function's name and the expression grammar's word (an
            identifier no other op has).
        forward: the float forward of one or two floats, returning a float and
            never raising: IEEE results (``inf``, ``nan``) where Python would raise.
        vjp: the derivative rule, ``(g, x, out) -> (gx,)`` for one input or
            ``(g, x, y, out) -> (gx, gy)`` for two, written with the operators
            and `autograd.rules` so it also runs on nodes and compiles.
        label: what drawings show (default ``name``).
        doc: the function's docstring.

    Returns:
        The op's public function: a float in, a float out; a node in, a node out.

    Raises:
        ValueError: if ``name`` is taken or not an identifier, the forward raises
            or the rule fails (on floats, on nodes or compiled), each message
            naming the input it was tried on.
        TypeError: if the forward takes other than one or two floats or returns
            something else than a float, or the rule returns the wrong number
            of cotangents.
    """
    arity = _arity(name, forward)
    _check_name(name)
    _check_forward(name, forward, arity)
    _check_rule_on_floats(name, forward, vjp, arity)
    cls = _op_class(name, label or name, forward, vjp, arity)
    try:
        define(cls)
    except Exception as e:
        raise ValueError(f"define_op({name!r}): the rule does not compile: {e}") from e
    public = (elementwise if arity == 1 else binary)(cls, doc or f"The user-defined op {name}.")
    try:
        _check_on_nodes_and_jit(name, public, arity)
    except Exception:
        undefine_op(name)
        raise
    return public


def undefine_op(name: str) -> None:
    """Forget an op `define_op` made (a re-run notebook cell, a test's throwaway op).

    Raises:
        KeyError: if no user-defined op has that name.
    """
    cls = OPS.get(name)
    if cls is None or not getattr(cls, "user_defined", False):
        raise KeyError(f"undefine_op({name!r}): no op of that name was made by define_op")
    undefine(cls)
    FUNCTIONS.pop(name, None)
    BINARY_FUNCTIONS.pop(name, None)


def _arity(name: str, forward: Callable[..., float]) -> int:
    try:
        params = inspect.signature(forward).parameters.values()
    except (TypeError, ValueError):  # some builtins: say how to wrap them
        raise TypeError(
            f"define_op({name!r}): cannot read the forward's signature; wrap it in a def"
        ) from None
    n = sum(p.default is inspect.Parameter.empty and p.kind in _POSITIONAL for p in params)
    if n not in (1, 2):
        raise TypeError(f"define_op({name!r}): the forward must take one or two floats, not {n}")
    return n


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _check_name(name: object) -> None:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"define_op({name!r}): the name must be a Python identifier")
    taken = name in OPS or name in FUNCTIONS or name in BINARY_FUNCTIONS
    if taken or name in ("inf", "nan", "where", "lt", "le", "gt", "ge", "eq", "ne"):
        raise ValueError(
            f"define_op({name!r}): an op of that name exists; pick another name, "
            "or undefine_op it first"
        )


def _check_forward(name: str, forward: Callable[..., float], arity: int) -> None:
    for xs in _probes(arity):
        try:
            v = forward(*xs)
        except Exception as e:
            raise ValueError(
                f"define_op({name!r}): the forward raised {type(e).__name__} ({e}) at {xs}; "
                "a forward returns IEEE results (inf, nan) instead of raising"
            ) from e
        if type(v) is not float:
            raise TypeError(
                f"define_op({name!r}): the forward returned {type(v).__name__} at {xs}, not a float"
            )


def _check_rule_on_floats(
    name: str, forward: Callable[..., float], vjp: UnaryRule | BinaryRule, arity: int
) -> None:
    xs = _probes(arity)[0]
    try:
        got: object = vjp(1.0, *xs, forward(*xs))  # type: ignore[call-arg]  # arity checked
    except Exception as e:
        raise ValueError(
            f"define_op({name!r}): the rule raised {type(e).__name__} ({e}) on floats at {xs}"
        ) from e
    if not isinstance(got, tuple) or len(got) != arity:
        raise TypeError(
            f"define_op({name!r}): the rule must return a tuple of {arity} cotangent(s) "
            f"(None for an input with none), got {got!r:.80}"
        )
    if not all(c is None or type(c) is float for c in got):
        raise TypeError(
            f"define_op({name!r}): on floats the rule must give floats (or None), got {got!r:.80}"
        )


def _check_on_nodes_and_jit(name: str, public: Callable[..., Scalar], arity: int) -> None:
    """Run the rule once on nodes (a second derivative) and once compiled, at a probe."""
    xs = _probes(arity)[0]
    first = grad(public, argnums=tuple(range(arity)))
    second = grad(lambda *a: cast(Scalar, first(*a)[0]))  # a gradient of scalars
    for what, fn in (("on nodes", second), ("compiled", jit(first))):
        try:
            fn(*xs)
        except Exception as e:
            raise ValueError(
                f"define_op({name!r}): the rule fails {what} at {xs}: "
                f"{type(e).__name__}: {e}; write it with the operators and autograd.rules"
            ) from e


def _probes(arity: int) -> list[tuple[float, ...]]:
    if arity == 1:
        return [(x,) for x in _PROBES]
    return [(x, y) for x in _PROBES for y in _PROBES[:4]]


def _op_class(
    name: str, label: str, forward: Callable[..., float], rule: UnaryRule | BinaryRule, arity: int
) -> type[Op]:
    """The node class, as the package writes its own: ``attrs.frozen`` over `Op`."""
    inputs = ("x", "y")[:arity]

    def vjp(self: Op, g: S, p: Primal[S]) -> tuple[S | None, ...]:
        args = [p(getattr(self, n)) for n in inputs]
        return tuple(rule(g, *args, p(self)))  # type: ignore[call-arg]  # arity checked

    body: dict[str, object] = {
        "__annotations__": {**dict.fromkeys(inputs, "Node"), "value": "float"},
        **{n: attrs.field(repr=False, converter=_input) for n in inputs},
        "value": attrs.field(init=False, default=attrs.Factory(_forwarded, takes_self=True)),
        "__doc__": f"The user-defined op {name} (autograd.define_op).",
        "__module__": "autograd.user_ops",
        "name": name,
        "label": label,
        "impl": forward,
        "vjp": vjp,
        "user_defined": True,
    }
    cls = type(name.title().replace("_", ""), (Op,), body)
    return attrs.frozen(eq=False)(cls)
