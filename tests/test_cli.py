"""The `autograd` command line, run as a user runs it: in a subprocess."""

from __future__ import annotations

import ast
import builtins
import contextlib
import fractions
import inspect
import io
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import autograd.cli
import autograd.demo
import autograd.viz  # imported now: importing compiles, and the fuzz forbids compile
from autograd.cli import build_parser, main
from autograd.expr import (
    COMPARISONS,
    FUNCTIONS,
    MAX_SHOWN,
    Binary,
    BinaryOp,
    Call,
    Expr,
    ExprError,
    Neg,
    Num,
    Var,
    names,
    parse,
)
from autograd.programs import expr_from_tree, reference

README_EXPR = "((w1 - 1)**2 + (w2 - 5)**2) * 0.5"


def run(
    *args: str, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autograd", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )


def test_readme_example_prints_value_and_partials() -> None:
    done = run("grad", README_EXPR, "w1=2", "w2=3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["value = 2.5", "d/dw1 = 1.0", "d/dw2 = -2.0"]
    assert done.stderr == ""


def test_json_output_parses_with_the_documented_fields() -> None:
    done = run("grad", "--json", README_EXPR, "w2=3", "w1=2")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record == {
        "format": "typed-autograd/grad@2",
        "expression": "((w1 - 1.0) ** 2.0 + (w2 - 5.0) ** 2.0) * 0.5",
        "inputs": {"w2": 3.0, "w1": 2.0},
        "value": 2.5,
        "gradients": {"w2": -2.0, "w1": 1.0},
        "tree": record["tree"],
    }
    assert expr_from_tree(record["tree"]) == parse(README_EXPR)
    assert list(record["gradients"]) == ["w2", "w1"]  # the order the values were given in


def test_json_spells_non_finite_numbers_as_strings_and_keeps_negative_zero() -> None:
    # log(0) = -inf, d/dx log(x) at 0 = inf; -y at 0 is -0.0 with gradient -1
    done = run("grad", "--json", "log(x) + -y * 0", "x=0", "y=0")
    assert done.returncode == 0, done.stderr
    assert "NaN" not in done.stdout  # strict JSON
    assert "Infinity" not in done.stdout
    record = json.loads(done.stdout)
    assert record["value"] == "-inf"
    assert record["gradients"]["x"] == "inf"
    done = run("grad", "--json", "--", "-x", "x=0")  # -- ends the options
    record = json.loads(done.stdout)
    assert record["value"] == 0.0
    assert math.copysign(1.0, record["value"]) == -1.0
    assert record["gradients"] == {"x": -1.0}


def test_huge_exponent_is_a_valid_expression_that_gives_inf_at_once() -> None:
    # Literals are floats, so 9**9**9 is inf (IEEE pow), never a giant int.
    start = time.perf_counter()
    done = run("grad", "9**9**9 * x", "x=2")
    assert time.perf_counter() - start < 20
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["value = inf", "d/dx = inf"]


def test_an_expression_without_names_prints_only_its_value() -> None:
    done = run("grad", "2 ** 0.5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"value = {2**0.5!r}"]


@pytest.mark.parametrize("command", [[], ["grad"], ["graph"], ["demo"]])
def test_help_everywhere(command: list[str]) -> None:
    done = run(*command, "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: autograd")
    assert done.stderr == ""


def test_console_script_is_installed_next_to_the_interpreter() -> None:
    script = Path(sys.executable).with_name("autograd")
    if not script.exists():
        pytest.skip("the `autograd` script is not installed in this environment (pip install -e .)")
    done = subprocess.run(
        [str(script), "grad", "x * x", "x=3"], capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines() == ["value = 9.0", "d/dx = 6.0"]


MARKER = "pwned"

HOSTILE: list[tuple[str, ...]] = [
    # attribute access and calls to anything not whitelisted
    ("x.__class__", "x=1"),
    ("(1).real",),
    (f"__import__('os').system('touch {MARKER}')",),
    (f"open('{MARKER}', 'w')",),
    ("eval('1')",),
    ("exec('x = 1')",),
    ("gamma(x)", "x=1"),
    ("exp.__globals__",),
    ("exp(x, 2)", "x=1"),
    ("exp(x=1)",),
    ("exp(*x)", "x=1"),
    ("__builtins__",),
    ("getattr(x, 'value')", "x=1"),
    # Python syntax outside the grammar
    ("lambda: 1",),
    ("[x for x in (1, 2)]",),
    ("{x: 1 for x in ()}",),
    ("(y for y in ())",),
    ("x if x else 1", "x=1"),
    ("x < 1", "x=1"),
    ("x and 1", "x=1"),
    ("x[0]", "x=1"),
    ("'abc'",),
    ("f'{x}'", "x=1"),
    ("(y := 1)",),
    ("1j",),
    ("x % 2", "x=1"),
    ("x // 2", "x=1"),
    ("~x", "x=1"),
    ("not x", "x=1"),
    ("True",),
    ("...",),
    ("x; import os", "x=1"),
    ("exp", "exp=1"),
    # oversized input
    ("(" * 10_000 + "x" + ")" * 10_000, "x=1"),
    ("(" * 300 + "x" + ")" * 300, "x=1"),
    ("-" * 5_000 + "x", "x=1"),
    ("x" + " + x" * 2_500, "x=1"),
    ("9" * 10_001,),
    # names must be ASCII: look-alikes of x (Cyrillic, fullwidth, Greek)
    ("\u0445 + 1", "\u0445=1"),
    ("\uff58 + 1", "x=1"),
    ("x + 1", "\u03c7=1"),
    # numbers must be plain decimals
    ("",),
    ("   ",),
    ("1_000 * x", "x=1"),
    ("0x10 * x", "x=1"),
    ("07 * x", "x=1"),
    ("x", "x=1_000"),
    ("x", "x=NaN"),
    ("x", "x=Inf"),
    ("x", "x=-nan"),
    ("x", "x=+inf"),
    ("x", "x=infinity"),
    ("x", "x=-Infinity"),
    ("x", "x=0x10"),
    ("x", "x=1e999"),
    # literals float64 cannot hold: refused, not silently inf or 0
    ("x", "x=1e-400"),
    ("x", "x=-1e400"),
    ("x", "x=2e-324"),
    ("x * 1e400", "x=1"),
    ("x * 1e-400", "x=1"),
    ("x * 0.000000000000000000001e-310", "x=1"),
    ("x * 1" + "0" * 309, "x=1"),
    ("inf(x)", "x=1"),
    ("x", "inf=1"),
    ("x", "x="),
    ("x", "x=\u0661"),  # an Arabic-Indic digit one: float() would take it
    ("x", "x=1", "x=2"),
    ("x", "x=1", "y=2"),
    ("x + y", "x=1"),
    ("x", "1"),
    ("x", "=1"),
]


Outcome = tuple[subprocess.CompletedProcess[str], float, Path]


@pytest.fixture(scope="module")
def hostile_outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Outcome]:
    """Every hostile case run once, as a subprocess in its own empty folder, four at a time."""

    # made here, not in the threads: pytest creates its base temp folder lazily, racily
    folders = {args: tmp_path_factory.mktemp("hostile") for args in HOSTILE}

    def one(args: tuple[str, ...]) -> Outcome:
        start = time.perf_counter()
        done = run("grad", *args, cwd=folders[args], timeout=60)
        return done, time.perf_counter() - start, folders[args]

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(HOSTILE, pool.map(one, HOSTILE), strict=True))


@pytest.mark.parametrize("args", HOSTILE, ids=lambda a: ascii(" ".join(a))[:40])
def test_hostile_input_exits_2_with_one_line_and_runs_nothing(
    args: tuple[str, ...], hostile_outcomes: dict[tuple[str, ...], Outcome]
) -> None:
    done, elapsed, folder = hostile_outcomes[args]
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.endswith("\n"), done.stderr
    assert done.stderr.startswith("autograd"), done.stderr
    assert "Traceback" not in done.stderr
    assert elapsed < 30  # Python start-up dominates; the refusal itself is instant
    assert not (folder / MARKER).exists()
    assert list(folder.iterdir()) == []


def test_hostile_input_is_refused_in_well_under_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where the marker would appear if anything ran
    for args in HOSTILE:
        start = time.perf_counter()
        code, err = _main_quietly(["grad", *args])
        assert time.perf_counter() - start < 1.0, args
        assert code == 2, (args, err)
    assert list(tmp_path.iterdir()) == []


def test_there_are_at_least_30_hostile_cases() -> None:
    assert len(HOSTILE) >= 30


def test_bad_options_exit_2_with_one_line() -> None:
    for args in (["demo", "--steps", "0"], ["demo", "--noise", "nan"], ["frobnicate"], []):
        done = run(*args)
        assert done.returncode == 2, args
        assert done.stderr.count("\n") == 1, done.stderr


def _main_quietly(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv, out=out)
    return code, err.getvalue()


@settings(max_examples=300, deadline=None)
@given(
    expr=st.one_of(
        st.text(max_size=60),
        st.text(alphabet="xy0123456789.e+-*/() _eaglnoprstxhmiudc,=[]'", max_size=60),
    ),
    values=st.lists(
        st.one_of(st.text(max_size=12), st.from_regex(r"[xy]=[-+0-9.e_a-z]{0,8}", fullmatch=True)),
        max_size=3,
    ),
)
def test_fuzzed_grad_never_raises(expr: str, values: list[str]) -> None:
    code, err = _main_quietly(["grad", expr, *values])
    assert code in (0, 2)
    if code == 2:
        assert err.count("\n") == 1


def expressions() -> st.SearchStrategy[str]:
    """Text in the grammar: numbers, x and y, operators, calls, parentheses."""
    atoms = st.one_of(
        st.sampled_from(["x", "y"]),
        st.from_regex(r"(0|[1-9][0-9]{0,2})(\.[0-9]{0,3})?(e-?[0-9])?", fullmatch=True),
    )

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "**"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"
            ),
            st.tuples(st.sampled_from(["exp", "log", "tanh", "relu", "sigmoid", "-"]), inner).map(
                lambda t: f"{t[0]}({t[1]})"
            ),
        )

    return st.recursive(atoms, extend, max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(expr=expressions(), x=st.floats(-5, 5), y=st.floats(-5, 5))
def test_generated_expressions_print_a_value_and_one_partial_per_name(
    expr: str, x: float, y: float
) -> None:
    used = [n for n in ("x", "y") if re.search(rf"\b{n}\b", expr)]  # not the x of exp
    values = {"x": f"x={x!r}", "y": f"y={y!r}"}
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["grad", "--", expr, *(values[n] for n in used)], out=out)
    assert code == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert [line.split(" = ")[0] for line in lines] == ["value"] + [f"d/d{n}" for n in used]
    for line in lines:
        float(line.split(" = ")[1])  # inf, nan and -0.0 included


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=20), max_size=5))
def test_fuzzed_argv_never_raises(argv: list[str]) -> None:
    if argv[:1] == ["demo"]:  # a real training run is not a fuzz target
        argv = ["demo", "--steps", "x", *argv[1:]]
    code, _ = _main_quietly(argv)
    assert code in (0, 2)


def test_demo_trains_writes_pngs_and_reaches_its_stated_accuracy(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the PNG plots need the demo extra (matplotlib)")
    done = run("demo", "--steps", "60", "--seed", "1", "--out", str(tmp_path), timeout=300)
    assert done.returncode == 0, done.stderr
    assert "training accuracy 100% (100/100)" in done.stdout
    pngs = sorted(tmp_path.glob("*.png"))
    assert [p.name for p in pngs] == ["moons_decision_boundary.png", "moons_loss.png"]
    for png in pngs:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(data) > 10_000  # a real picture, not an empty canvas


def test_demo_without_the_extra_trains_and_names_the_extra(tmp_path: Path) -> None:
    # A fresh interpreter in which `import matplotlib` and `import tqdm` fail.
    script = (
        "import sys; sys.modules['matplotlib'] = sys.modules['tqdm'] = None; "
        "from autograd.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "demo", "--steps", "3", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "step 3/3: loss" in done.stdout  # text progress instead of a bar
    assert "pip install 'typed-autograd[demo]'" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_graph_writes_dot_text(tmp_path: Path) -> None:
    target = tmp_path / "g.dot"
    done = run("graph", "tanh(w * x + b)", "w=2", "x=0.5", "b=-1", "--out", str(target))
    assert done.returncode == 0, done.stderr
    text = target.read_text()
    assert text.startswith("digraph autograd {")
    assert '"w\\nvalue 2\\ngrad 0.5"' in text  # d/dw tanh(w x + b) at w x + b = 0 is x
    assert '"tanh\\nvalue 0\\ngrad 1"' in text


def test_graph_refuses_an_unknown_file_type() -> None:
    done = run("graph", "x", "x=1", "--out", "g.txt")
    assert done.returncode == 2
    assert ".svg" in done.stderr
    assert done.stderr.count("\n") == 1


def _fails_cleanly(argv: list[str]) -> str:
    """Run ``argv`` in-process; it must exit 2 with one line on stderr, which is returned."""
    code, err = _main_quietly(argv)
    assert code == 2, (argv[:3], err)
    assert err.count("\n") == 1, err
    assert err.endswith("\n"), err
    return err


# --- graph --out: refused before any work, or a sensible file ---


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (".svg", r"--out '\.svg' has no name before \.svg: write e\.g\. graph\.svg"),
        (".dot", r"no name before \.dot"),
        (".PNG", r"no name before \.png"),
        ("sub/.png", r"'sub/\.png' has no name before \.png"),
        ("nosuch/g.dot", r"the folder 'nosuch' does not exist"),
        ("nosuch/deeper/g.svg", r"the folder 'nosuch/deeper' does not exist"),
        ("afile/g.dot", r"the folder 'afile' is not a folder"),
        ("", r"--out is empty: give a file name"),
        ("g.svg/", r"is a folder"),
        ("sub", r"--out 'sub' is a folder"),
        (".", r"is a folder"),
        ("g.txt", r"use a \.dot, \.svg, \.png or \.pdf file name"),
        ("g", r"use a \.dot"),
        ("g\0.dot", r"NUL character"),
    ],
)
def test_graph_out_is_checked_before_any_work(
    out: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "afile").write_text("keep")
    # the output is checked first: a bad expression too would otherwise be reported
    err = _fails_cleanly(["graph", "x *", "--out", out])
    assert re.search(message, err), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "sub"]
    assert list((tmp_path / "sub").iterdir()) == []
    assert (tmp_path / "afile").read_text() == "keep"


def test_graph_writes_into_an_existing_folder_and_overwrites_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g.GV").write_text("old")
    code, err = _main_quietly(["graph", "x * x", "x=3", "--out", "sub/g.GV"])
    assert code == 0, err
    assert (tmp_path / "sub" / "g.GV").read_text().startswith("digraph autograd {")


# --- nesting is real nesting: a flat sum of 2,000 terms parses ---


def _last_line_of(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(argv, out=out) == 0
    return out.getvalue().splitlines()[-1]


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**"])
def test_a_flat_chain_of_2000_parts_parses_and_2001_is_refused(op: str) -> None:
    text = op.join(["x"] * 2000)
    expr = parse(text)
    for _ in range(1999):  # left-deep, except ** which groups to the right as in Python
        assert isinstance(expr, Binary)
        assert expr.op == op
        term, expr = (expr.x, expr.y) if op == "**" else (expr.y, expr.x)
        assert term == Var("x")
    assert expr == Var("x")
    with pytest.raises(ExprError, match=r"more than 2,000 numbers and names"):
        parse(text + op + "x")


def test_the_cli_differentiates_a_flat_sum_of_2000_terms() -> None:
    text = "+".join(f"x{i % 7}*{i}" for i in range(1000))  # 2,000 numbers and names
    assert _last_line_of(["grad", text, *(f"x{i}=1" for i in range(7))]).startswith("d/dx6 = ")
    assert _last_line_of(["grad", " + ".join(["x"] * 2000), "x=1"]) == "d/dx = 2000.0"
    assert _fails_cleanly(["grad", " + ".join(["x"] * 2001), "x=1"]).endswith(
        "expression has more than 2,000 numbers and names\n"
    )


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("(", ")"), ("-", ""), ("+", ""), ("exp(", ")"), ("-(", ")"), ("2 ** -", "")],
)
def test_nesting_of_100_levels_parses_and_101_is_refused(opening: str, closing: str) -> None:
    per_level = 2 if opening == "-(" else 1  # a sign and a parenthesis are two levels
    levels = 100 // per_level
    parse(opening * levels + "x" + closing * levels)
    with pytest.raises(ExprError, match=r"nested deeper than 100 levels"):
        parse(opening * (levels + 1) + "x" + closing * (levels + 1))


def test_deep_nesting_is_refused_without_recursion_in_linear_work() -> None:
    # The parser keeps explicit stacks: it must work with almost no recursion headroom,
    # and its work must grow linearly with the text (counted in Python calls, not timed:
    # a quadratic rescan of 10,000 characters makes millions).
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    texts = ["(" * 4_999 + "x" + ")" * 4_999, "-" * 9_999 + "x", "exp(" * 2_000]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 30)
    sys.setprofile(count)
    try:
        for text in texts:
            with pytest.raises(ExprError, match=r"nested deeper than 100 levels"):
                parse(text)
        flat = parse(" + ".join(["x"] * 2_000))
        power = parse(" ** ".join(["x"] * 2_000))
    finally:
        sys.setprofile(None)
        sys.setrecursionlimit(old)
    characters = sum(map(len, texts)) + 2 * 2_000 * 5
    assert calls < 20 * characters
    assert isinstance(flat, Binary)
    assert isinstance(power, Binary)


# --- messages echo at most 40 characters of any user text, and a count ---

HUGE = "y" * 130_000


@pytest.mark.parametrize(
    "argv",
    [
        ["grad", "x", f"{HUGE}=1"],  # a valid name, not in the expression
        ["grad", HUGE, f"{HUGE}=1", f"{HUGE}=2"],  # given twice (checked before the value)
        ["grad", "x", f"x={HUGE}"],
        ["grad", "x", HUGE],
        ["grad", "x", f"\u00e9{HUGE}=1"],
        ["grad", "x", "x=1", f"--{HUGE}"],
        [f"frob{HUGE}"],
        ["graph", "x", "x=1", "--out", f"{HUGE}.txt"],
        ["graph", "x", "x=1", "--out", f"{HUGE}/g.dot"],
        ["demo", "--seed", f"1{'0' * 130_000}"],
        ["grad", f"{HUGE[:5_000]} + 1e-400"],
        ["grad", f"{HUGE[:5_000]} + gamma(x)"],
    ],
    ids=lambda argv: " ".join(a[:8] for a in argv),
)
def test_messages_echo_a_few_characters_and_a_count(argv: list[str]) -> None:
    err = _fails_cleanly(argv)
    assert len(err) < 400, err[:400]
    assert "y" * 121 not in err  # paths show 120 characters, other text 40
    assert "0" * (MAX_SHOWN + 1) not in err


def test_a_long_name_is_shown_cut_with_its_length() -> None:
    err = _fails_cleanly(["grad", "x", f"{HUGE}=1"])
    assert (
        err
        == f"autograd: '{HUGE[:40]}'... (130,000 characters) is not in the expression (it uses x)\n"
    )
    err = _fails_cleanly(["graph", "x", "x=1", "--out", f"{HUGE}.dot"])  # too long for the OS
    assert err.startswith(f"autograd: --out '{HUGE[:120]}'... (130,004 characters): ")


def test_a_long_list_of_missing_names_is_cut_with_a_count() -> None:
    text = "+".join(f"x{i}" for i in range(300))
    err = _fails_cleanly(["grad", text, "x0=1"])
    assert err == "autograd: no value for x1, x2, x3, x4, x5 and 294 more: add x1=VALUE\n"
    err = _fails_cleanly(["grad", text, "y=1"])
    assert err.startswith(
        "autograd: y is not in the expression (it uses x0, x1, x2, x3, x4 and 295 more)"
    )


def test_a_terminal_escape_in_an_argument_is_shown_escaped() -> None:
    err = _fails_cleanly(["frob\x1b[2J"])
    assert "\x1b" not in err
    assert "\\x1b[2J" in err


# --- literals: exactly the float64 the decimal spells, or a refusal naming it ---


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["x", "x=1e-400"], r"value 'x=1e-400' is too small for float64: it would round to 0"),
        (["x", "x=-2e-324"], r"value 'x=-2e-324' is too small"),
        (["x", "x=1e400"], r"value 'x=1e400' is beyond the float64 range"),
        (["x", "x=1.8e308"], r"value 'x=1\.8e308' is beyond"),
        (["x * 1e-400", "x=1"], r"number '1e-400' at column 5 is too small for float64"),
        (["x * 1e400", "x=1"], r"number '1e400' at column 5 is beyond the float64 range"),
        (["(x + 1.8e308)", "x=1"], r"number '1\.8e308' at column 6 is beyond"),
        (["x", "x=NaN"], r"value 'x=NaN' is not a plain decimal number"),
    ],
)
def test_literals_float64_cannot_hold_are_refused_by_name(argv: list[str], message: str) -> None:
    assert re.search(message, _fails_cleanly(["grad", *argv]))


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        ("0", "0.0"),
        ("-0.0", "-0.0"),
        ("0e-999", "0.0"),
        ("-0e999", "-0.0"),
        ("5e-324", "5e-324"),
        ("-5e-324", "-5e-324"),
        ("3e-324", "5e-324"),  # rounds up to the smallest subnormal: not zero
        ("2.4703282292062328e-324", "5e-324"),  # just above half of it
        ("1.7976931348623157e308", "1.7976931348623157e+308"),
        ("inf", "inf"),
        ("-inf", "-inf"),
        ("nan", "nan"),
    ],
)
def test_values_that_float64_holds_are_read_exactly(value: str, printed: str) -> None:
    out = io.StringIO()
    assert main(["grad", "x", f"x={value}"], out=out) == 0
    assert out.getvalue().splitlines()[0] == f"value = {printed}"
    assert _last_line_of(["grad", f"x * 0 + {value.lstrip('-')}", "x=1"]).startswith("d/dx")


def test_inf_and_nan_are_constants_of_the_grammar() -> None:
    assert _last_line_of(["grad", "tanh(x)", "x=inf"]) == "d/dx = 0.0"  # 1 - tanh(inf)**2
    assert _last_line_of(["grad", "x * x", "x=nan"]) == "d/dx = nan"
    out = io.StringIO()
    assert main(["grad", "--json", "inf * x - nan", "x=-inf"], out=out) == 0
    record = json.loads(out.getvalue())
    assert record["expression"] == "inf * x - nan"
    assert record["value"] == "nan"
    assert record["gradients"] == {"x": "inf"}
    assert repr(parse(record["expression"])) == repr(parse("inf*x-nan"))  # nan != nan


@settings(max_examples=300, deadline=None)
@given(
    mantissa=st.from_regex(r"[0-9]{1,20}(\.[0-9]{0,20})?", fullmatch=True),
    exponent=st.integers(-360, 330),
)
def test_a_literal_is_accepted_exactly_when_float64_holds_it(mantissa: str, exponent: int) -> None:
    # Oracle: exact rational arithmetic (int / int rounds correctly; it raises on overflow).
    text = f"{mantissa}e{exponent}"
    exact = fractions.Fraction(text)
    try:
        nearest = exact.numerator / exact.denominator
    except OverflowError:
        nearest = math.inf
    holds = math.isfinite(nearest) and (nearest != 0.0 or exact == 0)
    for argv in (["grad", "x", f"x={text}"], ["grad", f"x * 0 + {text}", "x=1"]):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(argv, out=out)
        if holds:
            assert code == 0, err.getvalue()
            assert out.getvalue().splitlines()[0] == f"value = {nearest!r}"
        else:
            assert code == 2
            assert re.search(
                r"is too small for float64|is beyond the float64 range", err.getvalue()
            )


# --- whole-number options: the check and the message agree, at both ends ---

WHOLE_NUMBER_OPTIONS = [
    ("demo", "--steps", 1, 100_000),
    ("demo", "--seed", 0, 2**31 - 1),
    ("demo", "--points", 2, 10_000),
    ("demo", "--batch-size", 1, 10_000),
    ("graph", "--max-nodes", 1, 100_000),
]


@pytest.mark.parametrize(("command", "option", "low", "high"), WHOLE_NUMBER_OPTIONS)
def test_whole_number_options_take_exactly_the_range_their_message_states(
    command: str, option: str, low: int, high: int
) -> None:
    parser = build_parser()
    rest = ["x"] if command == "graph" else []
    dest = option.lstrip("-").replace("-", "_")
    for good in (low, high, (low + high) // 2):
        assert getattr(parser.parse_args([command, *rest, option, str(good)]), dest) == good
    assert getattr(parser.parse_args([command, *rest, option, f"+0{high}"]), dest) == high
    for bad in (str(low - 1), str(high + 1), str(10 * high), "1.0", "1e3", "", "0x10", "9" * 25):
        err = _fails_cleanly([command, *rest, option, bad])
        assert f"argument {option}: expected a whole number from {low} to {high}, got " in err


def test_the_seed_from_the_issue_is_accepted_and_trains() -> None:
    out = io.StringIO()
    argv = ["demo", "--seed", "1000000000", "--steps", "1", "--points", "2"]
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(argv, out=out) == 0
    assert "seed 1000000000" in out.getvalue()


# --- demo --out: checked before any training ---


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("trained before checking --out")

    monkeypatch.setattr(autograd.demo, "train", refuse)


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("", r"--out is empty: give a folder name such as demo-out"),
        ("afile", r"--out 'afile': 'afile' is a file, not a folder"),
        ("afile/sub/deeper", r"'afile' is a file, not a folder"),
        ("x\0y", r"NUL character"),
    ],
)
@pytest.mark.usefixtures("no_training")
def test_demo_out_is_checked_before_training(
    out: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("keep")
    assert re.search(message, _fails_cleanly(["demo", "--out", out]))
    assert [p.name for p in tmp_path.iterdir()] == ["afile"]
    assert (tmp_path / "afile").read_text() == "keep"


@pytest.mark.usefixtures("no_training")
def test_demo_out_in_a_folder_without_write_permission_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as root, nothing is denied
    err = _fails_cleanly(["demo", "--out", str(tmp_path / "new")])
    assert err.endswith(f"no permission to write in {str(tmp_path)!r}\n")


def test_demo_out_makes_missing_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib", reason="the PNG plots need the demo extra (matplotlib)")
    target = tmp_path / "a" / "b"
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        code = main(["demo", "--steps", "1", "--points", "2", "--out", str(target)], out=out)
    assert code == 0
    assert sorted(p.name for p in target.iterdir()) == [
        "moons_decision_boundary.png",
        "moons_loss.png",
    ]


# --- fuzzing in-process: every input works or is refused in one line; nothing is evaluated ---


def _python_reading(text: str) -> Expr | None:
    """Oracle: what Python's own parser makes of ``text`` within the grammar, or None.

    The tests may use `ast` (the command may not): an independent reading of the
    same grammar, for short inputs only, so its recursion is harmless.
    """
    text = re.sub(r"[\t\r\n]", " ", text).strip()  # the grammar's whitespace: any, anywhere
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _from_ast(tree.body, text)


_AST_OPS: dict[type[ast.operator], BinaryOp] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
}


def _from_ast(node: ast.expr, text: str) -> Expr | None:
    match node:
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _AST_OPS:
            x, y = _from_ast(left, text), _from_ast(right, text)
            return None if x is None or y is None else Binary(_AST_OPS[type(op)], x, y)
        case ast.UnaryOp(op=ast.USub() | ast.UAdd() as op, operand=operand):
            x = _from_ast(operand, text)
            return x if x is None or isinstance(op, ast.UAdd) else Neg(x)
        case ast.Call(func=ast.Name(id=fn), args=[arg], keywords=[]) if fn in FUNCTIONS:
            x = None if isinstance(arg, ast.Starred) else _from_ast(arg, text)
            return None if x is None else Call(fn, x)
        case ast.Name(id="inf" | "nan" as name):
            return Num(float(name))
        case ast.Name(id=name) if (
            name.isascii()
            and name not in FUNCTIONS
            and name not in COMPARISONS
            and name[:2] != "__"
        ):  # (a comparison's name is where's first argument only: the grammar is narrower)
            return Var(name)
        case ast.Constant(value=int() | float()) if not isinstance(node.value, bool):
            value = _oracle_decimal(ast.get_source_segment(text, node) or "")
            return None if value is None else Num(value)
        case _:
            return None


def _oracle_decimal(text: str) -> float | None:
    """Oracle: the float64 nearest a decimal literal by exact rational arithmetic, or None
    when it is no plain decimal, overflows, or is a non-zero number rounding to zero."""
    literal = re.fullmatch(r"[-+]?([0-9]*)\.?([0-9]*)(?:[eE]([-+]?[0-9]+))?", text)
    if literal is None or not (literal[1] or literal[2]):
        return None
    whole, part, exponent = literal[1], literal[2], int(literal[3] or 0)
    if not (whole + part).strip("0"):
        return -0.0 if text.startswith("-") else 0.0
    # the decimal exponent of the first significant digit: far out, the exact value (a
    # power of ten of that many digits) is not worth building, the answer is known
    first = len(whole.lstrip("0")) if whole.strip("0") else -(len(part) - len(part.lstrip("0")))
    if not -400 < exponent + first < 400:
        return None  # overflows, or a non-zero number rounding to zero
    exact = fractions.Fraction(text)
    try:
        nearest = exact.numerator / exact.denominator  # int / int rounds correctly
    except OverflowError:
        return None
    if nearest == 0.0 and exact != 0:
        return None
    return -0.0 if nearest == 0.0 and text.startswith("-") else nearest


def _oracle_lines(expr: str, pairs: list[str]) -> list[str] | None:
    """Oracle for ``autograd grad -- EXPR NAME=VALUE...``: the lines it must print, or None
    if it must refuse."""
    tree = _python_reading(expr)
    inputs: dict[str, float] = {}
    for pair in pairs:
        name, _, text = pair.partition("=")
        value = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}.get(text)
        value = _oracle_decimal(text) if value is None and len(text) <= 100 else value
        if value is None or not (name.isascii() and name.isidentifier()) or name in inputs:
            return None
        inputs[name] = value
    if tree is None or set(inputs) != set(names(tree)):
        return None
    program = reference(tree, inputs)
    return [
        f"value = {program.value!r}",
        *(f"d/d{n} = {g!r}" for n, g in program.gradients.items()),
    ]


def _forbidden(*args: object, **kwargs: object) -> NoReturn:
    raise AssertionError("the command line called eval, exec or compile")


def _outcome(argv: list[str]) -> tuple[str, str, str]:
    """Run ``argv`` with eval, exec and compile disabled: (outcome, stdout, stderr).

    The outcome is "ok", "refused" (status 2) or "tool" (status 1).

    Anything else (an exception, another status, a message that is not one
    line) fails the test: that is a traceback a user would see.
    """
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.multiple(builtins, eval=_forbidden, exec=_forbidden, compile=_forbidden),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(argv, out=out)
    message = err.getvalue()
    if code == 0:
        assert message == "" or argv[0] == "demo", message  # tqdm draws on stderr
        return "ok", out.getvalue(), message
    assert code in (1, 2), code
    assert message.count("\n") == 1, message
    assert message.endswith("\n"), message
    assert message.startswith("autograd"), message
    assert len(message) < 600, message[:600]
    assert message.isprintable() or message[:-1].isprintable(), message
    if code == 2:
        assert out.getvalue() == ""
    return ("refused" if code == 2 else "tool"), out.getvalue(), message


_PIECES = [
    "(",
    ")",
    "-",
    "+",
    "**",
    "*",
    "/",
    "//",
    ",",
    ".",
    "e",
    "e-",
    "1e400",
    "1e-400",
    "5e-324",
    "inf",
    "nan",
    "_",
    "__x",
    "x",
    "y",
    "0",
    "07",
    " ",
    "exp",
    "sin",
    "x(",
    "\x00",
    "\u00e9",
    "\u0445",
    "\n",
    "=",
    "'",
    "%",
    "1_0",
    "0x1",
    "1j",
    "True",
    "lambda",
]
_TOKENS = [
    "x",
    "y",
    "x1",
    "1",
    "2.5",
    ".5",
    "1.",
    "0",
    "00",
    "07",
    "1e3",
    "1e400",
    "1e-400",
    "5e-324",
    "inf",
    "nan",
    "exp",
    "log",
    "tanh",
    "relu",
    "sigmoid",
    "sin",
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    "**",
    "//",
    " ",
    ",",
    ".",
    "e",
    "_",
    "__x",
    "True",
    "not",
    "is",
]


_ATOM = st.sampled_from(["x", "y", "2", "0.5", ".5", "1e-3", "0", "3.25", "inf", "nan", "5e-324"])
_WRAP = st.sampled_from(["{}", "-{}", "+{}", "({})", "exp({})", "tanh(-{})", "log({})", "relu({})"])
_BINARY = st.sampled_from([" + ", "-", "*", " / ", "**", " ** -"])
_PIECE = st.sampled_from(_PIECES)
_EDIT = st.sampled_from(["insert", "delete", "replace", "repeat"])


@st.composite
def _grammar_text(draw: st.DrawFn) -> str:
    """Text in the grammar, cheap to draw: wrapped atoms joined by operators, wrapped again."""
    n = draw(st.integers(1, 8))
    text = draw(_WRAP).format(draw(_ATOM))
    for _ in range(n - 1):
        text += draw(_BINARY) + draw(_WRAP).format(draw(_ATOM))
        if draw(st.booleans()):
            text = draw(_WRAP).format(text)
    return text


@st.composite
def _mutated(draw: st.DrawFn) -> str:
    """Grammar text with one to three edits: insert, delete, replace or repeat a piece."""
    text = draw(_grammar_text())
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        piece = draw(_PIECE)
        match draw(_EDIT):
            case "insert":
                text = text[:i] + piece + text[i:]
            case "delete":
                text = text[:i] + text[i + draw(st.integers(1, 4)) :]
            case "replace":
                text = text[:i] + piece + text[i + len(piece) :]
            case _:
                text = text[:i] + piece * draw(st.integers(2, 150)) + text[i:]
    return text


_VALUES = st.one_of(
    st.sampled_from(
        [
            "1",
            "-0.0",
            "0",
            "5e-324",
            "1e-400",
            "1e400",
            "inf",
            "-inf",
            "nan",
            "NaN",
            "1_0",
            "07",
            "-2.5",
            ".5e3",
            "",
            "\u0661",
            "1e-3",
        ]
    ),
    st.from_regex(r"[-+]?[0-9]{0,3}\.?[0-9]{0,3}(e[-+]?[0-9]{1,3})?", fullmatch=True),
)
_ASSIGNMENTS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["x", "y", "x1", "z", "exp", "inf", "_", "1x", ""]), _VALUES).map(
            "=".join
        ),
        st.sampled_from(["x", "=1", "x==1", "x=1=2"]),
    ),
    max_size=3,
)
_ANY_TEXT = st.one_of(
    st.text(max_size=80),
    st.binary(max_size=80).map(
        lambda b: b.decode("utf-8", "surrogateescape")
    ),  # as argv from the OS
)
_SAFE_TEXT = st.text(
    st.characters(blacklist_characters="/\\~"), max_size=12
)  # no paths outside cwd
_WORDS = [
    "grad",
    "graph",
    "demo",
    "--out",
    "--json",
    "--",
    "--seed",
    "--steps",
    "--points",
    "--noise",
    "--lr",
    "--batch-size",
    "--max-nodes",
    "x",
    "x*x",
    "x=1",
    "",
    ".svg",
    "sub/.png",
    "g.dot",
    "nosuch/g.dot",
    "-1",
    "0",
    "2147483647",
    "2147483648",
    "nan",
    "1e-400",
    "--help",
    "-h",
    "sub",
    "g.svg/",
    "g.txt",
]


@st.composite
def _fuzz_case(draw: st.DrawFn) -> tuple[str, list[str], list[str] | None]:
    """(kind, argv, pairs): ``pairs`` set when an oracle can say what ``grad`` must print."""
    kind = draw(st.sampled_from(["random", "soup", "mutated", "argv", "valid"]))
    if kind == "argv":
        argv = draw(st.lists(st.one_of(st.sampled_from(_WORDS), _SAFE_TEXT), max_size=7))
        if "-h" in argv or "--help" in argv:  # help is not a refusal and prints pages
            argv = [a for a in argv if a not in ("-h", "--help")]
        return kind, argv, None
    if kind == "random":
        return kind, ["grad", draw(_ANY_TEXT), *draw(st.lists(_ANY_TEXT, max_size=3))], None
    if kind == "valid":  # grammar text, each of its names given once, in any order
        expr = draw(_grammar_text())
        used = draw(st.permutations([n for n in ("x", "y") if re.search(rf"\b{n}\b", expr)]))
        pairs = [f"{n}={draw(_VALUES)}" for n in used]
        return kind, ["grad", "--", expr, *pairs], pairs
    if kind == "soup":
        sep = draw(st.sampled_from(["", " "]))
        expr = sep.join(draw(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=25)))
    else:
        expr = draw(_mutated())
    pairs = draw(_ASSIGNMENTS)
    return kind, ["grad", "--", expr, *pairs], pairs


FUZZ_EXAMPLES = int(os.environ.get("AUTOGRAD_FUZZ_EXAMPLES", "500"))  # a few seconds


def test_fuzz_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # graph --out writes here
    (tmp_path / "sub").mkdir()
    monkeypatch.setattr(autograd.cli, "run_demo", lambda config, folder, out: 0)  # no training
    parser = build_parser()  # built once: argparse's set-up is most of a refusal's time
    monkeypatch.setattr(autograd.cli, "build_parser", lambda: parser)
    tally: Counter[str] = Counter()

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None)
    @given(case=_fuzz_case())
    def one(case: tuple[str, list[str], list[str] | None]) -> None:
        kind, argv, pairs = case
        result, printed, message = _outcome(argv)
        tally["tried"] += 1
        tally[kind] += 1
        tally[result] += 1
        if pairs is None:
            return
        expected = _oracle_lines(argv[2], pairs)
        if result == "ok":  # a result that Python's reading of the same text does not give
            assert expected == printed.splitlines(), (argv, printed)
        elif expected is not None:  # deliberately narrower than Python: exp(x,), deep nesting
            narrower = re.search(r"takes exactly one argument|nested deeper", message)
            assert narrower is not None, (argv, expected, message)
            tally[f"refused where Python accepts ({narrower.group()})"] += 1

    one()
    with capsys.disabled():
        print(f"\nfuzz: {dict(tally)}")
    assert tally["tried"] == FUZZ_EXAMPLES
    assert tally["ok"] > FUZZ_EXAMPLES // 10  # the fuzz reaches valid input too
    assert tally["refused"] > FUZZ_EXAMPLES // 3


# --- parse agrees with Python's reading; deep trees compare, hash and print without recursion ---

_SOUP = st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(_grammar_text(), _mutated(), _SOUP))
@example(text="tanh(-x + 0.5) + ne-an + x")  # ``ne``: a comparison, refused as a name
def test_parse_reads_text_as_python_does(text: str) -> None:
    python = _python_reading(text)
    try:
        mine: str = repr(parse(text))
    except ExprError as e:
        mine = str(e)
    if mine.startswith(("Num", "Var", "Neg", "Binary", "Call")):
        assert mine == repr(python), text
    else:  # deliberately narrower than Python: no `exp(x,)`, at most 100 levels of nesting
        assert python is None or re.search(r"takes exactly one argument|nested deeper", mine)


@settings(max_examples=200, deadline=None)
@given(a=_grammar_text(), b=_grammar_text())
def test_expressions_compare_and_hash_by_value_as_their_text_says(a: str, b: str) -> None:
    x, y = parse(a), parse(b)
    assert (x == y) == (repr(x) == repr(y))  # nan too: every parse uses the one nan object
    assert x == parse(a)
    assert hash(x) == hash(parse(a))


def test_a_2000_deep_tree_compares_hashes_and_prints_at_the_default_recursion_limit() -> None:
    assert sys.getrecursionlimit() <= 10_000
    a, b = parse("+".join(["x"] * 2000)), parse("+".join(["x"] * 2000))
    c = parse("+".join(["x"] * 1999) + "+y")
    assert a == b
    assert a != c
    assert hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert repr(a).startswith("Binary(op='+', x=Binary(op='+', x=")
    assert repr(a).count("Var(name='x')") == 2000


def test_a_write_that_fails_after_the_checks_exits_1_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    def denied(source: str, path: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(autograd.cli, "render", denied)
    code, err = _main_quietly(["graph", "x", "x=1", "--out", "g.dot"])
    assert code == 1
    assert err == "autograd: Permission denied: 'g.dot'\n"
    code, err = _main_quietly(["graph", "x", "x=1", "--out", f"{HUGE[:5_000]}.dot"])
    assert err.startswith("autograd: ")  # the OS refuses the long name during the checks
    assert len(err) < 300
