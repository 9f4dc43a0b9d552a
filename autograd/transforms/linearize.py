"""The untyped machinery of `jvp`, `vjp`, `jacobian` and `hessian`.

Their typed surface is `autograd.transforms.jacobian`. Each makes fresh
variables for the differentiated arguments, traces the function once, then
runs the sweeps of `autograd.walks` (forward for `jvp`, reverse from several
seeds for `vjp` and `jacobian`, both for `hessian`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from autograd.core.context import nesting
from autograd.core.nodes import Scalar, _Arith
from autograd.pytree import Kind, TreeDef, flatten, unflatten
from autograd.transforms.grad import (
    _check_argnums,
    _describe,
    _positional_names,
    _values,
    _variable,
)
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


def _callable(fn: object, name: str) -> None:
    if not callable(fn):
        raise TypeError(f"{name}() needs a function, got {_describe(fn)}")


def _positional(xs: object, what: str, name: str) -> Sequence[object]:
    if not isinstance(xs, tuple | list):
        raise TypeError(
            f"{name}(): {what} must be a tuple or list of the function's positional "
            f"arguments, got {_describe(xs)}"
        )
    return xs


def split_aux(out: object, has_aux: bool, name: str, nested: bool) -> tuple[object, object]:
    """``(output, aux)`` of a ``has_aux`` function (aux with floats at top level)."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(
            f"{name}(..., has_aux=True) needs the function to return a pair (output, aux), "
            f"got {_describe(out)}"
        )
    return out[0], out[1] if nested else _values(out[1])


class _Vars:
    """Fresh variables for the differentiated arguments of one call."""

    def __init__(self, args: Sequence[object], nums: Sequence[int], roots: Sequence[str]) -> None:
        flat = [flatten(args[i], root) for i, root in zip(nums, roots, strict=True)]
        self.trees = [tree for _, tree in flat]
        self.groups = [[_variable(x) for x in leaves] for leaves, _ in flat]
        self.all = [v for vs in self.groups for v in vs]
        self.args = list(args)
        for i, vs, tree in zip(nums, self.groups, self.trees, strict=True):
            self.args[i] = unflatten(tree, vs)

    def shape(self, flat: Sequence[object], single: bool) -> object:
        """Values for `all`, in order, rebuilt as the arguments (a tuple of them unless single)."""
        trees: list[object] = []
        start = 0
        for vs, tree in zip(self.groups, self.trees, strict=True):
            trees.append(unflatten(tree, flat[start : start + len(vs)]))
            start += len(vs)
        return trees[0] if single else tuple(trees)


class _Spec:
    """A transform's ``argnums``, checked when the transform is made."""

    def __init__(
        self, fn: object, argnums: int | tuple[int, ...], name: str, has_aux: bool = False
    ) -> None:
        _callable(fn, name)
        self.has_aux = has_aux
        self.fn: Callable[..., object] = fn  # type: ignore[assignment]  # checked callable above
        self.nums = _check_argnums(argnums, name)
        self.single = isinstance(argnums, int)
        self.name = name
        self.arg_names = _positional_names(self.fn)

    def variables(self, args: tuple[object, ...]) -> _Vars:
        for i in self.nums:
            if i >= len(args):
                raise TypeError(
                    f"{self.name}(..., argnums={i}): the function was called with "
                    f"{len(args)} positional argument(s); differentiated arguments are positional"
                )
        roots = [self.arg_names[i] if i < len(self.arg_names) else f"args[{i}]" for i in self.nums]
        return _Vars(args, self.nums, roots)


def jvp_impl(
    fn: object, primals: object, tangents: object, has_aux: bool = False
) -> tuple[object, ...]:
    """`jvp` without the typed surface."""
    _callable(fn, "jvp")
    ps = _positional(primals, "primals", "jvp")
    ts = _positional(tangents, "tangents", "jvp")
    if len(ps) != len(ts):
        raise TypeError(f"jvp(): {len(ps)} primals but {len(ts)} tangents")
    flat_t = [flatten(t, f"tangents[{i}]") for i, t in enumerate(ts)]
    vs = _Vars(ps, range(len(ps)), [f"primals[{i}]" for i in range(len(ps))])
    for i, (tree, (_, t_tree)) in enumerate(zip(vs.trees, flat_t, strict=True)):
        if tree != t_tree:
            raise TypeError(f"jvp(): tangents[{i}] does not have the structure of primals[{i}]")
    nested = nesting.get() > 0
    out = run_nested(fn, vs.args, {})  # type: ignore[arg-type]  # checked callable above
    out, aux = split_aux(out, has_aux, "jvp", nested)
    leaves, out_tree = output_leaves(out, "jvp")
    seeds = dict(zip(vs.all, [t for leaves_t, _ in flat_t for t in leaves_t], strict=True))
    roots = [x for x in leaves if isinstance(x, _Arith)]
    tans = forward(roots, seeds, views(nested)) if roots else {}
    out_t = [tans.get(x, 0.0) if isinstance(x, _Arith) else 0.0 for x in leaves]
    value, tangent = unflatten(out_tree, as_values(leaves, nested)), unflatten(out_tree, out_t)
    return (value, tangent, aux) if has_aux else (value, tangent)


def vjp_impl(fn: object, primals: Sequence[object], has_aux: bool = False) -> tuple[object, ...]:
    """`vjp` without the typed surface."""
    _callable(fn, "vjp")
    vs = _Vars(primals, range(len(primals)), [f"primals[{i}]" for i in range(len(primals))])
    nested = nesting.get() > 0
    out = run_nested(fn, vs.args, {})  # type: ignore[arg-type]  # checked callable above
    out, aux = split_aux(out, has_aux, "vjp", nested)
    leaves, out_tree = output_leaves(out, "vjp")
    wanted = set(vs.all)

    def vjp_fn(cotangent: object) -> object:
        cts, ct_tree = flatten(cotangent, "cotangent")
        if ct_tree != out_tree:
            raise TypeError(
                "vjp_fn(cotangent): the cotangent must have the structure of the "
                f"function's output, got {_describe(cotangent)}"
            )
        now_nested = nested or nesting.get() > 0
        seeds = [(x, c) for x, c in zip(leaves, cts, strict=True) if isinstance(x, _Arith)]
        grads = backward_many(seeds, views(now_nested), wanted, wanted) if seeds else {}
        flat = [grads.get(v, 0.0) for v in vs.all]
        return vs.shape(flat, single=False)

    value = unflatten(out_tree, as_values(leaves, nested))
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jacobian_impl(spec: _Spec) -> Callable[..., object]:
    """`jacobian` without the typed surface."""

    @functools.wraps(spec.fn)
    def jacobian_fn(*args: object, **kwargs: object) -> object:
        vs = spec.variables(args)
        nested = nesting.get() > 0
        out = run_nested(spec.fn, vs.args, kwargs)
        out, aux = split_aux(out, spec.has_aux, "jacobian", nested)
        leaves, out_tree = output_leaves(out, "jacobian")
        wanted = set(vs.all)
        rows = []
        for x in leaves:  # one reverse sweep per output: each row is exactly grad's
            if isinstance(x, _Arith) and wanted:
                grads = backward(x, ONE, views(nested), stop=wanted, keep=wanted)
            else:
                grads = {}
            rows.append(vs.shape([grads.get(v, 0.0) for v in vs.all], spec.single))
        jac = unflatten(out_tree, rows)
        return (jac, aux) if spec.has_aux else jac

    return jacobian_fn


def hessian_impl(spec: _Spec) -> Callable[..., object]:
    """`hessian` without the typed surface."""

    @functools.wraps(spec.fn)
    def hessian_fn(*args: object, **kwargs: object) -> object:
        vs = spec.variables(args)
        nested = nesting.get() > 0
        out = run_nested(spec.fn, vs.args, kwargs)
        out, aux = split_aux(out, spec.has_aux, "hessian", nested)
        leaves, tree = output_leaves(out, "hessian")
        if tree.kind is not Kind.LEAF:
            raise TypeError(
                f"hessian() needs the function to return a scalar, got {_describe(out)}; "
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
            columns.append([tans.get(g, 0.0) if isinstance(g, _Arith) else 0.0 for g in g_leaves])
        n = len(vs.all)
        rows = [vs.shape([columns[j][i] for j in range(n)], spec.single) for i in range(n)]
        hess = vs.shape(rows, spec.single)
        return (hess, aux) if spec.has_aux else hess

    return hessian_fn
