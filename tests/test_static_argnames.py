"""`jit`'s ``static_argnames``, and static arguments passed by keyword or left to defaults.

The first three tests are JAX's own (`tests/api_test.py`: `test_jit_with_static_argnames`,
`test_new_static_argnum_on_keyword_arguments`, `test_new_static_argnum_with_default_arguments`)
on our API; a static argument is not traced, so reading it as a `str` or branching on it works.
"""

from __future__ import annotations

import pytest

import autograd as ag


def test_jit_with_static_argnames() -> None:
    def f(x: str) -> float:
        assert x == "foo"
        return 1.0

    f_nums = ag.jit(f, static_argnums=0)
    assert f_nums("foo") == 1.0
    assert f_nums(x="foo") == 1.0
    f_names = ag.jit(f, static_argnames="x")
    assert f_names("foo") == 1.0
    assert f_names(x="foo") == 1.0


def test_static_argnum_on_keyword_arguments() -> None:
    f = ag.jit(lambda x: x, static_argnums=0)
    assert f(x=4) == 4


def test_static_argnum_with_default_arguments() -> None:
    f = ag.jit(lambda x=4: x, static_argnums=0)
    assert f() == 4


def scaled(x: float, mode: str = "double") -> ag.Scalar:
    return ag.tanh(x) * (2.0 if mode == "double" else 3.0)  # a Python branch: mode is static


@pytest.mark.parametrize("by_name", [True, False])
def test_a_static_name_is_static_by_position_and_by_keyword(by_name: bool) -> None:
    vg = ag.value_and_grad(scaled)
    f = ag.jit(vg, static_argnames="mode") if by_name else ag.jit(vg, static_argnums=1)
    assert f(0.5, "triple") == vg(0.5, "triple")
    assert f(0.5, mode="triple") == vg(0.5, "triple")
    assert f(0.5) == vg(0.5)  # the default
    assert f(0.5, "double") == vg(0.5, "double")


def test_a_static_name_keys_the_cache_by_value() -> None:
    traces: list[str] = []

    def f(x: float, mode: str) -> ag.Scalar:
        traces.append(mode)
        return x * (2.0 if mode == "a" else 3.0)

    jf = ag.jit(f, static_argnames=("mode",))
    assert [jf(1.0, "a"), jf(1.0, "b"), jf(2.0, "a"), jf(1.0, mode="b")] == [2.0, 3.0, 4.0, 3.0]
    assert traces.count("a") == 1


def test_a_static_name_that_is_no_parameter_is_refused() -> None:
    with pytest.raises(ValueError, match=r"static_argnames names 'mdoe'.*it has mode, x"):
        ag.jit(scaled, static_argnames="mdoe")
    ag.jit(lambda x, **kw: x, static_argnames="anything")  # **kwargs takes every name


def test_static_argnames_must_be_strings() -> None:
    with pytest.raises(TypeError, match="static_argnames must be a str or a sequence of str"):
        ag.jit(scaled, static_argnames=1)  # type: ignore[arg-type]  # the error under test
    with pytest.raises(TypeError, match="static_argnums must be an int"):
        ag.jit(scaled, static_argnums=True)  # a bool is no index


def test_a_static_name_cannot_be_differentiated() -> None:
    def loss(x: float, y: float) -> ag.Scalar:
        return x * y

    with pytest.raises(ValueError, match="argument 1 is differentiated"):
        ag.jit(ag.grad(loss, argnums=1), static_argnames="y")
