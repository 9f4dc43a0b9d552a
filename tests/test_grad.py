"""`grad`, `value_and_grad`, `gradients` and `stop_gradient`: what the core transforms return."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

import autograd as ag
from autograd import Const, Leaf, Node, Scalar


def square(x: Scalar) -> Scalar:
    return x * x


def test_grad_and_value_and_grad_of_a_scalar_function() -> None:
    assert ag.grad(square)(3.0) == 6.0
    assert ag.value_and_grad(square)(3.0) == (9.0, 6.0)
    value, g = ag.value_and_grad(square)(3)
    assert (type(value), type(g)) == (float, float)


def test_constant_output_gives_zeros() -> None:
    def constant(p: Mapping[str, Scalar]) -> Scalar:
        return 1.5

    def integer(p: Mapping[str, Scalar]) -> Scalar:
        return 2

    assert ag.grad(constant)({"a": 1.0, "b": 2.0}) == {"a": 0.0, "b": 0.0}
    assert ag.value_and_grad(integer)({"a": 1.0}) == (2.0, {"a": 0.0})
    assert type(ag.value_and_grad(integer)({"a": 1.0})[0]) is float


def test_unused_input_gets_zero() -> None:
    def first(p: Sequence[Scalar]) -> Scalar:
        return p[0] * 2.0

    assert ag.grad(first)([1.0, 2.0, 3.0]) == [2.0, 0.0, 0.0]


def test_output_that_is_the_input_itself() -> None:
    def identity(x: Node) -> Node:
        return x

    assert ag.value_and_grad(identity)(4.0) == (4.0, 1.0)


def test_has_aux_returns_aux_with_nodes_made_floats() -> None:
    def f(x: Scalar) -> tuple[Scalar, dict[str, object]]:
        return x * x, {"sq": x * x, "n": 3, "s": "text"}

    g, aux = ag.grad(f, has_aux=True)(3.0)
    assert g == 6.0
    assert aux == {"sq": 9.0, "n": 3, "s": "text"}
    assert type(aux["sq"]) is float
    (value, aux2), g2 = ag.value_and_grad(f, has_aux=True)(3.0)
    assert (value, aux2, g2) == (9.0, aux, 6.0)


def test_argnums_tuple_with_has_aux() -> None:
    def f(x: Scalar, y: Scalar) -> tuple[Scalar, Scalar]:
        return x * y, y

    # no overload yet types argnums != 0 together with has_aux (a known gap in _transforms)
    vg = ag.value_and_grad(f, argnums=(0, 1), has_aux=True)  # type: ignore[call-overload]
    assert vg(2.0, 3.0) == ((6.0, 3.0), (3.0, 2.0))


def test_gradients_is_a_per_node_map_keyed_by_identity() -> None:
    a, b = Leaf(2.0), Leaf(2.0)
    m = a * b
    out = m + a
    g = ag.gradients(out)
    assert g[out] == 1.0
    assert g[m] == 1.0
    assert g[a] == 3.0  # b + 1
    assert g[b] == 2.0  # same value as a, a different variable
    assert len(g) == 4
    assert ag.gradients(out) == g  # nothing was stored on the nodes


def test_stop_gradient_on_pytrees() -> None:
    a = Leaf(2.0)
    tree = {"a": [a, 1.0], "b": (a * a, None, "label")}
    stopped = ag.stop_gradient(tree)
    assert list(stopped) == ["a", "b"]
    first, plain = stopped["a"]
    assert type(first) is Const
    assert first.value == 2.0
    assert plain == 1.0
    assert isinstance(stopped["b"], tuple)
    assert type(stopped["b"][0]) is Const
    assert stopped["b"][1:] == (None, "label")
    no_nodes = {"x": [1.0]}
    assert ag.stop_gradient(no_nodes) is no_nodes


def test_gradient_does_not_flow_through_stop_gradient() -> None:
    def f(x: Scalar) -> Scalar:
        return x * ag.stop_gradient([x, x * x])[1]

    assert ag.grad(f)(3.0) == 9.0


def nested(f: Callable[[Scalar], Scalar]) -> Callable[[Scalar], Scalar]:
    """``grad(f)`` used inside another transform, where it takes and returns nodes."""
    return ag.grad(f)


def test_grad_of_grad() -> None:
    def cube(x: Scalar) -> Scalar:
        return x**3

    assert ag.grad(nested(cube))(2.0) == 12.0
    assert ag.grad(nested(nested(cube)))(2.0) == 6.0
    assert ag.grad(nested(nested(nested(cube))))(2.0) == 0.0


def test_no_perturbation_confusion() -> None:
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x: the inner grad treats x as a constant
    def outer(x: Scalar) -> Scalar:
        def inner(y: Scalar) -> Scalar:
            return x * y

        return x * nested(inner)(2.0)

    assert ag.grad(outer)(1.0) == 2.0


def test_nested_grad_through_a_node_passed_twice() -> None:
    def inner(p: Sequence[Scalar]) -> Scalar:
        return p[0] * p[1]

    def outer(x: Scalar) -> Scalar:
        first: Callable[[Sequence[Scalar]], Sequence[Scalar]] = ag.grad(inner)  # type: ignore[assignment]
        g = first([x, x])  # the same node in two positions: two variables
        return g[0] + 2.0 * g[1]  # x + 2x

    assert ag.grad(outer)(5.0) == 3.0


def test_transformed_function_keeps_name_and_doc() -> None:
    transformed: list[Callable[..., object]] = [ag.grad(square), ag.value_and_grad(square)]
    assert [fn.__name__ for fn in transformed] == ["square", "square"]


@pytest.mark.parametrize("x", [0.5, -2.0, 3.0])
def test_grad_is_pure(x: float) -> None:
    params = [x, 2.0]
    before = list(params)

    def f(p: Sequence[Scalar]) -> Scalar:
        return ag.tanh(p[0] * p[1])

    assert ag.grad(f)(params) == ag.grad(f)(params)
    assert params == before
