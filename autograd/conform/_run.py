"""Run an engine on programs focused on each op, classify each result, shrink what differs."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import attrs

from autograd.conform._draw import VALUES, Program, draw
from autograd.conform._engine import (
    Case,
    Engine,
    EngineUnavailable,
    Known,
    Mismatch,
    Order,
    Outcome,
    Site,
)
from autograd.conform._ops import Op
from autograd.conform._protocol import Conventions, reference_hessian
from autograd.conform._report import Example, OpResult, Report
from autograd.core.nodes import Leaf, Node
from autograd.expr import (
    Binary,
    Call,
    Call2,
    Expr,
    Neg,
    Num,
    Var,
    Where,
    children,
    evaluate,
    names,
    postorder,
    to_source,
)
from autograd.programs import reference

_SHRINK_BUDGET: Final = 400  # engine runs per shrink: programs are small, this is plenty


@attrs.frozen
class Options:
    """What ``conform`` runs.

    Attributes:
        n: how many programs in all, shared evenly among the ops.
        seed: the same seed (and options) draws the same programs.
        ops: the ops to check (default: all the engine has).
        order: 2 also compares second derivatives (if the engine has them).
        conventions: what counts as agreement.
    """

    n: int = 1000
    seed: int = 0
    ops: tuple[Op, ...] | None = None
    order: Order = 1
    conventions: Conventions = attrs.Factory(Conventions)


@attrs.frozen
class _Result:
    """One program's verdict, with what the report shows of it."""

    outcome: Outcome
    case: Case
    known: Known | None
    theirs: tuple[object, Mapping[str, object], Mapping[str, Mapping[str, object]] | None] | None


def conform(
    engine: Engine, options: Options, progress: Callable[[str], None] = lambda _: None
) -> Report:
    """Check ``engine`` against this one, op by op.

    Args:
        engine: the engine (see `Engine`).
        options: how many programs, which ops, what agreement means.
        progress: called with a line of text after each op.

    Returns:
        The `Report`: per op, programs drawn, agreeing, known conventions,
        differing (with a minimal program) and raising.

    Raises:
        ValueError: for an op the engine does not have.
    """
    ops = engine.ops if options.ops is None else options.ops
    missing = [op for op in ops if op not in engine.ops]
    if missing:
        raise ValueError(
            f"{engine.name} has no {', '.join(missing)} (it has: {', '.join(engine.ops)})"
        )
    order: Order = 2 if options.order == 2 and engine.second is not None else 1
    results = []
    for i, op in enumerate(ops):
        count = options.n // len(ops) + (i < options.n % len(ops))
        results.append(_one_op(engine, op, count, options, order))
        row = results[-1]
        progress(
            f"[{i + 1}/{len(ops)}] {op}: {row.drawn} programs, {row.agree} agree, "
            f"{row.known} known, {row.differ} differ, {row.raised} raise"
        )
    return Report(
        engine=engine.name,
        version=engine.version,
        n=options.n,
        seed=options.seed,
        order=order,
        conventions=options.conventions,
        results=tuple(results),
        known=engine.known,
        notes=engine.notes,
    )


def _one_op(engine: Engine, op: Op, count: int, options: Options, order: Order) -> OpResult:
    rng = random.Random(f"conform:{options.seed}:{op}")  # per op: a subset draws the same
    tally: dict[Outcome, int] = {"agree": 0, "known": 0, "differ": 0, "raise": 0}
    known_counts: dict[str, int] = {}
    first_bad: tuple[Program, _Result] | None = None
    worst: list[Mismatch] = []
    for _ in range(count):
        program = draw(rng, op, engine.ops, engine.node_exponents)
        result = _run(engine, program, options.conventions, order)
        tally[result.outcome] += 1
        if result.known is not None:
            known_counts[result.known.name] = known_counts.get(result.known.name, 0) + 1
        if result.outcome in ("differ", "raise"):
            worst.extend(result.case.mismatches)
            first_bad = first_bad or (program, result)
    example = None
    if first_bad is not None:
        example = _example(*_shrink(engine, *first_bad, options.conventions, order))
    ulps = [u for m in worst if (u := m.ulps) is not None]
    return OpResult(
        op=op,
        drawn=count,
        agree=tally["agree"],
        known=tally["known"],
        differ=tally["differ"],
        raised=tally["raise"],
        worst_ulps=max(ulps) if ulps else None,
        worst_kinds=tuple(sorted({m.kind for m in worst} - {"ulps"})),
        known_counts=known_counts,
        example=example,
    )


def _run(engine: Engine, program: Program, conv: Conventions, order: Order) -> _Result:
    """Run one program on the engine and classify the result."""
    expr, inputs = program
    ours = reference(expr, inputs)
    hessian = reference_hessian(expr, inputs) if order == 2 else None
    sites = _sites(expr, inputs)
    try:
        value, grads = engine.first(expr, dict(inputs))
        grads = dict(grads)  # a non-mapping is the adapter's failure, reported like one
        second = engine.second
        theirs_h = None
        if hessian is not None and second is not None:
            theirs_h = {k: dict(row) for k, row in second(expr, dict(inputs)).items()}
    except EngineUnavailable:  # the worker died: not a finding about a program
        raise
    except Exception as e:  # any exception from the engine is a finding
        error = f"{type(e).__name__}: {e}"
        case = Case(expr, inputs, sites, (), error)
        known = _known(engine.known, case)
        return _Result("known" if known else "raise", case, known, None)
    rows: list[tuple[str, float, object]] = [("value", ours.value, value)]
    rows += [(f"d/d{k}", g, grads.get(k, "(missing)")) for k, g in ours.gradients.items()]
    for a, row in (hessian or {}).items():
        got: Mapping[str, object] = (theirs_h or {}).get(a, {})
        rows += [(f"d2/d{a}d{b}", h, got.get(b, "(missing)")) for b, h in row.items()]
    mismatches = tuple(Mismatch(q, o, t) for q, o, t in rows if not conv.agree(o, t))
    case = Case(expr, inputs, sites, mismatches, None)
    if not mismatches:
        return _Result("agree", case, None, (value, grads, theirs_h))
    known = _known(engine.known, case)
    return _Result("known" if known else "differ", case, known, (value, grads, theirs_h))


def _known(known: Sequence[Known], case: Case) -> Known | None:
    return next((k for k in known if k.applies(case)), None)


def _sites(expr: Expr, inputs: Mapping[str, float]) -> tuple[Site, ...]:
    """Each op node of ``expr`` with the values of its operands (ours)."""
    leaves: dict[str, Node] = {k: Leaf(v) for k, v in inputs.items()}
    sites = []
    for e in postorder(expr):
        kids = children(e)
        if kids:
            values = tuple(_value(evaluate(k, leaves)) for k in kids)
            sites.append(Site(_op(e), values))
    return tuple(sites)


def _value(s: object) -> float:
    return s.value if isinstance(s, Node) else float(s)  # type: ignore[arg-type]  # a float otherwise


def _op(e: Expr) -> Op:
    match e:
        case Neg():
            return "neg"
        case Call(fn=fn):
            return fn
        case Binary(op=op) | Call2(fn=op):
            return op
        case Where():
            return "where"
        case Num() | Var():
            return ""


def _shrink(
    engine: Engine, program: Program, result: _Result, conv: Conventions, order: Order
) -> tuple[Program, _Result]:
    """A smaller program (fewer nodes, simpler values) on which the engine still fails alike.

    The root stays: the example shows the op of its row. Greedy: each accepted
    change restarts the candidates, until none applies or the budget is spent.
    """
    budget = _SHRINK_BUDGET
    changed = True
    while changed and budget > 0:
        changed = False
        for candidate in _candidates(program):
            budget -= 1
            if budget <= 0:
                break
            attempt = _run(engine, candidate, conv, order)
            if attempt.outcome == result.outcome:
                program, result, changed = candidate, attempt, True
                break
    return program, result


def _candidates(program: Program) -> list[Program]:
    expr, inputs = program
    out: list[Program] = []
    root_kids = children(expr)
    for kid in root_kids:  # an operand that is an op: replace it by its operands, or a leaf
        for simpler in (*children(kid), Var("x"), Var("y")):
            if children(kid):
                out.append(_fit(_replace(expr, kid, simpler), inputs))
    for name in names(expr):  # one variable for two
        for other in names(expr):
            if other < name:
                out.append(_fit(_rename(expr, name, other), inputs))
    for name, v in inputs.items():
        out += [(expr, {**inputs, name: s}) for s in _simpler(v)]
    for e in postorder(expr):
        if isinstance(e, Num):
            out += [(_replace(expr, e, Num(s)), inputs) for s in _simpler(e.value)]
    return out


def _fit(expr: Expr, inputs: Mapping[str, float]) -> Program:
    """``expr`` with a value for each of its variables (a new one gets 1.0)."""
    return expr, {k: inputs.get(k, 1.0) for k in names(expr)}


_RANK: Final = {repr(v): i for i, v in enumerate(VALUES)}


def _rank(v: float) -> tuple[int, float]:
    """Simpler values first: the special values in order, then shorter decimals."""
    return (_RANK[repr(v)], 0.0) if repr(v) in _RANK else (len(_RANK) + len(repr(v)), abs(v))


def _simpler(v: float) -> list[float]:
    options = [*VALUES[:12], float(f"{v:.0f}"), float(f"{v:.1g}"), float(f"{v:.3g}")]
    seen: set[str] = set()
    out = []
    for s in options:
        if _rank(s) < _rank(v) and repr(s) not in seen:
            seen.add(repr(s))
            out.append(s)
    return out


def _replace(expr: Expr, old: Expr, new: Expr) -> Expr:
    """``expr`` with the node ``old`` (by identity) replaced by ``new``."""
    return _rebuild(expr, lambda e: new if e is old else None)


def _rename(expr: Expr, name: str, to: str) -> Expr:
    return _rebuild(expr, lambda e: Var(to) if isinstance(e, Var) and e.name == name else None)


def _rebuild(expr: Expr, swap: Callable[[Expr], Expr | None]) -> Expr:
    memo: dict[int, Expr] = {}
    for e in postorder(expr):
        new = swap(e)
        memo[id(e)] = (
            new if new is not None else _with_children(e, [memo[id(k)] for k in children(e)])
        )
    return memo[id(expr)]


def _with_children(e: Expr, kids: Sequence[Expr]) -> Expr:
    match e:
        case Num() | Var():
            return e
        case Neg():
            return Neg(kids[0])
        case Call(fn=fn):
            return Call(fn, kids[0])
        case Binary(op=op):
            return Binary(op, kids[0], kids[1])
        case Call2(fn=fn):
            return Call2(fn, kids[0], kids[1])
        case Where(cmp=cmp):
            return Where(cmp, kids[0], kids[1], kids[2], kids[3])


def _example(program: Program, result: _Result) -> Example:
    expr, inputs = program
    ours = reference(expr, inputs)
    rows: list[tuple[str, float, object]] = [("value", ours.value, None)]
    rows += [(f"d/d{k}", g, None) for k, g in ours.gradients.items()]
    if result.theirs is not None:
        value, grads, hess = result.theirs
        rows = [("value", ours.value, value)]
        rows += [(f"d/d{k}", g, grads.get(k, "(missing)")) for k, g in ours.gradients.items()]
        if hess is not None:
            ref = reference_hessian(expr, inputs)
            rows += [
                (f"d2/d{a}d{b}", h, hess.get(a, {}).get(b, "(missing)"))
                for a, row in ref.items()
                for b, h in row.items()
            ]
    return Example(
        source=to_source(expr),
        inputs=dict(inputs),
        rows=tuple(rows),
        differs=tuple(m.quantity for m in result.case.mismatches),
        error=result.case.error,
    )
