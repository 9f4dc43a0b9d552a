"""Float64 arithmetic that never raises: IEEE-754 results, as PyTorch's CPU kernels give.

Python raises where IEEE-754 answers (``1.0 / 0.0``, ``math.exp(1000)``,
``math.sqrt(-1)``, ``math.sin(inf)``) or answers differently (``(-8) ** (1/3)``
is complex). Every op's forward is one of these helpers, so no Python
exception and no complex number ever escapes the engine.
"""

from __future__ import annotations

import math

_INF = math.inf
_NAN = math.nan


def int_to_float(i: int) -> float:
    """``float(i)``, with overflow to a signed infinity instead of ``OverflowError``."""
    try:
        return float(i)
    except OverflowError:
        return _INF if i > 0 else -_INF


def div_float(a: float, b: float) -> float:
    """IEEE ``a / b``: a zero divisor gives a signed infinity or nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0.0 or a != a:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def sqrt_float(x: float) -> float:
    """IEEE sqrt: ``sqrt(-0.0) == -0.0``, negative numbers give nan."""
    return math.sqrt(x) if x >= 0.0 or x != x else _NAN


def _is_odd_integer(y: float) -> bool:
    return y % 2.0 == 1.0  # false for inf/nan and for every float above 2**53


def pow_float(x: float, y: float) -> float:
    """C99/IEEE ``pow`` (PyTorch's tensor-exponent ``pow``), never raising.

    >>> pow_float(0.0, -1.0), pow_float(-8.0, 1 / 3), pow_float(-10.0, 401.0)
    (inf, nan, -inf)
    """
    try:
        return math.pow(x, y)
    except OverflowError:
        return -_INF if x < 0.0 and _is_odd_integer(y) else _INF
    except ValueError:
        if x == 0.0:  # zero to a negative power: the sign survives only for odd y
            return math.copysign(_INF, x) if _is_odd_integer(y) else _INF
        return _NAN  # negative base, non-integer exponent: no complex results


def pow_scalar_float(x: float, c: float) -> float:
    """``x ** c`` for a constant exponent, as PyTorch's ``pow(Tensor, Scalar)``.

    PyTorch evaluates these exponents with cheaper, differently rounded
    formulas (``x*x*x``, ``1/sqrt(x)``); matching them keeps our values bitwise
    equal to PyTorch's and gives its special values (``(-0.0) ** 0.5 == -0.0``).
    """
    if c == 2.0:
        return x * x
    if c == 3.0:
        return x * x * x
    if c == 1.0:  # what C's pow gives too, bit for bit; PyTorch copies the base
        return x
    if c == 0.5:
        return sqrt_float(x)
    if c == -1.0:
        return div_float(1.0, x)
    if c == -2.0:
        return div_float(1.0, x * x)
    if c == -0.5:
        return div_float(1.0, sqrt_float(x))
    return pow_float(x, c)


def exp_float(x: float) -> float:
    """``e ** x``: overflow gives ``inf``."""
    try:
        return math.exp(x)
    except OverflowError:
        return _INF if x > 0.0 else 0.0  # x < 0 only for an int beyond float range


def log_float(x: float) -> float:
    """Natural log: ``log(±0.0) == -inf``, negative numbers give nan."""
    if x > 0.0:
        return math.log(x)
    return -_INF if x == 0.0 else _NAN


def sigmoid_float(x: float) -> float:
    """``1 / (1 + exp(-x))``, PyTorch's formula: no overflow, a few ulps."""
    return 1.0 / (1.0 + exp_float(-x))  # the divisor is >= 1 or nan: never zero


def relu_float(x: float) -> float:
    """``max(x, 0)`` keeping nan and ``-0.0``, as ``torch.relu``."""
    return 0.0 if x < 0.0 else x


def abs_float(x: float) -> float:
    """``|x|``: ``abs(-0.0) == 0.0``, nan stays nan."""
    return math.fabs(x)


def sin_float(x: float) -> float:
    """``sin(x)``; ``sin(±inf)`` is nan (``math.sin`` raises there)."""
    return math.sin(x) if x - x == 0.0 else _NAN  # x - x is nan for inf and nan


def cos_float(x: float) -> float:
    """``cos(x)``; ``cos(±inf)`` is nan (``math.cos`` raises there)."""
    return math.cos(x) if x - x == 0.0 else _NAN


def tan_float(x: float) -> float:
    """``tan(x)``; ``tan(±inf)`` is nan (``math.tan`` raises there)."""
    return math.tan(x) if x - x == 0.0 else _NAN


def sinh_float(x: float) -> float:
    """``sinh(x)``: overflow gives a signed infinity."""
    try:
        return math.sinh(x)
    except OverflowError:
        return math.copysign(_INF, x)


def cosh_float(x: float) -> float:
    """``cosh(x)``: overflow gives ``inf``."""
    try:
        return math.cosh(x)
    except OverflowError:
        return _INF


def arcsin_float(x: float) -> float:
    """``asin(x)``; outside ``[-1, 1]`` it is nan (``math.asin`` raises there)."""
    return math.asin(x) if -1.0 <= x <= 1.0 else _NAN


def arccos_float(x: float) -> float:
    """``acos(x)``; outside ``[-1, 1]`` it is nan (``math.acos`` raises there)."""
    return math.acos(x) if -1.0 <= x <= 1.0 else _NAN


def arctan_float(x: float) -> float:
    """``atan(x)``: ``atan(±inf) == ±pi/2``."""
    return math.atan(x)


def arctan2_float(y: float, x: float) -> float:
    """``atan2(y, x)``, the angle of the point ``(x, y)``; zeros' signs pick ``±0`` or ``±pi``."""
    return math.atan2(y, x)


def hypot_float(x: float, y: float) -> float:
    """``sqrt(x*x + y*y)`` without intermediate overflow; ``hypot(inf, nan) == inf`` (C99)."""
    try:
        return math.hypot(x, y)
    except OverflowError:
        return _INF


def log1p_float(x: float) -> float:
    """``log(1 + x)``, accurate near 0: ``log1p(-1) == -inf``, below -1 it is nan."""
    if x > -1.0:
        return math.log1p(x)
    return -_INF if x == -1.0 else _NAN


def expm1_float(x: float) -> float:
    """``exp(x) - 1``, accurate near 0: overflow gives ``inf``, ``expm1(-inf) == -1``."""
    try:
        return math.expm1(x)
    except OverflowError:
        return _INF


def log2_float(x: float) -> float:
    """Base-2 log: ``log2(±0.0) == -inf``, negative numbers give nan."""
    if x > 0.0:
        return math.log2(x)
    return -_INF if x == 0.0 else _NAN


def log10_float(x: float) -> float:
    """Base-10 log: ``log10(±0.0) == -inf``, negative numbers give nan."""
    if x > 0.0:
        return math.log10(x)
    return -_INF if x == 0.0 else _NAN


def exp2_float(x: float) -> float:
    """``2 ** x``: overflow gives ``inf``."""
    try:
        return math.exp2(x)
    except OverflowError:
        return _INF


def sign_float(x: float) -> float:
    """-1.0, 0.0 or 1.0, as ``torch.sign``: ``sign(-0.0) == sign(nan) == 0.0``."""
    return 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0


def maximum_float(x: float, y: float) -> float:
    """The larger of two, as ``torch.maximum``: nan if either is nan; ``x`` at a tie."""
    if x != x or y != y:
        return _NAN
    return y if x < y else x


def minimum_float(x: float, y: float) -> float:
    """The smaller of two, as ``torch.minimum``: nan if either is nan; ``x`` at a tie."""
    if x != x or y != y:
        return _NAN
    return y if y < x else x
