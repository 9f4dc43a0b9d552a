"""tests/typing/check_vmap_grad.py at run time: the values have the shapes mypy gives them.

mypy checks that file (tests/test_typing.py runs mypy over tests/); here it runs,
so its run-time assertions compare each `assert_type` with what `vmap` returns,
and every call it marks as a type error must also fail when made.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

FIXTURE = Path(__file__).resolve().parent / "typing" / "check_vmap_grad.py"


@pytest.fixture(scope="module")
def fixture_globals() -> dict[str, object]:
    return runpy.run_path(str(FIXTURE))  # its own asserts check every typed result


def test_typed_results_have_their_types_at_run_time(fixture_globals: dict[str, object]) -> None:
    assert "gd" in fixture_globals  # the module ran to its end


def test_calls_rejected_by_the_types_fail_at_run_time(fixture_globals: dict[str, object]) -> None:
    calls = cast(list[Callable[[], object]], fixture_globals["REJECTED_CALLS"])
    assert len(calls) >= 8
    for i, call in enumerate(calls):
        try:
            call()
        except (TypeError, ValueError, AttributeError):  # a dict where a class goes: no `.w`
            continue
        pytest.fail(f"REJECTED_CALLS[{i}] ran without an error")
