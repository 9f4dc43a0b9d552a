"""Pytrees: flatten nested containers of scalars to leaves and back, with key paths.

Containers are ``list``, ``tuple``, ``NamedTuple``, ``dict`` (also
``OrderedDict`` and ``defaultdict``; insertion order kept), and attrs classes;
``None`` is an empty subtree, as in JAX. A tree is rebuilt with its own
container types, so a gradient has the structure of its input.

Every walk here is iterative, so a tree may nest as deep as memory allows;
a container that contains itself is refused with its path, not followed.
"""

from __future__ import annotations

import enum
import functools
import operator
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeAlias

import attrs

from autograd.core.nodes import NotANumber, Scalar, _Arith, to_float


class Kind(enum.Enum):
    """How a tree position is rebuilt."""

    LEAF = enum.auto()
    NONE = enum.auto()
    LIST = enum.auto()
    TUPLE = enum.auto()
    NAMEDTUPLE = enum.auto()
    DICT = enum.auto()
    ATTRS = enum.auto()


@attrs.frozen(eq=False)
class TreeDef:
    """The shape of a pytree without its leaves; equal shapes compare equal.

    ``keys`` are the dict keys or attribute names in order; ``meta`` is the
    container class (and a defaultdict's factory), so equality includes both.
    Equality, hashing and ``repr`` never recurse: a shape may nest deeply.
    """

    kind: Kind
    children: tuple[TreeDef, ...] = attrs.field(default=(), repr=lambda c: f"<{len(c)} subtrees>")
    keys: tuple[object, ...] = ()
    meta: tuple[object, ...] = ()
    num_leaves: int = attrs.field(init=False)
    _hash: int = attrs.field(init=False, repr=False)
    flat: bool = attrs.field(init=False, repr=False)
    """A container whose children are all leaves (`unflatten`'s fast path)."""

    @num_leaves.default
    def _count(self) -> int:
        if self.kind is Kind.LEAF:
            return 1
        return builtins_sum(c.num_leaves for c in self.children)

    @flat.default
    def _all_leaves(self) -> bool:
        containers = (Kind.LIST, Kind.TUPLE, Kind.NAMEDTUPLE, Kind.DICT, Kind.ATTRS)
        return self.kind in containers and all(c.kind is Kind.LEAF for c in self.children)

    @_hash.default
    def _hash_of_parts(self) -> int:  # from the children's stored hashes: O(1) per level
        return hash((self.kind, self.keys, self.meta, tuple(c._hash for c in self.children)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TreeDef):
            return NotImplemented
        pairs = [(self, other)]
        while pairs:
            a, b = pairs.pop()
            if a is b:
                continue
            if (
                a._hash != b._hash
                or a.kind is not b.kind
                or len(a.children) != len(b.children)
                or a.keys != b.keys
                or a.meta != b.meta
            ):
                return False
            pairs.extend(zip(a.children, b.children, strict=True))
        return True


builtins_sum = sum
_LEAF, _LIST, _TUPLE, _DICT = Kind.LEAF, Kind.LIST, Kind.TUPLE, Kind.DICT
"""`unflatten`'s fast paths compare with these: reading a member off `Kind` is an attribute
lookup on the enum class each time (CPython 3.11: about 60 ns)."""
LEAF = TreeDef(Kind.LEAF)
NONE = TreeDef(Kind.NONE)
Path: TypeAlias = tuple["Path", Kind, object] | None
"""A key path as a linked list, innermost step first: ``(parent, kind, key)``;
None is the root. Appending a step is O(1), however deep the tree."""

_CONTAINERS = "list, tuple, dict, NamedTuple or attrs class"


def keystr(root: str, path: Path) -> str:
    """``params['w1'][3]``: a path as the Python expression that reaches it."""
    parts: list[str] = []
    while path is not None:
        path, kind, key = path
        parts.append(f".{key}" if kind in (Kind.NAMEDTUPLE, Kind.ATTRS) else f"[{key!r}]")
    parts.append(root)
    return "".join(reversed(parts))


def scalar_leaf(x: object, root: str, path: Path) -> Scalar:
    """A differentiable leaf as a float or node.

    Raises:
        TypeError: naming its path, for a bool, complex, str or non-number.
        ValueError: naming its path, for a real number float64 does not hold
            exactly (``Fraction(1, 3)``, ``Decimal('0.1')``).
    """
    if type(x) is float or isinstance(x, _Arith):
        return x
    t = type(x)
    try:
        return to_float(x)
    except NotANumber:
        raise TypeError(
            f"{keystr(root, path)} is a {t.__name__}, which is not a pytree container: "
            f"use a {_CONTAINERS}"
        ) from None
    except (TypeError, ValueError) as e:
        raise type(e)(f"{keystr(root, path)} is a {t.__name__} ({x!r:.60}): {e}") from None


def flatten(tree: object, root: str) -> tuple[list[Scalar], TreeDef]:
    """The leaves of a differentiated argument, in order, and its shape.

    Raises:
        TypeError: naming the path (``params['w1']``) of the first leaf that is
            not a number or a node, of an unknown container, or of a container
            that contains itself.
        ValueError: naming the path of a number float64 does not hold exactly.
    """
    flat = flatten_floats(tree)
    if flat is not None:
        return flat  # type: ignore[return-value]  # floats are scalars (a list is invariant)
    leaves, shape = _walk(tree, root, strict=True)
    return leaves, shape  # type: ignore[return-value]  # strict leaves are scalar_leaf's


def flatten_floats(tree: object) -> tuple[list[float], TreeDef] | None:
    """`flatten`'s fast paths: a float, or a dict, list or tuple of floats; else None.

    >>> flatten_floats({"a": 1.0, "b": 2.0})[0], flatten_floats([1.0, 2]) is None
    ([1.0, 2.0], True)
    """
    t = type(tree)
    if t is float:
        return [tree], LEAF  # type: ignore[list-item]  # mypy does not narrow on `type(x) is`
    if t is dict or t is list or t is tuple:  # no cast() or generator here: a call's fixed cost
        values: list[float] = list(tree.values() if t is dict else tree)  # type: ignore[attr-defined, arg-type]  # a dict, list or tuple
        if list(map(type, values)).count(float) == len(values):
            return values, _flat_shape(tree, t, len(values))
    return None


def _flat_shape(tree: object, t: type, n: int) -> TreeDef:
    """The shape `_walk` gives a dict, list or tuple of ``n`` floats; the common ones kept."""
    keys: tuple[object, ...] = ()
    if t is dict:
        keys = tuple(tree)  # type: ignore[arg-type]  # a dict
        if list(map(type, keys)).count(str) != n:  # 1, 1.0 and True are equal keys, but differ
            return TreeDef(Kind.DICT, (LEAF,) * n, keys, (dict,))
    key = keys if t is dict else (t, n)
    shape = _flat_shapes.get(key)
    if shape is None:
        if len(_flat_shapes) >= _FLAT_SHAPES:
            _flat_shapes.clear()
        kind = Kind.DICT if t is dict else Kind.LIST if t is list else Kind.TUPLE
        shape = TreeDef(kind, (LEAF,) * n, keys, (dict,) if t is dict else ())
        _flat_shapes[key] = shape
    return shape


_flat_shapes: dict[tuple[object, ...], TreeDef] = {}
"""Shapes of flat arguments by their str keys (dicts) or (type, length): a call in a loop
builds none. Immutable, so shared; cleared when it reaches `_FLAT_SHAPES` entries."""
_FLAT_SHAPES = 256


def flatten_any(tree: object, root: str = "tree") -> tuple[list[object], TreeDef]:
    """Like `flatten`, but anything that is not a known container is a leaf.

    Raises:
        TypeError: naming the path from ``root`` of a container that contains itself.
    """
    return _walk(tree, root, strict=False)


class _Frame:
    """A container being walked: its remaining items and the shapes made so far."""

    __slots__ = ("children", "container", "items", "keys", "kind", "meta", "path")

    def __init__(
        self,
        container: object,
        kind: Kind,
        items: Iterable[tuple[object, object]],
        keys: tuple[object, ...] = (),
        meta: tuple[object, ...] = (),
    ) -> None:
        self.container, self.kind, self.items = container, kind, iter(items)
        self.keys, self.meta = keys, meta
        self.children: list[TreeDef] = []
        self.path: Path = None

    def shape(self) -> TreeDef:
        return TreeDef(self.kind, tuple(self.children), self.keys, self.meta)


def _walk(tree: object, root: str, strict: bool) -> tuple[list[object], TreeDef]:
    """Containers depth first with an explicit stack; ``strict`` checks the leaves."""
    leaves: list[object] = []
    add = leaves.append
    stack: list[_Frame] = []
    open_: dict[int, _Frame] = {}  # the containers on the current path, for cycles
    x, path = tree, None
    while True:
        if type(x) is float or isinstance(x, _Arith):
            add(x)
            done: TreeDef | None = LEAF
        elif x is None:
            done = NONE
        else:
            frame = _frame(x, root, path, strict)
            if frame is None:
                add(scalar_leaf(x, root, path) if strict else x)
                done = LEAF
            else:
                _enter(frame, path, open_, root)
                stack.append(frame)
                done = None
        x, path, done = _climb(stack, open_, done, add)
        if not stack:
            assert done is not None  # the stack empties only after the root's shape
            return leaves, done


def _enter(frame: _Frame, path: Path, open_: dict[int, _Frame], root: str) -> None:
    outer = open_.get(id(frame.container))
    if outer is not None:
        raise TypeError(
            f"{keystr(root, path)} is {keystr(root, outer.path)} again, which contains it: "
            "a pytree cannot contain itself"
        )
    frame.path = path
    open_[id(frame.container)] = frame


def _climb(
    stack: list[_Frame],
    open_: dict[int, _Frame],
    done: TreeDef | None,
    add: Callable[[object], None],
) -> tuple[object, Path, TreeDef | None]:
    """Hand ``done`` to the innermost open container; the next item to visit, with its path.

    Float items are taken here, without a path: the common flat case stays fast.
    """
    while stack:
        frame = stack[-1]
        children = frame.children
        if done is not None:
            children.append(done)
        for key, v in frame.items:
            if type(v) is float:
                add(v)
                children.append(LEAF)
                continue
            return v, (frame.path, frame.kind, key), None
        stack.pop()
        del open_[id(frame.container)]
        done = frame.shape()
    return None, None, done


def _frame(x: object, root: str, path: Path, strict: bool) -> _Frame | None:
    """A frame for a known container, or None for a leaf."""
    t = type(x)
    if t is list:
        return _Frame(x, Kind.LIST, enumerate(x))  # type: ignore[arg-type]  # a list, as tested
    if t is tuple:
        return _Frame(x, Kind.TUPLE, enumerate(x))  # type: ignore[arg-type]  # a tuple
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        names: tuple[str, ...] = t._fields
        return _Frame(x, Kind.NAMEDTUPLE, zip(names, x, strict=True), names, (t,))
    if t is dict or t is OrderedDict or t is defaultdict:
        d: dict[object, object] = x  # type: ignore[assignment]  # one of the dict types tested
        meta: tuple[object, ...] = (t, d.default_factory) if isinstance(d, defaultdict) else (t,)
        return _Frame(x, Kind.DICT, d.items(), tuple(d), meta)
    if attrs.has(t):
        fields = attrs.fields(t)
        if strict and not all(f.init for f in fields):
            raise TypeError(
                f"{keystr(root, path)} is a {t.__name__} with an init=False field: "
                "it cannot be rebuilt as a gradient"
            )
        fields = tuple(f for f in fields if f.init)
        items = [(f.name, getattr(x, f.name)) for f in fields]
        return _Frame(x, Kind.ATTRS, items, tuple(f.alias for f in fields), (t,))
    return None


def builder(tree: TreeDef) -> Callable[[Sequence[object]], object]:
    """`unflatten` for the one shape ``tree``, its checks done once (a jitted call's cost).

    The leaves must be exactly ``tree.num_leaves``: the caller guarantees it.

    >>> builder(flatten({"a": 1.0, "b": 2.0}, "p")[1])([3.0, 4.0])
    {'a': 3.0, 'b': 4.0}
    """
    kind = tree.kind
    if kind is Kind.LEAF:
        return operator.itemgetter(0)
    if tree.flat and kind is Kind.LIST:
        return list
    if tree.flat and kind is Kind.TUPLE:
        return tuple
    if tree.flat and kind is Kind.DICT and tree.meta[0] is dict:
        keys = tree.keys
        return lambda leaves: dict(zip(keys, leaves))  # noqa: B905  # lengths as the shape's
    return _generated(tree) or functools.partial(unflatten, tree)


_GENERATED_DEPTH = 16
_GENERATED_LEAVES = 20_000
"""Nested lists, tuples and dicts up to these sizes get a generated builder (one expression)."""


_PAIR_LEAVES = 32
"""`pair_builder` writes displays up to this many leaves; then a slice and `builder` cost less."""


def pair_builder(tree: TreeDef) -> Callable[[Sequence[object]], tuple[object, object]]:
    """``L -> (L[0], tree of L[1:])``: a value and a gradient from one flat result.

    >>> pair_builder(flatten({"a": 1.0, "b": 2.0}, "p")[1])([5.0, 3.0, 4.0])
    (5.0, {'a': 3.0, 'b': 4.0})
    """
    if tree.num_leaves <= _PAIR_LEAVES:
        built = _generated(tree, pair=True)
        if built is not None:
            return built  # type: ignore[return-value]  # with ``pair``, a pair
    rebuild = builder(tree)
    return lambda flat: (flat[0], rebuild(flat[1:]))


def _generated(tree: TreeDef, pair: bool = False) -> Callable[[Sequence[object]], object] | None:
    """A function rebuilding ``tree`` in one expression of displays; None for other kinds.

    ``[[L[0], L[1]], {K0[0]: L[2]}]``: the containers of a parameter tree
    (lists, tuples, plain dicts, ``None``), built without a walk. Dict keys are
    the shape's own key objects, read from tuples in the function's globals.
    With ``pair``, ``(L[0], tree)`` with the tree's leaves from ``L[1]`` on.
    """
    if tree.num_leaves > _GENERATED_LEAVES:
        return None
    keys: dict[str, tuple[object, ...]] = {}
    leaf = iter(range(pair, tree.num_leaves + pair))

    def source(t: TreeDef, depth: int) -> str | None:
        if depth > _GENERATED_DEPTH:
            return None
        if t.kind is Kind.LEAF:
            return f"L[{next(leaf)}]"
        if t.kind is Kind.NONE:
            return "None"
        parts = [source(c, depth + 1) for c in t.children]
        if any(p is None for p in parts):
            return None
        if t.kind is Kind.LIST:
            return f"[{', '.join(parts)}]"  # type: ignore[arg-type]  # no None, as checked
        if t.kind is Kind.TUPLE:
            return f"({''.join(f'{p}, ' for p in parts)})"
        if t.kind is Kind.DICT and t.meta[0] is dict:
            name = f"K{len(keys)}"
            keys[name] = t.keys
            return "{" + ", ".join(f"{name}[{j}]: {p}" for j, p in enumerate(parts)) + "}"
        return None  # a NamedTuple, attrs class or dict subclass: `unflatten` knows them

    expr = source(tree, 0)
    if expr is None:
        return None
    if pair:
        expr = f"(L[0], {expr})"
    namespace: dict[str, object] = dict(keys)
    # the source is our own displays of containers and indices: no user text in it
    exec(compile(f"def build(L):\n    return {expr}\n", "<pytree.builder>", "exec"), namespace)
    return namespace.pop("build")  # type: ignore[return-value]  # the function just defined


def unflatten(tree: TreeDef, leaves: Sequence[object]) -> object:
    """Rebuild a tree of shape ``tree`` from its leaves, in `flatten` order.

    Raises:
        ValueError: if there are fewer or more leaves than the shape has.
    """
    if len(leaves) != tree.num_leaves:
        raise ValueError(f"a tree of {tree.num_leaves} leaves cannot take {len(leaves)}")
    kind = tree.kind
    if tree.flat:  # a dict, list or tuple of leaves: built at once
        if kind is _LIST:
            return list(leaves)
        if kind is _TUPLE:
            return tuple(leaves)
        if kind is _DICT and tree.meta[0] is dict:
            return dict(zip(tree.keys, leaves))  # noqa: B905  # lengths checked above; strict is slow
    if kind is _LEAF:
        return leaves[0]
    if kind is Kind.NONE:
        return None
    it = iter(leaves)
    stack: list[tuple[TreeDef, list[object], Iterator[TreeDef]]] = [(tree, [], iter(tree.children))]
    while True:
        shape, built, rest = stack[-1]
        for c in rest:
            kind = c.kind
            if kind is Kind.LEAF:
                built.append(next(it))
            elif kind is Kind.NONE:
                built.append(None)
            else:
                stack.append((c, [], iter(c.children)))
                break
        else:
            stack.pop()
            obj = _make(shape, built)
            if not stack:
                return obj
            stack[-1][1].append(obj)


def _make(tree: TreeDef, children: list[object]) -> object:
    """One container of shape ``tree`` around its rebuilt children."""
    kind = tree.kind
    if kind is Kind.LIST:
        return children
    if kind is Kind.TUPLE:
        return tuple(children)
    cls: Callable[..., object] = tree.meta[0]  # type: ignore[assignment]  # the container class
    if kind is Kind.NAMEDTUPLE:
        return cls(*children)
    if kind is Kind.DICT:
        pairs = zip(tree.keys, children, strict=True)
        return defaultdict(tree.meta[1], pairs) if cls is defaultdict else cls(pairs)  # type: ignore[call-overload]  # meta[1] is the factory
    return cls(**dict(zip(tree.keys, children, strict=True)))  # type: ignore[arg-type]  # attrs aliases are str


def paths(tree: TreeDef, root: str) -> list[str]:
    """The key path of every leaf, in `flatten` order: ``["params['w']", ...]``."""
    out: list[str] = []
    stack: list[tuple[TreeDef, Path]] = [(tree, None)]
    while stack:
        node, path = stack.pop()
        if node.kind is Kind.LEAF:
            out.append(keystr(root, path))
            continue
        keys = node.keys if node.keys else range(len(node.children))
        stack.extend(
            (c, (path, node.kind, k))
            for k, c in reversed(list(zip(keys, node.children, strict=True)))
        )
    return out
