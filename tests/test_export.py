"""`autograd.export` without JAX: the extra is imported on first use only, or named when missing."""

from __future__ import annotations

import subprocess
import sys

import pytest

import autograd as ag
from autograd.core.nodes import Compare, Leaf, Mul, Pow, Where
from autograd.export._equations import Equation, Literal, equations, trace


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_importing_the_engine_or_export_does_not_import_jax() -> None:
    done = run("import sys, autograd, autograd.export; print('jax' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_to_jax_without_jax_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['jax'] = None\n"  # as if it were not installed
        "from autograd.export import to_jax\n"
        "try:\n    to_jax(lambda x: x)\n"
        "except ImportError as e:\n    print(e)\n"
    )
    done = run(code)
    assert done.returncode == 0, done.stderr
    assert "pip install 'typed-autograd[jax]'" in done.stdout


def test_equations_are_the_ops_in_order_with_constants_as_literals() -> None:
    def f(x: ag.Scalar, y: ag.Scalar) -> ag.Scalar:
        return ag.relu(x * y) ** 2.0

    traced = trace(f, (1.0, 2.0), frozenset(), {})
    program = traced.program
    assert program.inputs == 2
    mul, relu, power = program.body
    assert (mul.op, mul.ins) == (Mul, (0, 1))
    assert (relu.op.name, relu.ins) == ("relu", (2,))
    assert power == Equation(Pow, (3, Literal(2.0)), (("const", True),))
    assert program.outputs == (4,)


def test_a_rules_choice_is_a_compare_and_where_equation() -> None:
    traced = trace(lambda x: ag.where(ag.lt(x, 1.0), x, 2.0 * x), (0.0,), frozenset(), {})
    ops = [eq.op for eq in traced.program.body]
    assert ops == [Compare, Mul, Where]
    assert traced.program.body[0].params == (("op", "lt"),)


def test_ops_of_constants_alone_fold_to_their_float_bits() -> None:
    x = Leaf(1.0)
    program = equations([x * ag.exp(ag.Const(0.1))], [x])
    assert program.body == (Equation(Mul, (0, Literal(ag.exp(0.1)))),)


def test_a_static_argument_stays_a_python_value() -> None:
    seen: list[object] = []

    def f(x: ag.Scalar, k: int) -> ag.Scalar:
        seen.append(k)
        return x * float(k) if k > 0 else x

    traced = trace(f, (1.0, 3), frozenset({1}), {})
    assert seen == [3]
    assert traced.trees[1] is None
    assert traced.program.body[0].ins == (0, Literal(3.0))


def test_a_node_the_function_closes_over_is_refused() -> None:
    outer = Leaf(2.0)
    with pytest.raises(TypeError, match=r"a variable it was not given"):
        trace(lambda x: x * outer, (1.0,), frozenset(), {})


def test_reading_a_traced_value_is_refused() -> None:
    def f(x: ag.Node) -> ag.Node:
        return x if x.value > 0 else -x

    with pytest.raises(TypeError, match=r"reads `\.value`"):
        trace(f, (1.0,), frozenset(), {})
