"""`jit` with the compiler options a test chose: the tests' one way to tune the compiler.

A fixture calls `use` with its `Options`; the test's calls of `jit` (this
module's) compile with them, and so do the fuzzers' (`jit_fuzz.OPTIONS`,
`compose_fuzz.OPTIONS`). Nothing patches the compiler's modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import ParamSpec, TypeVar

import compose_fuzz
import jit_fuzz
import pytest

import autograd as ag
from autograd.compiler.options import DEFAULT, Options

P = ParamSpec("P")
T = TypeVar("T")

CURRENT: dict[str, Options] = {"options": DEFAULT}
"""The options of the test in progress."""


def use(monkeypatch: pytest.MonkeyPatch, options: Options) -> None:
    """Compile with ``options`` until the test ends: this module's `jit` and the fuzzers'."""
    monkeypatch.setitem(CURRENT, "options", options)
    monkeypatch.setattr(jit_fuzz, "OPTIONS", options)
    monkeypatch.setattr(compose_fuzz, "OPTIONS", options)


def jit(
    fn: Callable[P, T],
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Iterable[str] = (),
) -> ag.Jitted[P, T]:
    """`ag.jit` with the options of the test in progress."""
    return ag.jit(fn, static_argnums, static_argnames, options=CURRENT["options"])
