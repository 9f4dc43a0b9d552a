"""Which arguments of a jitted call are static: ``static_argnums`` and ``static_argnames``.

As in JAX, either one may be given and the other is inferred from the
function's signature: a name given in ``static_argnames`` that is a positional
parameter is static when passed by position too, and an index in
``static_argnums`` is static when passed by keyword or left to its default.
Keyword arguments are always static here (part of the cache key), so a name
only adds the position it stands at.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence

from autograd.transforms.arguments import Arguments

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class StaticArgs:
    """``static_argnums`` and ``static_argnames`` checked once; `resolve` gives each call's.

    ``vg`` is the specification of the `grad` that ``fn`` is, if it is one: a
    differentiated argument cannot be static.
    """

    def __init__(
        self,
        fn: Callable[..., object],
        static_argnums: object,
        static_argnames: object,
        vg: Arguments | None,
        name: str,
    ) -> None:
        self.name = name
        self.given = static_argnums
        nums = _ints(static_argnums, name)
        names = _names(static_argnames, name)
        params = _parameters(fn)
        self.params: int | None = None  # positional parameters, when *args takes no more
        if params is not None:
            if not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
                self.params = sum(p.kind in _POSITIONAL for p in params)
            _check_names(names, params, name)
            positional = [p.name for p in params if p.kind in _POSITIONAL]
            nums |= {positional.index(n) for n in names if n in positional}
        self.argnums = frozenset(nums)
        self.diff = vg.argnums if vg is not None else ()
        self.simple = all(i >= 0 for i in (*self.argnums, *self.diff))
        self.top = max(self.argnums, default=-1)
        if self.simple:
            self._check_diff(self.argnums, frozenset(self.diff))

    def resolve(self, n: int) -> frozenset[int]:
        """The static positions of a call with ``n`` positional arguments.

        A static index past them that is a parameter of the function names an
        argument passed by keyword or left to its default: static already (as
        every keyword argument), so it is dropped here.
        """
        if self.simple and self.top < n:
            return self.argnums
        top = n if self.params is None else max(n, self.params)
        if any(i >= top or i < -n for i in self.argnums):
            raise TypeError(
                f"jit({self.name}): static_argnums={self.given!r} but the function was called "
                f"with {n} positional argument(s) and takes {top}; a negative index counts from "
                "the end of the positional arguments"
            )
        static = frozenset(i % n for i in self.argnums if i < n)
        # differentiated positions out of range are left to grad's own message
        self._check_diff(static, frozenset(i % n for i in self.diff if -n <= i < n))
        return static

    def _check_diff(self, static: frozenset[int], diff: frozenset[int]) -> None:
        both = sorted(static & diff)
        if both:
            raise ValueError(
                f"jit({self.name}): argument {both[0]} is differentiated (argnums "
                f"{tuple(sorted(diff))}) and cannot be static (static_argnums="
                f"{self.given!r}): a static argument is a constant of the trace"
            )


def _ints(given: object, name: str) -> set[int]:
    if isinstance(given, int) and not isinstance(given, bool):
        return {given}
    if isinstance(given, Sequence) and not isinstance(given, str | bytes):
        items = tuple(given)
        if all(type(i) is int for i in items):
            return set(items)
    raise TypeError(
        f"jit({name}): static_argnums must be an int or a sequence of ints, "
        f"got {type(given).__name__} {given!r:.60}"
    )


def _names(given: object, name: str) -> tuple[str, ...]:
    if isinstance(given, str):
        return (given,)
    if isinstance(given, Iterable) and not isinstance(given, bytes):
        items = tuple(given)
        if all(type(n) is str for n in items):
            return items
    raise TypeError(
        f"jit({name}): static_argnames must be a str or a sequence of str, "
        f"got {type(given).__name__} {given!r:.60}"
    )


def _parameters(fn: Callable[..., object]) -> list[inspect.Parameter] | None:
    """``fn``'s parameters, or None when Python cannot tell (some builtins)."""
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None


def _check_names(names: Iterable[str], params: list[inspect.Parameter], name: str) -> None:
    """Refuse a static name that no call can pass (a typo would otherwise do nothing)."""
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    known = {p.name for p in params if p.kind is not inspect.Parameter.POSITIONAL_ONLY}
    for n in names:
        if n not in known:
            have = ", ".join(sorted(known)) or "none"
            raise ValueError(
                f"jit({name}): static_argnames names {n!r}, which is not a parameter of the "
                f"function that can be passed by keyword (it has {have})"
            )
