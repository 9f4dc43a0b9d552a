"""Errors: a clear TypeError that names the path into the argument, raised before any work."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import attrs
import pytest

import autograd as ag
from autograd import Node, Scalar

calls: list[object] = []


def loss(params: Mapping[str, Scalar]) -> Scalar:
    calls.append(params)
    return params["w1"] * params["w2"]


@pytest.fixture(autouse=True)
def _no_calls() -> None:
    calls.clear()


@pytest.mark.parametrize(
    ("w1", "message"),
    [
        (
            "a",
            r"^params\['w1'\] is a str \('a'\): strings are not numbers; convert with float\(\)$",
        ),
        (True, r"^params\['w1'\] is a bool \(True\): booleans are not differentiable"),
        (1j, r"^params\['w1'\] is a complex \(1j\): only real numbers are differentiable$"),
        ({1.0, 2.0}, r"^params\['w1'\] is a set, which is not a pytree container: use a list"),
        (b"1", r"^params\['w1'\] is a bytes, which is not a pytree container"),
    ],
    ids=["str", "bool", "complex", "set", "bytes"],
)
def test_bad_leaf_is_a_type_error_naming_its_path(w1: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        ag.grad(loss)({"w1": w1, "w2": 1.0})  # type: ignore[dict-item]
    assert calls == []  # refused before the function ran


def test_path_reaches_into_nested_containers() -> None:
    def f(params: dict[str, list[dict[str, list[object]]]]) -> Scalar:
        return 0.0

    bad: dict[str, list[dict[str, list[object]]]] = {"layers": [{"w": [1.0, 2.0, "3"]}]}
    with pytest.raises(TypeError, match=r"^params\['layers'\]\[0\]\['w'\]\[2\] is a str"):
        ag.grad(f)(bad)


class Pair(NamedTuple):
    a: float
    b: object


@attrs.frozen
class Params:
    w: float
    extra: object


def test_path_names_namedtuple_and_attrs_fields() -> None:
    def f(params: Pair) -> Scalar:
        return 0.0

    def g(params: Params) -> Scalar:
        return 0.0

    with pytest.raises(TypeError, match=r"^params\.b is a str"):
        ag.grad(f)(Pair(1.0, "x"))
    with pytest.raises(TypeError, match=r"^params\.extra\[0\] is a complex"):
        ag.grad(g)(Params(1.0, [2j]))


def test_unknown_container_is_refused_by_name() -> None:
    class Box:
        pass

    def f(params: dict[str, Box]) -> Scalar:
        return 0.0

    with pytest.raises(
        TypeError, match=r"^params\['w'\] is a Box, which is not a pytree container"
    ):
        ag.grad(f)({"w": Box()})


def test_path_root_is_the_parameter_name_or_args_index() -> None:
    def two(x: Scalar, y: Scalar) -> Scalar:
        return x * y

    def star(*xs: Scalar) -> Scalar:
        return xs[0]

    with pytest.raises(TypeError, match=r"^y is a str"):
        ag.grad(two, argnums=(0, 1))(1.0, "2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^args\[0\] is a str"):
        ag.grad(star)("x")  # type: ignore[call-overload]


def test_second_argument_error_comes_before_any_work() -> None:
    def two(x: Scalar, y: Scalar) -> Scalar:
        calls.append(x)
        return x * y

    with pytest.raises(TypeError, match=r"^y is a bool"):
        ag.grad(two, argnums=(0, 1))(1.0, False)  # a bool is a float to mypy, not to grad
    assert calls == []


@pytest.mark.parametrize(
    ("out", "shown"),
    [([1.0], r"list \[1\.0\]"), ("s", "str 's'"), (True, "bool True"), (None, "NoneType None")],
    ids=["list", "str", "bool", "None"],
)
def test_non_scalar_output_is_a_type_error(out: object, shown: str) -> None:
    def f(x: Scalar) -> Scalar:
        return out  # type: ignore[return-value]

    message = rf"^grad\(\) needs the function to return a scalar \(a float or a Node\), got {shown}"
    with pytest.raises(TypeError, match=message):
        ag.grad(f)(1.0)
    with pytest.raises(TypeError, match=message.replace("grad", "value_and_grad", 1)):
        ag.value_and_grad(f)(1.0)


NOT_INTS = "argnums must be an int or a non-empty tuple of ints"


@pytest.mark.parametrize(
    ("argnums", "error", "message"),
    [
        ((-1, -1), ValueError, r"argnums \(-1, -1\) repeats an argument"),
        (1.0, TypeError, f"{NOT_INTS}, got 1.0"),
        (True, TypeError, f"{NOT_INTS}, got True"),
        ((), TypeError, rf"{NOT_INTS}, got \(\)"),
        ((0, "1"), TypeError, rf"{NOT_INTS}, got \(0, '1'\)"),
        ((0, 0), ValueError, r"argnums \(0, 0\) repeats an argument"),
    ],
)
def test_bad_argnums_is_refused_when_the_transform_is_made(
    argnums: object, error: type[Exception], message: str
) -> None:
    def f(x: Scalar) -> Scalar:
        return x

    with pytest.raises(error, match=rf"^grad\(\): {message}"):
        ag.grad(f, argnums=argnums)  # type: ignore[call-overload]
    with pytest.raises(error, match=rf"^value_and_grad\(\): {message}"):
        ag.value_and_grad(f, argnums=argnums)  # type: ignore[call-overload]


def test_argnums_beyond_the_positional_arguments_is_refused_at_call() -> None:
    def f(x: Scalar, y: Scalar = 1.0) -> Scalar:
        return x * y

    message = (
        r"^grad\(\.\.\., argnums=1\): the function was called with 1 positional argument\(s\); "
        "differentiated arguments are positional"
    )
    with pytest.raises(TypeError, match=message):
        ag.grad(f, argnums=1)(2.0)  # type: ignore[call-arg]  # the mistake under test
    with pytest.raises(TypeError, match=message):
        ag.grad(f, argnums=1)(2.0, y=3.0)  # type: ignore[call-arg]  # the mistake under test


def test_not_a_function_is_refused() -> None:
    with pytest.raises(TypeError, match=r"^grad\(\) needs a function, got int 3$"):
        ag.grad(3)  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("out", "shown"),
    [(1.0, "float 1.0"), ((1.0, 2.0, 3.0), r"tuple \(1\.0, 2\.0, 3\.0\)"), ([1.0, 2.0], "list")],
    ids=["scalar", "triple", "list"],
)
def test_has_aux_needs_a_pair(out: object, shown: str) -> None:
    def f(x: Scalar) -> tuple[Scalar, object]:
        return out  # type: ignore[return-value]

    message = r"^grad\(\.\.\., has_aux=True\) needs the function to return a pair \(scalar, aux\)"
    with pytest.raises(TypeError, match=f"{message}, got {shown}"):
        ag.grad(f, has_aux=True)(1.0)


def test_has_aux_pair_with_non_scalar_first_is_refused() -> None:
    def f(x: Scalar) -> tuple[Scalar, object]:
        return [x], None  # type: ignore[return-value]

    with pytest.raises(TypeError, match=r"needs the function to return a scalar"):
        ag.value_and_grad(f, has_aux=True)(1.0)


def test_an_error_inside_the_function_leaves_no_nesting_behind() -> None:
    def boom(x: Scalar) -> Scalar:
        raise ZeroDivisionError("user code")

    def outer(x: Node) -> Scalar:
        return ag.grad(boom)(x)

    with pytest.raises(ZeroDivisionError):
        ag.grad(boom)(1.0)
    with pytest.raises(ZeroDivisionError):
        ag.grad(outer)(1.0)

    def square(x: Scalar) -> Scalar:
        return x * x

    assert type(ag.grad(square)(3.0)) is float  # a top-level call again: floats, not nodes


def test_node_value_must_be_a_real_number() -> None:
    with pytest.raises(TypeError, match=r"^a node value must be a float or an int, got str 'a'$"):
        ag.Leaf("a")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got bool True"):
        ag.Const(True)


def test_gradients_needs_a_node() -> None:
    with pytest.raises(TypeError, match=r"^gradients\(\) needs a Node, got float 1\.0$"):
        ag.gradients(1.0)  # type: ignore[arg-type]


def test_dot_of_unequal_lengths_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^dot\(\) needs sequences of equal length, got 1 and 2$"):
        ag.dot([1.0], [1.0, 2.0])


NODE_HINT = re.escape(
    "Leaf(value=1.0) is a graph node, not a number: compare or convert its `.value`, "
    "and use autograd.exp/log/tanh/... instead of math.*"
)


@pytest.mark.parametrize(
    "use",
    [bool, float, int, round, complex, lambda n: n < 1, lambda n: n >= 1, lambda n: [0, 1][n]],
    ids=["bool", "float", "int", "round", "complex", "lt", "ge", "index"],
)
def test_using_a_node_as_a_number_is_a_type_error_with_a_hint(
    use: Callable[[object], object],
) -> None:
    with pytest.raises(TypeError, match=f"^{NODE_HINT}$"):
        use(ag.Leaf(1.0))


def test_math_functions_on_a_node_point_to_autograd() -> None:
    import math

    with pytest.raises(TypeError, match=f"^{NODE_HINT}$"):
        math.exp(ag.Leaf(1.0))  # type: ignore[arg-type]


def test_sequence_parameter_refuses_a_string_leaf() -> None:
    def f(xs: Sequence[Scalar]) -> Scalar:
        return ag.sum(xs)

    with pytest.raises(TypeError, match=r"^xs\[1\] is a str"):
        ag.grad(f)([1.0, "2"])  # type: ignore[list-item]


@attrs.frozen
class Derived:
    w: float
    n: int = attrs.field(init=False, default=3)


def test_attrs_class_with_an_init_false_field_is_refused() -> None:
    def f(params: Derived) -> Scalar:
        return 0.0

    with pytest.raises(
        TypeError, match=r"^params is a Derived with an init=False field: it cannot"
    ):
        ag.grad(f)(Derived(1.0))
