"""A Python number as the float64 it equals: the one place a number becomes a float.

Python floats as they are; Python ints as ``float(i)`` makes them (rounded to
nearest past 2**53, as NumPy, PyTorch and JAX convert them), but beyond float64
range a signed infinity instead of `OverflowError`; other real numbers (NumPy
scalars of any dtype, `fractions.Fraction`, `decimal.Decimal`) only when
float64 holds them exactly. Every public function, the operators, `Leaf` and
`jit` convert their numbers here, so one input gives one float on every path.
NumPy is never imported here: its types are recognised by name.
"""

from __future__ import annotations

import numbers
import operator

from autograd.core.floats import int_to_float


class NotANumber(TypeError):
    """Raised by `to_float` for an object that is not a number at all."""


def _is_numpy_bool(v: object) -> bool:
    t = type(v)  # duck typing: numpy is not a dependency, so it is never imported here
    return t.__module__ == "numpy" and t.__name__ in ("bool", "bool_")


def is_bool(v: object) -> bool:
    """Whether ``v`` is a Python or a NumPy bool: a condition, never a number."""
    return isinstance(v, bool) or _is_numpy_bool(v)


def to_float(v: object) -> float:
    """``v`` as the float64 it equals: the one place a number becomes a float.

    A Python int as ``float(i)`` makes it (past 2**53 rounded to nearest, as
    NumPy and PyTorch do), but beyond float64 range a signed infinity; other
    real numbers (NumPy scalars, `fractions.Fraction`, `decimal.Decimal`) only
    when float64 holds them exactly, so no other rounding happens behind the
    user's back (``numpy.int64(2**53 + 1)`` is refused, ``2**53 + 1`` is not:
    Python ints are what users write, and every array library rounds them).

    Raises:
        TypeError: the reason, for a bool, a complex number or a string;
            `NotANumber` for anything else that is not a number.
        ValueError: the reason, for a real number float64 does not hold.

    >>> from fractions import Fraction
    >>> to_float(Fraction(1, 2)), to_float(10**400), to_float(2**53 + 1)
    (0.5, inf, 9007199254740992.0)
    >>> to_float(Fraction(1, 3))
    Traceback (most recent call last):
    ...
    ValueError: float64 cannot hold it exactly (the nearest float is 0.3333333333333333): ...
    """
    if isinstance(v, bool) or _is_numpy_bool(v):
        raise TypeError("booleans are not differentiable; pass 1.0 or 0.0")
    if isinstance(v, float):
        return float(v)
    if isinstance(v, int):
        return int_to_float(int(v))
    if isinstance(v, numbers.Integral):  # numpy.int64 is Integral, not an int
        return _exact_integer(operator.index(v))
    if isinstance(v, complex | numbers.Complex) and not isinstance(v, numbers.Real):
        raise TypeError("only real numbers are differentiable")
    if isinstance(v, str):
        raise TypeError("strings are not numbers; convert with float()")
    if not isinstance(v, numbers.Number):
        raise NotANumber(f"{type(v).__name__} is not a number")
    return _exact_float(v)


def _exact_integer(i: int) -> float:
    f = int_to_float(i)
    if f - f != 0.0 or int(f) != i:  # exact integer arithmetic: NumPy would compare as floats
        raise ValueError(
            f"float64 cannot hold it exactly (the nearest float is {f!r}): "
            "pass float(...) yourself if that rounding is intended"
        )
    return f


def _exact_float(v: numbers.Number) -> float:
    try:
        f = float(v)  # type: ignore[arg-type]  # Number does not declare __float__
        x: object = v  # Number declares no comparisons; every real number has them
        exact = bool(f == x or (f != f and x != x))  # nan stays nan; numpy returns its own bool
    except (TypeError, ValueError, ArithmeticError) as e:  # Decimal('sNaN'), Fraction(10**400)
        raise ValueError(f"it has no float64 value ({e})") from None
    if not exact:
        raise ValueError(
            f"float64 cannot hold it exactly (the nearest float is {f!r}): "
            "pass float(...) yourself if that rounding is intended"
        )
    return f
