"""The NumPy dialect of generated code: one statement runs a whole batch at once.

`jit` of a `vmap`ped function compiles the per-example program once; the
statements that depend on a mapped argument operate on
NumPy float64 arrays (one element per example), the rest stay float code.
`codegen` writes those statements in this dialect from the start (the ops'
forwards and rules run on `Sym` within `sym.arrays`): each float helper is
called as its array twin (`twins`), a choice is an element-wise select
(``np_select``), ``c and d`` an element-wise ``and``, a guard checks every
example. Arithmetic operators and comparisons mean the same on arrays.

Each twin gives the float helper's bits element by element, so each example
gets the loop's bits: NumPy's function where it is correctly rounded
(arithmetic, ``sqrt``, ``abs``, selects), the float helper per element where
it is not (``exp``, ``log``, ``tanh``, ...), unless `Options.numpy_functions`
asks for NumPy's own (faster, within the ulp bounds of docs/numerics.md). A
twin called on Python floats is the float helper itself.

NumPy is an optional dependency: without it `HAVE_NUMPY` is false, nothing
here is called, and `vmap` loops over the examples.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias, cast

from autograd.compiler.options import Options
from autograd.compiler.writer import Dialect, GuardFailed
from autograd.core import floats as fl
from autograd.core.nodes import Node
from autograd.core.sym import HELPERS

HAVE_NUMPY = importlib.util.find_spec("numpy") is not None
"""NumPy is an extra: without it `vmap` loops over the examples, under `jit` too."""

np: Any = None
"""NumPy, imported on first use: importing the engine does not import it."""


def _numpy() -> None:
    global np
    if np is None:
        import numpy  # on first use only (import time matters to the CLI)

        np = numpy


Value: TypeAlias = Any
"""A float or a float64 array (NumPy is optional, and its types vary by version)."""


def _elementwise(
    name: str, float_fn: Callable[..., float], array_fn: Callable[..., object]
) -> Callable[..., Value]:
    """``float_fn`` on floats, ``array_fn`` as soon as one argument is an array."""

    def twin(*xs: Value) -> Value:
        if all(type(x) is float for x in xs):
            return float_fn(*xs)
        return array_fn(*xs)

    twin.__name__ = f"np_{name}"
    return twin


def _select(c: object, a: Value, b: Value) -> Value:
    """``a if c else b``, element by element when ``c`` is an array.

    One ``c`` for all examples picks one operand; where the other is a pack
    (`pack`: rows of examples' values), the one picked is each row's value.
    """
    if isinstance(c, np.ndarray):
        return np.where(c, a, b)
    picked, other = (a, b) if c else (b, a)
    if isinstance(other, np.ndarray) and other.ndim > 1 and np.ndim(picked) < other.ndim:
        shape = np.broadcast_shapes(np.shape(picked), other.shape)
        return np.array(np.broadcast_to(picked, shape))
    return picked


def _and(*cs: Value) -> Value:
    """``c and d ...``, element by element when one is an array."""
    if any(isinstance(c, np.ndarray) for c in cs):
        return functools.reduce(np.logical_and, cs)
    return all(cs)


def _check_guard_all(holds: object, expected: bool) -> float:
    """A guard over a batch: every example must go the traced way."""
    if isinstance(holds, np.ndarray):
        if not (bool(holds.all()) if expected else not bool(holds.any())):
            raise GuardFailed
        return 0.0
    if holds is not expected:
        raise GuardFailed
    return 0.0


def _batch_sum(x: Value, size: int) -> float:
    """The sum over a batch in `autograd.sum`'s balanced order: pairs, then pairs of pairs.

    ``x`` is one value per example, or one value for all of them (then it is
    added ``size`` times, in the same order).
    """
    return _batch_sums((x,), size)[0]


def _batch_sums(xs: tuple[Value, ...], size: int) -> list[float]:
    """`_batch_sum` of each of ``xs`` (one value per example, or one for all), at once.

    An entry may also be a 2-d array, rows of a pack (`compiler.pack`): each row is one.
    """
    rows = [x if isinstance(x, np.ndarray) and x.ndim == 2 else None for x in xs]
    if size == 1:
        out: list[float] = []
        for x, block in zip(xs, rows, strict=True):
            if block is not None:
                out += block[:, 0].tolist()
            else:
                out.append(float(x[0]) if isinstance(x, np.ndarray) else float(x))
        return out
    if size <= _STACKED and all(isinstance(x, np.ndarray) for x in xs):
        # small batches: one copy beats a call per row
        return _tree_sums(np.concatenate([x if x.ndim == 2 else x[None, :] for x in xs]))
    n, half = size, size // 2
    count = sum(1 if block is None else len(block) for block in rows)
    a = np.empty((count, half + n % 2))  # the first level, row by row: no copy of the batch
    i = 0
    for x, block in zip(xs, rows, strict=True):
        if block is not None:  # rows i to i + k, each one value per example
            k = len(block)
            np.add(block[:, 0 : n - 1 : 2], block[:, 1:n:2], out=a[i : i + k, :half])
            if n % 2:
                a[i : i + k, half] = block[:, n - 1]
            i += k
            continue
        if isinstance(x, np.ndarray):
            np.add(x[0 : n - 1 : 2], x[1:n:2], out=a[i, :half])
            if n % 2:
                a[i, half] = x[n - 1]
        else:  # one value for every example
            a[i, :half] = x + x
            if n % 2:
                a[i, half] = x
        i += 1
    return _tree_sums(a)


_STACKED = 4096
"""Batches up to this size are summed from one stacked copy; larger ones row by row."""


def _tree_sums(a: Value) -> list[float]:
    """Each row of ``a`` summed in `autograd.sum`'s balanced order."""
    while a.shape[1] > 1:
        n = a.shape[1]
        half = n // 2
        paired = np.empty((a.shape[0], half + n % 2))
        np.add(a[:, 0 : n - 1 : 2], a[:, 1:n:2], out=paired[:, :half])
        if n % 2:  # the last one is carried up a level, as `autograd.sum` does
            paired[:, half] = a[:, n - 1]
        a = paired
    return a[:, 0].tolist()  # type: ignore[no-any-return]


def _col(xs: tuple[Value, ...]) -> Value:
    """Numbers, one per row of a pack (`compiler.pack`), as a column."""
    return np.array(xs)[:, None]


def _index(rows: list[int]) -> Value:
    """Rows of a pack gathered out of order (`compiler.pack`)."""
    return np.array(rows, dtype=np.intp)


def _pow_scalar(x: Value, c: Value) -> Value:
    """`floats.pow_scalar_float` element by element (PyTorch's cheaper exponent paths)."""
    if type(c) is float:
        if c == 2.0:
            return x * x
        if c == 3.0:
            return x * x * x
        if c == 1.0:
            return x
        if c == 0.5:
            return np.sqrt(x)
        if c == -1.0:
            return np.divide(1.0, x)
        if c == -2.0:
            return np.divide(1.0, x * x)
        if c == -0.5:
            return np.divide(1.0, np.sqrt(x))
        return np.power(x, c)
    cases = [
        (c == 2.0, x * x),
        (c == 3.0, x * x * x),
        (c == 1.0, x),
        (c == 0.5, np.sqrt(x)),
        (c == -1.0, np.divide(1.0, x)),
        (c == -2.0, np.divide(1.0, x * x)),
        (c == -0.5, np.divide(1.0, np.sqrt(x))),
    ]
    return np.select([k for k, _ in cases], [v for _, v in cases], np.power(x, c))


def _sign(x: Value) -> Value:
    return np.where(x > 0.0, 1.0, np.where(x < 0.0, -1.0, 0.0))


def _maximum(x: Value, y: Value) -> Value:
    return np.where((x != x) | (y != y), np.nan, np.where(x < y, y, x))


def _minimum(x: Value, y: Value) -> Value:
    return np.where((x != x) | (y != y), np.nan, np.where(y < x, y, x))


@functools.cache
def _array_functions() -> dict[Callable[..., float], Callable[..., object]]:
    """Each float helper's array function (by object: the helpers of `floats`)."""
    return {
        fl.div_float: np.divide,
        fl.sqrt_float: np.sqrt,
        fl.pow_float: np.power,
        fl.pow_scalar_float: _pow_scalar,
        fl.exp_float: np.exp,
        fl.log_float: np.log,
        fl.sigmoid_float: lambda x: 1.0 / (1.0 + np.exp(-x)),
        fl.relu_float: lambda x: np.where(x < 0.0, 0.0, x),
        fl.abs_float: np.abs,
        fl.sin_float: np.sin,
        fl.cos_float: np.cos,
        fl.tan_float: np.tan,
        fl.sinh_float: np.sinh,
        fl.cosh_float: np.cosh,
        fl.arcsin_float: np.arcsin,
        fl.arccos_float: np.arccos,
        fl.arctan_float: np.arctan,
        fl.arctan2_float: np.arctan2,
        fl.hypot_float: np.hypot,
        fl.log1p_float: np.log1p,
        fl.expm1_float: np.expm1,
        fl.log2_float: np.log2,
        fl.log10_float: np.log10,
        fl.exp2_float: np.exp2,
        fl.sign_float: _sign,
        fl.maximum_float: _maximum,
        fl.minimum_float: _minimum,
    }


CORRECTLY_ROUNDED: frozenset[object] = frozenset(
    {
        fl.div_float,
        fl.sqrt_float,
        fl.relu_float,
        fl.abs_float,
        fl.sign_float,
        fl.maximum_float,
        fl.minimum_float,
    }
)
"""Helpers whose twins give the same bits as the float helper (IEEE arithmetic and selects)."""


def _per_element(fn: Callable[..., float]) -> Callable[..., Value]:
    """``fn`` applied element by element: the float helper's bits, as the loop over examples.

    The twin of a helper NumPy does not round as ``math`` does (``exp``,
    ``tanh``, ...), unless `Options.numpy_functions`, and of a helper NumPy has
    no function for (an op a user defines, `define`). A Python call per
    element: about 65 ns, where NumPy's own ``tanh`` takes 2.
    """
    ufuncs: dict[int, Any] = {}

    def each(*xs: Value) -> Value:
        if len(xs) == 1:
            (x,) = xs
            flat = map(fn, x.ravel().tolist())
            return np.fromiter(flat, np.float64, x.size).reshape(x.shape)
        ufunc = ufuncs.get(len(xs))
        if ufunc is None:
            ufunc = ufuncs[len(xs)] = np.frompyfunc(fn, len(xs), 1)
        return np.asarray(ufunc(*xs), dtype=np.float64)

    return each


_MATH_NAMES = {"tanh": "tanh"}
"""Helpers that are ``math``'s own functions: generated-code name to NumPy name."""


def twins(numpy_functions: bool = False) -> dict[str, object]:
    """The array twin of every helper generated code may call, by the twin's name.

    Each gives its float helper's bits element by element: NumPy's function
    where NumPy rounds as ``math`` does (arithmetic, ``sqrt``, selects), the
    helper per element elsewhere. With ``numpy_functions``, NumPy's own
    ``exp``, ``tanh``, ... (within docs/numerics.md's ulp bounds).
    """
    _numpy()
    out: dict[str, object] = {
        "np_select": _select,
        "np_and": _and,
        "np_check_guard": _check_guard_all,
        "batch_sum": _batch_sum,
        "batch_sums": _batch_sums,
        "np_col": _col,
    }
    for name, fn in HELPERS.items():
        if not callable(fn) or name == "check_guard":
            continue
        math_name = _MATH_NAMES.get(name)
        array_fn = getattr(np, math_name) if math_name else _array_functions().get(fn)
        if array_fn is None or not (numpy_functions or fn in CORRECTLY_ROUNDED):
            array_fn = _per_element(fn)  # the helper's own bits
        out[f"np_{name}"] = _elementwise(name, fn, array_fn)
    return out


def dialect(
    varying: Iterable[int],
    options: Options,
    batch_of: dict[Node, int] | None = None,
    sizes: tuple[int, ...] = (),
    arrays: frozenset[int] = frozenset(),
    packed: bool = False,
) -> Dialect:
    """The NumPy dialect for a program whose inputs at ``varying`` hold arrays.

    ``batch_of`` and ``sizes``: the variables of `vmap` calls made inside the
    trace (`compiler.batched`), each batch's number of examples. Batches of
    up to `PACK_UPTO` examples have their parallel statements packed into 2-d
    operations (`compiler.pack`); ``packed`` says so where ``sizes`` are not
    known.
    """
    _numpy()
    largest = max(sizes) if sizes else PACK_UPTO
    rows = options.pack_elements // largest if (packed or sizes) and largest <= PACK_UPTO else 0
    helpers = functools.partial(twins, options.numpy_functions)
    return Dialect(frozenset(varying), helpers, dict(batch_of or {}), sizes, arrays, _index, rows)


def packs(size: int) -> bool:
    """Whether `jit` of a `vmap` packs for a batch of ``size`` examples (`PACK_UPTO`)."""
    return size <= PACK_UPTO


PACK_UPTO = 1024
"""The largest batch whose parallel statements are packed into 2-d operations.

A NumPy call costs about half a microsecond, more than its arithmetic at a hundred
examples: a pack does in one call what took dozens (W6's step at 100 points: 0.6 ms
packed, 1.1 ms a call a statement; at 1,024: 1.8 ms and 1.95 ms). Past that the calls
are cheap beside the arithmetic, and large packs cost more than they save: the C
allocator gives arrays of megabytes back to the system after each step and faults
them in again at the next (at 4,096 points: 5 to 13 ms packed, 4.1 ms not)."""


def column(values: Value) -> Value:
    """One mapped leaf's values (floats, one per example: `vmap` converted them) as an array.

    Raises:
        TypeError: if a value is a node (a later example's: the loop builds on it).
    """
    _numpy()
    if isinstance(values, np.ndarray):
        return values
    return np.array(values, dtype=np.float64)


def as_batch(value: Value, size: int, arrays: bool) -> object:
    """An output of a batched program, one float per example: an array or a list of floats."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value if arrays else value.tolist()
    v = float(value)
    return np.full(size, v) if arrays else [v] * size


def quiet() -> contextlib.AbstractContextManager[object]:
    """IEEE results without NumPy's warnings (``1/0``, ``log(-1)``): floats give them silently."""
    _numpy()
    return cast("contextlib.AbstractContextManager[object]", np.errstate(all="ignore"))
