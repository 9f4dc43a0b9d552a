"""Pytrees: flatten nested containers of scalars to leaves and back, with key paths.

Containers are ``list``, ``tuple``, ``NamedTuple``, ``dict`` (also
``OrderedDict`` and ``defaultdict``; insertion order kept), and attrs classes;
``None`` is an empty subtree, as in JAX. A tree is rebuilt with its own
container types, so a gradient has the structure of its input.
"""

from __future__ import annotations

import enum
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Sequence

import attrs

from ._nodes import Scalar, _Arith, int_to_float


class Kind(enum.Enum):
    """How a tree position is rebuilt."""

    LEAF = enum.auto()
    NONE = enum.auto()
    LIST = enum.auto()
    TUPLE = enum.auto()
    NAMEDTUPLE = enum.auto()
    DICT = enum.auto()
    ATTRS = enum.auto()


@attrs.frozen
class TreeDef:
    """The shape of a pytree without its leaves; equal shapes compare equal.

    ``keys`` are the dict keys or attribute names in order; ``meta`` is the
    container class (and a defaultdict's factory), so equality includes both.
    """

    kind: Kind
    children: tuple[TreeDef, ...] = ()
    keys: tuple[object, ...] = ()
    meta: tuple[object, ...] = ()
    num_leaves: int = attrs.field(init=False)

    @num_leaves.default
    def _count(self) -> int:
        if self.kind is Kind.LEAF:
            return 1
        return builtins_sum(c.num_leaves for c in self.children)


builtins_sum = sum
LEAF = TreeDef(Kind.LEAF)
NONE = TreeDef(Kind.NONE)
Path = tuple[tuple[Kind, object], ...]

_CONTAINERS = "list, tuple, dict, NamedTuple or attrs class"


def keystr(root: str, path: Path) -> str:
    """``params['w1'][3]``: a path as the Python expression that reaches it."""
    parts = [root]
    for kind, key in path:
        if kind in (Kind.NAMEDTUPLE, Kind.ATTRS):
            parts.append(f".{key}")
        else:
            parts.append(f"[{key!r}]")
    return "".join(parts)


def scalar_leaf(x: object, root: str, path: Path) -> Scalar:
    """A differentiable leaf as a float or node, or a `TypeError` naming its path."""
    t = type(x)
    if t is float:
        return x  # type: ignore[return-value]  # mypy does not narrow on `type(x) is`
    if isinstance(x, _Arith):
        return x  # type: ignore[return-value]  # every _Arith is a Node
    if t is not bool and isinstance(x, int | float):
        return int_to_float(x) if isinstance(x, int) else float(x)
    hint = {
        bool: "booleans are not differentiable; pass 1.0 or 0.0",
        complex: "only real numbers are differentiable",
        str: "strings are not numbers; convert with float()",
    }.get(t, f"differentiable leaves are floats or ints inside a {_CONTAINERS}")
    raise TypeError(f"{keystr(root, path)} is a {t.__name__} ({x!r:.60}): {hint}")


def flatten(tree: object, root: str) -> tuple[list[Scalar], TreeDef]:
    """The leaves of a differentiated argument, in order, and its shape.

    Raises:
        TypeError: naming the path (``params['w1']``) of the first leaf that is
            not a float, an int or a node, or of an unknown container.
    """
    leaves: list[Scalar] = []

    def leaf(x: object, path: Path) -> TreeDef:
        leaves.append(scalar_leaf(x, root, path))
        return LEAF

    return leaves, _walk(tree, (), leaf, root)


def flatten_any(tree: object) -> tuple[list[object], TreeDef]:
    """Like `flatten`, but anything that is not a known container is a leaf."""
    leaves: list[object] = []

    def leaf(x: object, path: Path) -> TreeDef:
        leaves.append(x)
        return LEAF

    return leaves, _walk(tree, (), leaf, None)


def _walk(
    x: object, path: Path, leaf: Callable[[object, Path], TreeDef], root: str | None
) -> TreeDef:
    """Recurse through containers; ``root`` None means unknown objects are leaves."""
    t = type(x)
    if x is None:
        return NONE
    if isinstance(x, _Arith):  # nodes are attrs classes too, but they are leaves
        return leaf(x, path)
    if t is list or (t is tuple):
        kind = Kind.LIST if t is list else Kind.TUPLE
        seq: Sequence[object] = x  # type: ignore[assignment]  # a list or tuple, as tested
        children = tuple(_walk(v, (*path, (kind, i)), leaf, root) for i, v in enumerate(seq))
        return TreeDef(kind, children)
    if isinstance(x, tuple) and hasattr(t, "_fields"):
        names: tuple[str, ...] = t._fields
        children = tuple(
            _walk(v, (*path, (Kind.NAMEDTUPLE, n)), leaf, root)
            for n, v in zip(names, x, strict=True)
        )
        return TreeDef(Kind.NAMEDTUPLE, children, names, (t,))
    if t is dict or t is OrderedDict or t is defaultdict:
        d: dict[object, object] = x  # type: ignore[assignment]  # one of the dict types tested
        meta: tuple[object, ...] = (t, d.default_factory) if isinstance(d, defaultdict) else (t,)
        children = tuple(_walk(v, (*path, (Kind.DICT, k)), leaf, root) for k, v in d.items())
        return TreeDef(Kind.DICT, children, tuple(d), meta)
    if attrs.has(t):
        fields = attrs.fields(t)
        if root is not None and not all(f.init for f in fields):
            raise TypeError(
                f"{keystr(root, path)} is a {t.__name__} with an init=False field: "
                "it cannot be rebuilt as a gradient"
            )
        fields = tuple(f for f in fields if f.init)
        children = tuple(
            _walk(getattr(x, f.name), (*path, (Kind.ATTRS, f.name)), leaf, root) for f in fields
        )
        return TreeDef(Kind.ATTRS, children, tuple(f.alias for f in fields), (t,))
    if root is not None and not isinstance(x, _Arith | int | float | str | complex):
        raise TypeError(
            f"{keystr(root, path)} is a {t.__name__}, which is not a pytree container: "
            f"use a {_CONTAINERS}"
        )
    return leaf(x, path)


def unflatten(tree: TreeDef, leaves: Sequence[object]) -> object:
    """Rebuild a tree of shape ``tree`` from its leaves, in `flatten` order."""
    it = iter(leaves)
    out = _build(tree, it)
    if next(it, it) is not it:
        raise ValueError(f"too many leaves for a tree of {tree.num_leaves}")
    return out


def _build(tree: TreeDef, it: Iterator[object]) -> object:
    kind = tree.kind
    if kind is Kind.LEAF:
        return next(it)
    if kind is Kind.NONE:
        return None
    children = [_build(c, it) for c in tree.children]
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
    stack: list[tuple[TreeDef, Path]] = [(tree, ())]
    while stack:
        node, path = stack.pop()
        if node.kind is Kind.LEAF:
            out.append(keystr(root, path))
            continue
        keys = node.keys if node.keys else range(len(node.children))
        stack.extend(
            (c, (*path, (node.kind, k)))
            for k, c in reversed(list(zip(keys, node.children, strict=True)))
        )
    return out
