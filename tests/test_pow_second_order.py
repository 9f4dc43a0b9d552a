"""Second derivatives of ``x ** y`` on a grid of edge cases, against PyTorch.

The oracle is PyTorch's double backward (``autograd.grad`` with ``create_graph``),
measured on torch 2.13.0, float64, CPU; ``torch.autograd.functional.hessian``
gave the same bits on every point. Where we differ, on purpose, `MASKED` says
so and docs/numerics.md says why: behind pow's masks PyTorch's double backward
multiplies a zero cotangent by ``log(0)`` or ``0 ** -1`` and returns nan (its
issue 95180); ours gives the derivative of the masked first derivative. With
torch installed the table is re-measured.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import warnings
from typing import cast

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import autograd as ag
from autograd import Node

INF, NAN = math.inf, math.nan
XS = (0.0, -0.0, 5e-324, 1e-310, 1e-300, -2.0, 2.0, INF, NAN)
YS = (0.0, 0.5, 1.0, 2.0, 3.0, -1.0, -0.5, 2.5)
GRID = [pytest.param(x, y, id=f"{x!r},{y!r}") for x, y in itertools.product(XS, YS)]

Matrix = tuple[tuple[float, float], tuple[float, float]]
Key = tuple[str, str]


def K(x: float, y: float) -> Key:
    """A table key: repr tells -0.0 from 0.0 (equal as dict keys) and matches nan."""
    return repr(x), repr(y)


# torch 2.13.0 float64, double backward of x ** y (a tensor exponent), rows
# (d/dx, d/dy) of (df/dx, df/dy): [[fxx, fxy], [fyx, fyy]].
TORCH_NODE: dict[Key, Matrix] = {
    K(0.0, 0.0): ((NAN, NAN), (NAN, NAN)),
    K(0.0, 0.5): ((-INF, NAN), (NAN, NAN)),
    K(0.0, 1.0): ((0.0, 1.0), (NAN, NAN)),
    K(0.0, 2.0): ((2.0, 0.0), (NAN, NAN)),
    K(0.0, 3.0): ((0.0, 0.0), (NAN, NAN)),
    K(0.0, -1.0): ((INF, INF), (INF, INF)),
    K(0.0, -0.5): ((INF, INF), (INF, INF)),
    K(0.0, 2.5): ((0.0, 0.0), (NAN, NAN)),
    K(-0.0, 0.0): ((NAN, NAN), (NAN, NAN)),
    K(-0.0, 0.5): ((-INF, NAN), (NAN, NAN)),
    K(-0.0, 1.0): ((0.0, 1.0), (NAN, NAN)),
    K(-0.0, 2.0): ((2.0, 0.0), (NAN, NAN)),
    K(-0.0, 3.0): ((-0.0, 0.0), (NAN, NAN)),
    K(-0.0, -1.0): ((-INF, INF), (INF, -INF)),
    K(-0.0, -0.5): ((INF, INF), (NAN, INF)),
    K(-0.0, 2.5): ((0.0, 0.0), (NAN, NAN)),
    K(5e-324, 0.0): ((NAN, NAN), (INF, 554191.0206823113)),
    K(5e-324, 0.5): (
        (-INF, -1.6700869405943724e164),
        (-1.6700869405943724e164, 1.231832940107673e-156),
    ),
    K(5e-324, 1.0): ((0.0, -743.4400719213812), (-743.4400719213812, 2.736447e-318)),
    K(5e-324, 2.0): ((2.0, -7.347e-321), (-7.357e-321, 0.0)),
    K(5e-324, 3.0): ((3e-323, 0.0), (0.0, 0.0)),
    K(5e-324, -1.0): ((INF, INF), (INF, INF)),
    K(5e-324, -0.5): ((INF, INF), (INF, 2.493257627759624e167)),
    K(5e-324, 2.5): ((8.335345310569041e-162, 0.0), (0.0, 0.0)),
    K(1e-310, 0.0): ((NAN, NAN), (INF, 509512.40841697407)),
    K(1e-310, 0.5): (
        (-INF, -3.5590068941407764e157),
        (-3.5590068941407764e157, 5.095124084169733e-150),
    ),
    K(1e-310, 1.0): ((0.0, -712.8013788281542), (-712.8013788281542, 5.095124084169725e-305)),
    K(1e-310, 2.0): ((2.0, -1.4266027576563039e-307), (-1.427602757656304e-307, 0.0)),
    K(1e-310, 3.0): ((6e-310, 0.0), (0.0, 0.0)),
    K(1e-310, -1.0): ((INF, INF), (INF, INF)),
    K(1e-310, -0.5): ((INF, INF), (INF, 5.0951240841697485e160)),
    K(1e-310, 2.5): ((3.7499999999999945e-155, 0.0), (0.0, 0.0)),
    K(1e-300, 0.0): ((NAN, 0.0), (9.999999999999999e299, 477170.8299430558)),
    K(1e-300, 0.5): (
        (-INF, -3.443877639491068e152),
        (-3.443877639491068e152, 4.771708299430558e-145),
    ),
    K(1e-300, 1.0): ((0.0, -689.7755278982137), (-689.7755278982137, 4.771708299430558e-295)),
    K(1e-300, 2.0): ((2.0, -1.3805510557964273e-297), (-1.3815510557964273e-297, 0.0)),
    K(1e-300, 3.0): ((6e-300, 0.0), (0.0, 0.0)),
    K(1e-300, -1.0): ((INF, INF), (INF, 4.771708299430558e305)),
    K(1e-300, -0.5): ((INF, INF), (INF, 4.771708299430558e155)),
    K(1e-300, 2.5): ((3.75e-150, 0.0), (0.0, 0.0)),
    K(-2.0, 0.0): ((-0.0, NAN), (-0.5, NAN)),
    K(-2.0, 0.5): ((NAN, NAN), (NAN, NAN)),
    K(-2.0, 1.0): ((0.0, NAN), (NAN, NAN)),
    K(-2.0, 2.0): ((2.0, NAN), (NAN, NAN)),
    K(-2.0, 3.0): ((-12.0, NAN), (NAN, NAN)),
    K(-2.0, -1.0): ((-0.25, NAN), (NAN, NAN)),
    K(-2.0, -0.5): ((NAN, NAN), (NAN, NAN)),
    K(-2.0, 2.5): ((NAN, NAN), (NAN, NAN)),
    K(2.0, 0.0): ((-0.0, 0.0), (0.5, 0.4804530139182014)),
    K(2.0, 0.5): (
        (-0.08838834764831845, 0.9521713170536844),
        (0.9521713170536844, 0.6794631683661498),
    ),
    K(2.0, 1.0): ((0.0, 1.6931471805599454), (1.6931471805599454, 0.9609060278364028)),
    K(2.0, 2.0): ((2.0, 4.772588722239782), (4.772588722239782, 1.9218120556728056)),
    K(2.0, 3.0): ((12.0, 12.317766166719343), (12.317766166719343, 3.843624111345611)),
    K(2.0, -1.0): ((0.25, 0.07671320486001368), (0.07671320486001368, 0.2402265069591007)),
    K(2.0, -0.5): (
        (0.13258252147247768, 0.23102112265970537),
        (0.23102112265970537, 0.3397315841830749),
    ),
    K(2.0, 2.5): ((5.303300858899107, 7.729717842088926), (7.729717842088926, 2.7178526734645994)),
    K(INF, 0.0): ((-0.0, NAN), (0.0, INF)),
    K(INF, 0.5): ((-0.0, NAN), (NAN, INF)),
    K(INF, 1.0): ((0.0, INF), (NAN, INF)),
    K(INF, 2.0): ((2.0, INF), (NAN, INF)),
    K(INF, 3.0): ((INF, INF), (NAN, INF)),
    K(INF, -1.0): ((0.0, NAN), (NAN, NAN)),
    K(INF, -0.5): ((0.0, NAN), (NAN, NAN)),
    K(INF, 2.5): ((INF, INF), (NAN, INF)),
    K(NAN, 0.0): ((NAN, NAN), (NAN, NAN)),
    K(NAN, 0.5): ((NAN, NAN), (NAN, NAN)),
    K(NAN, 1.0): ((0.0, NAN), (NAN, NAN)),
    K(NAN, 2.0): ((2.0, NAN), (NAN, NAN)),
    K(NAN, 3.0): ((NAN, NAN), (NAN, NAN)),
    K(NAN, -1.0): ((NAN, NAN), (NAN, NAN)),
    K(NAN, -0.5): ((NAN, NAN), (NAN, NAN)),
    K(NAN, 2.5): ((NAN, NAN), (NAN, NAN)),
}

# Where reverse over reverse deliberately differs from torch's double backward: the
# masks' unselected branches have a safe base (1.0), so their zero cotangent stays zero.
# - base 0, exponent >= 0: d/dy is masked to 0 on the whole ray, so its row is 0 (0 ** y
#   is 0 for every y > 0: d2/dy2 is the mathematical 0); at (0, 0.5) d/dx of it meets
#   d/dx 0 ** 0.5 = inf, the true partial, and stays nan (the limit is -inf one-sided);
# - exponent 0: d/dx is masked to 0 for every x (x ** 0 is 1), so its row is 0.
_ZERO = (0.0, 0.0)
MASKED: dict[Key, Matrix] = {
    **{K(x, 0.0): (_ZERO, _ZERO) for x in (0.0, -0.0)},
    **{K(x, 0.5): ((-INF, NAN), (NAN, 0.0)) for x in (0.0, -0.0)},
    **{K(x, y): (TORCH_NODE[K(x, y)][0], _ZERO) for x in (0.0, -0.0) for y in (1.0, 2.0, 3.0, 2.5)},
    **{
        K(x, 0.0): (_ZERO, TORCH_NODE[K(x, 0.0)][1])
        for x in (5e-324, 1e-310, 1e-300, -2.0, 2.0, INF, NAN)
    },
}
OURS_NODE: dict[Key, Matrix] = {**TORCH_NODE, **MASKED}

# torch 2.13.0 float64, d2/dx2 of x ** c (a Python float exponent: pow(Tensor, Scalar)).
TORCH_CONST: dict[Key, float] = {
    K(0.0, 0.0): 0.0,
    K(0.0, 0.5): -INF,
    K(0.0, 1.0): 0.0,
    K(0.0, 2.0): 2.0,
    K(0.0, 3.0): 0.0,
    K(0.0, -1.0): INF,
    K(0.0, -0.5): INF,
    K(0.0, 2.5): 0.0,
    K(-0.0, 0.0): 0.0,
    K(-0.0, 0.5): -INF,
    K(-0.0, 1.0): 0.0,
    K(-0.0, 2.0): 2.0,
    K(-0.0, 3.0): -0.0,
    K(-0.0, -1.0): -INF,
    K(-0.0, -0.5): INF,
    K(-0.0, 2.5): -0.0,
    K(5e-324, 0.0): 0.0,
    K(5e-324, 0.5): -INF,
    K(5e-324, 1.0): 0.0,
    K(5e-324, 2.0): 2.0,
    K(5e-324, 3.0): 3e-323,
    K(5e-324, -1.0): INF,
    K(5e-324, -0.5): INF,
    K(5e-324, 2.5): 8.335345310569041e-162,
    K(1e-310, 0.0): 0.0,
    K(1e-310, 0.5): -INF,
    K(1e-310, 1.0): 0.0,
    K(1e-310, 2.0): 2.0,
    K(1e-310, 3.0): 6e-310,
    K(1e-310, -1.0): INF,
    K(1e-310, -0.5): INF,
    K(1e-310, 2.5): 3.7499999999999945e-155,
    K(1e-300, 0.0): 0.0,
    K(1e-300, 0.5): -INF,
    K(1e-300, 1.0): 0.0,
    K(1e-300, 2.0): 2.0,
    K(1e-300, 3.0): 6e-300,
    K(1e-300, -1.0): INF,
    K(1e-300, -0.5): INF,
    K(1e-300, 2.5): 3.75e-150,
    K(-2.0, 0.0): 0.0,
    K(-2.0, 0.5): NAN,
    K(-2.0, 1.0): 0.0,
    K(-2.0, 2.0): 2.0,
    K(-2.0, 3.0): -12.0,
    K(-2.0, -1.0): -0.25,
    K(-2.0, -0.5): NAN,
    K(-2.0, 2.5): NAN,
    K(2.0, 0.0): 0.0,
    K(2.0, 0.5): -0.08838834764831845,
    K(2.0, 1.0): 0.0,
    K(2.0, 2.0): 2.0,
    K(2.0, 3.0): 12.0,
    K(2.0, -1.0): 0.25,
    K(2.0, -0.5): 0.13258252147247768,
    K(2.0, 2.5): 5.303300858899107,
    K(INF, 0.0): 0.0,
    K(INF, 0.5): -0.0,
    K(INF, 1.0): 0.0,
    K(INF, 2.0): 2.0,
    K(INF, 3.0): INF,
    K(INF, -1.0): 0.0,
    K(INF, -0.5): 0.0,
    K(INF, 2.5): INF,
    K(NAN, 0.0): 0.0,
    K(NAN, 0.5): NAN,
    K(NAN, 1.0): 0.0,
    K(NAN, 2.0): 2.0,
    K(NAN, 3.0): NAN,
    K(NAN, -1.0): NAN,
    K(NAN, -0.5): NAN,
    K(NAN, 2.5): NAN,
}

# Forward over reverse (`hessian`, as torch.func.hessian): the masks are `where`s
# whose tangent is the selected branch's, so the masked entries torch's double
# backward turns into nan (0 * log(0)) are 0.0 here, as in torch.func.hessian
# (measured on torch 2.13.0: the masked row; re-measured live below). Reverse over reverse
# (`jacobian(grad)`) is torch's double backward on every point of the grid.
_ZERO_ROW = (0.0, 0.0)
FORWARD_OVER_REVERSE: dict[Key, Matrix] = {
    **{K(x, 0.0): (_ZERO_ROW, _ZERO_ROW) for x in (0.0, -0.0)},
    **{
        K(x, y): (TORCH_NODE[K(x, y)][0], _ZERO_ROW)
        for x in (0.0, -0.0)
        for y in (0.5, 1.0, 2.0, 3.0, 2.5)
    },
    **{K(x, 0.0): (_ZERO_ROW, TORCH_NODE[K(x, 0.0)][1]) for x in (5e-324, 1e-310, 1e-300)},
    **{K(x, 0.0): (_ZERO_ROW, TORCH_NODE[K(x, 0.0)][1]) for x in (2.0, NAN)},
    K(-2.0, 0.0): (_ZERO_ROW, (NAN, NAN)),  # the exponent-0 mask's tangent 0.0 meets log(-2)
    K(INF, 0.0): (_ZERO_ROW, (NAN, INF)),
}

# Forward over reverse divides the tangent by x before multiplying by x ** y
# ((1/x) * x**y); reverse over reverse multiplies first (x**y / x). For a
# subnormal x, 1/x overflows: fyx is inf or nan in `hessian`, as in
# torch.func.hessian, where jacobian(grad(f)) gives torch's number.
HESSIAN_FYX: dict[Key, float] = {
    **{K(x, y): INF for x in (5e-324, 1e-310) for y in (0.5, 1.0)},
    **{K(x, y): NAN for x in (5e-324, 1e-310) for y in (2.0, 3.0, 2.5)},
}


def same(actual: float, expected: float) -> bool:
    """The same float64: nan equals nan, -0.0 differs from 0.0."""
    if math.isnan(expected):
        return math.isnan(actual)
    return actual == expected and math.copysign(1.0, actual) == math.copysign(1.0, expected)


def same_matrix(actual: object, expected: Matrix) -> bool:
    assert isinstance(actual, tuple | list)
    return all(
        same(a, e)
        for row, erow in zip(actual, expected, strict=True)
        for a, e in zip(row, erow, strict=True)
    )


def pow_xy(x: Node, y: Node) -> Node:
    return x**y


hessian_xy = ag.hessian(pow_xy, argnums=(0, 1))
rr_xy = ag.jacobian(ag.grad(pow_xy, argnums=(0, 1)), argnums=(0, 1))


def expected_hessian(x: float, y: float) -> Matrix:
    (fxx, fxy), (fyx, fyy) = FORWARD_OVER_REVERSE.get(K(x, y), TORCH_NODE[K(x, y)])
    return (fxx, fxy), (HESSIAN_FYX.get(K(x, y), fyx), fyy)


@pytest.mark.parametrize(("x", "y"), GRID)
def test_reverse_over_reverse_is_torchs_double_backward_but_behind_masks(
    x: float, y: float
) -> None:
    assert same_matrix(rr_xy(x, y), OURS_NODE[K(x, y)])


def test_behind_masks_torch_has_nan_where_ours_is_the_derivative_of_the_mask() -> None:
    # each deliberate deviation replaces a nan of torch's (or a zero's sign, -0.0 for 0.0)
    for key, ours in MASKED.items():
        theirs = TORCH_NODE[key]
        changed = [
            (t, o)
            for trow, orow in zip(theirs, ours, strict=True)
            for t, o in zip(trow, orow, strict=True)
            if not same(o, t)
        ]
        assert changed, key
        assert all(math.isnan(t) or (t == o == 0.0) for t, o in changed), key


@pytest.mark.parametrize(("x", "y"), GRID)
def test_hessian_is_torch_func_hessian(x: float, y: float) -> None:
    assert same_matrix(hessian_xy(x, y), expected_hessian(x, y))


@pytest.mark.parametrize(("x", "c"), GRID)
def test_constant_exponent_is_torch_in_both_modes(x: float, c: float) -> None:
    def f(v: Node) -> Node:
        return v**c

    assert same(ag.hessian(f)(x), TORCH_CONST[K(x, c)])
    assert same(ag.grad(ag.grad(f))(x), TORCH_CONST[K(x, c)])


def test_masked_branches_leak_no_nan_in_either_mode() -> None:
    # The unselected branch gets a zero cotangent in reverse over reverse, and no tangent
    # in forward over reverse; with its safe base both give the masked derivative's own
    # derivative, where torch's double backward has 0 * log(0) = nan
    assert same_matrix(rr_xy(0.0, 2.0), ((2.0, 0.0), (0.0, 0.0)))
    assert same_matrix(hessian_xy(0.0, 2.0), ((2.0, 0.0), (0.0, 0.0)))
    assert same_matrix(rr_xy(-2.0, 0.0), ((0.0, 0.0), (-0.5, NAN)))
    assert same_matrix(hessian_xy(-2.0, 0.0), ((0.0, 0.0), (NAN, NAN)))


specials = st.sampled_from([0.0, -0.0, 5e-324, 1e-310, -1e-310, 1.0, -2.0, 0.5, INF, -INF, NAN])
xs = specials | st.floats(allow_nan=True, allow_infinity=True)
ys = specials | st.sampled_from([2.0, 3.0, -1.0, -0.5, 2.5]) | st.floats(-8.0, 8.0)


@given(xs, ys)
def test_hessian_equals_jacobian_of_grad_bit_for_bit(x: float, y: float) -> None:
    assume(x != 0.0 and y != 0.0)  # where a mask selects, the two modes differ as torch's do
    h, r = hessian_xy(x, y), cast(Matrix, rr_xy(x, y))
    assert same(h[0][0], r[0][0])
    assert same(h[0][1], r[0][1])
    assert same(h[1][1], r[1][1])
    # fyx: (1/x) * x**y against x**y / x; the same bits whenever 1/x is exact
    exact_reciprocal = math.frexp(x)[0] in (0.5, -0.5) and abs(x) >= 2.0**-1022
    if exact_reciprocal or math.isnan(x) or x == 0.0:
        assert same(h[1][0], r[1][0])
    elif math.isinf(x):  # 1/x is a signed zero: the two orders may differ in that sign only
        assert same(h[1][0], r[1][0]) or h[1][0] == r[1][0] == 0.0


def _torch_node(x: float, y: float) -> Matrix:
    import torch  # optional: only this live check needs it

    a = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    grads = torch.autograd.grad(a**b, (a, b), create_graph=True)
    rows: list[tuple[float, float]] = []
    for g in grads:
        dx, dy = torch.autograd.grad(g, (a, b), retain_graph=True)  # x ** y uses both
        rows.append((float(dx.item()), float(dy.item())))
    return (rows[0], rows[1])


HAVE_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(
    not HAVE_TORCH, reason="the live oracle needs torch (pip install -e '.[oracle]')"
)
@pytest.mark.parametrize(("x", "y"), GRID)
def test_table_is_what_torch_gives_today(x: float, y: float) -> None:
    assert same_matrix(_torch_node(x, y), TORCH_NODE[K(x, y)])
    if K(x, y) in FORWARD_OVER_REVERSE:
        # torch.func.hessian pushes whole basis vectors, so a nan partial pollutes its
        # row's neighbours; the masked derivative's own row is the comparable one
        torch_row, our_row = _torch_hessian(x, y)[1], expected_hessian(x, y)[1]
        assert all(same(a, e) for a, e in zip(torch_row, our_row, strict=True))


def _torch_hessian(x: float, y: float) -> Matrix:
    import torch  # optional: only this live check needs it

    with warnings.catch_warnings():  # torch.func runs torch.jit.script, deprecated in 2.13
        warnings.simplefilter("ignore", DeprecationWarning)
        from torch.func import hessian

        v = torch.tensor([x, y], dtype=torch.float64)
        h = hessian(lambda v: v[0] ** v[1])(v).tolist()
    return ((h[0][0], h[0][1]), (h[1][0], h[1][1]))
