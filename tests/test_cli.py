"""The `autograd` command line, run as a user runs it: in a subprocess."""

from __future__ import annotations

import contextlib
import io
import json
import math
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograd._cli import main
from autograd._expr import parse
from autograd._json import expr_from_tree

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
        "format": "typed-autograd/grad@1",
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
    ("sin(x)", "x=1"),
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
    ("x", "x=nan"),
    ("x", "x=inf"),
    ("x", "x=-Infinity"),
    ("x", "x=0x10"),
    ("x", "x=1e999"),
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
        "from autograd._cli import main; sys.exit(main(sys.argv[1:]))"
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
