"""What mypy says to a user: `Node` by name, never the node classes spelled out.

`Node` is a nominal class, so a message about a `Scalar` prints ``float | Node``
and a misuse is one error, where a union of 33 classes printed them all (one
error per class for ``0.0 < n``) and made ``reveal_type(ag.grad)`` 32,900
characters long.
"""

from __future__ import annotations

import textwrap
import typing
from pathlib import Path

import pytest
from mypy import api

import autograd as ag

ROOT = Path(__file__).resolve().parent.parent

SNIPPET = textwrap.dedent(
    """
    import math
    import autograd as ag
    from autograd import Node, Scalar

    def loss(p: dict[str, list[Scalar]]) -> Scalar:
        return p["a"][0] * p["a"][0]

    def misuse(s: Scalar, n: Node) -> None:
        s < 1.0  # line 10
        0.0 < n  # line 11
        ag.grad(loss)({"a": [1.0]})["a"][0].value  # line 12
        math.sqrt(n)  # line 13

    reveal_type(ag.grad)  # line 15
    reveal_type(ag.jacobian)
    reveal_type(ag.grad(loss)({"a": [1.0]}))
    """
)


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[str]]:
    path = tmp_path_factory.mktemp("typing") / "user.py"
    path.write_text(SNIPPET)
    cache = tmp_path_factory.mktemp("cache")
    stdout, _, _ = api.run(["--strict", "--cache-dir", str(cache), str(path)])
    out: dict[int, list[str]] = {}
    for line in stdout.splitlines():
        head, _, rest = line.partition(": ")
        if head.startswith(str(path)):
            out.setdefault(int(head.rsplit(":", 1)[1]), []).append(rest)
    return out


@pytest.mark.parametrize("line", [10, 11, 12, 13])
def test_a_misuse_is_at_most_two_lines_naming_no_node_class(
    messages: dict[int, list[str]], line: int
) -> None:
    said = messages[line]
    assert 1 <= len(said) <= 2, said
    classes = {cls.__name__ for cls in typing.get_args(ag.NodeUnion)}
    assert not any(f'"{c}"' in m or f"| {c} |" in m for m in said for c in classes), said


def test_scalar_prints_as_float_or_node(messages: dict[int, list[str]]) -> None:
    assert messages[10][1] == 'note: Left operand is of type "float | Node"'
    assert messages[12] == [
        'error: Item "float" of "float | Node" has no attribute "value"  [union-attr]'
    ]


def test_revealed_transforms_are_short(messages: dict[int, list[str]]) -> None:
    assert len(messages[15][0]) < 5_000
    assert len(messages[16][0]) < 6_000  # jacobian has twice grad's overloads
    want = 'note: Revealed type is "dict[str, list[float | autograd.core.base.Node]]"'
    assert messages[17] == [want]
