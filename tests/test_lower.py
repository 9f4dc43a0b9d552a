"""`jit(f).lower(*args)`: the program of equations a call compiles, and its Python."""

from __future__ import annotations

import math
import random
import re
import struct
import subprocess
import sys
import textwrap

import pytest

import autograd as ag
from autograd.compiler import equations
from autograd.compiler.lowering import Lowered
from autograd.compiler.options import Options
from autograd.core.sym import HELPERS
from autograd.expr import evaluate
from autograd.programs import random_program


def chain(x: ag.Scalar, n: int = 3000) -> ag.Scalar:
    for _ in range(n):
        x = ag.tanh(0.9 * x + 0.1)
    return x


def bits(v: float) -> bytes:
    return b"nan" if math.isnan(v) else struct.pack("<d", v)


def test_lower_prints_forward_backward_and_gradients() -> None:
    def f(x: float, y: float) -> float:
        return x * y + ag.exp(y)

    lowered = ag.jit(ag.grad(f)).lower(2.0, 3.0)
    text = lowered.as_text()
    assert text.splitlines()[0] == "{ lambda a0:var a1:float. let"
    assert "v2:var = mul a0 a1" in text
    assert "v3:float = exp a1" in text  # y is not differentiated: a plain number
    assert "g0 = vjp[mul, 0] a1" in text  # add passes the seed on; times the seed: a1
    assert "gradients g0" in text
    assert text.endswith("in (v4) }")
    assert lowered.compiled
    assert "def chunk0(R):" in lowered.source


def test_lower_shows_long_runs_as_loop_blocks() -> None:
    text = ag.jit(ag.grad(chain)).lower(0.3).as_text()
    assert "loop 3000 times {" in text  # the forward chain, iteration 0 shown
    backward = text.split("backward")[1]
    counts = [int(n) for n in re.findall(r"loop ([0-9]+) times", backward)]
    assert counts
    assert counts[0] > 2990  # the sweep, reading the chain's values at stride -3
    assert len(text.splitlines()) < 40


def test_long_rows_of_names_print_as_first_dots_last() -> None:
    """A dot of 2,000 pairs, its gradient in the first: 4,000 inputs and 2,000 gradients
    print as four names and two, not 60,000 characters; short rows print whole."""
    ws, xs = [0.5] * 2000, [0.25] * 2000
    text = ag.jit(ag.value_and_grad(ag.dot)).lower(ws, xs).as_text()
    lines = text.splitlines()
    assert lines[0] == "{ lambda a0:var ... a1999:var a2000:float ... a3999:float. let"
    assert "  gradients g1999 ... g0" in lines
    assert max(map(len, lines)) < 100
    eight = ag.jit(ag.sum).lower([1.0] * 8).as_text()
    assert (
        eight.splitlines()[0] == "{ lambda " + " ".join(f"a{i}:float" for i in range(8)) + ". let"
    )

    def scaled_sum(v: list[float], k: float) -> float:
        return ag.sum(v) * k

    nine = ag.jit(ag.grad(scaled_sum)).lower([1.0] * 9, 2.0).as_text()
    assert nine.splitlines()[0] == "{ lambda a0:var ... a8:var a9:float. let"


def test_floats_returned_as_they_are_are_literal_outputs() -> None:
    """As in a jaxpr, a float the function returns without computing it (a float subclass
    as NumPy's too, signed zeros and NaN kept) is a literal output, so `evaluate` gives every float
    of the result; an int, a bool or a string is returned as it is, no float of the
    program (an int past 2**53 is not rounded into one)."""

    class Float64(float):  # as NumPy's float64: a float subclass, printed by its own repr
        def __repr__(self) -> str:
            return f"np.float64({float(self)!r})"

    def f(a: float, b: float) -> list[object]:
        return [a * b, 2.5, a, "tag", 2**60, True, Float64(-0.0), math.nan]

    lowered = ag.jit(f).lower(1.5, 2.0)
    assert lowered.as_text().endswith("in (v2, 2.5, a0, -0.0, nan) }")
    assert lowered.program is not None
    got = equations.evaluate(lowered.program, [1.5, 2.0])
    assert [bits(v) for v in got] == [bits(v) for v in [3.0, 2.5, 1.5, -0.0, math.nan]]
    assert ag.jit(f)(1.5, 2.0)[:6] == [3.0, 2.5, 1.5, "tag", 2**60, True]

    def constant_loss(x: float) -> tuple[float, dict[str, object]]:
        return 2.0, {"x": x, "k": -0.0}

    text = ag.jit(ag.grad(constant_loss, has_aux=True)).lower(1.0).as_text()
    assert text.endswith("gradients 0.0\n  in (2.0, a0, -0.0) }")


def test_lower_shows_guards_on_plain_numbers() -> None:
    f = ag.jit(lambda x, n: ag.where(ag.lt(n, 0.0), x, -x))
    text = f.lower(1.0, 2.0).as_text()
    assert "guard a1 < 0.0 is False" in text


def test_lower_marks_a_vmapped_batch() -> None:
    pytest.importorskip("numpy")
    f = ag.jit(lambda xs: ag.mean(ag.vmap(lambda x: x * x)(xs)))
    text = f.lower([1.0, 2.0, 3.0]).as_text()
    assert ":float[3] = mul" in text
    assert "batch_sum" in text


def test_lowered_source_runs_to_the_jitted_result() -> None:
    def g(x: float) -> float:
        return ag.tanh(x * x) / (x + 1.0)

    f = ag.jit(ag.value_and_grad(g))
    source = f.lower(0.7).source
    namespace: dict[str, object] = dict(HELPERS)
    exec(compile(source, "<lowered>", "exec"), namespace)
    chunk = namespace["chunk0"]
    assert callable(chunk)
    assert chunk([0.7]) == f(0.7)


def test_lower_of_a_graph_over_budget_says_it_runs_eagerly() -> None:
    with pytest.warns(RuntimeWarning, match="too big"):
        lowered = ag.jit(lambda x: chain(x, 50), options=Options(budget=10)).lower(0.3)
    assert not lowered.compiled
    assert lowered.as_text().startswith("# jit(<lambda>): runs eagerly")


def test_lower_does_not_run_or_cache_the_call() -> None:
    calls: list[float] = []

    def f(x: ag.Scalar) -> ag.Scalar:
        calls.append(1.0)
        return x * x

    jitted = ag.jit(f)
    assert isinstance(jitted.lower(3.0), Lowered)
    assert calls == [1.0]  # traced once, never run on the numbers
    assert jitted(3.0) == 9.0


@pytest.mark.parametrize("seed", range(200))
def test_equations_evaluate_to_the_traced_values_bit_for_bit(seed: int) -> None:
    """The equations are the graph: rebuilt op by op, they give eager's values."""
    program = random_program(random.Random(seed), max_nodes=12, hessian=False)
    names = list(program.inputs)

    def f(*xs: ag.Scalar) -> ag.Scalar:
        return evaluate(program.expr, dict(zip(names, xs, strict=True)))

    xs = [program.inputs[n] for n in names]
    lowered = ag.jit(f).lower(*xs)
    assert lowered.program is not None
    if not lowered.program.outputs:  # the expression folded to a constant
        return
    (got,) = equations.evaluate(lowered.program, xs)
    assert bits(got) == bits(ag.jit(f)(*xs))  # type: ignore[arg-type]  # a float
    assert bits(got) == bits(program.value)


def test_structural_keys_ignore_names_and_see_constants() -> None:
    text_a = ag.jit(lambda x, y: ag.tanh(x * 2.0) + ag.tanh(y * 2.0)).lower(1.0, 2.0)
    assert text_a.program is not None
    keys = [e.key for e in text_a.program.eqns]
    assert keys[0] == keys[2]  # x * 2.0 and y * 2.0: one structure
    other = ag.jit(lambda x: x * -0.0).lower(1.0).program
    same = ag.jit(lambda x: x * 0.0).lower(1.0).program
    assert other is not None
    assert same is not None
    assert other.eqns[0].key != same.eqns[0].key  # -0.0 and 0.0 are different constants


def test_as_text_is_the_same_under_every_hash_seed() -> None:
    code = textwrap.dedent(
        """
        import autograd as ag
        def f(p):
            return ag.sum([ag.tanh(p[k] * p["b"]) for k in ("w", "v", "u")])
        print(ag.jit(ag.grad(f)).lower({"w": 1.0, "v": 2.0, "u": 3.0, "b": 0.5}).as_text())
        """
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "4242", "99")
    }
    assert len(outs) == 1


def test_lower_of_a_hessian_prints_its_three_sweeps_as_loops() -> None:
    """Forward over reverse: the chain, the sweep reading it last first, and the second
    sweep reading both, each a loop block (runs read after them are stacked)."""

    def short(x: ag.Scalar) -> ag.Scalar:
        return chain(x, 1000)

    text = ag.jit(ag.hessian(short)).lower(0.3).as_text()
    counts = [int(n) for n in re.findall(r"loop ([0-9]+) times", text)]
    assert len(counts) == 3
    assert min(counts) > 990
    assert len(text.splitlines()) < 300  # of 44,000 equations
