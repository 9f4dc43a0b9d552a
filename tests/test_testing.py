"""The conformance kit tests itself: it passes this engine and catches planted bugs, minimally."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Mapping

import pytest
from hypothesis import given

from autograd.expr import Binary, Call, Expr, Neg, Num, Var, children, parse, postorder, to_source
from autograd.testing import (
    FORMAT,
    Conventions,
    EngineMismatch,
    Op,
    Program,
    check_engine,
    expr_from_tree,
    expr_to_tree,
    grad_result,
    program_from_json,
    program_to_json,
    programs,
    reference,
)

# ---- a tiny tape engine with switchable bugs (the "other engine") ------------------


class _Tape:
    """Values and local derivatives; ``assign`` overwrites instead of accumulating."""

    def __init__(self, tanh_bug: bool, assign_bug: bool) -> None:
        self.tanh_bug = tanh_bug
        self.assign_bug = assign_bug
        self.values: list[float] = []
        self.edges: list[list[tuple[int, float]]] = []  # per node: (input, d node / d input)
        self.memo: dict[int, int] = {}  # id of a (live) subexpression -> its tape entry

    def add(self, value: float, edges: list[tuple[int, float]]) -> int:
        self.values.append(value)
        self.edges.append(edges)
        return len(self.values) - 1

    def build(self, e: Expr, env: dict[str, int]) -> int:
        # a shared subexpression is one tape entry, as in the reference's graph: built twice,
        # its two gradient paths would add up in another order (the sign of a zero differs)
        done = self.memo.get(id(e))
        if done is None:
            done = self.memo[id(e)] = self._build(e, env)
        return done

    def _build(self, e: Expr, env: dict[str, int]) -> int:
        match e:
            case Num(value=v):
                return self.add(v, [])
            case Var(name=name):
                return env[name]
            case Neg(x=x):
                i = self.build(x, env)
                return self.add(-self.values[i], [(i, -1.0)])
            case Call(fn="tanh", x=x):
                i = self.build(x, env)
                y = math.tanh(self.values[i])
                return self.add(y, [(i, 1.0 - y if self.tanh_bug else 1.0 - y * y)])
            case Binary(op="+", x=x, y=y):
                i, j = self.build(x, env), self.build(y, env)
                return self.add(self.values[i] + self.values[j], [(i, 1.0), (j, 1.0)])
            case Binary(op="*", x=x, y=y):
                i, j = self.build(x, env), self.build(y, env)
                a, b = self.values[i], self.values[j]
                return self.add(a * b, [(i, b), (j, a)])
            case _:
                raise NotImplementedError(str(e))

    def grads(self, root: int) -> list[float]:
        # None, not 0.0, before the first contribution: 0.0 + -0.0 would lose a -0.0
        g: list[float | None] = [None] * len(self.values)
        g[root] = 1.0
        for node in range(root, -1, -1):  # inputs always have smaller indices
            gn = g[node]
            if gn is None:
                continue
            for i, d in self.edges[node]:
                prev = g[i]
                g[i] = gn * d if self.assign_bug or prev is None else prev + gn * d
        return [0.0 if v is None else v for v in g]


def tape_engine(tanh_bug: bool = False, assign_bug: bool = False) -> _TapeAdapter:
    return _TapeAdapter(tanh_bug, assign_bug)


class _TapeAdapter:
    def __init__(self, tanh_bug: bool, assign_bug: bool) -> None:
        self.tanh_bug, self.assign_bug = tanh_bug, assign_bug

    def __call__(self, expr: Expr, inputs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
        tape = _Tape(self.tanh_bug, self.assign_bug)
        env = {name: tape.add(v, []) for name, v in inputs.items()}
        root = tape.build(expr, env)
        g = tape.grads(root)
        return tape.values[root], {name: g[i] for name, i in env.items()}


TAPE_OPS: tuple[Op, ...] = ("+", "*", "neg", "tanh")


def _size(e: Expr) -> int:
    return len(expr_to_tree(e))


def _ours(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, Mapping[str, float]]:
    p = reference(expr, inputs)
    return p.value, p.gradients


# ---- check_engine --------------------------------------------------------------------


def test_check_engine_passes_this_engine_on_all_ops() -> None:
    check_engine(_ours, n=300)


def test_check_engine_passes_a_correct_tape_engine() -> None:
    # the tape's tanh' is the textbook 1 - y*y: near saturation it is correct only to an
    # absolute ~1e-16, many ulps of a small result (docs/reference-testing.md)
    check_engine(tape_engine(), n=300, ops=TAPE_OPS, conventions=Conventions(ulps=8, abs_tol=1e-15))


def test_check_engine_finds_a_wrong_tanh_derivative_with_a_small_program() -> None:
    with pytest.raises(EngineMismatch) as info:
        check_engine(tape_engine(tanh_bug=True), n=300, ops=TAPE_OPS)
    err = info.value
    assert "tanh" in str(err)
    assert _size(err.program.expr) <= 4, str(err)
    assert "reference" in str(err)
    assert "engine" in str(err)


def test_check_engine_finds_overwritten_gradients_on_shared_nodes() -> None:
    with pytest.raises(EngineMismatch) as info:
        check_engine(tape_engine(assign_bug=True), n=300, ops=TAPE_OPS)
    err = info.value
    assert _size(err.program.expr) <= 4, str(err)
    assert err.gradients is not None
    assert any(
        not Conventions().agree(g, err.gradients[k]) for k, g in err.program.gradients.items()
    )


def test_check_engine_reports_exceptions_from_the_engine() -> None:
    def raises_on_exp(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, Mapping[str, float]]:
        if "exp" in json.dumps(expr_to_tree(expr)):
            raise OverflowError("math range error")
        return _ours(expr, inputs)

    with pytest.raises(EngineMismatch, match=r"it raised OverflowError: math range error") as info:
        check_engine(raises_on_exp, n=200)
    assert _size(info.value.program.expr) == 2  # exp(x)
    assert isinstance(info.value.error, OverflowError)


def test_check_engine_shrinks_deep_chains_to_the_shortest_failing_length() -> None:
    def shallow(expr: Expr, inputs: Mapping[str, float]) -> tuple[float, Mapping[str, float]]:
        if _size(expr) > 50:
            raise RecursionError("maximum recursion depth exceeded")
        return _ours(expr, inputs)

    with pytest.raises(EngineMismatch, match="RecursionError") as info:
        check_engine(shallow, n=100, ops=("+",), max_nodes=0, max_chain=200)
    assert _size(info.value.program.expr) in (51, 52)


def test_conventions_are_configurable() -> None:
    assert not Conventions().agree(1.0, 1.0 + 8 * 2**-52)
    assert Conventions(ulps=8).agree(1.0, 1.0 + 8 * 2**-52)
    assert Conventions(abs_tol=1e-9).agree(1.0, 1.0 + 1e-10)
    assert not Conventions().agree(math.inf, -math.inf)
    assert not Conventions().agree(math.nan, 0.0)
    assert not Conventions().agree(1.0, 1 + 0j)  # a complex result is never a float64
    assert Conventions().agree(0.0, 0)  # int zero gradients, as micrograd starts them


# ---- JSON ----------------------------------------------------------------------------


def _same(a: float, b: float) -> bool:
    return repr(a) == repr(b)  # nan equals nan, -0.0 differs from 0.0


@given(programs())
def test_json_round_trips_programs_exactly(p: Program) -> None:
    text = json.dumps(program_to_json(p), allow_nan=False)
    back = program_from_json(json.loads(text))
    assert expr_to_tree(back.expr) == expr_to_tree(p.expr)  # sharing kept: same node count
    assert _same(back.value, p.value)
    assert list(back.inputs) == list(p.inputs)
    assert all(_same(back.inputs[k], v) for k, v in p.inputs.items())
    assert all(_same(back.gradients[k], v) for k, v in p.gradients.items())


@given(programs(max_depth=4))
def test_json_without_tree_round_trips_through_the_expression_text(p: Program) -> None:
    obj = json.loads(json.dumps(program_to_json(p, tree=False), allow_nan=False))
    assert "tree" not in obj
    back = program_from_json(obj)
    assert obj["expression"] == to_source(p.expr)
    assert to_source(back.expr) == to_source(parse(to_source(p.expr)))


def test_json_keeps_shared_subexpressions_once() -> None:
    t = Call("tanh", Var("x"))
    tree = expr_to_tree(Binary("*", t, t))
    assert tree == [
        {"op": "var", "name": "x"},
        {"op": "tanh", "args": [0]},
        {"op": "*", "args": [1, 1]},
    ]
    back = expr_from_tree(tree)
    assert isinstance(back, Binary)
    assert back.x is back.y


def test_grad_result_is_the_cli_object_with_special_floats_as_strings() -> None:
    obj = grad_result(parse("log(x) + y * y"), {"x": 0.0, "y": -0.0})
    assert obj["format"] == FORMAT
    assert obj["expression"] == "log(x) + y * y"
    assert obj["inputs"] == {"x": 0.0, "y": -0.0}
    assert obj["value"] == "-inf"
    assert obj["gradients"] == {"x": "inf", "y": -0.0}
    assert repr(json.loads(json.dumps(obj))["gradients"]["y"]) == "-0.0"


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        ([], "non-empty list"),
        (
            [{"op": "var", "name": "x"}, {"op": "gamma", "args": [0]}],
            r"node 1 .*unknown op 'gamma'",
        ),
        ([{"op": "neg", "args": [0]}], r"node 0 .*earlier nodes"),
        ([{"op": "num", "value": "NaN"}], r"node 0 .*'inf', '-inf', 'nan'"),
        ([{"op": "var", "name": "x"}, {"op": "+", "args": [0]}], r"takes 2 argument"),
    ],
)
def test_malformed_trees_are_refused_naming_the_node(tree: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        expr_from_tree(tree)


def test_program_from_json_refuses_other_formats() -> None:
    with pytest.raises(ValueError, match="'typed-autograd/grad@1' or 'typed-autograd/grad@2'"):
        program_from_json({"format": "other"})
    with pytest.raises(ValueError, match="missing field 'value'"):
        program_from_json({"format": FORMAT, "expression": "x", "inputs": {}, "gradients": {}})


def test_reference_names_missing_inputs() -> None:
    with pytest.raises(ValueError, match="no value for variable"):
        reference(parse("x + y"), {"x": 1.0})


def test_importing_the_kit_without_hypothesis_names_the_extra() -> None:
    code = "import sys; sys.modules['hypothesis'] = None; import autograd.testing"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert run.returncode != 0
    assert "ImportError" in run.stderr
    assert "typed-autograd[testing]" in run.stderr


def _uses(e: Expr) -> list[int]:
    """The id of each operand of each distinct subexpression object (one per use)."""
    return [id(k) for node in postorder(e) for k in children(node)]


@given(programs(sharing=False, max_nodes=12))
def test_without_sharing_every_subexpression_has_one_user(p: Program) -> None:
    uses = _uses(p.expr)
    assert len(uses) == len(set(uses))


def test_programs_can_share_subexpressions() -> None:
    from hypothesis import find, settings

    def shares(p: Program) -> bool:
        uses = _uses(p.expr)
        return len(uses) != len(set(uses))

    # derandomized, no example database: the shrinker's result would otherwise vary by run
    # (a fresh clone once stopped at `tanh(tanh(x) * tanh(x))`, four nodes)
    p = find(
        programs(ops=["tanh", "*"]), shares, settings=settings(derandomize=True, database=None)
    )
    assert len(expr_to_tree(p.expr)) == 3  # t = tanh(leaf); t * t


def test_the_cli_json_is_read_as_a_program_with_the_same_numbers() -> None:
    cmd = [
        sys.executable,
        "-m",
        "autograd",
        "grad",
        "--json",
        "log(x) * tanh(y) / x",
        "x=0",
        "y=-0",
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, check=True)
    from_cli = program_from_json(json.loads(run.stdout))
    ours = grad_result(parse("log(x) * tanh(y) / x"), {"x": 0.0, "y": -0.0})
    assert json.loads(run.stdout) == ours
    assert _same(from_cli.value, reference(from_cli.expr, from_cli.inputs).value)


def test_a_subexpression_object_used_twice_is_built_once() -> None:
    from autograd import Leaf, Mul
    from autograd.testing import Binary, Call, Var, evaluate, postorder

    t = Call("tanh", Var("x"))
    square = Binary("*", t, t)
    assert [type(e).__name__ for e in postorder(square)] == ["Var", "Call", "Binary"]
    out = evaluate(square, {"x": Leaf(0.5)})
    assert isinstance(out, Mul)
    assert out.x is out.y
