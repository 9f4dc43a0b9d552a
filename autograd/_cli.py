"""The ``autograd`` command: ``grad``, ``demo`` and ``graph``.

Every user input is checked before any work: expressions are parsed against
a whitelist (`autograd._expr`), never evaluated as Python; values are plain
decimals. Bad input exits with status 2 and one line on stderr, never a
traceback; a missing optional tool (Graphviz) exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

from ._expr import ExprError, evaluate, names, parse
from ._json import FORMAT as JSON_FORMAT
from ._json import program_to_json, reference
from ._nodes import Leaf, Scalar, _Arith
from ._transforms import gradients

"""The ``format`` field of ``autograd grad --json``; bumped if the layout changes."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DECIMAL = re.compile(r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\Z")
_MAX_VALUE_CHARS = 100


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _show(text: str, limit: int = 40) -> str:
    """User text quoted for a message: ASCII only (escapes shown), and short."""
    shown = ascii(text[:limit])
    return shown + ("..." if len(text) > limit else "")


def parse_value(text: str) -> float:
    """A finite plain decimal (``2``, ``-0.5``, ``1e-3``); refuses ``1_000``, ``nan``, hex.

    Raises:
        UsageError: for anything else, or a number outside the float range.
    """
    if len(text) > _MAX_VALUE_CHARS or not _DECIMAL.match(text):
        raise UsageError(f"value {_show(text)} is not a plain decimal number like 2, -0.5 or 1e-3")
    value = float(text)
    if not math.isfinite(value):
        raise UsageError(f"value {_show(text)} is outside the float64 range")
    return value


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
            raise UsageError(f"expected NAME=VALUE, got {_show(pair)}")
        if not _NAME.match(name):
            raise UsageError(f"{_show(name)} is not a name (ASCII letters, digits and _)")
        if name in inputs:
            raise UsageError(f"{name} is given twice")
        if name not in wanted:
            known = ", ".join(wanted) if wanted else "no names"
            raise UsageError(f"{name} is not in the expression (it uses {known})")
        inputs[name] = parse_value(text)
    missing = [n for n in wanted if n not in inputs]
    if missing:
        raise UsageError(f"no value for {', '.join(missing)}: add {missing[0]}=VALUE")
    return inputs


def _value_of(x: Scalar) -> float:
    return x.value if isinstance(x, _Arith) else x


def cmd_grad(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd grad``: the value and every partial derivative of an expression."""
    expr = parse(args.expr)
    result = reference(expr, parse_inputs(args.values, names(expr)))
    if args.json:  # the kit's documented form, expression tree included (docs/reference-testing.md)
        out.write(json.dumps(program_to_json(result), allow_nan=False) + "\n")
        return 0
    out.write(f"value = {result.value!r}\n")
    for name, g in result.gradients.items():
        out.write(f"d/d{name} = {g!r}\n")
    return 0


def cmd_graph(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd graph``: DOT text of an expression's graph, or a picture of it."""
    from ._viz import render, to_dot

    expr = parse(args.expr)
    inputs = parse_inputs(args.values, names(expr))
    leaves: dict[str, Scalar] = {k: Leaf(v, name=k) for k, v in inputs.items()}
    root = evaluate(expr, leaves)
    assert isinstance(root, _Arith), "an expression over leaves evaluates to a node"
    source = to_dot(root, gradients(root), max_nodes=args.max_nodes)
    if args.out is None:
        out.write(source + "\n")
        return 0
    if not args.out.lower().endswith((".dot", ".gv", ".svg", ".png", ".pdf")):
        raise UsageError(f"--out {_show(args.out)}: use a .dot, .svg, .png or .pdf file name")
    written = render(source, args.out)
    out.write(f"wrote {written}\n")
    return 0


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``autograd demo``: train an MLP on moons, print progress, write plots."""
    from ._demo import DemoConfig, run_demo

    config = DemoConfig(
        steps=args.steps,
        seed=args.seed,
        points=args.points,
        noise=args.noise,
        batch_size=min(args.batch_size, args.points),
        learning_rate=args.lr,
    )
    return run_demo(config, args.out, out)


def _bounded_int(low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        if not re.fullmatch(r"[-+]?[0-9]{1,9}", text) or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(f"expected a whole number from {low} to {high}")
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
    """The argument parser of the ``autograd`` command, with its three subcommands."""
    parser = _Parser(
        prog="autograd",
        description="typed-autograd from the shell: differentiate, draw, train.",
        allow_abbrev=False,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    values_help = "a value for every name in EXPR, e.g. w1=2 (plain decimals)"
    expr_help = "e.g. '((w1 - 1)**2 + (w2 - 5)**2) * 0.5' (+ - * / **, exp log tanh relu sigmoid)"

    grad = sub.add_parser(
        "grad",
        help="value and partial derivatives of an expression",
        description="Print the value of EXPR and its partial derivative by every name.",
        allow_abbrev=False,
    )
    grad.add_argument("expr", metavar="EXPR", help=expr_help)
    grad.add_argument("values", metavar="NAME=VALUE", nargs="*", default=[], help=values_help)
    grad.add_argument("--json", action="store_true", help=f"one JSON object ({JSON_FORMAT})")
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
    return parser


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
    except (UsageError, ExprError) as e:
        message = str(e)
        return _fail(message if message.startswith("autograd") else f"autograd: {message}", 2)
    except OSError as e:
        return _fail(f"autograd: {e.strerror or e}: {e.filename or ''}".rstrip(": "), 1)
    except RuntimeError as e:  # Graphviz missing or failing
        return _fail(f"autograd: {e}", 1)
    except KeyboardInterrupt:  # Ctrl-C during a long demo: no traceback either
        return _fail("autograd: interrupted", 130)


def _fail(message: str, status: int) -> int:
    sys.stderr.write(" ".join(message.split()) + "\n")
    return status
