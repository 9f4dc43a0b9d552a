"""`autograd conform`: planted defects found and shrunk, the worker protocol, the real engines."""

from __future__ import annotations

import importlib.util
import io
import json
import math
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import conform_fakes
import pytest

from autograd.cli import main
from autograd.conform import (
    OPS,
    Conventions,
    Engine,
    EngineUnavailable,
    Known,
    OpResult,
    Options,
    Report,
    at,
    conform,
    load_engine,
    reference_hessian,
)
from autograd.conform._lazy import require
from autograd.conform._worker import worker_engine
from autograd.expr import Expr, parse
from autograd.programs import reference
from autograd.testing import ALL_OPS, EngineMismatch, check_engine

TESTS = Path(__file__).parent
FAKE_WORKER = str(TESTS / "conform_worker_fake.py")


def run(engine: Engine, n: int = 60, **options: object) -> Report:
    return conform(engine, Options(n=n, **options))  # type: ignore[arg-type]  # Options' fields


def row(report: Report, op: str) -> OpResult:
    return next(r for r in report.results if r.op == op)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stderr
    sys.stderr = err
    try:
        status = main(["conform", *argv], out)
    finally:
        sys.stderr = old
    return status, out.getvalue(), err.getvalue()


# --- planted defects: found, attributed, shrunk


def test_the_exact_fake_agrees_everywhere() -> None:
    report = run(conform_fakes.EXACT, n=200, order=2)
    assert report.ok, report.text()
    assert sum(r.drawn for r in report.results) == 200
    assert all(r.agree == r.drawn for r in report.results)


def test_a_wrong_derivative_is_found_on_its_op_and_shrunk() -> None:
    report = run(conform_fakes.WRONG_TANH, n=100, ops=("*", "exp", "tanh"))
    assert not report.ok
    tanh = row(report, "tanh")
    assert tanh.differ > tanh.drawn // 3  # tanh(x) / 2 is 0 at 0, nan at nan
    assert tanh.example is not None
    assert tanh.example.source == "tanh(x)"
    assert tanh.example.differs == ("d/dx",)
    x = tanh.example.inputs["x"]
    (_, ours, theirs) = next(r for r in tanh.example.rows if r[0] == "d/dx")
    assert theirs == ours + math.tanh(x) / 2
    assert x in (1.0, -1.0)  # shrunk to the simplest input that shows it (tanh(0) = 0)
    for other in ("*", "exp"):  # programs without a tanh agree
        r = row(report, other)
        assert r.example is None or "tanh" in r.example.source


def test_a_lost_signed_zero_is_found_and_can_be_waived() -> None:
    report = run(conform_fakes.LOST_ZERO, n=120, ops=("*", "neg", "sin"))
    assert not report.ok
    examples = [r.example for r in report.results if r.example is not None]
    assert examples
    for ex in examples:
        assert all(
            math.copysign(1.0, o) == -1.0 and t == 0.0 for q, o, t in ex.rows if q in ex.differs
        )
    assert "sign of zero" in row(report, "*").worst
    waived = run(
        conform_fakes.LOST_ZERO,
        n=120,
        ops=("*", "neg", "sin"),
        conventions=Conventions(signed_zeros=False),
    )
    assert waived.ok, waived.text()


def test_a_wrong_second_derivative_is_found_at_order_two_only() -> None:
    report = run(conform_fakes.WRONG_EXP2, n=60, ops=("+", "exp"), order=2)
    exp = row(report, "exp")
    assert exp.differ > 0
    assert exp.example is not None
    assert exp.example.source == "exp(x)"
    assert exp.example.differs == ("d2/dxdx",)
    assert exp.example.inputs == {"x": 0.0}  # shrunk to the simplest value that shows it
    assert run(conform_fakes.WRONG_EXP2, n=60, ops=("+", "exp"), order=1).ok


def test_an_exception_is_counted_as_raise_and_shrunk() -> None:
    report = run(conform_fakes.RAISING_LOG, n=80, ops=("log", "sin"))
    log = row(report, "log")
    assert log.raised > 0
    assert log.example is not None
    assert log.example.error == "ZeroDivisionError: log of zero"
    assert (log.example.source, dict(log.example.inputs)) == ("log(x)", {"x": 0.0})
    sin = row(report, "sin")  # raises only where a log is inside
    assert sin.example is None or "log(" in sin.example.source


def test_known_conventions_are_counted_apart() -> None:
    tanh_convention = Known(
        "tanh' + 0.5",
        "the fake's documented choice",
        "tests/conform_fakes.py",
        at("tanh", orders=(1,)),
    )
    engine = Engine(
        "documented",
        "test",
        conform_fakes.WRONG_TANH.first,
        ops=("tanh",),
        known=(tanh_convention,),
    )
    report = run(engine, n=30)
    assert report.ok
    assert row(report, "tanh").known == row(report, "tanh").known_counts["tanh' + 0.5"] > 0
    assert "tanh' + 0.5 (" in report.text()
    assert "tests/conform_fakes.py" in report.text()


def test_the_per_op_table_and_json_report(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    status, out, err = cli(
        "conform_fakes:WRONG_TANH", "--n", "40", "--ops", "tanh,exp", "--json", str(target)
    )
    assert status == 1
    assert "verdict: disagrees on tanh" in out
    assert "[2/2] exp: 20 programs" in err  # progress on stderr
    data = json.loads(target.read_text())
    assert data["format"] == "typed-autograd/conform@1"
    assert [o["op"] for o in data["ops"]] == ["tanh", "exp"]
    assert data["ops"][0]["example"]["expression"] == "tanh(x)"
    assert data["ok"] is False


def test_exit_status_is_zero_when_all_agree() -> None:
    status, out, _ = cli("conform_fakes:EXACT", "--n", "30", "--order", "2")
    assert status == 0
    assert "verdict: agrees" in out


def test_same_seed_same_output_and_other_seed_other_programs() -> None:
    a = cli("conform_fakes:LOST_ZERO", "--n", "50", "--seed", "7")
    b = cli("conform_fakes:LOST_ZERO", "--n", "50", "--seed", "7")
    c = cli("conform_fakes:LOST_ZERO", "--n", "50", "--seed", "8")
    assert a == b
    assert a[1] != c[1]


def test_an_op_subset_draws_the_same_programs_for_those_ops() -> None:
    full = run(conform_fakes.LOST_ZERO, n=len(conform_fakes.OPS) * 10)
    part = run(conform_fakes.LOST_ZERO, n=20, ops=("*", "neg"))
    assert row(full, "*") == row(part, "*")


# --- loading engines


def test_module_function_loads_an_adapter_function() -> None:
    engine = load_engine("conform_fakes:exact_adapter")
    assert engine.second is None
    assert engine.ops == OPS
    assert run(engine, n=40).ok


def test_unknown_engines_and_bad_specs_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for spec, message in [
        ("pytorch", "unknown engine 'pytorch': use one of torch, jax, tinygrad, micrograd, hips"),
        ("os.system('x'):y", "is not module:function"),
        ("conform_fakes:nothing", "module 'conform_fakes' has no 'nothing'"),
        ("conform_fakes:OPS", "neither an Engine nor an adapter function"),
    ]:
        assert main(["conform", spec]) == 2
        assert message in capsys.readouterr().err
    assert main(["conform", "torch", "--python", sys.executable]) == 2
    assert "runs in this interpreter" in capsys.readouterr().err
    assert main(["conform", "conform_fakes:EXACT", "--ops", "tanh,frob"]) == 2
    assert "unknown op 'frob'" in capsys.readouterr().err
    assert main(["conform", "conform_fakes:EXACT", "--ops", "sqrt"]) == 2
    assert "exact has no sqrt" in capsys.readouterr().err


def test_missing_packages_say_what_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(
        EngineUnavailable, match=r"no_such_engine is not installed .*: pip install it"
    ):
        require("no_such_engine", "pip install it")
    assert main(["conform", "hips"]) == 3
    assert "pip install autograd numpy" in capsys.readouterr().err
    assert main(["conform", "no_such_module_xyz:f"]) == 3
    assert "cannot import 'no_such_module_xyz'" in capsys.readouterr().err


# --- the worker protocol


def test_a_worker_script_is_checked_through_json_lines() -> None:
    status, out, _ = cli(FAKE_WORKER, "--python", sys.executable, "--n", "60")
    assert status == 1
    assert "conform fake-worker 1:" in out
    assert "the worker also has frobnicate" in out
    table = {
        line.split()[0]: [int(c) for c in line.split()[1:6]]
        for line in out.splitlines()
        if line.split()[:1] in (["*"], ["sin"], ["log"], ["exp"])
        and line.split()[1:2] != ["("]
        and len(line.split()) >= 6
    }
    drawn, _, _, differ, _ = table["sin"]
    assert drawn == 15
    assert differ > 0
    assert table["log"][4] > 0  # raise
    assert "sin(x)" in out
    assert "ZeroDivisionError: log of zero" in out


def test_a_worker_that_breaks_the_protocol_is_reported() -> None:
    with pytest.raises(
        EngineUnavailable, match="first line is not a typed-autograd/conform-worker@1"
    ):
        worker_engine([sys.executable, FAKE_WORKER, "--bad-hello"])
    dying = worker_engine([sys.executable, FAKE_WORKER, "--die"])
    with pytest.raises(EngineUnavailable, match=r"exited \(status 0\)"):
        run(dying, n=3)
    dying.close()
    with pytest.raises(EngineUnavailable, match="cannot start the worker"):
        worker_engine(["/no/such/interpreter", FAKE_WORKER])


# --- check_engine's second order


def test_check_engine_compares_hessians_when_given() -> None:
    check_engine(
        conform_fakes.EXACT.first, n=40, ops=("exp", "*"), hessian=conform_fakes.EXACT.second
    )
    check_engine(conform_fakes.WRONG_EXP2.first, n=40, ops=("exp", "*"))  # first order agrees
    with pytest.raises(EngineMismatch, match=r"d2/dxdx\s+1\.0\s+0\.0  <- differs") as info:
        check_engine(
            conform_fakes.WRONG_EXP2.first,
            n=40,
            ops=("exp",),
            hessian=conform_fakes.WRONG_EXP2.second,
        )
    assert info.value.hessian == {"x": {"x": 0.0}}


def test_reference_hessian_is_grad_of_grad() -> None:
    assert reference_hessian(parse("x * x * y"), {"x": 3.0, "y": 2.0}) == {
        "x": {"x": 4.0, "y": 6.0},
        "y": {"x": 6.0, "y": 0.0},
    }


def test_conform_ops_are_the_kit_ops() -> None:
    assert set(OPS) <= set(ALL_OPS)


# --- the real engines (each skipped, with the reason, where not installed)

HAND: list[tuple[str, dict[str, float]]] = [
    ("tanh(x) * y + x ** 2.0", {"x": 0.5, "y": -1.5}),
    ("exp(x) / (y - sin(x))", {"x": 0.25, "y": 3.0}),
    ("sqrt(x * x + y) - log(y)", {"x": 1.5, "y": 2.0}),
]


def _close(a: float, b: float) -> bool:
    return Conventions(ulps=8).agree(a, b)


def _check_hand_programs(engine: Engine, second_order: bool) -> None:
    for text, inputs in HAND:
        expr: Expr = parse(text)
        ours = reference(expr, inputs)
        value, grads = engine.first(expr, inputs)
        assert _close(ours.value, value), text
        assert all(_close(g, grads[k]) for k, g in ours.gradients.items()), text
        if second_order:
            assert engine.second is not None
            h: Mapping[str, Mapping[str, float]] = engine.second(expr, inputs)
            ref = reference_hessian(expr, inputs)
            assert all(_close(v, h[a][b]) for a, r in ref.items() for b, v in r.items()), text


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@pytest.mark.parametrize("name", ["torch", "jax", "tinygrad"])
def test_shipped_array_adapters_match_on_plain_programs(name: str) -> None:
    if not _installed(name):
        pytest.skip(f"{name} is not installed (pip install 'typed-autograd[conform]')")
    limit = sys.getrecursionlimit()
    engine = load_engine(name)
    assert sys.getrecursionlimit() == limit  # tinygrad's import raises it; the adapter restores it
    _check_hand_programs(engine, second_order=True)
    report = run(engine, n=2 * len(engine.ops), order=2)
    assert {r.op for r in report.results} == set(engine.ops)


def test_shipped_micrograd_adapter_finds_its_documented_bugs() -> None:
    if not _installed("micrograd"):
        pytest.skip("micrograd is not installed (pip install micrograd==0.1.0)")
    engine = load_engine("micrograd")
    assert engine.second is None
    report = run(engine, n=140, order=2)
    assert report.order == 1
    pow_ = row(report, "**")
    assert pow_.differ + pow_.raised > 0
    expr = parse("x ** 0.5")
    value, _ = engine.first(expr, {"x": -1.0})
    assert isinstance(value, complex)  # micrograd 0.1.0: Python's float ** gives a complex


def test_shipped_hips_worker_runs_in_its_own_interpreter() -> None:
    python = os.environ.get("CONFORM_HIPS_PYTHON")
    if python is None:
        pytest.skip("set CONFORM_HIPS_PYTHON to a Python with HIPS autograd (pip install autograd)")
    engine = load_engine("hips", python)
    try:
        _check_hand_programs(engine, second_order=True)
        assert "HIPS" not in engine.name
        assert engine.version.split()[0].count(".") == 2
        assert engine.first(parse("0.0 ** y"), {"y": 2.0}) == (0.0, {"y": 0.0})
        assert engine.second is not None
        assert engine.second(parse("0.0 ** y"), {"y": 2.0}) == {"y": {"y": 0.0}}
    finally:
        engine.close()
