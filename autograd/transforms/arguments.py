"""A transform's arguments: one specification shared by every transform.

`Arguments` is what `grad`, `value_and_grad`, `jacobian`, `hessian`, `jvp`
and `vjp` are made with (the function, ``argnums``, ``has_aux``), checked once when the
transform is made; `jit` reads it to compile a `grad`'s backward pass. Per
call it resolves ``argnums`` against the call's positional arguments
(negative indices count from the end, as in JAX) and makes `Variables`: a
fresh variable per leaf of each differentiated argument, flattened with its
path (``params['w1']``). `jvp` and `vjp` are made with ``argnums=None``:
every primal is differentiated. `split` takes a ``has_aux`` function's ``(output, aux)`` apart and
`aux_values` turns an aux's nodes into floats.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Sequence

from autograd.core.batching import TracedArray
from autograd.core.context import trace_state
from autograd.core.nodes import (
    VARIABLE_ONE,
    Const,
    Leaf,
    Mul,
    Node,
    Scalar,
    _Arith,
    float_result,
    fresh_leaf,
)
from autograd.pytree import TreeDef, flatten, flatten_any, flatten_floats, paths, unflatten


def describe(x: object) -> str:
    """``x`` in an error message: its type and the start of its repr."""
    return f"{type(x).__name__} {x!r:.60}"


def check_callable(fn: object, name: str) -> Callable[..., object]:
    """``fn``, or a `TypeError` saying that transform ``name`` needs a function."""
    if not callable(fn):
        raise TypeError(f"{name}() needs a function, got {describe(fn)}")
    return fn


def positional_names(fn: Callable[..., object]) -> list[str]:
    """The names of ``fn``'s positional parameters (empty if it has no signature)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins and some C callables have none
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in params if p.kind in kinds]


def check_argnums(argnums: object, name: str) -> tuple[int, ...]:
    """``argnums`` as a tuple: an int or a non-empty tuple of distinct ints, negatives allowed.

    Raises:
        TypeError: for anything else (a bool, a float, an empty tuple).
        ValueError: if an index is given twice (``(0, 0)``, ``(-1, -1)``).
    """
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums or not all(type(i) is int for i in nums):
        raise TypeError(
            f"{name}(): argnums must be an int or a non-empty tuple of ints, got {argnums!r}"
        )
    if len(set(nums)) != len(nums):
        raise ValueError(f"{name}(): argnums {argnums!r} repeats an argument")
    return nums


_NEVER = sys.maxsize
"""`Arguments.resolve`'s fast path needs more positional arguments than this: never."""


class Arguments:
    """A transform's function, ``argnums`` and ``has_aux``, checked when the transform is made.

    Attributes:
        fn: the function the transform is applied to.
        name: the transform's name, for messages (``grad``, ``jacobian``, ...).
        argnums: the differentiated positions as given (negatives count from the end);
            ``()`` for ``argnums=None``: every positional argument (`jvp`, `vjp`).
        single: ``argnums`` was an int: the result is one gradient, not a tuple.
        has_aux: ``fn`` returns ``(output, aux)``.
        returns: what ``fn`` returns besides aux, for messages (``scalar``, ``output``).
    """

    __slots__ = (
        "_names",
        "_roots",
        "_top",
        "argnums",
        "fn",
        "has_aux",
        "name",
        "returns",
        "single",
    )

    def __init__(
        self,
        fn: object,
        argnums: object,  # an int, a tuple of ints, or None
        name: str,
        has_aux: bool = False,
        returns: str = "output",
    ) -> None:
        self.fn = check_callable(fn, name)
        self.name = name
        self.has_aux = has_aux
        self.returns = returns
        self.single = isinstance(argnums, int)
        if argnums is None:  # jvp, vjp: every positional argument, paths `primals[i]`
            self.argnums: tuple[int, ...] = ()
            self._names: list[str] | None = None
            self._top = _NEVER
            self._roots: list[str] = []
            return
        self.argnums = check_argnums(argnums, name)
        self._names = positional_names(self.fn)
        # with non-negative argnums, a call with more than `_top` positional arguments
        # differentiates `argnums` as they are (one comparison per call), at these paths
        self._top = max(self.argnums) if min(self.argnums) >= 0 else _NEVER
        self._roots = [self.root(i) for i in self.argnums] if self._top != _NEVER else []

    def resolve(self, n: int) -> tuple[int, ...]:
        """The differentiated positions of a call with ``n`` positional arguments.

        Raises:
            TypeError: naming ``argnums`` and ``n`` if an index is out of range.
            ValueError: if two indices name one argument (``(0, -1)`` with one argument).
        """
        if n > self._top:
            return self.argnums
        for i in self.argnums:
            if not -n <= i < n:
                raise TypeError(
                    f"{self.name}(..., argnums={i}): the function was called with "
                    f"{n} positional argument(s); differentiated arguments are positional"
                )
        nums = tuple(i % n for i in self.argnums)
        if len(set(nums)) != len(nums):
            raise ValueError(
                f"{self.name}(): argnums {self.given!r} repeats an argument: with {n} "
                f"positional argument(s) they are {nums!r}"
            )
        return nums

    @property
    def given(self) -> int | tuple[int, ...]:
        """``argnums`` as the user wrote it (an int or a tuple)."""
        return self.argnums[0] if self.single else self.argnums

    def root(self, i: int) -> str:
        """The path of positional argument ``i`` (resolved): its parameter name, or ``args[i]``."""
        names = self._names
        if names is None:
            return f"primals[{i}]"
        return names[i] if i < len(names) else f"args[{i}]"

    def variables(self, args: Sequence[object]) -> Variables:
        """Fresh variables for the differentiated arguments of a call.

        Raises:
            TypeError: as `resolve`, or naming the path of a leaf that is not a number.
        """
        n = len(args)
        if n > self._top:  # the common case: non-negative argnums, all present
            return Variables(args, self.argnums, self._roots)
        nums = range(n) if self._names is None else self.resolve(n)
        return Variables(args, nums, [self.root(i) for i in nums])

    def split(self, result: object) -> tuple[object, object]:
        """``(output, aux)`` of what ``fn`` returned (aux ``None`` without ``has_aux``).

        Raises:
            TypeError: with ``has_aux``, if ``result`` is not a pair.
        """
        if not self.has_aux:
            return result, None
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError(
                f"{self.name}(..., has_aux=True) needs the function to return a pair "
                f"({self.returns}, aux), got {describe(result)}"
            )
        return result[0], result[1]


class Variables:
    """Fresh variables for the differentiated arguments of one call.

    Attributes:
        args: the call's positional arguments, each differentiated one rebuilt from its variables.
        groups: the variables of each differentiated argument, in ``argnums`` order.
        trees: the structure of each differentiated argument.
        all: every variable, flat, in order.
        linked: whether some differentiated leaf is a node, not a number: then
            `grad`'s results are nodes linked to its graph (node in, node out).
    """

    __slots__ = ("all", "args", "groups", "linked", "trees")
    all: list[Node]
    args: list[object]
    groups: list[list[Node]]
    linked: bool
    trees: list[TreeDef]

    def __init__(self, args: Sequence[object], nums: Sequence[int], roots: Sequence[str]) -> None:
        self.args = list(args)
        make = variable if trace_state.get() is None else traced_variable
        if len(nums) == 1:  # one differentiated argument: the common call, with no loops
            i = nums[0]
            floats = flatten_floats(args[i])
            if floats is not None and make is variable:  # fresh leaves, nothing linked
                numbers, tree = floats
                vs: list[Node] = list(map(fresh_leaf, numbers))
                self.linked = False
            else:
                leaves, tree = flatten(args[i], roots[0])
                vs = list(map(make, leaves))
                self.linked = list(map(type, vs)).count(Leaf) != len(vs)
            self.trees, self.groups, self.all = [tree], [vs], vs
            self.args[i] = unflatten(tree, vs)
            return
        # errors first; roots are made from nums (and flat from both): zip's strict check is slow
        flat = [flatten(args[i], root) for i, root in zip(nums, roots)]  # noqa: B905
        self.trees, self.groups, self.all = [], [], []
        for i, (leaves, tree) in zip(nums, flat):  # noqa: B905  # one loop: a call's fixed cost
            vs = list(map(make, leaves))
            self.trees.append(tree)
            self.groups.append(vs)
            self.all += vs
            self.args[i] = unflatten(tree, vs)
        # a node argument (a user's Leaf, an outer graph): results are nodes linked to it;
        # every other variable is a Leaf (counted in C: no generator per call)
        self.linked = list(map(type, self.all)).count(Leaf) != len(self.all)

    def shape(self, flat: Sequence[object], single: bool) -> object:
        """Values for `all`, in order, rebuilt as the arguments (a tuple of them unless single)."""
        if single:
            return unflatten(self.trees[0], flat)
        trees: list[object] = []
        start = 0
        for vs, tree in zip(self.groups, self.trees, strict=True):
            trees.append(unflatten(tree, flat[start : start + len(vs)]))
            start += len(vs)
        return tuple(trees)


def variable(x: Scalar) -> Node:
    """A fresh variable for one leaf position.

    A node leaf (from an outer transform) becomes ``x * 1.0``: the same value,
    linked to ``x``, but its own variable even when one node fills two positions.
    """
    if type(x) is float:
        return fresh_leaf(x)
    return Mul(x, VARIABLE_ONE) if isinstance(x, _Arith) else Leaf(x)


def traced_variable(x: Scalar) -> Node:
    """`variable` in a `jit` trace: a number becomes ``Const(x) * 1.0`` too.

    The compiled program computes it (the mark is an alias: ``x`` keeps its
    bits), where a fresh `Leaf` would be an input it lacks; the eager call
    holds a node there too.
    """
    return Mul(x if isinstance(x, _Arith) else Const(x), VARIABLE_ONE)


def as_floats(tree: object, root: str = "result") -> object:
    """A transform's results, in a `jit` trace, where the eager call gets them as floats.

    Each node is marked so (`float_result`); the pytree is as it was (`floats_in_eager`).

    Raises:
        TypeError: naming the path (``aux['stats']``) of a leaf eager's `aux_values` refuses.
    """
    leaves, shape = result_leaves(tree, root)
    return unflatten(shape, [float_result(x) for x in leaves])


def aux_values(tree: object, root: str = "aux") -> object:
    """``tree`` with every node replaced by its float value (for aux outputs).

    Raises:
        TypeError: naming the path of a leaf that is an unknown object (see `result_leaves`).
    """
    leaves, shape = result_leaves(tree, root)
    if not any(isinstance(x, _Arith) for x in leaves):
        return tree
    return unflatten(shape, [x.value if isinstance(x, _Arith) else x for x in leaves])


_RESULT_LEAVES = (_Arith, int, float, complex, str, bytes)
"""Leaves of a result or aux: nodes, and immutable values that cannot hold a node."""


def result_leaves(tree: object, root: str) -> tuple[list[object], TreeDef]:
    """The leaves of a function's result (or aux) and its shape, every leaf a node or a number.

    A set, a dataclass or any other object that is not a pytree container
    could hold nodes that would outlive the transform (a node from a `jit`
    trace, a variable of `grad`), so it is refused rather than returned as it is.

    Raises:
        TypeError: naming the path (``aux['stats']``) of the first such leaf.
    """
    leaves, shape = flatten_any(tree)
    for i, x in enumerate(leaves):
        if not isinstance(x, _RESULT_LEAVES):
            # a NumPy array `jit` traces is named as the eager call names the array
            what = (
                f"ndarray (traced by jit: {len(x)} float64 values)"
                if type(x) is TracedArray
                else f"{type(x).__name__} ({x!r:.60})"
            )
            raise TypeError(
                f"{paths(shape, root)[i]} is a {what}, which a transform "
                "cannot convert: results and aux are pytrees (lists, tuples, dicts, NamedTuples, "
                "attrs classes, None) of nodes, numbers and strings"
            )
    return leaves, shape


def as_node(v: Scalar) -> Node:
    """``v`` itself if it is a node, else a `Const` holding it: what a node in gives back.

    A transform called on nodes returns nodes linked to their graph, a zero
    gradient or a constant value included, so its results are typed `Node`.
    """
    return v if isinstance(v, _Arith) else Const(v)
