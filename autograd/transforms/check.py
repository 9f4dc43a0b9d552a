"""`check_grads`: forward and reverse mode against central finite differences.

Like JAX's ``jax.test_util.check_grads`` and HIPS autograd's ``check_grads``,
but leaf by leaf: a failure names the input leaf (``params['w1'][3]``), the
output leaf, the analytic and the numeric value. Higher orders check the
derivative functions themselves, so ``order=2`` covers forward over reverse
(the Hessian), reverse over reverse and forward over forward.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from autograd.core.nodes import Scalar, to_float
from autograd.pytree import TreeDef, flatten, paths, unflatten
from autograd.transforms.arguments import positional_names
from autograd.transforms.jacobian import jacobian
from autograd.transforms.linearize import jvp_impl, output_leaves

_MODES = ("fwd", "rev")


def check_grads(
    fn: Callable[..., object],
    args: Sequence[object],
    order: int = 1,
    modes: Sequence[str] = _MODES,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """Assert that ``fn``'s derivatives at ``args`` match central differences.

    Every input leaf of every positional argument is perturbed by ``±eps``
    on its own; each output leaf's difference quotient must match the
    analytic derivative within ``atol + rtol * |numeric|`` (nan matches nan,
    an infinity matches itself). With ``order > 1`` the check repeats on the
    derivative functions (each mode's Jacobian as a function of ``args``).

    Args:
        fn: positional pytree arguments in, a pytree of scalars out; it must
            run on plain floats (the finite differences call it so).
        args: the positional arguments, a tuple or list.
        order: how many derivatives deep to check.
        modes: ``"fwd"`` (jvp, column by column), ``"rev"`` (reverse sweeps), or both.
        eps: the finite-difference step.
        rtol: relative tolerance.
        atol: absolute tolerance.

    Raises:
        AssertionError: naming the mode, the order, the output and input
            leaf paths, the analytic and the numeric derivative.
        TypeError: for an ``order`` that is not an int, or an ``eps``,
            ``rtol`` or ``atol`` that is not a real number (bools included).
        ValueError: for an unknown mode, an order below 1, an ``eps`` that
            is not positive, or any of the three that is negative, nan or
            infinite (an infinite tolerance would pass every gradient).

    >>> import autograd as ag
    >>> ag.check_grads(lambda p: ag.tanh(p["w"][0] * p["w"][1]), ({"w": [0.5, 2.0]},), order=2)
    >>> ag.check_grads(lambda x: x * ag.stop_gradient(x), (3.0,))
    Traceback (most recent call last):
    ...
    AssertionError: check_grads: fwd mode, order 1: d output / d x is 3.0, ...
    """
    _check_order(order)
    tol = (_number("eps", eps, zero_ok=False), _number("rtol", rtol), _number("atol", atol))
    unknown = [m for m in modes if m not in _MODES]
    if unknown or not modes:
        raise ValueError(f"check_grads(): modes are 'fwd' and 'rev', got {tuple(modes)!r}")
    names = positional_names(fn)
    roots = [names[i] if i < len(names) else f"args[{i}]" for i in range(len(args))]
    _check(fn, tuple(args), roots, order, 1, tuple(modes), tol, "")


def _check_order(order: int) -> None:
    if type(order) is not int:  # bool is an int, but order=True is a slip
        raise TypeError(
            f"check_grads(): order must be an int, got {type(order).__name__} {order!r}"
        )
    if order < 1:
        raise ValueError(f"check_grads(): order must be at least 1, got {order}")


def _number(name: str, x: float, zero_ok: bool = True) -> float:
    """A step or tolerance as a float, refusing what would divide by zero or pass anything."""
    try:
        v = to_float(x)
    except (TypeError, ValueError):  # bool, str, complex, or a rounding Fraction
        raise TypeError(
            f"check_grads(): {name} must be a real number, got {type(x).__name__} {x!r:.60}"
        ) from None
    if not math.isfinite(v) or v < 0.0 or (v == 0.0 and not zero_ok):
        bound = "non-negative" if zero_ok else "positive"
        raise ValueError(f"check_grads(): {name} must be a {bound} finite number, got {x!r}")
    return v


def _check(
    fn: Callable[..., object],
    args: tuple[object, ...],
    roots: list[str],
    order: int,
    level: int,
    modes: tuple[str, ...],
    tol: tuple[float, float, float],
    what: str,
) -> None:
    flat = [flatten(a, root) for a, root in zip(args, roots, strict=True)]
    _, out_tree = output_leaves(fn(*args), "check_grads")
    out_paths = paths(out_tree, "output")
    numeric = _numeric(fn, args, flat, tol[0])
    for mode in modes:
        derivative = _derivative(fn, len(args), mode)
        analytic_leaves, _ = output_leaves(derivative(*args), "check_grads")
        label = f"{mode} mode, order {level}{what}"
        _compare(analytic_leaves, numeric, flat, roots, out_paths, label, tol)
        if level < order:
            inner = f" (of the {mode}-mode derivative{what})"
            _check(derivative, args, roots, order, level + 1, modes, tol, inner)


def _derivative(fn: Callable[..., object], n: int, mode: str) -> Callable[..., object]:
    """``fn``'s full Jacobian as a function: output leaves outside, inputs inside."""
    if mode == "rev":
        return jacobian(fn, argnums=tuple(range(n)))

    def jacobian_fwd(*args: object) -> object:
        flat = [flatten(a, f"args[{i}]") for i, a in enumerate(args)]
        columns: list[object] = []
        for i, (leaves, _) in enumerate(flat):
            for j in range(len(leaves)):
                tangents = [_basis(t, j if k == i else None) for k, (_, t) in enumerate(flat)]
                columns.append(jvp_impl(fn, args, tangents)[1])
        # transpose: output leaves outside, input leaves inside, as `jacobian`
        out_leaves = [output_leaves(c, "check_grads")[0] for c in columns]
        n_out = len(out_leaves[0]) if out_leaves else 0
        return [[col[k] for col in out_leaves] for k in range(n_out)]

    return jacobian_fwd


def _basis(tree: TreeDef, hot: int | None) -> object:
    """A tangent of shape ``tree``: 1.0 at leaf ``hot``, zeros elsewhere."""
    return unflatten(tree, [1.0 if j == hot else 0.0 for j in range(tree.num_leaves)])


def _numeric(
    fn: Callable[..., object],
    args: tuple[object, ...],
    flat: list[tuple[list[Scalar], TreeDef]],
    eps: float,
) -> list[list[float]]:
    """Central differences: for each input leaf, in order, one per output leaf."""
    out: list[list[float]] = []
    for i, (leaves, tree) in enumerate(flat):
        for j in range(len(leaves)):
            plus = _values(fn, _moved(args, i, tree, leaves, j, eps))
            minus = _values(fn, _moved(args, i, tree, leaves, j, -eps))
            out.append([(p - m) / (2.0 * eps) for p, m in zip(plus, minus, strict=True)])
    return out


def _moved(
    args: tuple[object, ...], i: int, tree: TreeDef, leaves: list[Scalar], j: int, step: float
) -> tuple[object, ...]:
    moved = [x if k != j else x + step for k, x in enumerate(leaves)]
    return (*args[:i], unflatten(tree, moved), *args[i + 1 :])


def _values(fn: Callable[..., object], args: tuple[object, ...]) -> list[float]:
    leaves, _ = output_leaves(fn(*args), "check_grads")
    return [x if isinstance(x, float) else x.value for x in leaves]


def _close(a: float, n: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(n):
        return math.isnan(a) and math.isnan(n)
    if math.isinf(a) or math.isinf(n):
        return a == n
    return abs(a - n) <= atol + rtol * abs(n)


def _compare(
    analytic: Sequence[Scalar],
    numeric: list[list[float]],
    flat: list[tuple[list[Scalar], TreeDef]],
    roots: list[str],
    out_paths: list[str],
    label: str,
    tol: tuple[float, float, float],
) -> None:
    in_paths = [p for (_, tree), root in zip(flat, roots, strict=True) for p in paths(tree, root)]
    n_in = len(in_paths)
    for k, out_path in enumerate(out_paths):
        for idx, in_path in enumerate(in_paths):
            a = analytic[k * n_in + idx]
            av = a if isinstance(a, float) else a.value
            nv = numeric[idx][k]
            if not _close(av, nv, tol[1], tol[2]):
                raise AssertionError(
                    f"check_grads: {label}: d {out_path} / d {in_path} is {av!r}, "
                    f"central difference gives {nv!r} "
                    f"(eps={tol[0]}, rtol={tol[1]}, atol={tol[2]})"
                )
