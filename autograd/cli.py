"""The ``autograd`` command: ``grad``, ``graph``, ``corpus`` and ``demo``.

Every user input is checked before any work: expressions are parsed against
a whitelist (`autograd.expr`), never evaluated as Python; values are plain
decimals. Bad input exits with status 2 and one line on stderr, never a
traceback; a missing optional tool (Graphviz) exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, NoReturn, TextIO

from autograd.conform import _cli as conform_cli
from autograd.core.nodes import Leaf, Scalar, _Arith
from autograd.demo import DemoConfig, run_demo
from autograd.drawing import ALL_OPS, check_ops
from autograd.expr import (
    BINARY_FUNCTIONS,
    COMPARISONS,
    FUNCTIONS,
    MAX_SHOWN,
    ExprError,
    evaluate,
    literal_value,
    names,
    parse,
    shown,
)
from autograd.programs import FORMAT as JSON_FORMAT
from autograd.programs import program_to_json, random_program, reference
from autograd.transforms.grad import gradients
from autograd.viz import render, to_dot

"""The ``format`` field of ``autograd grad --json``; bumped if the layout changes."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DECIMAL = re.compile(r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\Z")
_MAX_VALUE_CHARS = 100
# What `repr` prints for the non-finite floats: any value this command prints reads back.
_SPECIAL: Final[dict[str, float]] = {
    "inf": float("inf"),
    "-inf": float("-inf"),
    "nan": float("nan"),
}
_PICTURES: Final = (".svg", ".png", ".pdf")
_TEXTS: Final = (".dot", ".gv")
_PATH_SHOWN: Final = 120  # paths are echoed longer than other text: they are read whole
_LONG_WORD = re.compile(rf"'([^'\s]{{{MAX_SHOWN + 1},}})'|(\S{{{MAX_SHOWN + 1},}})")


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        # argparse echoes unknown arguments whole: keep a few characters of each, and a count
        message = _LONG_WORD.sub(lambda m: shown(m.group(1) or m.group(2)), message)
        raise UsageError(f"{self.prog}: {message}")


def parse_value(text: str, label: str | None = None) -> float:
    """A plain decimal (``2``, ``-0.5``, ``1e-3``) or ``inf``, ``-inf``, ``nan``.

    Args:
        text: the value as typed.
        label: how a message names it (default ``value '1e400'``).

    Returns:
        The float64 it spells.

    Raises:
        UsageError: for ``1_000``, ``NaN``, hex and anything else, and for a
            decimal that float64 cannot hold (``1e400``, or ``1e-400`` rounding to 0).
    """
    label = f"value {shown(text)}" if label is None else label
    if text in _SPECIAL:
        return _SPECIAL[text]
    if len(text) > _MAX_VALUE_CHARS or not _DECIMAL.match(text):
        raise UsageError(
            f"{label} is not a plain decimal number like 2, -0.5 or 1e-3 (or inf, nan)"
        )
    try:
        return literal_value(text, label)
    except ExprError as e:
        raise UsageError(str(e)) from None


def parse_inputs(pairs: Sequence[str], wanted: Sequence[str]) -> dict[str, float]:
    """``NAME=VALUE`` arguments as a dict in the given order, checked against ``wanted``.

    Every name of the expression must be given exactly once, and no other.

    Raises:
        UsageError: naming the first problem.
    """
    inputs: dict[str, float] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise UsageError(f"expected NAME=VALUE, got {shown(pair)}")
        if not _NAME.match(name):
            raise UsageError(f"{shown(name)} is not a name (ASCII letters, digits and _)")
        if name in inputs:
            raise UsageError(f"{_named(name)} is given twice")
        if name not in wanted:
            known = _listed(wanted) if wanted else "no names"
            raise UsageError(f"{_named(name)} is not in the expression (it uses {known})")
        inputs[name] = parse_value(text, f"value {shown(pair)}")
    missing = [n for n in wanted if n not in inputs]
    if missing:
        raise UsageError(f"no value for {_listed(missing)}: add {_named(missing[0])}=VALUE")
    return inputs


def _named(name: str) -> str:
    """A checked name as a message shows it: bare, unless it is too long to echo whole."""
    return name if len(name) <= MAX_SHOWN else shown(name)


def _listed(items: Sequence[str], limit: int = 5) -> str:
    """``a, b, c``, or the first ``limit`` names and how many more."""
    head = ", ".join(_named(n) for n in items[:limit])
    return head if len(items) <= limit else f"{head} and {len(items) - limit:,} more"


def _value_of(x: Scalar) -> float:
    return x.value if isinstance(x, _Arith) else x


def cmd_grad(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd grad``: the value and every partial derivative of an expression."""
    expr = parse(args.expr)
    result = reference(expr, parse_inputs(args.values, names(expr)), hessian=args.hessian)
    if args.json:  # the kit's documented form, expression tree included (docs/reference-testing.md)
        out.write(json.dumps(program_to_json(result), allow_nan=False) + "\n")
        return 0
    out.write(f"value = {result.value!r}\n")
    for name, g in result.gradients.items():
        out.write(f"d/d{name} = {g!r}\n")
    for a, row in zip(result.inputs, result.hessian or (), strict=False):
        for b, h in zip(result.inputs, row, strict=True):
            out.write(f"d2/d{a}d{b} = {h!r}\n")
    return 0


def cmd_graph(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd graph``: DOT text of an expression's graph, or a picture of it."""
    target = None if args.out is None else check_out_file(args.out)
    expr = parse(args.expr)
    inputs = parse_inputs(args.values, names(expr))
    leaves: dict[str, Scalar] = {k: Leaf(v, name=k) for k, v in inputs.items()}
    root = evaluate(expr, leaves)
    assert isinstance(root, _Arith), "an expression over leaves evaluates to a node"
    source = to_dot(root, gradients(root), max_nodes=args.max_nodes)
    if target is None:
        out.write(source + "\n")
        return 0
    written = render(source, target)
    out.write(f"wrote {written}\n")
    return 0


def cmd_corpus(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd corpus``: random programs with this engine's results, one JSON line each.

    Program ``i`` is drawn by `random_program` from one ``random.Random(seed)``,
    in order, its root op the ``i``-th drawable op (cycling), so every op is in
    any corpus of at least as many programs as there are ops, and the first
    ``k`` lines of a longer corpus are the shorter one's.
    """
    target = None if args.out is None else check_corpus_file(args.out)
    ops = parse_ops(args.ops)
    roots = [op for op in ops if op not in COMPARISONS]
    rng = random.Random(args.seed)
    lines = []
    for i in range(args.n):
        program = random_program(rng, ops, max_nodes=args.max_nodes, root=roots[i % len(roots)])
        lines.append(json.dumps(program_to_json(program), allow_nan=False) + "\n")
    if target is None:
        out.write("".join(lines))
        return 0
    with target.open("w", encoding="utf-8", newline="\n") as f:
        f.write("".join(lines))
    out.write(f"wrote {args.n:,} programs to {target}\n")
    return 0


def parse_ops(text: str | None) -> tuple[str, ...]:
    """``--ops``: a comma-separated subset of `ALL_OPS` (all of them by default).

    Raises:
        UsageError: naming an unknown op, or a list with no op to draw.
    """
    if text is None:
        return ALL_OPS
    ops = tuple(dict.fromkeys(op.strip() for op in text.split(",") if op.strip()))
    unknown = [op for op in ops if op not in ALL_OPS]
    if unknown:
        raise UsageError(f"--ops: unknown op {shown(unknown[0])}: choose from {' '.join(ALL_OPS)}")
    try:
        check_ops(ops)
    except ValueError as e:
        raise UsageError(f"--ops: {e}") from None
    return ops


def check_corpus_file(text: str) -> Path:
    """``corpus --out FILE``: a file name (FILE.jsonl, say) in a folder that exists.

    Raises:
        UsageError: naming what is wrong, before any work.
    """
    return _checked_path(text, "a file name such as corpus.jsonl", _corpus_file_problem)


def _corpus_file_problem(text: str) -> str | None:
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.is_dir():
        return " is a folder: give a file name such as corpus.jsonl"
    if not path.parent.is_dir():
        why = "is not a folder" if path.parent.exists() else "does not exist"
        return f": the folder {shown(str(path.parent), _PATH_SHOWN)} {why}"
    return None


def check_out_file(text: str) -> Path:
    """``graph --out FILE``: a file name with a known suffix, in a folder that exists.

    An existing file is overwritten; a missing folder is not created (a typo
    in a path should not make folders).

    Raises:
        UsageError: naming what is wrong, before any work.
    """
    return _checked_path(text, "a file name such as graph.svg", _file_problem)


def check_out_dir(text: str) -> Path:
    """``demo --out DIR``: a folder, or a path where one can be made (with its parents).

    Raises:
        UsageError: naming what is wrong, before any training.
    """
    return _checked_path(text, "a folder name such as demo-out", _folder_problem)


def _checked_path(text: str, example: str, problem: Callable[[str], str | None]) -> Path:
    """``Path(text)``, once ``problem(text)`` finds nothing wrong with it."""
    if not text:
        raise UsageError(f"--out is empty: give {example}")
    flag = f"--out {shown(text, _PATH_SHOWN)}"
    if "\0" in text:  # the OS cannot take it: refused here rather than deep in a write
        raise UsageError(f"{flag} contains a NUL character")
    try:
        found = problem(text)
    except OSError as e:  # a name too long for the file system, say
        found = f": {e.strerror or 'not a usable path'}"
    if found is not None:
        raise UsageError(flag + found)
    return Path(text)


def _file_problem(text: str) -> str | None:
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.is_dir():  # Path() drops a trailing slash
        return " is a folder: give a file name such as graph.svg"
    bare = path.name.lower()
    if bare in _TEXTS + _PICTURES:  # `.svg` is a hidden file without a suffix
        return f" has no name before {bare}: write e.g. graph{bare}"
    if path.suffix.lower() not in _TEXTS + _PICTURES:
        return ": use a .dot, .svg, .png or .pdf file name"
    if not path.parent.is_dir():
        why = "is not a folder" if path.parent.exists() else "does not exist"
        return f": the folder {shown(str(path.parent), _PATH_SHOWN)} {why}"
    return None


def _folder_problem(text: str) -> str | None:
    path = Path(text)
    existing = next(p for p in (path, *path.parents) if p.exists())  # `.` or `/` at worst
    if not existing.is_dir():
        return f": {shown(str(existing), _PATH_SHOWN)} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f": no permission to write in {shown(str(existing), _PATH_SHOWN)}"
    return None


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd demo``: train an MLP on moons, print progress, write plots."""
    folder = None if args.out is None else str(check_out_dir(args.out))
    config = DemoConfig(
        steps=args.steps,
        seed=args.seed,
        points=args.points,
        noise=args.noise,
        batch_size=min(args.batch_size, args.points),
        learning_rate=args.lr,
    )
    return run_demo(config, folder, out)


def _bounded_int(low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        # 20 digits are plenty for any bound and keep int() far below its digit limit
        if not re.fullmatch(r"[-+]?[0-9]{1,20}", text) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number from {low} to {high}, got {shown(text)}"
            )
        return int(text)

    return convert


def _bounded_float(low: float, high: float) -> Callable[[str], float]:
    def convert(text: str) -> float:
        try:
            value = parse_value(text)
        except UsageError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected a number from {low} to {high}")
        return value

    return convert


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``autograd`` command, with its subcommands."""
    parser = _Parser(
        prog="autograd",
        description="typed-autograd from the shell: differentiate, draw, train.",
        allow_abbrev=False,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    values_help = "a value for every name in EXPR, e.g. w1=2 (plain decimals)"
    functions = " ".join([*FUNCTIONS, *BINARY_FUNCTIONS])
    expr_help = (
        f"e.g. '((w1 - 1)**2 + (w2 - 5)**2) * 0.5' (+ - * / **, {functions}, "
        "where(lt(a, b), x, y) with lt le gt ge eq ne)"
    )

    grad = sub.add_parser(
        "grad",
        help="value and partial derivatives of an expression",
        description="Print the value of EXPR and its partial derivative by every name.",
        allow_abbrev=False,
    )
    grad.add_argument("expr", metavar="EXPR", help=expr_help)
    grad.add_argument("values", metavar="NAME=VALUE", nargs="*", default=[], help=values_help)
    grad.add_argument("--json", action="store_true", help=f"one JSON object ({JSON_FORMAT})")
    grad.add_argument("--hessian", action="store_true", help="also the second partial derivatives")
    grad.set_defaults(run=cmd_grad)

    graph = sub.add_parser(
        "graph",
        help="draw an expression's graph with values and gradients",
        description="Draw the graph of EXPR, each node with its value and gradient.",
        allow_abbrev=False,
    )
    graph.add_argument("expr", metavar="EXPR", help=expr_help)
    graph.add_argument("values", metavar="NAME=VALUE", nargs="*", default=[], help=values_help)
    graph.add_argument(
        "--out",
        metavar="FILE",
        help="FILE.dot (text), or FILE.svg/.png/.pdf drawn by Graphviz's dot; "
        "without it, DOT text goes to stdout",
    )
    graph.add_argument(
        "--max-nodes", type=_bounded_int(1, 100_000), default=500, help="node budget (500)"
    )
    graph.set_defaults(run=cmd_graph)
    _add_corpus(sub)

    demo = sub.add_parser(
        "demo",
        help="train a small MLP on two moons and plot it",
        description="Train a 2-16-16-1 MLP on the two-moons data set with Adam and the "
        "hinge loss; print progress and write a decision-boundary plot and a loss curve "
        "(plots and the progress bar need: pip install 'typed-autograd[demo]').",
        allow_abbrev=False,
    )
    demo.add_argument("--steps", type=_bounded_int(1, 100_000), default=200, help="(200)")
    demo.add_argument("--seed", type=_bounded_int(0, 2**31 - 1), default=0, help="(0)")
    demo.add_argument("--out", metavar="DIR", help="write the PNG plots to DIR")
    demo.add_argument("--points", type=_bounded_int(2, 10_000), default=100, help="(100)")
    demo.add_argument("--noise", type=_bounded_float(0.0, 10.0), default=0.1, help="(0.1)")
    demo.add_argument("--batch-size", type=_bounded_int(1, 10_000), default=20, help="(20)")
    demo.add_argument("--lr", type=_bounded_float(1e-9, 100.0), default=0.1, help="(0.1)")
    demo.set_defaults(run=cmd_demo)
    conform_cli.add_parser(sub)
    return parser


def _add_corpus(sub: argparse._SubParsersAction[_Parser]) -> None:
    corpus = sub.add_parser(
        "corpus",
        help="random programs with this engine's values and derivatives, as JSON lines",
        description="Write N random programs, one JSON object a line "
        f'({JSON_FORMAT}, with "hessian" and "tree"), drawn from SEED: the same '
        "arguments and version give the same bytes. Every op is drawn, each at least "
        "once in a corpus of as many programs as there are ops "
        "(docs/reference-testing.md describes the schema).",
        allow_abbrev=False,
    )
    corpus.add_argument("--n", type=_bounded_int(1, 1_000_000), default=100, help="(100)")
    corpus.add_argument("--seed", type=_bounded_int(0, 2**63 - 1), default=0, help="(0)")
    corpus.add_argument(
        "--out", metavar="FILE", help="write FILE (e.g. corpus.jsonl); without it, stdout"
    )
    corpus.add_argument(
        "--ops",
        metavar="OPS",
        help="comma-separated ops to draw (default all: " + " ".join(ALL_OPS) + ")",
    )
    corpus.add_argument(
        "--max-nodes", type=_bounded_int(0, 1_000), default=10, help="ops per program (10)"
    )
    corpus.set_defaults(run=cmd_corpus)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line on ``argv`` (``sys.argv[1:]`` by default); return the exit status.

    Status 0 on success (and for ``--help``), 2 for bad input (one line on
    stderr), 1 when an optional tool is missing or fails, 130 on Ctrl-C.
    """
    stdout = sys.stdout if out is None else out
    try:
        args = build_parser().parse_args(argv)
        run: Callable[[argparse.Namespace, TextIO], int] = args.run
        return run(args, stdout)
    except SystemExit as e:  # --help and argparse's own exits
        return e.code if isinstance(e.code, int) else 2
    except (UsageError, ExprError, conform_cli.ConformUsageError) as e:
        message = str(e)
        return _fail(message if message.startswith("autograd") else f"autograd: {message}", 2)
    except conform_cli.EngineUnavailable as e:  # `conform`: the engine's package or worker
        return _fail(f"autograd conform: {e}", conform_cli.UNAVAILABLE_STATUS)
    except OSError as e:
        where = f": {shown(str(e.filename), _PATH_SHOWN)}" if e.filename else ""
        return _fail(f"autograd: {e.strerror or shown(str(e))}{where}", 1)
    except RuntimeError as e:  # Graphviz missing or failing
        return _fail(f"autograd: {e}", 1)
    except KeyboardInterrupt:  # Ctrl-C during a long demo: no traceback either
        return _fail("autograd: interrupted", 130)


def _fail(message: str, status: int) -> int:
    """Write ``message`` as one line, with unprintable characters escaped.

    Whitespace runs become one space; anything else unprintable (say, a
    terminal escape in an echoed argument) is shown as its escape.
    """
    line = " ".join(message.split())
    sys.stderr.write("".join(c if c.isprintable() else ascii(c)[1:-1] for c in line) + "\n")
    return status
