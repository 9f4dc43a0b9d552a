"""How far an exported function is from ours, per op: the measurement behind docs/jax.md.

For each op, random programs of that one op (`autograd.programs.random_program`
with the op at the root of variables and constants, inputs often special
values) are exported with `to_jax`, and their value and JAX's gradient
(``jax.value_and_grad``) are compared with this engine's, in ulps. A
difference that a known convention explains (`KNOWN`: XLA flushing subnormals,
JAX's own derivative where PyTorch's masks one) is counted under it instead.
``scripts/jax_agreement.py`` prints the table; the tests hold the bounds.
"""

from __future__ import annotations

import functools
import math
import random
import struct
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import attrs

from autograd.core.nodes import Node
from autograd.export._jax import load
from autograd.export._to_jax import to_jax
from autograd.expr import Expr, Num, Var, children, evaluate, to_source
from autograd.programs import Program, random_program

TINY = 2.0**-1000
"""Values below this (9.3e-302) are near XLA's flushed subnormals: its formulas' intermediates
reach them (``arcsin(2.2e-308)`` halves its input on the way)."""
WIDE = 2.0**511
"""Beyond this (6.7e153) a square overflows, and below its reciprocal it underflows."""


@attrs.frozen
class Case:
    """One program: its op, its operands' values and variables, and every number of ours.

    ``names`` holds the variable each operand is (None for a constant); ``seen``
    the inputs, the operands, and our value and gradients.
    """

    op: str
    operands: tuple[float, ...]
    names: tuple[str | None, ...]
    seen: tuple[float, ...]


@attrs.frozen
class Convention:
    """A known difference: its name, why it differs, and the cases it applies to.

    ``gradient_only`` says the values agree there.
    """

    name: str
    why: str
    applies: Callable[[Case], bool]
    gradient_only: bool = True


def _square_out_of_range(c: Case) -> bool:
    return c.op in _SQUARING and any(abs(x) > WIDE or 0.0 < abs(x) < 1 / WIDE for x in c.operands)


def _pow_edge(c: Case) -> bool:
    if c.op != "**":
        return False
    x, y = c.operands
    fourth_power_out_of_range = y == -2.0 and not 2.0**-255 < abs(x) < 2.0**255
    return x == 0.0 or math.isinf(x) or fourth_power_out_of_range


_SQUARING = ("/", "arctan2", "hypot")
"""The ops whose JAX derivative squares an operand."""


KNOWN: tuple[Convention, ...] = (
    Convention(
        "subnormal",
        "XLA on CPU takes subnormal inputs and results as zero (denormals are zero, flush to "
        "zero), in values and derivatives alike: log(5e-324) is -inf, exp(-709) is 0.0, "
        "-5e-324 < 0 is false. Counted wherever a number below 2**-1000 (9.3e-302) is among "
        "the inputs, the operands or our results: XLA's formulas reach the subnormals from "
        "there (arcsin(-2.2e-308) is -0.0)",
        lambda c: any(0.0 < abs(x) < TINY for x in c.seen),
        gradient_only=False,
    ),
    Convention(
        "arctan2 at the origin",
        "PyTorch's atan2 derivatives mask 1 / (x*x + y*y) to 0 where x*x + y*y is 0 (at the "
        "origin, or where both squares underflow); JAX's are nan there",
        lambda c: c.op == "arctan2" and c.operands[0] ** 2 + c.operands[1] ** 2 == 0.0,
    ),
    Convention(
        "hypot at the origin",
        "PyTorch's hypot derivatives are x / hypot(x, y), 0 / 0 = nan at (0, 0); JAX's "
        "give 0.5 to each leg there",
        lambda c: c.op == "hypot" and c.operands[0] == 0.0 and c.operands[1] == 0.0,
    ),
    Convention(
        "a square out of range",
        "JAX's derivatives of x / y, arctan2 and hypot square an operand (-x / y**2 in y; "
        "x*x + y*y), which overflows beyond 1.3e154 and flushes to 0 below 1.5e-154; ours "
        "divide twice, as PyTorch's -(x / y) / y. jnp.hypot divides by the larger leg: its "
        "derivative at |x| == |y| >= 1.3e154 is 1.5 times too big",
        _square_out_of_range,
    ),
    Convention(
        "x / x",
        "the two partials of x / x cancel: ours, 1/x - (x/x)/x, to 0.0; JAX's, 1/x - x/x**2, "
        "to 0.0 or an ulp of 1/x",
        lambda c: c.op == "/" and c.names[0] is not None and c.names[0] == c.names[1],
    ),
    Convention(
        "pow at a zero base",
        "PyTorch masks pow's derivatives at a zero base (none for exponent 0, none for the "
        "exponent where the exponent is >= 0); JAX's meet 0 * inf there and give nan. And "
        "x ** -2.0 is 1 / (x*x), as PyTorch computes it: JAX differentiates that as "
        "-2x / (x*x)**2, nan at an infinite x and out of range beyond 5.8e76 or below 1.7e-77, "
        "where ours is -2 * x ** -3.0",
        _pow_edge,
    ),
    Convention(
        "maximum, minimum of zeros",
        "at a tie ours return the first input, as torch.maximum and torch.minimum do; "
        "jnp.maximum of two zeros is 0.0 and jnp.minimum -0.0, in either order (IEEE "
        "754-2019's maximum and minimum)",
        lambda c: c.op in ("maximum", "minimum") and c.operands[0] == c.operands[1] == 0.0,
        gradient_only=False,
    ),
    Convention(
        "maximum, minimum of nan",
        "PyTorch's maximum and minimum pass the whole gradient to both inputs where one is "
        "nan; JAX's pass none",
        lambda c: c.op in ("maximum", "minimum") and any(x != x for x in c.operands),
    ),
)


def ulps(a: float, b: float) -> float:
    """The distance from ``a`` to ``b`` in units in the last place (floats between them).

    Two nans are 0 apart; a nan and a number, or an infinity and anything else,
    are ``inf`` apart; ``0.0`` and ``-0.0`` are 1.

    >>> ulps(1.0, 1.0000000000000002), ulps(0.0, -0.0), ulps(math.nan, math.nan)
    (1, 1, 0)
    """
    if a != a or b != b:
        return 0 if a != a and b != b else math.inf
    if a == b:
        return 0 if math.copysign(1.0, a) == math.copysign(1.0, b) else 1
    if math.isinf(a) or math.isinf(b):
        return math.inf
    return abs(_ordinal(a) - _ordinal(b))


def _ordinal(x: float) -> int:
    i: int = struct.unpack("<q", struct.pack("<d", x))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


@attrs.frozen
class Worst:
    """The largest distance outside the conventions, and where (``None``: every case agrees)."""

    ulps: float = 0
    case: str | None = None


@attrs.define
class Row:
    """One op's measurement: programs, the worst value and gradient, conventions met."""

    op: str
    programs: int = 0
    value: Worst = Worst()
    gradient: Worst = Worst()
    conventions: Counter[str] = attrs.field(factory=Counter)


def measure(op: str, count: int, seed: int = 0) -> Row:
    """``count`` random programs of ``op`` alone, exported and differentiated by JAX, against ours.

    Raises:
        ImportError: if JAX is not installed.
    """
    rng = random.Random(f"{seed}:{op}")
    row = Row(op)
    for _ in range(count):
        program = random_program(rng, (op,), root=op, max_nodes=1, hessian=False)
        value, grads = jax_value_and_grad(program.expr, program.inputs)
        _record(row, program, value, grads)
    return row


def jax_value_and_grad(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
    """``expr`` exported with `to_jax`, its value and ``jax.grad`` at ``inputs``, as floats."""
    j = load()
    f = to_jax(functools.partial(evaluate, expr))
    env = {name: j.jnp.float64(v) for name, v in inputs.items()}
    if not env:
        return float(f(env)), {}
    value, grads = j.jax.value_and_grad(f)(env)
    return float(value), {name: float(g) for name, g in grads.items()}


def _record(row: Row, program: Program, value: float, grads: Mapping[str, float]) -> None:
    row.programs += 1
    operands = children(program.expr)
    ours = (program.value, *program.gradients.values())
    case = Case(
        row.op,
        tuple(_operand(e, program.inputs) for e in operands),
        tuple(e.name if isinstance(e, Var) else None for e in operands),
        (*program.inputs.values(), *(_operand(e, program.inputs) for e in operands), *ours),
    )
    pairs = [("value", program.value, value)]
    pairs += [(f"d/d{n}", g, grads[n]) for n, g in program.gradients.items()]
    source = to_source(program.expr)
    for what, a, b in pairs:
        d = ulps(a, b)
        if d == 0:
            continue
        known = next(
            (c.name for c in KNOWN if (what != "value" or not c.gradient_only) and c.applies(case)),
            None,
        )
        if known is not None:
            row.conventions[known] += 1
            continue
        where = f"{what} of {source} at {dict(program.inputs)}: ours {a!r}, JAX {b!r}"
        if what == "value" and d > row.value.ulps:
            row.value = Worst(d, where)
        elif what != "value" and d > row.gradient.ulps:
            row.gradient = Worst(d, where)


def _operand(e: Expr, inputs: Mapping[str, float]) -> float:
    if isinstance(e, Num):
        return e.value
    if isinstance(e, Var):
        return inputs[e.name]
    v = evaluate(e, dict(inputs))  # a deeper operand: its value, as a node of constants
    return v.value if isinstance(v, Node) else v


def table(rows: Sequence[Row]) -> str:
    """The markdown table of docs/jax.md: per op, the worst distances and conventions met."""
    lines = [
        "| op | programs | value: largest ulps | gradient: largest ulps | by convention |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        met = ", ".join(f"{name} {n}" for name, n in sorted(r.conventions.items())) or "-"
        lines.append(
            f"| `{r.op}` | {r.programs} | {_fmt(r.value.ulps)} | {_fmt(r.gradient.ulps)} | {met} |"
        )
    return "\n".join(lines)


def _fmt(d: float) -> str:
    return "inf" if math.isinf(d) else f"{int(d):,}"
