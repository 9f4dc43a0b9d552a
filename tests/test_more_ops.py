"""Issue 14's sixteen ops: values, first and second derivatives at float64's edges.

One-input: tan, sinh, cosh, arcsin, arccos, arctan, log1p, expm1, log2, log10,
exp2, sign. Two-input: arctan2, hypot, maximum, minimum (NumPy's names;
PyTorch's are in `TORCH_NAMES`). Three oracles, none of them this engine:

- `UNARY_ROWS` and `BINARY_ROWS`: the contract, measured against torch 2.13.0+cpu
  float64 (value, d/dx, d2/dx2; for two inputs the value, both partials and the
  four second partials). Where PyTorch's kernel and the C library differ,
  the row holds ours and `TORCH_DIFFERS` / `TORCH_DIFFERS_2` hold PyTorch's;
  docs/numerics.md shows the same rows.
- live PyTorch float64, when installed: the table is re-measured bit for bit,
  and random points are compared within `TORCH_ULPS`, the measured gaps
  between PyTorch's kernels and the C library (docs/numerics.md).
- mpmath: exact values and derivatives at finite points, to a few ulps; and
  central differences of the forward pass where the op is smooth.

Bits are compared with `struct.pack`, so ``-0.0`` is not ``0.0``; every nan is
one value.
"""

from __future__ import annotations

import importlib.util
import io
import math
import struct
import sys
import warnings
from collections.abc import Callable
from typing import Any, assert_type, cast

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import central_difference, fd_atol

import autograd as ag
from autograd import Leaf, Node, Scalar
from autograd.core.functions import BINARY_FUNCTIONS, FUNCTIONS, Binary, Elementwise

INF, NAN, MAX = math.inf, math.nan, sys.float_info.max

UNARY: dict[str, Elementwise] = {
    "tan": ag.tan,
    "sinh": ag.sinh,
    "cosh": ag.cosh,
    "arcsin": ag.arcsin,
    "arccos": ag.arccos,
    "arctan": ag.arctan,
    "log1p": ag.log1p,
    "expm1": ag.expm1,
    "log2": ag.log2,
    "log10": ag.log10,
    "exp2": ag.exp2,
    "sign": ag.sign,
}
BINARY: dict[str, Binary] = {
    "arctan2": ag.arctan2,
    "hypot": ag.hypot,
    "maximum": ag.maximum,
    "minimum": ag.minimum,
}
CLASSES: dict[str, type[Node]] = {
    "tan": ag.Tan,
    "sinh": ag.Sinh,
    "cosh": ag.Cosh,
    "arcsin": ag.Arcsin,
    "arccos": ag.Arccos,
    "arctan": ag.Arctan,
    "log1p": ag.Log1p,
    "expm1": ag.Expm1,
    "log2": ag.Log2,
    "log10": ag.Log10,
    "exp2": ag.Exp2,
    "sign": ag.Sign,
    "arctan2": ag.Arctan2,
    "hypot": ag.Hypot,
    "maximum": ag.Maximum,
    "minimum": ag.Minimum,
}
TORCH_NAMES = {
    **{name: name for name in UNARY},
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arctan2": "atan2",
    "hypot": "hypot",
    "maximum": "maximum",
    "minimum": "minimum",
}

Row = tuple[str, float, float, float, float]  # op, x, value, d/dx, d2/dx2
Row2 = tuple[str, float, float, tuple[float, ...]]  # op, x, y, (value, dx, dy, dxx, dxy, dyx, dyy)

# Ours, measured against torch 2.13.0+cpu float64; equal to PyTorch's but where listed below.
UNARY_ROWS: list[Row] = [
    ("tan", 0.0, 0.0, 1.0, 0.0),
    ("tan", -0.0, -0.0, 1.0, -0.0),
    ("tan", 5e-324, 5e-324, 1.0, 1e-323),
    ("tan", 1e-310, 1e-310, 1.0, 2e-310),
    ("tan", 0.5, 0.5463024898437905, 1.2984464104095248, 1.4186890138709112),
    ("tan", 1.0, 1.5574077246549023, 3.42551882081476, 10.669858944975319),
    ("tan", -1.0, -1.5574077246549023, 3.42551882081476, -10.669858944975319),
    ("tan", 2.0, -2.185039863261519, 5.774399204041917, -25.23458489443435),
    ("tan", 1e308, -0.5086861259107568, 1.2587615746940943, -1.280629097752925),
    ("tan", INF, NAN, NAN, NAN),
    ("tan", -INF, NAN, NAN, NAN),
    ("tan", NAN, NAN, NAN, NAN),
    ("tan", 1.5707963267948966, 1.633123935319537e16, 2.6670937881135714e32, 8.711389406220654e48),
    ("tan", 3.141592653589793, -1.2246467991473532e-16, 1.0, -2.4492935982947064e-16),
    ("tan", 1e22, -1.6287782256068988, 3.6529185082111577, -11.899588252181537),
    ("tan", MAX, -0.004962015874444895, 1.0000246216015383, -0.009924276094445164),
    ("sinh", 0.0, 0.0, 1.0, 0.0),
    ("sinh", -0.0, -0.0, 1.0, -0.0),
    ("sinh", 5e-324, 5e-324, 1.0, 5e-324),
    ("sinh", 1e-310, 1e-310, 1.0, 1e-310),
    ("sinh", 0.5, 0.5210953054937474, 1.1276259652063807, 0.5210953054937474),
    ("sinh", 1.0, 1.1752011936438014, 1.5430806348152437, 1.1752011936438014),
    ("sinh", -1.0, -1.1752011936438014, 1.5430806348152437, -1.1752011936438014),
    ("sinh", 2.0, 3.626860407847019, 3.7621956910836314, 3.626860407847019),
    ("sinh", 1e308, INF, INF, INF),
    ("sinh", INF, INF, INF, INF),
    ("sinh", -INF, -INF, INF, -INF),
    ("sinh", NAN, NAN, NAN, NAN),
    ("sinh", 710.0, 1.1169973830808557e308, 1.1169973830808557e308, 1.1169973830808557e308),
    ("sinh", 711.0, INF, INF, INF),
    ("sinh", -1000.0, -INF, INF, -INF),
    ("cosh", 0.0, 1.0, 0.0, 1.0),
    ("cosh", -0.0, 1.0, -0.0, 1.0),
    ("cosh", 5e-324, 1.0, 5e-324, 1.0),
    ("cosh", 1e-310, 1.0, 1e-310, 1.0),
    ("cosh", 0.5, 1.1276259652063807, 0.5210953054937474, 1.1276259652063807),
    ("cosh", 1.0, 1.5430806348152437, 1.1752011936438014, 1.5430806348152437),
    ("cosh", -1.0, 1.5430806348152437, -1.1752011936438014, 1.5430806348152437),
    ("cosh", 2.0, 3.7621956910836314, 3.626860407847019, 3.7621956910836314),
    ("cosh", 1e308, INF, INF, INF),
    ("cosh", INF, INF, INF, INF),
    ("cosh", -INF, INF, -INF, INF),
    ("cosh", NAN, NAN, NAN, NAN),
    ("cosh", 710.0, 1.1169973830808557e308, 1.1169973830808557e308, 1.1169973830808557e308),
    ("cosh", 711.0, INF, INF, INF),
    ("cosh", -1000.0, INF, -INF, INF),
    ("arcsin", 0.0, 0.0, 1.0, 0.0),
    ("arcsin", -0.0, -0.0, 1.0, -0.0),
    ("arcsin", 5e-324, 5e-324, 1.0, 0.0),
    ("arcsin", 1e-310, 1e-310, 1.0, 1.00000000000005e-310),
    ("arcsin", 0.5, 0.5235987755982989, 1.1547005383792517, 0.7698003589195012),
    ("arcsin", 1.0, 1.5707963267948966, INF, INF),
    ("arcsin", -1.0, -1.5707963267948966, INF, -INF),
    ("arcsin", 2.0, NAN, NAN, NAN),
    ("arcsin", 1e308, NAN, NAN, NAN),
    ("arcsin", INF, NAN, NAN, NAN),
    ("arcsin", -INF, NAN, NAN, NAN),
    ("arcsin", NAN, NAN, NAN, NAN),
    ("arcsin", 0.9999999999999999, 1.5707963118937354, 67108864.0, 3.0223145490365726e23),
    ("arcsin", -0.9999999999999999, -1.5707963118937354, 67108864.0, -3.0223145490365726e23),
    ("arcsin", 1.0000000000000002, NAN, NAN, NAN),
    ("arccos", 0.0, 1.5707963267948966, -1.0, -0.0),
    ("arccos", -0.0, 1.5707963267948966, -1.0, 0.0),
    ("arccos", 5e-324, 1.5707963267948966, -1.0, -0.0),
    ("arccos", 1e-310, 1.5707963267948966, -1.0, -1.00000000000005e-310),
    ("arccos", 0.5, 1.0471975511965979, -1.1547005383792517, -0.7698003589195012),
    ("arccos", 1.0, 0.0, -INF, -INF),
    ("arccos", -1.0, 3.141592653589793, -INF, INF),
    ("arccos", 2.0, NAN, NAN, NAN),
    ("arccos", 1e308, NAN, NAN, NAN),
    ("arccos", INF, NAN, NAN, NAN),
    ("arccos", -INF, NAN, NAN, NAN),
    ("arccos", NAN, NAN, NAN, NAN),
    ("arccos", 0.9999999999999999, 1.4901161193847656e-08, -67108864.0, -3.0223145490365726e23),
    ("arccos", -0.9999999999999999, 3.141592638688632, -67108864.0, 3.0223145490365726e23),
    ("arccos", 1.0000000000000002, NAN, NAN, NAN),
    ("arctan", 0.0, 0.0, 1.0, -0.0),
    ("arctan", -0.0, -0.0, 1.0, 0.0),
    ("arctan", 5e-324, 5e-324, 1.0, -1e-323),
    ("arctan", 1e-310, 1e-310, 1.0, -2e-310),
    ("arctan", 0.5, 0.4636476090008061, 0.8, -0.64),
    ("arctan", 1.0, 0.7853981633974483, 0.5, -0.5),
    ("arctan", -1.0, -0.7853981633974483, 0.5, 0.5),
    ("arctan", 2.0, 1.1071487177940904, 0.2, -0.16),
    ("arctan", 1e308, 1.5707963267948966, 0.0, -0.0),
    ("arctan", INF, 1.5707963267948966, 0.0, NAN),
    ("arctan", -INF, -1.5707963267948966, 0.0, NAN),
    ("arctan", NAN, NAN, NAN, NAN),
    ("arctan", 1e22, 1.5707963267948966, 1e-44, -2e-66),
    ("arctan", MAX, 1.5707963267948966, 0.0, -0.0),
    ("arctan", -MAX, -1.5707963267948966, 0.0, 0.0),
    ("log1p", 0.0, 0.0, 1.0, -1.0),
    ("log1p", -0.0, -0.0, 1.0, -1.0),
    ("log1p", 5e-324, 5e-324, 1.0, -1.0),
    ("log1p", 1e-310, 1e-310, 1.0, -1.0),
    ("log1p", 0.5, 0.4054651081081644, 0.6666666666666666, -0.4444444444444444),
    ("log1p", 1.0, 0.6931471805599453, 0.5, -0.25),
    ("log1p", -1.0, -INF, INF, -INF),
    ("log1p", 2.0, 1.0986122886681096, 0.3333333333333333, -0.1111111111111111),
    ("log1p", 1e308, 709.1962086421661, 1e-308, -0.0),
    ("log1p", INF, INF, 0.0, -0.0),
    ("log1p", -INF, NAN, -0.0, -0.0),
    ("log1p", NAN, NAN, NAN, NAN),
    ("log1p", -0.5, -0.6931471805599453, 2.0, -4.0),
    ("log1p", -0.9999999999999999, -36.7368005696771, 9007199254740992.0, -8.112963841460668e31),
    ("log1p", -2.0, NAN, -1.0, -1.0),
    ("log1p", 1e-20, 1e-20, 1.0, -1.0),
    ("expm1", 0.0, 0.0, 1.0, 1.0),
    ("expm1", -0.0, -0.0, 1.0, 1.0),
    ("expm1", 5e-324, 5e-324, 1.0, 1.0),
    ("expm1", 1e-310, 1e-310, 1.0, 1.0),
    ("expm1", 0.5, 0.6487212707001282, 1.6487212707001282, 1.6487212707001282),
    ("expm1", 1.0, 1.718281828459045, 2.718281828459045, 2.718281828459045),
    ("expm1", -1.0, -0.6321205588285577, 0.36787944117144233, 0.36787944117144233),
    ("expm1", 2.0, 6.38905609893065, 7.38905609893065, 7.38905609893065),
    ("expm1", 1e308, INF, INF, INF),
    ("expm1", INF, INF, INF, INF),
    ("expm1", -INF, -1.0, 0.0, 0.0),
    ("expm1", NAN, NAN, NAN, NAN),
    ("expm1", -1000.0, -1.0, 0.0, 0.0),
    ("expm1", 1e-20, 1e-20, 1.0, 1.0),
    ("expm1", 40.0, 2.3538526683701997e17, 2.3538526683701997e17, 2.3538526683701997e17),
    ("expm1", 709.0, 8.218407461554972e307, 8.218407461554972e307, 8.218407461554972e307),
    ("expm1", 710.0, INF, INF, INF),
    ("log2", 0.0, -INF, INF, -INF),
    ("log2", -0.0, -INF, -INF, -INF),
    ("log2", 5e-324, -1074.0, INF, -INF),
    ("log2", 1e-310, -1029.7977094150824, INF, -INF),
    ("log2", 0.5, -1.0, 2.8853900817779268, -5.7707801635558535),
    ("log2", 1.0, 0.0, 1.4426950408889634, -1.4426950408889634),
    ("log2", -1.0, NAN, -1.4426950408889634, -1.4426950408889634),
    ("log2", 2.0, 1.0, 0.7213475204444817, -0.36067376022224085),
    ("log2", 1e308, 1023.1538532253076, 1.4426950408889633e-308, -0.0),
    ("log2", INF, INF, 0.0, -0.0),
    ("log2", -INF, NAN, -0.0, -0.0),
    ("log2", NAN, NAN, NAN, NAN),
    ("log2", 1e-300, -996.5784284662087, 1.4426950408889635e300, -INF),
    ("log2", 1024.0, 10.0, 0.0014088818758681283, -1.375861206902469e-06),
    ("log2", -2.0, NAN, -0.7213475204444817, -0.36067376022224085),
    ("log10", 0.0, -INF, INF, -INF),
    ("log10", -0.0, -INF, -INF, -INF),
    ("log10", 5e-324, -323.3062153431158, INF, -INF),
    ("log10", 1e-310, -310.0, INF, -INF),
    ("log10", 0.5, -0.3010299956639812, 0.8685889638065037, -1.7371779276130073),
    ("log10", 1.0, 0.0, 0.43429448190325187, -0.4342944819032518),
    ("log10", -1.0, NAN, -0.43429448190325187, -0.4342944819032518),
    ("log10", 2.0, 0.3010299956639812, 0.21714724095162594, -0.10857362047581295),
    ("log10", 1e308, 308.0, 0.0, -0.0),
    ("log10", INF, INF, 0.0, -0.0),
    ("log10", -INF, NAN, -0.0, -0.0),
    ("log10", NAN, NAN, NAN, NAN),
    ("log10", 1e-300, -300.0, 4.342944819032518e299, -INF),
    ("log10", 1e-20, -20.0, 4.342944819032519e19, -4.3429448190325184e39),
    ("log10", 1000.0, 3.0, 0.00043429448190325184, -4.342944819032518e-07),
    ("exp2", 0.0, 1.0, 0.6931471805599453, 0.4804530139182014),
    ("exp2", -0.0, 1.0, 0.6931471805599453, 0.4804530139182014),
    ("exp2", 5e-324, 1.0, 0.6931471805599453, 0.4804530139182014),
    ("exp2", 1e-310, 1.0, 0.6931471805599453, 0.4804530139182014),
    ("exp2", 0.5, 1.4142135623730951, 0.9802581434685472, 0.6794631683661498),
    ("exp2", 1.0, 2.0, 1.3862943611198906, 0.9609060278364028),
    ("exp2", -1.0, 0.5, 0.34657359027997264, 0.2402265069591007),
    ("exp2", 2.0, 4.0, 2.772588722239781, 1.9218120556728056),
    ("exp2", 1e308, INF, INF, INF),
    ("exp2", INF, INF, INF, INF),
    ("exp2", -INF, 0.0, 0.0, 0.0),
    ("exp2", NAN, NAN, NAN, NAN),
    (
        "exp2",
        1023.9999999999999,
        1.7976931348621742e308,
        1.2460659279416856e308,
        8.637070847445913e307,
    ),
    ("exp2", 1024.0, INF, INF, INF),
    ("exp2", -1074.0, 5e-324, 5e-324, 5e-324),
    ("exp2", -1075.0, 0.0, 0.0, 0.0),
    ("exp2", -1000.0, 9.332636185032189e-302, 6.468890458846786e-302, 4.48389318290078e-302),
    ("sign", 0.0, 0.0, 0.0, 0.0),
    ("sign", -0.0, 0.0, 0.0, 0.0),
    ("sign", 5e-324, 1.0, 0.0, 0.0),
    ("sign", 1e-310, 1.0, 0.0, 0.0),
    ("sign", 0.5, 1.0, 0.0, 0.0),
    ("sign", 1.0, 1.0, 0.0, 0.0),
    ("sign", -1.0, -1.0, 0.0, 0.0),
    ("sign", 2.0, 1.0, 0.0, 0.0),
    ("sign", 1e308, 1.0, 0.0, 0.0),
    ("sign", INF, 1.0, 0.0, 0.0),
    ("sign", -INF, -1.0, 0.0, 0.0),
    ("sign", NAN, 0.0, 0.0, 0.0),
    ("sign", -5e-324, -1.0, 0.0, 0.0),
    ("sign", -MAX, -1.0, 0.0, 0.0),
]

# PyTorch's row where its kernel differs from the C library's (ours): value 1 ulp
# (arccos(0.5), log1p(2), expm1), log1p of subnormals (PyTorch's is not x; ours is),
# and arcsin'' and arccos'' (PyTorch's rsqrt derivative is -0.5 g r**3; ours that of 1 / sqrt).
TORCH_DIFFERS: dict[tuple[str, float], tuple[float, float, float]] = {
    ("arcsin", 0.5): (0.5235987755982989, 1.1547005383792517, 0.7698003589195014),
    ("arccos", 0.5): (1.0471975511965976, -1.1547005383792517, -0.7698003589195014),
    ("log1p", 5e-324): (0.0, 1.0, -1.0),
    ("log1p", 1e-310): (1.00000000000005e-310, 1.0, -1.0),
    ("log1p", 2.0): (1.0986122886681098, 0.3333333333333333, -0.1111111111111111),
    ("expm1", 1.0): (1.7182818284590453, 2.7182818284590455, 2.7182818284590455),
    ("expm1", 40.0): (2.3538526683702e17, 2.3538526683702e17, 2.3538526683702e17),
}

BINARY_ROWS: list[Row2] = [
    ("arctan2", 0.0, 0.0, (0.0, 0.0, -0.0, NAN, NAN, NAN, NAN)),
    ("arctan2", -0.0, 0.0, (-0.0, 0.0, 0.0, NAN, NAN, NAN, NAN)),
    ("arctan2", 0.0, -0.0, (3.141592653589793, -0.0, -0.0, NAN, NAN, NAN, NAN)),
    ("arctan2", -0.0, -0.0, (-3.141592653589793, -0.0, 0.0, NAN, NAN, NAN, NAN)),
    ("arctan2", 1.0, 1.0, (0.7853981633974483, 0.5, -0.5, -0.5, 0.0, 0.0, 0.5)),
    ("arctan2", 1.0, 0.0, (1.5707963267948966, 0.0, -1.0, -0.0, 1.0, 1.0, 0.0)),
    ("arctan2", 1.0, -0.0, (1.5707963267948966, -0.0, -1.0, 0.0, 1.0, 1.0, -0.0)),
    ("arctan2", -1.0, -0.0, (-1.5707963267948966, -0.0, 1.0, -0.0, 1.0, 1.0, 0.0)),
    ("arctan2", 0.0, -1.0, (3.141592653589793, -1.0, -0.0, 0.0, -1.0, -1.0, -0.0)),
    ("arctan2", -0.0, -1.0, (-3.141592653589793, -1.0, 0.0, -0.0, -1.0, -1.0, 0.0)),
    (
        "arctan2",
        3.0,
        -4.0,
        (
            2.498091544796509,
            -0.16,
            -0.12,
            0.038400000000000004,
            -0.011200000000000002,
            -0.011199999999999998,
            -0.038400000000000004,
        ),
    ),
    ("arctan2", 1e-310, 1e-310, (0.7853981633974483, 0.0, -0.0, NAN, NAN, NAN, NAN)),
    ("arctan2", 1e200, 1e-200, (1.5707963267948966, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0)),
    ("arctan2", 1e308, 1e308, (0.7853981633974483, 0.0, -0.0, -0.0, 0.0, 0.0, 0.0)),
    ("arctan2", INF, 1.0, (1.5707963267948966, 0.0, NAN, NAN, 0.0, NAN, NAN)),
    ("arctan2", INF, INF, (0.7853981633974483, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("arctan2", -INF, INF, (-0.7853981633974483, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("arctan2", NAN, 1.0, (NAN, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("hypot", 0.0, 0.0, (0.0, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("hypot", -0.0, 0.0, (0.0, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("hypot", 3.0, -4.0, (5.0, 0.6, -0.8, 0.128, 0.096, 0.096, 0.07200000000000001)),
    ("hypot", 1.0, -0.0, (1.0, 1.0, -0.0, 0.0, 0.0, 0.0, 1.0)),
    ("hypot", 5e-324, 0.0, (5e-324, 1.0, 0.0, NAN, NAN, -0.0, INF)),
    (
        "hypot",
        1e-310,
        1e-310,
        (1.4142135623731e-310, 0.7071067811865536, 0.7071067811865536, NAN, -INF, -INF, NAN),
    ),
    (
        "hypot",
        1e308,
        1e308,
        (
            1.4142135623730951e308,
            0.7071067811865475,
            0.7071067811865475,
            3.535533905932736e-309,
            -3.535533905932736e-309,
            -3.535533905932736e-309,
            3.535533905932736e-309,
        ),
    ),
    ("hypot", MAX, MAX, (INF, 0.0, 0.0, 0.0, -0.0, -0.0, 0.0)),
    ("hypot", 1e200, 1e-200, (1e200, 1.0, 0.0, 0.0, -0.0, -0.0, 1e-200)),
    ("hypot", INF, 1.0, (INF, NAN, 0.0, NAN, NAN, NAN, 0.0)),
    ("hypot", INF, NAN, (INF, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("hypot", NAN, INF, (INF, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("hypot", NAN, 1.0, (NAN, NAN, NAN, NAN, NAN, NAN, NAN)),
    ("maximum", 0.0, 0.0, (0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", -0.0, 0.0, (-0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", 0.0, -0.0, (0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", 1.0, 1.0, (1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", 2.0, 1.0, (2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", 1.0, 2.0, (2.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", -1.0, -0.0, (-0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", 5e-324, 0.0, (5e-324, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", INF, INF, (INF, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", -INF, INF, (INF, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", NAN, 1.0, (NAN, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", 1.0, NAN, (NAN, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("maximum", NAN, NAN, (NAN, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 0.0, 0.0, (0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", -0.0, 0.0, (-0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 0.0, -0.0, (0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 1.0, 1.0, (1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 2.0, 1.0, (1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 1.0, 2.0, (1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 1.0, -0.0, (-0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 5e-324, 0.0, (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", INF, INF, (INF, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", -INF, INF, (-INF, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", NAN, 1.0, (NAN, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", 1.0, NAN, (NAN, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
    ("minimum", NAN, NAN, (NAN, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0)),
]

# PyTorch's double backward of atan2 differentiates ``reciprocal`` as ``-g r r``; ours ``-g r / d``.
TORCH_DIFFERS_2: dict[tuple[str, float, float], tuple[float, ...]] = {
    ("arctan2", 3.0, -4.0): (
        2.498091544796509,
        -0.16,
        -0.12,
        0.038400000000000004,
        -0.011200000000000002,
        -0.011199999999999996,
        -0.038400000000000004,
    ),
}


def _params(rows: list[Row]) -> list[object]:
    return [pytest.param(*row, id=f"{row[0]}({row[1]!r})") for row in rows]


ROWS = _params(UNARY_ROWS)
TORCH_ROWS = _params(
    [(n, x, *TORCH_DIFFERS.get((n, x), (v, d1, d2))) for n, x, v, d1, d2 in UNARY_ROWS]
)
ROWS2 = [pytest.param(*row, id=f"{row[0]}({row[1]!r}, {row[2]!r})") for row in BINARY_ROWS]
EDGES: tuple[float, ...] = tuple(sorted({r[1] for r in UNARY_ROWS}, key=repr))
EDGES2: tuple[tuple[float, float], ...] = tuple((r[1], r[2]) for r in BINARY_ROWS)


def bits(v: float) -> bytes:
    """The IEEE bits of ``v`` (``-0.0`` differs from ``0.0``); every nan is one value."""
    return b"nan" if math.isnan(v) else struct.pack("<d", v)


def assert_bits(actual: object, expected: float, what: str) -> None:
    assert isinstance(actual, float), f"{what}: {actual!r} is not a float"
    assert bits(actual) == bits(expected), f"{what}: ours {actual!r}, expected {expected!r}"


def within(actual: float, expected: float, ulps: float, atol: float = 0.0) -> bool:
    """Same bits, or both finite and ``ulps`` apart (or ``atol``, for a cancelling formula)."""
    if bits(actual) == bits(expected):
        return True
    if not (math.isfinite(actual) and math.isfinite(expected)):
        return False
    return abs(actual - expected) <= max(ulps * math.ulp(expected), atol)


def first(f: Elementwise) -> Callable[[float], float]:
    return ag.grad(f)


def second(f: Elementwise) -> Callable[[float], float]:
    d: Callable[[Scalar], Scalar] = ag.grad(f)
    return ag.grad(d)


def float_value(f: Elementwise, x: float) -> float:
    out = f(x)
    assert isinstance(out, float), f"a float in gives {out!r}"
    return out


def node_value(f: Elementwise, x: float) -> float:
    out = f(Leaf(x))
    assert isinstance(out, Node), f"a node in gives {out!r}"
    return out.value


# forward over reverse rounds the rule's product in another order than grad(grad)
HESSIAN_ULPS: dict[str, float] = {"tan": 2.0, "arcsin": 2.0, "arccos": 2.0, "arctan": 2.0}


def hessian_agrees(name: str, x: float, h: float, d2: float) -> bool:
    """``hessian`` (forward over reverse) against ``grad(grad)`` (reverse over reverse).

    Where ``x * x`` overflows (arctan, arcsin, arccos square their input), forward
    mode's tangent of it is ``inf`` and meets a 0 (nan), where the reverse sweep
    multiplies the 0 first: as `torch.func.hessian` against double backward.
    """
    if name in ("arctan", "arcsin", "arccos") and abs(x) > 1e150:
        return isinstance(h, float)
    return within(h, d2, HESSIAN_ULPS.get(name, 0.0))


def derivatives2(f: Binary, x: float, y: float) -> tuple[float, ...]:
    """Value, both partials and the four second partials (reverse over reverse)."""
    g = ag.grad(f, argnums=(0, 1))
    dx, dy = g(x, y)

    # grad types an overloaded function by its float signature; under an outer grad
    # the same function takes and returns nodes
    inner = cast("Callable[[Scalar, Scalar], tuple[Scalar, Scalar]]", ag.grad(f, argnums=(0, 1)))

    def part(i: int) -> Callable[[Scalar, Scalar], Scalar]:
        return lambda a, b: inner(a, b)[i]

    hxx, hxy = ag.grad(part(0), argnums=(0, 1))(x, y)
    hyx, hyy = ag.grad(part(1), argnums=(0, 1))(x, y)
    return float(f(x, y)), dx, dy, hxx, hxy, hyx, hyy


# --- the public surface -----------------------------------------------------------------


def test_each_op_has_its_node_class_in_the_union() -> None:
    for name, f in UNARY.items():
        out = f(Leaf(0.5))
        assert type(out) is CLASSES[name]
        assert repr(out) == f"{CLASSES[name].__name__}(value={out.value!r})"
    for name, f2 in BINARY.items():
        out = f2(Leaf(0.5), 2.0)
        assert type(out) is CLASSES[name]
        assert type(f2(0.5, Leaf(2.0))) is CLASSES[name]
    assert list(FUNCTIONS)[-len(UNARY) :] == list(UNARY)  # the grammar's words
    assert list(BINARY_FUNCTIONS) == list(BINARY)


def test_float_in_float_out_node_in_node_out_typed() -> None:
    x = Leaf(0.5)
    assert_type(ag.tan(0.25), float)
    assert_type(ag.log1p(x), Node)
    assert_type(ag.arctan2(1.0, 2.0), float)
    assert_type(ag.hypot(x, 2.0), Node)
    assert_type(ag.maximum(1.0, x), Node)
    assert_type(ag.minimum(x, x), Node)
    assert ag.maximum(1, 2) == 2.0
    assert type(ag.maximum(1, 2)) is float
    assert ag.hypot(10**400, 1.0) == INF  # an int beyond float range is inf, as Leaf(10**400)


def test_binary_functions_refuse_what_is_not_a_number() -> None:
    with pytest.raises(TypeError, match="maximum"):
        ag.maximum(Leaf(1.0), "2")  # type: ignore[call-overload]  # the point of the test


def test_binary_ops_are_in_the_grammar_with_two_arguments() -> None:
    from autograd.expr import Call2, ExprError, Var, parse

    assert parse("hypot(x, y)") == Call2("hypot", Var("x"), Var("y"))
    with pytest.raises(ExprError, match="hypot\\(\\) takes exactly two arguments"):
        parse("hypot(x)")


# --- the table: the contract, and PyTorch re-measuring it ------------------------------


@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), ROWS)
def test_value_follows_the_table(name: str, x: float, value: float, d1: float, d2: float) -> None:
    f = UNARY[name]
    assert_bits(float_value(f, x), value, "float path")
    assert_bits(node_value(f, x), value, "node path")


@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), ROWS)
def test_derivatives_follow_the_table(
    name: str, x: float, value: float, d1: float, d2: float
) -> None:
    f = UNARY[name]
    assert_bits(first(f)(x), d1, "grad")
    v, t = ag.jvp(f, (x,), (1.0,))
    assert_bits(v, value, "jvp value")
    assert_bits(t, d1, "jvp tangent")
    assert_bits(ag.vjp(f, x)[1](1.0)[0], d1, "vjp cotangent")
    assert_bits(second(f)(x), d2, "grad(grad)")
    h = ag.hessian(f)(x)  # forward over reverse
    assert hessian_agrees(name, x, h, d2), f"hessian: ours {h!r}, expected {d2!r}"


@pytest.mark.parametrize(("name", "x", "y", "row"), ROWS2)
def test_binary_table(name: str, x: float, y: float, row: tuple[float, ...]) -> None:
    f = BINARY[name]
    ours = derivatives2(f, x, y)
    labels = ("value", "d/dx", "d/dy", "d2/dxdx", "d2/dxdy", "d2/dydx", "d2/dydy")
    for label, a, e in zip(labels, ours, row, strict=True):
        assert_bits(a, e, label)
    out = f(Leaf(x), Leaf(y))
    assert isinstance(out, Node)
    assert_bits(out.value, row[0], "node path")
    v, t = ag.jvp(lambda a: f(a, y), (x,), (1.0,))  # a tangent (1, 0) would add 0 * d/dy
    assert_bits(v, row[0], "jvp value")
    assert_bits(t, row[1], "jvp d/dx")
    _, t = ag.jvp(lambda b: f(x, b), (y,), (1.0,))
    assert_bits(t, row[2], "jvp d/dy")


def _torch() -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns at import when numpy is absent
        import torch
    return torch


def _torch_row(name: str, x: float) -> tuple[float, float, float]:
    """Value, d/dx and d2/dx2 from PyTorch float64 (double backward)."""
    torch: Any = _torch()
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = getattr(torch, TORCH_NAMES[name])(t)
    (g,) = torch.autograd.grad(y, t, create_graph=True)
    if not g.requires_grad:  # sign: zeros_like(grad), no graph
        return float(y.detach()), float(g), 0.0
    (h,) = torch.autograd.grad(g, t)
    return float(y.detach()), float(g.detach()), float(h)


def _torch_row2(name: str, x: float, y: float) -> tuple[float, ...]:
    torch: Any = _torch()
    a = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    out = getattr(torch, TORCH_NAMES[name])(a, b)
    gs = torch.autograd.grad(out, (a, b), create_graph=True)
    hs: list[float] = []
    for g in gs:
        if not g.requires_grad:  # maximum, minimum: masks of grad, no graph
            hs += [0.0, 0.0]
            continue
        h = torch.autograd.grad(g, (a, b), retain_graph=True, allow_unused=True)
        hs += [0.0 if v is None else float(v) for v in h]
    return (float(out.detach()), *(float(g.detach()) for g in gs), *hs)


needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="PyTorch is the live oracle: pip install -e '.[oracle]' (torch==2.13.0, CPU)",
)


@needs_torch
@pytest.mark.parametrize(("name", "x", "value", "d1", "d2"), TORCH_ROWS)
def test_table_is_what_pytorch_gives(
    name: str, x: float, value: float, d1: float, d2: float
) -> None:
    tv, t1, t2 = _torch_row(name, x)
    assert_bits(tv, value, "torch value")
    assert_bits(t1, d1, "torch d/dx")
    assert_bits(t2, d2, "torch d2/dx2")


@needs_torch
@pytest.mark.parametrize(("name", "x", "y", "row"), ROWS2)
def test_binary_table_is_what_pytorch_gives(
    name: str, x: float, y: float, row: tuple[float, ...]
) -> None:
    expected = TORCH_DIFFERS_2.get((name, x, y), row)
    for i, (a, e) in enumerate(zip(_torch_row2(name, x, y), expected, strict=True)):
        assert_bits(a, e, f"torch output {i}")


# Measured on 20,000 points (half in [-3, 3], half random bits): PyTorch's kernels
# (Sleef) and the C library differ by these many ulps; sinh, cosh, exp2 and sign
# never. Derivatives inherit the value's ulp, amplified by the formula (tan: 1 + y*y).
TORCH_ULPS: dict[str, tuple[float, float, float]] = {
    "tan": (1.0, 3.0, 5.0),
    "sinh": (0.0, 0.0, 0.0),
    "cosh": (0.0, 0.0, 0.0),
    "arcsin": (1.0, 0.0, 4.0),
    "arccos": (1.0, 0.0, 4.0),
    "arctan": (1.0, 0.0, 0.0),
    "log1p": (1.0, 0.0, 0.0),
    "expm1": (1.0, 1.0, 1.0),
    "log2": (1.0, 0.0, 0.0),
    "log10": (2.0, 0.0, 0.0),
    "exp2": (0.0, 0.0, 0.0),
    "sign": (0.0, 0.0, 0.0),
}


def _torch_atol(name: str, x: float, value: float) -> float:
    if name == "expm1":  # y + 1 cancels where y is near -1: one ulp of y, absolutely
        return 2.0 * math.ulp(value)
    if name == "log1p" and 0.0 < abs(x) < sys.float_info.min:
        return 5e-324 * 2**20  # PyTorch's log1p of a subnormal is not x (ours is)
    return 0.0


@needs_torch
@pytest.mark.parametrize("name", UNARY)
@given(x=st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(EDGES))
def test_random_points_match_live_pytorch(name: str, x: float) -> None:
    tv, t1, t2 = _torch_row(name, x)
    f = UNARY[name]
    ours = (float_value(f, x), first(f)(x), second(f)(x))
    atol = _torch_atol(name, x, ours[0])
    rows = zip(("value", "d/dx", "d2/dx2"), ours, (tv, t1, t2), TORCH_ULPS[name], strict=True)
    for what, a, e, u in rows:
        assert within(a, e, u, atol), f"{name} {what} at {x!r}: ours {a!r}, torch {e!r}"


# Two inputs: hypot's value is the C library's (1 ulp from PyTorch's on a few points);
# the second partials sum two terms that cancel (atan2's mixed partial at |x| ~ |y|), so
# they are compared within ulps of the terms' scale, 1 / (x*x + y*y) or 1 / hypot.
TORCH_ULPS_2 = {"arctan2": 4.0, "hypot": 8.0, "maximum": 0.0, "minimum": 0.0}


def _scale2(name: str, x: float, y: float) -> float:
    if name == "arctan2":
        d = x * x + y * y
        return 1.0 / d if 0.0 < d < INF else 0.0
    if name == "hypot":
        h = ag.hypot(x, y)
        return 1.0 / h if 0.0 < h < INF else 0.0
    return 0.0


@needs_torch
@pytest.mark.parametrize("name", BINARY)
@given(
    xy=st.tuples(st.floats(), st.floats())
    | st.tuples(st.floats(-4.0, 4.0), st.floats(-4.0, 4.0))
    | st.sampled_from(EDGES2)
)
def test_binary_random_points_match_live_pytorch(name: str, xy: tuple[float, float]) -> None:
    x, y = xy
    ours = derivatives2(BINARY[name], x, y)
    theirs = _torch_row2(name, x, y)
    u = TORCH_ULPS_2[name]
    atol = u * math.ulp(_scale2(name, x, y))
    for i, (a, e) in enumerate(zip(ours, theirs, strict=True)):
        ok = within(a, e, min(u, 1.0) if i < 3 else u, atol if i >= 3 else 0.0)
        if not ok and name in _EXACT2 and math.isfinite(e):  # PyTorch's rounding: exact decides
            e = _exact2(name, x, y)[i]
            ok = within(a, e, min(u, 1.0) if i < 3 else u, atol if i >= 3 else 0.0)
        assert ok, f"{name} output {i} at {xy!r}: ours {a!r}, torch (or exact) {e!r}"


_EXACT2 = {"arctan2": mpmath.atan2, "hypot": mpmath.hypot}


def _exact2(name: str, x: float, y: float) -> list[float]:
    """Value, both partials and the four second partials (as `derivatives2`), by mpmath."""
    with mpmath.workdps(MP_DPS):
        orders = ((0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (1, 1), (0, 2))
        at = (mpmath.mpf(x), mpmath.mpf(y))
        return [float(mpmath.diff(_EXACT2[name], at, n)) for n in orders]


def test_a_second_partial_torch_rounds_is_checked_against_the_exact() -> None:
    # PyTorch's mixed partial of arctan2 at (0, y) is 5 ulps from -1/y**2; ours is 1
    x, y = 0.0, 655334670972887.0
    exact = _exact2("arctan2", x, y)
    with mpmath.workdps(MP_DPS):
        assert exact[4] == exact[5] == float(-1 / mpmath.mpf(y) ** 2)
    hxy = derivatives2(BINARY["arctan2"], x, y)[4]
    assert within(hxy, exact[4], 1.0)


def test_a_first_partial_torch_rounds_is_checked_against_the_exact() -> None:
    # hypot's d/dx = x / hypot(x, y): PyTorch's is 1 ulp below the exact, ours 1 above
    x, y = 3.282000260670509, 0.9
    exact = _exact2("hypot", x, y)[1]
    ours = derivatives2(BINARY["hypot"], x, y)[1]
    assert within(ours, exact, 1.0)
    assert not within(ours, exact, 0.0)  # the point still tells the rounding apart


# --- mpmath: exact values and derivatives --------------------------------------------

MP_DPS = 60


def _mp_exact(name: str, x: float) -> tuple[float, float, float]:
    """Value, d/dx and d2/dx2 in exact arithmetic, rounded once to float."""
    with mpmath.workdps(MP_DPS):
        v = mpmath.mpf(x)
        ln2, ln10 = mpmath.log(2), mpmath.log(10)
        exact: dict[str, Callable[[], tuple[Any, Any, Any]]] = {
            "tan": lambda: (
                mpmath.tan(v),
                1 + mpmath.tan(v) ** 2,
                2 * mpmath.tan(v) * (1 + mpmath.tan(v) ** 2),
            ),
            "sinh": lambda: (mpmath.sinh(v), mpmath.cosh(v), mpmath.sinh(v)),
            "cosh": lambda: (mpmath.cosh(v), mpmath.sinh(v), mpmath.cosh(v)),
            "arcsin": lambda: (mpmath.asin(v), 1 / mpmath.sqrt(1 - v * v), v / (1 - v * v) ** 1.5),
            "arccos": lambda: (
                mpmath.acos(v),
                -1 / mpmath.sqrt(1 - v * v),
                -v / (1 - v * v) ** 1.5,
            ),
            "arctan": lambda: (mpmath.atan(v), 1 / (1 + v * v), -2 * v / (1 + v * v) ** 2),
            "log1p": lambda: (mpmath.log1p(v), 1 / (1 + v), -1 / (1 + v) ** 2),
            "expm1": lambda: (mpmath.expm1(v), mpmath.exp(v), mpmath.exp(v)),
            "log2": lambda: (mpmath.log(v, 2), 1 / (v * ln2), -1 / (v * v * ln2)),
            "log10": lambda: (mpmath.log10(v), 1 / (v * ln10), -1 / (v * v * ln10)),
            "exp2": lambda: (
                mpmath.power(2, v),
                mpmath.power(2, v) * ln2,
                mpmath.power(2, v) * ln2**2,
            ),
            "sign": lambda: (mpmath.sign(v), 0, 0),
        }
        value, d1, d2 = exact[name]()
        return float(value), float(d1), float(d2)


# ulps from the exact value, measured on 1,500 points each (and 3,000 more, then the worst
# case random profiles found): the C library is within an ulp; the derivatives round a
# few times more (a second derivative: about four roundings, each up to half an ulp,
# compounded by the first derivative's). arcsin and arccos lose more to 1 - x*x
# near ±1 (the rounding of x*x relative to 1 - x*x: `_mp_ulps`), as PyTorch's formula does.
MP_ULPS: dict[str, tuple[float, float, float]] = {
    "tan": (1.0, 3.0, 5.0),
    "sinh": (1.0, 1.0, 1.0),
    "cosh": (1.0, 1.0, 1.0),
    "arcsin": (1.0, 4.0, 6.0),
    "arccos": (1.0, 4.0, 6.0),
    "arctan": (1.0, 2.0, 4.0),
    "log1p": (1.0, 1.0, 4.0),
    "expm1": (1.0, 1.0, 1.0),
    "log2": (1.0, 2.0, 4.0),
    "log10": (1.0, 2.0, 4.0),
    "exp2": (1.0, 1.0, 4.0),
    "sign": (0.0, 0.0, 0.0),
}


def _mp_ulps(name: str, x: float) -> tuple[float, float, float]:
    v, d1, d2 = MP_ULPS[name]
    if name in ("arcsin", "arccos"):
        cond = x * x / (1.0 - x * x)  # 1 - x*x's relative error, in ulps of x*x's rounding
        return v, d1 + cond, d2 + 2.0 * cond
    return v, d1, d2


def _domain(name: str) -> st.SearchStrategy[float]:
    """Where the op is finite with finite derivatives (mpmath has no 1 / 0)."""

    def fs(lo: float, hi: float) -> st.SearchStrategy[float]:
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False)

    domains: dict[str, st.SearchStrategy[float]] = {
        "tan": fs(-1e3, 1e3),
        "sinh": fs(-700.0, 700.0),
        "cosh": fs(-700.0, 700.0),
        "arcsin": fs(-0.999, 0.999),
        "arccos": fs(-0.999, 0.999),
        "arctan": fs(-1e6, 1e6),
        "log1p": fs(-0.999, 1e300),
        "expm1": fs(-1.0, 700.0),  # below -1, y + 1 cancels (see TORCH_ULPS)
        "log2": fs(1e-300, 1e300),
        "log10": fs(1e-300, 1e300),
        "exp2": fs(-1000.0, 1000.0),
        "sign": fs(-1e300, 1e300).filter(lambda v: v != 0.0),
    }
    return domains[name]


@pytest.mark.parametrize("name", UNARY)
@given(data=st.data())
def test_matches_mpmath(name: str, data: st.DataObject) -> None:
    x = data.draw(_domain(name))
    f = UNARY[name]
    exact = _mp_exact(name, x)
    ours = (float_value(f, x), first(f)(x), second(f)(x))
    rows = zip(("value", "d/dx", "d2/dx2"), ours, exact, _mp_ulps(name, x), strict=True)
    for what, a, e, u in rows:
        assert within(a, e, u), f"{name} {what} at {x!r}: ours {a!r}, exact {e!r}"


def _mp_exact2(name: str, x: float, y: float) -> tuple[float, ...]:
    with mpmath.workdps(MP_DPS):
        a, b = mpmath.mpf(x), mpmath.mpf(y)
        if name == "arctan2":
            d = a * a + b * b
            # mpmath has no signed zero: on the cut (x = +-0, y < 0) IEEE's angle is +-pi
            angle = math.copysign(abs(float(mpmath.atan2(a, b))), x)
            return tuple(
                float(v)
                for v in (
                    angle,
                    b / d,
                    -a / d,
                    -2 * a * b / d**2,
                    (a * a - b * b) / d**2,
                    (a * a - b * b) / d**2,
                    2 * a * b / d**2,
                )
            )
        h = mpmath.hypot(a, b)
        return tuple(
            float(v)
            for v in (h, a / h, b / h, b * b / h**3, -a * b / h**3, -a * b / h**3, a * a / h**3)
        )


@pytest.mark.parametrize("name", ["arctan2", "hypot"])
@given(x=st.floats(-1e6, 1e6), y=st.floats(-1e6, 1e6))
def test_binary_matches_mpmath(name: str, x: float, y: float) -> None:
    if abs(x) < 1e-6 and abs(y) < 1e-6:
        return  # the origin: see the table
    ours = derivatives2(BINARY[name], x, y)
    exact = _mp_exact2(name, x, y)
    atol = 8.0 * math.ulp(_scale2(name, x, y))  # second partials: two terms that may cancel
    for i, (a, e) in enumerate(zip(ours, exact, strict=True)):
        ok = within(a, e, 2.0 if i < 3 else 8.0, atol if i >= 3 else 0.0)
        assert ok, f"{name} output {i} at {(x, y)!r}: ours {a!r}, exact {e!r}"


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@given(x=st.floats(allow_nan=True), y=st.floats(allow_nan=True))
def test_maximum_and_minimum_route_the_gradient(name: str, x: float, y: float) -> None:
    pick = max if name == "maximum" else min
    ours = derivatives2(BINARY[name], x, y)
    if math.isnan(x) or math.isnan(y):  # torch: nan, and the whole gradient to both
        assert math.isnan(ours[0])
        assert ours[1:3] == (1.0, 1.0)
    elif x == y:
        assert ours[1:3] == (0.5, 0.5)
    else:
        assert ours[0] == pick(x, y)
        assert ours[1:3] == ((1.0, 0.0) if pick(x, y) == x else (0.0, 1.0))
    assert ours[3:] == (0.0, 0.0, 0.0, 0.0)


SMOOTH = {"tan": (-1.2, 1.2), "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9)}
SMOOTH |= {"log1p": (-0.9, 3.0), "log2": (0.1, 1e3), "log10": (0.1, 1e3)}


@pytest.mark.parametrize("name", [n for n in UNARY if n != "sign"])
@given(data=st.data())
def test_derivatives_match_central_differences(name: str, data: st.DataObject) -> None:
    x = data.draw(st.floats(*SMOOTH.get(name, (-3.0, 3.0))))
    f, d1 = UNARY[name], first(UNARY[name])
    fd1 = central_difference(lambda xs: float_value(f, xs[0]), [x], 0)  # the forward pass only
    assert math.isclose(d1(x), fd1, rel_tol=1e-6, abs_tol=fd_atol(float_value(f, x)))
    fd2 = central_difference(lambda xs: d1(xs[0]), [x], 0)
    assert math.isclose(second(f)(x), fd2, rel_tol=1e-6, abs_tol=fd_atol(d1(x)))


# --- properties over every float --------------------------------------------------------

every_float = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@pytest.mark.parametrize("name", UNARY)
@given(x=every_float | st.sampled_from(EDGES))
def test_never_raises_and_the_float_path_is_the_node_path(name: str, x: float) -> None:
    f = UNARY[name]
    assert_bits(node_value(f, x), float_value(f, x), "node path vs float path")
    assert_bits(ag.jvp(f, (x,), (1.0,))[1], first(f)(x), "jvp vs grad")
    h, d2 = ag.hessian(f)(x), second(f)(x)
    assert hessian_agrees(name, x, h, d2), f"at {x!r}: hessian {h!r}, grad(grad) {d2!r}"


@pytest.mark.parametrize("name", BINARY)
@given(x=every_float, y=every_float)
def test_binary_never_raises_and_the_float_path_is_the_node_path(
    name: str, x: float, y: float
) -> None:
    f = BINARY[name]
    out = f(Leaf(x), y)
    assert isinstance(out, Node)
    assert_bits(out.value, f(x, y), "node path vs float path")
    gx, gy = ag.grad(f, argnums=(0, 1))(x, y)
    assert_bits(ag.jvp(lambda a: f(a, y), (x,), (1.0,))[1], gx, "jvp vs grad")
    assert_bits(ag.jvp(lambda b: f(x, b), (y,), (1.0,))[1], gy, "jvp vs grad")
    assert all(isinstance(v, float) for row in ag.hessian(f, argnums=(0, 1))(x, y) for v in row)


# --- the rest of the engine sees them -------------------------------------------------


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("x", EDGES)
def test_jit_is_bit_identical_to_eager(name: str, x: float) -> None:
    f = UNARY[name]
    for g in (f, first(f), second(f), ag.hessian(f)):
        assert_bits(ag.jit(g)(x), g(x), f"jit at {x!r}")


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize(("x", "y"), EDGES2)
def test_jit_of_binary_ops_is_bit_identical_to_eager(name: str, x: float, y: float) -> None:
    f = BINARY[name]
    stacks: list[Callable[[float, float], object]] = [
        f,
        ag.grad(f, argnums=(0, 1)),
        ag.hessian(f, argnums=(0, 1)),
        ag.grad(lambda a, b: ag.grad(f)(a, b) * b, argnums=(0, 1)),
    ]
    for g in stacks:
        assert bits_of(ag.jit(g)(x, y)) == bits_of(g(x, y)), (name, x, y)


def bits_of(v: object) -> object:
    if isinstance(v, float):
        return bits(v)
    assert isinstance(v, tuple | list), v
    return [bits_of(u) for u in v]


def test_the_cli_grammar_accepts_the_one_input_names() -> None:
    from autograd.cli import main

    out = io.StringIO()
    expr = "tan(x) + log1p(y) * sign(y) + exp2(z) - arcsin(w)"
    assert main(["grad", expr, "x=0", "y=1", "z=1", "w=0"], out=out) == 0
    assert out.getvalue().splitlines() == [
        f"value = {math.log1p(1.0) + 2.0!r}",
        "d/dx = 1.0",
        "d/dy = 0.5",
        f"d/dz = {2.0 * math.log(2.0)!r}",
        "d/dw = -1.0",
    ]


@pytest.mark.parametrize(
    ("name", "x"), [("tan", INF), ("arcsin", 2.0), ("log1p", -2.0), ("log2", -1.0)]
)
def test_debug_nans_names_the_op_that_made_a_nan(name: str, x: float) -> None:
    f, cls = UNARY[name], CLASSES[name].__name__
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=cls):
        f(x)
    with ag.debug_nans(), pytest.raises(FloatingPointError, match=cls):
        first(f)(x)


def test_debug_nans_names_a_binary_op() -> None:
    with ag.debug_nans(), pytest.raises(FloatingPointError, match="Hypot"):
        ag.grad(ag.hypot)(0.0, 0.0)  # the value is 0.0; the derivative 0 / 0
