"""Every op in programs: two-input ops, ``where`` and the comparisons in the grammar, the
`Expr` tree, the JSON form (``typed-autograd/grad@2``), the strategies and the Hessian."""

from __future__ import annotations

import json
import math
import operator
import random
import subprocess
import sys
from collections.abc import Callable

import pytest
from hypothesis import assume, example, find, given, settings
from hypothesis import strategies as st

from autograd import Leaf, Node
from autograd.cli import main
from autograd.expr import (
    BINARY_FUNCTIONS,
    COMPARISONS,
    Binary,
    Call2,
    CompareName,
    Expr,
    ExprError,
    Num,
    Var,
    Where,
    children,
    evaluate,
    names,
    parse,
    postorder,
    to_source,
)
from autograd.programs import FORMAT, Program, random_program
from autograd.testing import (
    ALL_OPS,
    expr_from_tree,
    expr_to_tree,
    expressions,
    grad_result,
    program_from_json,
    program_to_json,
    programs,
    reference,
)

FIND = settings(derandomize=True, database=None, max_examples=2000)


def bits(v: float) -> str:
    return repr(v)  # nan equals nan, -0.0 differs from 0.0


def program_bits(p: Program) -> list[str]:
    hess = [v for row in p.hessian or () for v in row]
    return [bits(v) for v in (p.value, *p.gradients.values(), *hess)]


# ---- the grammar ---------------------------------------------------------------------


@pytest.mark.parametrize("fn", list(BINARY_FUNCTIONS))
def test_two_input_ops_parse_print_and_evaluate(fn: str) -> None:
    e = parse(f"{fn}(x * 2, -y)")
    assert isinstance(e, Call2)
    assert e.fn == fn
    assert to_source(e) == f"{fn}(x * 2.0, -y)"
    assert parse(to_source(e)) == e
    out = evaluate(e, {"x": Leaf(1.5), "y": Leaf(-4.0)})
    assert isinstance(out, Node)
    assert bits(out.value) == bits(BINARY_FUNCTIONS[fn](3.0, 4.0))


_PYTHON: dict[CompareName, Callable[[float, float], bool]] = {
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "eq": operator.eq,
    "ne": operator.ne,
}


@pytest.mark.parametrize("cmp", list(COMPARISONS))
@pytest.mark.parametrize(
    ("a", "b"), [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (0.0, -0.0), (math.nan, 1.0), (1.0, math.nan)]
)
def test_where_chooses_as_pythons_comparison(cmp: CompareName, a: float, b: float) -> None:
    e = parse(f"where({cmp}(a, b), x, y)")
    assert e == Where(cmp, Var("a"), Var("b"), Var("x"), Var("y"))
    assert children(e) == (Var("a"), Var("b"), Var("x"), Var("y"))
    assert names(e) == ["a", "b", "x", "y"]
    p = reference(e, {"a": a, "b": b, "x": 10.0, "y": 20.0})
    holds = _PYTHON[cmp](a, b)
    assert p.value == (10.0 if holds else 20.0)
    assert dict(p.gradients) == {"a": 0.0, "b": 0.0, "x": float(holds), "y": float(not holds)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lt(x, y)", r"lt\(\) at column 1 is a comparison: use it as where's first argument"),
        ("where(x, y, z)", r"where\(\) at column 1 tests a comparison first"),
        ("where(lt(x, y) + 1, 1, 2)", r"lt\(\) at column 7 is a comparison"),
        ("-ge(x, 1)", r"ge\(\) at column 2 is a comparison"),
        ("where(lt(x, y), lt(x, y), 2)", r"lt\(\) at column 17 is a comparison"),
        ("hypot(x)", r"hypot\(\) takes exactly two arguments \('\)' at column 8 after one"),
        ("maximum(x, y, z)", r"maximum\(\) takes exactly two arguments \(',' at column 13\)"),
        ("where(lt(x, y), 1)", r"where\(\) takes exactly three arguments"),
        ("exp(x, y)", r"exp\(\) takes exactly one argument"),
        ("eq + 1", r"eq at column 1 is a comparison"),
        ("hypot * 2", r"hypot at column 1 is a function: call it, as in hypot\(x, y\)"),
        ("atan2(x, y)", r"cannot call 'atan2'.*arctan2, hypot, maximum, minimum \(two each\)"),
    ],
)
def test_misuse_is_refused_saying_how(text: str, message: str) -> None:
    with pytest.raises(ExprError, match=message):
        parse(text)


def test_deep_where_nesting_counts_toward_the_limit() -> None:
    text = "x"
    for _ in range(60):  # two levels each: where( and lt(
        text = f"where(lt({text}, 1), x, y)"
    with pytest.raises(ExprError, match="nested deeper than 100 levels"):
        parse(text)


@given(expressions(ops=ALL_OPS, max_nodes=12))
@example(Binary("**", Var("x"), Num(-0.5)))  # text writes (-0.5): Neg(Num(0.5)) read back
def test_source_text_reads_back_to_the_same_numbers(e: Expr) -> None:
    # Text has no shared subexpressions: one object used twice is one node of the graph, and
    # its cotangents add up in another order than two nodes' (hypot(s, s) with s = sqrt(x):
    # a Hessian of -0.9999999999999999 against -1.0). Compare expressions text can write.
    # (postorder lists a shared object once: count each use, as the tree holds them)
    inner = [id(n) for p in postorder(e) for n in children(p) if not isinstance(n, Var | Num)]
    assume(len(set(inner)) == len(inner))
    again = parse(to_source(e))
    assert to_source(parse(to_source(again))) == to_source(again)
    inputs = {n: 0.5 + i for i, n in enumerate(names(e))}
    assert program_bits(reference(again, inputs, hessian=True)) == program_bits(
        reference(e, inputs, hessian=True)
    )


@pytest.mark.parametrize("text", ["x ** -0.5", "x ** -2", "x * -0.0", "-1.5 ** x", "x ** -inf"])
def test_a_signed_number_is_one_constant_as_python_compiles_it(text: str) -> None:
    """``x ** -0.5`` parses as Python's AST does (a sign applied to 0.5), and evaluates as
    Python compiles it: the constant -0.5, so it takes user code's paths (a constant
    exponent: `Pow`), with user code's bits."""
    x = Leaf(0.75)
    python = eval(text, {"x": x, "inf": math.inf})  # the test's own literals
    got = evaluate(parse(text), {"x": x})
    assert isinstance(got, Node)
    assert isinstance(python, Node)
    assert type(got) is type(python)
    assert got.value.hex() == python.value.hex()  # (hex keeps the sign of a zero)


# ---- JSON ------------------------------------------------------------------------------


@given(programs(ops=ALL_OPS, hessian=True))
def test_json_round_trips_every_op_and_the_hessian(p: Program) -> None:
    text = json.dumps(program_to_json(p), allow_nan=False)
    obj = json.loads(text)
    assert obj["format"] == FORMAT == "typed-autograd/grad@2"
    back = program_from_json(obj)
    assert back.expr == p.expr
    assert len(expr_to_tree(back.expr)) == len(expr_to_tree(p.expr))  # sharing kept
    assert program_bits(back) == program_bits(p)
    assert len(obj["hessian"]) == len(p.inputs)


def test_the_new_tree_nodes_are_as_agreed() -> None:
    e = parse("where(le(x, 0), maximum(x, x), hypot(x, 2))")
    tree = expr_to_tree(e)
    assert tree == [
        {"op": "var", "name": "x"},
        {"op": "num", "value": 0.0},
        {"op": "var", "name": "x"},
        {"op": "var", "name": "x"},
        {"call2": "maximum", "x": 2, "y": 3},
        {"op": "var", "name": "x"},
        {"op": "num", "value": 2.0},
        {"call2": "hypot", "x": 5, "y": 6},
        {"where": "le", "a": 0, "b": 1, "x": 4, "y": 7},
    ]
    assert expr_from_tree(tree) == e
    shared = expr_from_tree([{"op": "var", "name": "x"}, {"call2": "minimum", "x": 0, "y": 0}])
    assert isinstance(shared, Call2)
    assert shared.x is shared.y


def test_a_version_1_object_still_reads() -> None:
    old = {
        "format": "typed-autograd/grad@1",
        "expression": "x * y",
        "inputs": {"x": 2.0, "y": "-inf"},
        "value": "-inf",
        "gradients": {"x": "-inf", "y": 2.0},
        "tree": [
            {"op": "var", "name": "x"},
            {"op": "var", "name": "y"},
            {"op": "*", "args": [0, 1]},
        ],
    }
    p = program_from_json(old)
    assert to_source(p.expr) == "x * y"
    assert p.value == -math.inf
    assert p.hessian is None


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        ([{"op": "var", "name": "x"}, {"call2": "atan2", "x": 0, "y": 0}], "unknown two-input op"),
        (
            [{"op": "var", "name": "x"}, {"call2": "hypot", "x": 0, "y": 1}],
            "x, y must index earlier",
        ),
        ([{"op": "var", "name": "x"}, {"where": "lt", "a": 0, "b": 0, "x": 0}], "missing|'y'"),
        (
            [{"op": "var", "name": "x"}, {"where": "gte", "a": 0, "b": 0, "x": 0, "y": 0}],
            "unknown comparison",
        ),
    ],
)
def test_malformed_new_nodes_are_refused_naming_the_node(tree: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"node 1 .*({message})"):
        expr_from_tree(tree)


def test_a_malformed_hessian_is_refused() -> None:
    obj = grad_result(parse("x * y"), {"x": 1.0, "y": 2.0}, hessian=True)
    assert obj["hessian"] == [[0.0, 1.0], [1.0, 0.0]]
    obj["hessian"] = [[0.0, 1.0]]
    with pytest.raises(ValueError, match="hessian must be a list of 2 rows"):
        program_from_json(obj)


# ---- the Hessian --------------------------------------------------------------------------


def test_the_hessian_follows_the_inputs_order_and_covers_extra_inputs() -> None:
    p = reference(parse("x * y ** 3"), {"y": 1.0, "x": 2.0, "z": 5.0}, hessian=True)
    assert p.hessian == ((12.0, 3.0, 0.0), (3.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    assert reference(parse("2 * 3"), {}, hessian=True).hessian == ()


@pytest.mark.parametrize(
    ("text", "inputs", "hessian"),
    [
        ("where(lt(x, y), x * x, y * y * y)", {"x": 1.0, "y": 2.0}, ((2.0, 0.0), (0.0, 0.0))),
        ("where(lt(x, y), x * x, y * y * y)", {"x": 3.0, "y": 2.0}, ((0.0, 0.0), (0.0, 12.0))),
        ("maximum(x * x, y)", {"x": 2.0, "y": 4.0}, ((1.0, 0.0), (0.0, 0.0))),  # a tie: half
        ("hypot(x, y)", {"x": 3.0, "y": 4.0}, ((0.128, -0.096), (-0.096, 0.072))),
    ],
)
def test_hessians_of_the_new_ops(
    text: str, inputs: dict[str, float], hessian: tuple[tuple[float, ...], ...]
) -> None:
    got = reference(parse(text), inputs, hessian=True).hessian
    assert got is not None
    assert all(
        g == pytest.approx(h, rel=1e-15, abs=0.0)
        for grow, hrow in zip(got, hessian, strict=True)
        for g, h in zip(grow, hrow, strict=True)
    )


# ---- the strategies draw ties and masks ---------------------------------------------------


def _nodes(e: Expr) -> list[Expr]:
    return postorder(e)


def test_every_op_is_drawn() -> None:
    for op in [*BINARY_FUNCTIONS, "where"]:
        e = find(
            expressions(ops=[op, "+"]),
            lambda e, op=op: any(  # type: ignore[misc]  # a default binds the loop variable
                (isinstance(n, Call2) and n.fn == op) or (isinstance(n, Where) and op == "where")
                for n in _nodes(e)
            ),
            settings=FIND,
        )
        assert len(expr_to_tree(e)) == len(children(e)) + 1, to_source(e)  # shrunk: op(leaves)
    for cmp in COMPARISONS:
        e = find(
            expressions(ops=["where", cmp]),
            lambda e: isinstance(e, Where),
            settings=FIND,
        )
        assert isinstance(e, Where)
        assert e.cmp == cmp  # a comparison listed alone is the only one drawn


def test_ties_are_drawn_on_purpose() -> None:
    same_operand = find(
        expressions(ops=["maximum"]),
        lambda e: any(isinstance(n, Call2) and n.x is n.y for n in _nodes(e)),
        settings=FIND,
    )
    assert to_source(same_operand) in ("maximum(x, x)",)
    tied_inputs = find(
        programs(ops=["minimum"]),
        lambda p: len(p.inputs) == 2 and len({bits(v) for v in p.inputs.values()}) == 1,
        settings=FIND,
    )
    assert len(tied_inputs.inputs) == 2


def test_where_guards_a_branch_that_is_nan_or_infinite_where_not_taken() -> None:
    def unselected_breaks(p: Program) -> bool:
        for n in _nodes(p.expr):
            if isinstance(n, Where):
                taken = reference(Where(n.cmp, n.a, n.b, Num(1.0), Num(0.0)), p.inputs).value
                other = reference(n.y if taken == 1.0 else n.x, p.inputs).value
                if not math.isfinite(other) and all(math.isfinite(v) for v in p.inputs.values()):
                    return math.isfinite(p.value)
        return False

    p = find(programs(ops=["where", "log", "sqrt"]), unselected_breaks, settings=FIND)
    assert isinstance(p.expr, Where)


# ---- random_program: seeded, reproducible, without hypothesis -----------------------------


def test_random_program_is_reproducible_from_its_seed() -> None:
    def corpus(seed: int) -> list[object]:
        rng = random.Random(seed)
        return [program_to_json(random_program(rng)) for _ in range(30)]

    assert corpus(5) == corpus(5)
    assert corpus(5) != corpus(6)


@given(st.integers(0, 2**32), st.sampled_from([op for op in ALL_OPS if op not in COMPARISONS]))
def test_random_program_has_its_root_op_and_its_reference_results(seed: int, root: str) -> None:
    p = random_program(random.Random(seed), root=root)
    top = p.expr
    label = (
        top.fn
        if isinstance(top, Call2)
        else "where"
        if isinstance(top, Where)
        else expr_to_tree(top)[-1].get("op")  # type: ignore[union-attr]  # a dict node
    )
    assert label == root
    assert program_bits(p) == program_bits(reference(p.expr, p.inputs, hessian=True))


def test_random_program_needs_no_hypothesis() -> None:
    code = (
        "import sys, random; sys.modules['hypothesis'] = None\n"
        "from autograd.programs import random_program, program_to_json\n"
        "print(program_to_json(random_program(random.Random(1)))['expression'])"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip()


# ---- the command line takes them too ------------------------------------------------------


def test_grad_and_graph_take_every_op(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grad", "maximum(x, y) + where(ge(x, 0), sqrt(x), 0)", "x=1", "y=1"]) == 0
    assert capsys.readouterr().out == "value = 2.0\nd/dx = 1.0\nd/dy = 0.5\n"
    assert main(["grad", "--hessian", "arctan2(y, x)", "x=1", "y=0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "value = 0.0",
        "d/dx = -0.0",
        "d/dy = 1.0",
        "d2/dxdx = 0.0",
        "d2/dxdy = -1.0",
        "d2/dydx = -1.0",
        "d2/dydy = -0.0",
    ]
    assert main(["graph", "where(lt(x, y), hypot(x, y), minimum(x, y))", "x=3", "y=4"]) == 0
    dot = capsys.readouterr().out
    assert "where" in dot
    assert "hypot" in dot


def test_the_reference_hessian_is_grad_of_grad_as_pytorchs_double_backward() -> None:
    # forward over reverse meets inf * 0 where a tangent overflows first, and loses the
    # sign of a zero: arctan'' at the largest float was nan, tanh''(inf) +0.0

    big = 1.7976931348623157e308
    h = reference(parse("arctan(x)"), {"x": big}, hessian=True).hessian
    assert h is not None
    assert str(h[0][0]) == "-0.0"
    h = reference(parse("tanh(x)"), {"x": math.inf}, hessian=True).hessian
    assert h is not None
    assert str(h[0][0]) == "-0.0"
    h = reference(parse("x * x * y"), {"x": 3.0, "y": 2.0}, hessian=True).hessian
    assert h == ((4.0, 6.0), (6.0, 0.0))
