"""The untyped machinery of `jvp`, `vjp`, `jacobian` and `hessian`.

Their typed surface is `autograd.transforms.jacobian`. Each makes fresh
variables for the differentiated arguments, traces the function once, then
runs the sweeps of `autograd.walks` (forward for `jvp`, reverse from several
seeds for `vjp` and `jacobian`, both for `hessian`).

A node in, a node out, as for `grad`: under an outer transform, or called
on nodes (a user's `Leaf`, a node primal, tangent or cotangent), the results
are nodes linked to those nodes' graph; on floats they are floats.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from autograd.core.context import nesting
from autograd.core.nodes import Scalar, _Arith, floats_in_eager
from autograd.pytree import Kind, TreeDef, flatten, unflatten
from autograd.transforms.arguments import Arguments, as_floats, as_node, aux_values, describe
from autograd.walks import ONE, backward, backward_many, forward, views


def output_leaves(out: object, name: str) -> tuple[list[Scalar], TreeDef]:
    """The scalar leaves of a function's output, or a `TypeError` naming the path."""
    try:
        return flatten(out, "output")
    except TypeError as e:
        raise TypeError(f"{name}() needs the function to return a pytree of scalars: {e}") from e


def as_values(leaves: Sequence[Scalar], nested: bool) -> list[Scalar]:
    """Leaves as they are under an outer transform, else as floats."""
    if nested:
        return list(leaves)
    return [x if isinstance(x, float) else x.value for x in leaves]


def run_nested(
    fn: Callable[..., object], args: Sequence[object], kwargs: dict[str, object]
) -> object:
    """Call ``fn`` one transform deeper (so inner transforms build nodes)."""
    token = nesting.set(nesting.get() + 1)
    try:
        return fn(*args, **kwargs)
    finally:
        nesting.reset(token)


# ---- the transforms, untyped (the typed surface is in jacobian.py) ----------


def _positional(xs: object, what: str, name: str) -> Sequence[object]:
    if not isinstance(xs, tuple | list):
        raise TypeError(
            f"{name}(): {what} must be a tuple or list of the function's positional "
            f"arguments, got {describe(xs)}"
        )
    return xs


def linked(leaves: Sequence[object]) -> bool:
    """Whether some leaf is a node: then results are nodes linked to it (node in, node out)."""
    return any(isinstance(x, _Arith) for x in leaves)


def _split_aux(spec: Arguments, out: object, nested: bool) -> tuple[object, object]:
    """``(output, aux)``, aux with floats at top level."""
    out, aux = spec.split(out)
    return out, aux if nested or not spec.has_aux else aux_values(aux)


def jvp_impl(
    fn: object, primals: object, tangents: object, has_aux: bool = False
) -> tuple[object, ...]:
    """`jvp` without the typed surface."""
    spec = Arguments(fn, None, "jvp", has_aux)
    ps = _positional(primals, "primals", "jvp")
    ts = _positional(tangents, "tangents", "jvp")
    if len(ps) != len(ts):
        raise TypeError(f"jvp(): {len(ps)} primals but {len(ts)} tangents")
    flat_t = [flatten(t, f"tangents[{i}]") for i, t in enumerate(ts)]
    vs = spec.variables(ps)
    for i, (tree, (_, t_tree)) in enumerate(zip(vs.trees, flat_t, strict=True)):
        if tree != t_tree:
            raise TypeError(f"jvp(): tangents[{i}] does not have the structure of primals[{i}]")
    flat_tangents = [t for leaves_t, _ in flat_t for t in leaves_t]
    level = nesting.get()
    nested = level > 0 or vs.linked or linked(flat_tangents)
    out, aux = _split_aux(spec, run_nested(spec.fn, vs.args, {}), nested)
    leaves, out_tree = output_leaves(out, "jvp")
    seeds = dict(zip(vs.all, flat_tangents, strict=True))
    roots = [x for x in leaves if isinstance(x, _Arith)]
    tans = forward(roots, seeds, views(nested)) if roots else {}
    out_t = [tans.get(x, 0.0) if isinstance(x, _Arith) else 0.0 for x in leaves]
    node_in = vs.linked or linked(flat_tangents)  # a node in, nodes out: zeros too
    values = _nodes(as_values(leaves, nested), node_in)
    value, tangent = unflatten(out_tree, values), unflatten(out_tree, _nodes(out_t, node_in))
    if level and floats_in_eager(level, vs.all, flat_tangents):  # `jit` traces: eager's floats
        value, tangent, aux = as_floats(value), as_floats(tangent), as_floats(aux, "aux")
    return (value, tangent, aux) if has_aux else (value, tangent)


def vjp_impl(fn: object, primals: Sequence[object], has_aux: bool = False) -> tuple[object, ...]:
    """`vjp` without the typed surface."""
    spec = Arguments(fn, None, "vjp", has_aux)
    vs = spec.variables(primals)
    level = nesting.get()
    nested = level > 0 or vs.linked
    out, aux = _split_aux(spec, run_nested(spec.fn, vs.args, {}), nested)
    leaves, out_tree = output_leaves(out, "vjp")
    wanted = set(vs.all)
    floats = bool(level) and floats_in_eager(level, vs.all)  # `jit` traces: eager's floats

    def vjp_fn(cotangent: object) -> object:
        cts, ct_tree = flatten(cotangent, "cotangent")
        if ct_tree != out_tree:
            raise TypeError(
                "vjp_fn(cotangent): the cotangent must have the structure of the "
                f"function's output, got {describe(cotangent)}"
            )
        now_nested = nested or nesting.get() > 0 or linked(cts)
        seeds = [(x, c) for x, c in zip(leaves, cts, strict=True) if isinstance(x, _Arith)]
        grads = backward_many(seeds, views(now_nested), wanted, wanted) if seeds else {}
        flat = _nodes([grads.get(v, 0.0) for v in vs.all], vs.linked or linked(cts))
        result = vs.shape(flat, single=False)
        if floats and floats_in_eager(nesting.get(), vs.all, cts):
            return as_floats(result)
        return result

    value = unflatten(out_tree, _nodes(as_values(leaves, nested), vs.linked))
    if floats:
        value, aux = as_floats(value), as_floats(aux, "aux")
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def _nodes(xs: list[Scalar], node_in: bool) -> list[Scalar]:
    """Called on nodes, a transform gives nodes: each float becomes a `Const` (`as_node`)."""
    return [as_node(x) for x in xs] if node_in else xs


def jacobian_impl(spec: Arguments) -> Callable[..., object]:
    """`jacobian` without the typed surface."""

    @functools.wraps(spec.fn)
    def jacobian_fn(*args: object, **kwargs: object) -> object:
        vs = spec.variables(args)
        level = nesting.get()
        nested = level > 0 or vs.linked
        out, aux = _split_aux(spec, run_nested(spec.fn, vs.args, kwargs), nested)
        leaves, out_tree = output_leaves(out, "jacobian")
        wanted = set(vs.all)
        rows = []
        for x in leaves:  # one reverse sweep per output: each row is exactly grad's
            if isinstance(x, _Arith) and wanted:
                grads = backward(x, ONE, views(nested), stop=wanted, keep=wanted)
            else:
                grads = {}
            row = _nodes([grads.get(v, 0.0) for v in vs.all], vs.linked)
            rows.append(vs.shape(row, spec.single))
        jac = unflatten(out_tree, rows)
        if level and floats_in_eager(level, vs.all):  # `jit` traces: eager's floats
            jac, aux = as_floats(jac), as_floats(aux, "aux")
        return (jac, aux) if spec.has_aux else jac

    return jacobian_fn


def hessian_impl(spec: Arguments) -> Callable[..., object]:
    """`hessian` without the typed surface."""

    @functools.wraps(spec.fn)
    def hessian_fn(*args: object, **kwargs: object) -> object:
        vs = spec.variables(args)
        level = nesting.get()
        nested = level > 0 or vs.linked
        out, aux = _split_aux(spec, run_nested(spec.fn, vs.args, kwargs), nested)
        leaves, tree = output_leaves(out, "hessian")
        if tree.kind is not Kind.LEAF:
            raise TypeError(
                f"hessian() needs the function to return a scalar, got {describe(out)}; "
                "for several outputs use jacobian(jacobian(fn))"
            )
        wanted = set(vs.all)
        out_node = leaves[0]
        grads = (
            backward(out_node, ONE, views(True), stop=wanted, keep=wanted)
            if isinstance(out_node, _Arith) and wanted
            else {}
        )
        g_leaves = [grads.get(v, 0.0) for v in vs.all]
        roots = [g for g in g_leaves if isinstance(g, _Arith)]
        columns = []  # forward over reverse: column j is d(gradient)/d(x_j)
        for v in vs.all:
            tans = forward(roots, {v: ONE}, views(nested), stop=wanted) if roots else {}
            column = [tans.get(g, 0.0) if isinstance(g, _Arith) else 0.0 for g in g_leaves]
            columns.append(_nodes(column, vs.linked))
        n = len(vs.all)
        rows = [vs.shape([columns[j][i] for j in range(n)], spec.single) for i in range(n)]
        hess = vs.shape(rows, spec.single)
        if level and floats_in_eager(level, vs.all):  # `jit` traces: eager's floats
            hess, aux = as_floats(hess), as_floats(aux, "aux")
        return (hess, aux) if spec.has_aux else hess

    return hessian_fn
