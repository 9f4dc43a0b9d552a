"""``autograd conform ENGINE``: the command's options, its run, its exit status.

Status 0 when the engine agrees (known conventions apart), 1 on an unexpected
disagreement (so it can gate an engine's CI), 2 for bad input, 3 when the
engine cannot run (its package missing, its worker failing).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

from autograd.conform._engine import EngineUnavailable, Order
from autograd.conform._load import ENGINES, EngineSpecError, load_engine
from autograd.conform._ops import OPS
from autograd.conform._protocol import Conventions
from autograd.conform._run import Options, conform

UNAVAILABLE_STATUS = 3


class ConformUsageError(ValueError):
    """A bad option of ``conform``: reported in one line, exit status 2."""


_P = TypeVar("_P", bound=argparse.ArgumentParser)


def add_parser(sub: argparse._SubParsersAction[_P]) -> None:
    """Add ``conform`` to the ``autograd`` command's subcommands."""
    p = sub.add_parser(
        "conform",
        help="check another autograd engine against this one, op by op",
        description="Run random programs focused on each op on ENGINE and on this engine; "
        "print a table per op (agree, known conventions, differ, raise) and a minimal "
        "program for each op that differs. Exit status 1 on an unexpected disagreement.",
        allow_abbrev=False,
    )
    p.add_argument(
        "engine",
        metavar="ENGINE",
        help=f"{', '.join(ENGINES)}; module:function (your adapter or Engine); "
        "or a worker script run with --python",
    )
    p.add_argument("--n", type=_whole(1, 1_000_000), default=1000, help="programs in all (1000)")
    p.add_argument("--seed", type=_whole(0, 2**63 - 1), default=0, help="(0)")
    p.add_argument("--ops", metavar="OP,OP", help="only these ops (default: all the engine has)")
    p.add_argument("--order", type=int, choices=(1, 2), default=2, help="2 compares Hessians (2)")
    p.add_argument("--ulps", type=_whole(0, 2**52), help="finite numbers may differ by this many")
    p.add_argument("--abs-tol", type=_tolerance, help="an absolute difference always accepted")
    p.add_argument(
        "--signed-zeros",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether -0.0 and 0.0 must match (default: they must)",
    )
    p.add_argument("--json", metavar="REPORT", help="also write the report as JSON to REPORT")
    p.add_argument(
        "--python",
        metavar="PATH",
        help="run the engine in this interpreter as a worker (hips; a worker script)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``conform`` with parsed arguments; print the report to ``out``."""
    ops = _ops(args.ops)
    report_path = None if args.json is None else _report_path(args.json)
    try:
        engine = load_engine(args.engine, args.python)
    except EngineSpecError as e:
        raise ConformUsageError(str(e)) from None
    try:
        base = engine.conventions
        conventions = Conventions(
            ulps=base.ulps if args.ulps is None else args.ulps,
            abs_tol=base.abs_tol if args.abs_tol is None else args.abs_tol,
            signed_zeros=base.signed_zeros if args.signed_zeros is None else args.signed_zeros,
        )
        order: Order = 2 if args.order == 2 else 1
        options = Options(n=args.n, seed=args.seed, ops=ops, order=order, conventions=conventions)
        try:
            report = conform(engine, options, progress=_progress(engine.name))
        except ValueError as e:  # an op the engine lacks
            raise ConformUsageError(str(e)) from None
    finally:
        engine.close()
    out.write(report.text())
    if report_path is not None:
        report_path.write_text(json.dumps(report.to_json(), allow_nan=False, indent=1) + "\n")
    return 0 if report.ok else 1


def _progress(name: str) -> Callable[[str], None]:
    def show(line: str) -> None:
        sys.stderr.write(f"conform {name}: {line}\n")
        sys.stderr.flush()

    return show


def _ops(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    ops = tuple(op.strip() for op in text.split(",") if op.strip())
    unknown = [op for op in ops if op not in OPS]
    if unknown or not ops:
        raise ConformUsageError(
            f"--ops: unknown op {ascii(unknown[0])[:40] if unknown else '(none)'}; "
            f"ops are {' '.join(OPS)}"
        )
    return ops


def _report_path(text: str) -> Path:
    path = Path(text)
    if not text or path.is_dir() or not path.parent.is_dir():
        raise ConformUsageError(f"--json {ascii(text)[:80]}: give a file in a folder that exists")
    return path


def _whole(low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        if not re.fullmatch(r"[0-9]{1,20}", text) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low} to {high}, got {ascii(text)[:40]}"
            )
        return int(text)

    return convert


def _tolerance(text: str) -> float:
    if not re.fullmatch(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?", text):
        raise argparse.ArgumentTypeError(f"expected a number like 1e-15, got {ascii(text)[:40]}")
    value = float(text)
    if value != value or value == float("inf"):
        raise argparse.ArgumentTypeError("expected a finite number")
    return value


__all__ = ["UNAVAILABLE_STATUS", "ConformUsageError", "EngineUnavailable", "add_parser", "run"]
