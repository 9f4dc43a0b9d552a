"""autograd.nn: parameters, losses, optimisers and data, checked against independent oracles."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import assert_type

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograd as ag
from autograd import Scalar, nn

# ---- data -------------------------------------------------------------------


def moons_as_documented(n: int, noise: float, seed: int) -> nn.Dataset:
    """The algorithm of `make_moons`' docstring, written out again as the oracle."""
    rng = random.Random(seed)
    half = n // 2
    pts: list[tuple[float, float]] = []
    for k, (dx, dy, sign) in ((half, (0.0, 0.0, 1.0)), (n - half, (1.0, 0.5, -1.0))):
        for i in range(k):
            a = math.pi * i / (k - 1) if k > 1 else 0.0
            pts.append((dx + sign * math.cos(a), dy + sign * math.sin(a)))
    labels = [-1.0] * half + [1.0] * (n - half)
    noisy = []
    for x, y in pts:
        r = math.sqrt(-2.0 * math.log(1.0 - rng.random()))
        t = 2.0 * math.pi * rng.random()
        noisy.append((x + noise * (r * math.cos(t)), y + noise * (r * math.sin(t))))
    for i in range(n - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        noisy[i], noisy[j] = noisy[j], noisy[i]
        labels[i], labels[j] = labels[j], labels[i]
    return nn.Dataset(tuple(noisy), tuple(labels))


@pytest.mark.parametrize(("n", "noise", "seed"), [(100, 0.1, 0), (7, 0.3, 42), (1, 0.0, 1)])
def test_make_moons_follows_its_documented_algorithm(n: int, noise: float, seed: int) -> None:
    assert nn.make_moons(n, noise, seed) == moons_as_documented(n, noise, seed)


def test_make_moons_without_noise_lies_on_the_two_half_circles() -> None:
    data = nn.make_moons(50, 0.0, seed=5)
    assert len(data.xs) == len(data.ys) == 50
    assert data.ys.count(-1.0) == data.ys.count(1.0) == 25
    for (x, y), label in zip(data.xs, data.ys, strict=True):
        cx, cy = (0.0, 0.0) if label < 0 else (1.0, 0.5)
        assert math.hypot(x - cx, y - cy) == pytest.approx(1.0, abs=1e-12)
        assert (y >= -1e-12) if label < 0 else (y <= 0.5 + 1e-12)


def test_make_moons_depends_on_the_seed_only() -> None:
    assert nn.make_moons(30, 0.1, 1) == nn.make_moons(30, 0.1, 1)
    assert nn.make_moons(30, 0.1, 1) != nn.make_moons(30, 0.1, 2)


def test_make_moons_uses_only_the_stable_random_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*_: object, **__: object) -> None:
        raise AssertionError("only Random.random() is stable across Python versions")

    for name in ("gauss", "normalvariate", "shuffle", "uniform", "randrange", "getrandbits"):
        monkeypatch.setattr(random.Random, name, forbidden)
    nn.make_moons(20, 0.1, 0)


@pytest.mark.parametrize(("n", "noise"), [(0, 0.1), (10, -1.0), (10, math.nan)])
def test_make_moons_refuses_bad_arguments(n: int, noise: float) -> None:
    with pytest.raises(ValueError, match="make_moons"):
        nn.make_moons(n, noise, 0)


def test_xor_labels_are_exclusive_or() -> None:
    data = nn.xor()
    for (a, b), label in zip(data.xs, data.ys, strict=True):
        assert (label > 0) == ((a == 1.0) != (b == 1.0))


# ---- MLP --------------------------------------------------------------------


def test_init_mlp_shapes_bounds_and_seed() -> None:
    params = nn.init_mlp((2, 16, 16, 1), seed=0)
    assert params.sizes == (2, 16, 16, 1)
    for layer, fan_in in zip(params.layers, (2, 16, 16), strict=True):
        bound = 1.0 / math.sqrt(fan_in)
        leaves = [w for row in layer.w for w in row] + list(layer.b)
        assert all(type(v) is float and -bound <= v < bound for v in leaves)
        assert all(len(row) == fan_in for row in layer.w)
    assert nn.init_mlp((2, 16, 16, 1), seed=0) == params
    assert nn.init_mlp((2, 16, 16, 1), seed=1) != params


def test_init_mlp_draws_in_the_documented_order() -> None:
    rng = random.Random(9)
    expected = [(2.0 * rng.random() - 1.0) / math.sqrt(3) for _ in range(3 * 2 + 2)]
    layer = nn.init_mlp((3, 2), seed=9).layers[0]
    assert [*layer.w[0], *layer.w[1], *layer.b] == expected


@pytest.mark.parametrize("sizes", [(2,), (2, 0, 1), ()])
def test_init_mlp_refuses_bad_sizes(sizes: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="sizes"):
        nn.init_mlp(sizes, seed=0)


def test_mlp_computes_affine_layers_with_activation_between() -> None:
    hidden = nn.Dense(w=((1.0, 2.0), (-1.0, 0.0)), b=(0.5, 0.0))
    out = nn.Dense(w=((3.0, 5.0),), b=(-1.0,))
    params = nn.MLP((hidden, out))
    # hidden pre-activations: 1 + 4 + 0.5 = 5.5 and -1; relu -> 5.5, 0; out: 16.5 - 1
    assert nn.mlp(params, [1.0, 2.0]) == (15.5,)
    assert nn.mlp(params, [1.0, 2.0], ag.tanh) == (
        3.0 * math.tanh(5.5) + 5.0 * math.tanh(-1.0) - 1.0,
    )
    with pytest.raises(ValueError, match="takes 2 inputs, got 3"):
        nn.mlp(params, [1.0, 2.0, 3.0])


def central_difference(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def test_grad_of_an_mlp_loss_is_an_mlp_matching_finite_differences() -> None:
    params = nn.init_mlp((2, 3, 1), seed=4)
    data = nn.make_moons(5, 0.1, seed=4)

    def loss(p: nn.MLP) -> Scalar:
        return nn.mse([nn.mlp(p, x, ag.tanh)[0] for x in data.xs], data.ys)

    grads = ag.grad(loss)(params)
    assert_type(grads, nn.MLP)  # checked by mypy: the gradient has the parameters' type
    assert isinstance(grads, nn.MLP)
    updates, _ = nn.adam(0.1).update(grads, nn.adam(0.1).init(params))
    assert_type(nn.apply_updates(params, updates), nn.MLP)
    assert grads.sizes == params.sizes

    def with_w(layer: int, i: int, j: int, v: float) -> nn.MLP:
        layers = list(params.layers)
        w = [list(row) for row in layers[layer].w]
        w[i][j] = v
        layers[layer] = nn.Dense(tuple(map(tuple, w)), layers[layer].b)
        return nn.MLP(tuple(layers))

    for layer, i, j in [(0, 0, 0), (0, 2, 1), (1, 0, 2)]:
        w0 = params.layers[layer].w[i][j]
        assert isinstance(w0, float)

        def at(v: float, layer: int = layer, i: int = i, j: int = j) -> float:
            value = loss(with_w(layer, i, j, v))
            assert isinstance(value, float)
            return value

        numeric = central_difference(at, w0)
        assert grads.layers[layer].w[i][j] == pytest.approx(numeric, rel=1e-6, abs=1e-9)


# ---- losses -----------------------------------------------------------------


def test_hinge_is_zero_beyond_the_margin_and_linear_inside() -> None:
    assert nn.hinge([1.0, -1.0, 3.0], [1.0, -1.0, 1.0]) == 0.0
    assert nn.hinge([0.0], [1.0]) == 1.0
    assert nn.hinge([0.25, 0.5], [-1.0, 1.0]) == (1.25 + 0.5) / 2

    def loss(scores: Sequence[Scalar]) -> Scalar:
        return nn.hinge(scores, [1.0, -1.0])

    assert ag.grad(loss)([0.5, 0.5]) == [-0.5, 0.5]


def test_mse_and_its_gradient() -> None:
    assert nn.mse([3.0, 0.0], [1.0, 0.0]) == 2.0

    def loss(preds: Sequence[Scalar]) -> Scalar:
        return nn.mse(preds, [1.0, 0.0])

    assert ag.grad(loss)([3.0, 0.0]) == [2.0, 0.0]


def test_losses_refuse_mismatched_lengths() -> None:
    for loss in (nn.mse, nn.hinge, nn.binary_cross_entropy_with_logits):
        with pytest.raises(ValueError, match="as many targets"):
            loss([1.0, 2.0], [1.0])


def bce_oracle(z: float, t: float) -> float:
    # -t log(s) - (1 - t) log(1 - s) with s = sigmoid(z), written without 1 - s
    with mpmath.workdps(50):
        z_ = mpmath.mpf(z)
        return float(t * mpmath.log1p(mpmath.exp(-z_)) + (1 - t) * mpmath.log1p(mpmath.exp(z_)))


@settings(max_examples=200, deadline=None)
@given(
    z=st.floats(-700.0, 700.0, allow_nan=False),
    t=st.sampled_from([0.0, 1.0, 0.25]),
)
def test_binary_cross_entropy_is_accurate_and_finite_for_large_logits(z: float, t: float) -> None:
    value = nn.binary_cross_entropy_with_logits([z], [t])
    assert isinstance(value, float)
    assert math.isfinite(value)
    assert value == pytest.approx(bce_oracle(z, t), rel=1e-12, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(z=st.floats(-50.0, 50.0), t=st.sampled_from([0.0, 1.0, 0.5]))
def test_binary_cross_entropy_gradient_is_sigmoid_minus_target(z: float, t: float) -> None:
    def loss(logits: Sequence[Scalar]) -> Scalar:
        return nn.binary_cross_entropy_with_logits(logits, [t])

    g = ag.grad(loss)([z])[0]
    with mpmath.workdps(50):
        expected = float(1 / (1 + mpmath.exp(-mpmath.mpf(z))) - t)
    assert g == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_softplus_never_overflows() -> None:
    assert nn.softplus(1000.0) == 1000.0
    assert nn.softplus(-1000.0) == 0.0
    assert ag.grad(nn.softplus)(1000.0) == 1.0
    assert ag.grad(nn.softplus)(-1000.0) == 0.0


# ---- optimisers ---------------------------------------------------------------


def test_sgd_with_momentum_follows_the_heavy_ball_recurrence() -> None:
    opt = nn.sgd(0.1, momentum=0.5)
    params = {"a": 1.0, "b": [2.0]}
    state = opt.init(params)
    seen = []
    for g in (4.0, 2.0, -2.0):
        updates, state = opt.update({"a": g, "b": [0.0]}, state)
        params = nn.apply_updates(params, updates)
        seen.append(params["a"])
    # v1 = 4, v2 = 0.5*4 + 2 = 4, v3 = 0.5*4 - 2 = 0; a -= 0.1 * v
    assert seen == pytest.approx([0.6, 0.2, 0.2], abs=1e-15)
    assert params["b"] == [2.0]
    assert state.count == 3


def test_sgd_learning_rate_schedule_sees_the_step_count() -> None:
    opt = nn.sgd(lambda count: 1.0 / (count + 1))
    state = opt.init([0.0])
    steps = []
    for _ in range(3):
        updates, state = opt.update([1.0], state)
        steps.append(updates[0])
    assert steps == [-1.0, -0.5, -1.0 / 3.0]


def adam_oracle(grads: Sequence[float], lr: float) -> list[float]:
    """Adam for one parameter, straight from Kingma & Ba's Algorithm 1."""
    m = v = 0.0
    theta = 0.0
    out = []
    for t, g in enumerate(grads, start=1):
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        theta -= lr * (m / (1 - 0.9**t)) / (math.sqrt(v / (1 - 0.999**t)) + 1e-8)
        out.append(theta)
    return out


def test_adam_matches_the_paper() -> None:
    grads = [3.0, -1.0, 0.5, 0.5, 2.0]
    opt = nn.adam(0.01)
    params = [0.0]
    state = opt.init(params)
    seen = []
    for g in grads:
        updates, state = opt.update([g], state)
        params = nn.apply_updates(params, updates)
        seen.append(params[0])
    assert seen == pytest.approx(adam_oracle(grads, 0.01), rel=1e-12)


def test_optimiser_state_is_immutable_and_update_is_pure() -> None:
    opt = nn.adam(0.1)
    state = opt.init({"w": 1.0})
    first = opt.update({"w": 1.0}, state)
    again = opt.update({"w": 1.0}, state)
    assert first == again
    assert state.count == 0
    assert state.mu == (0.0,)
    with pytest.raises(AttributeError):
        state.count = 5  # type: ignore[misc]  # frozen: the error under test


def test_optimisers_keep_the_parameter_structure() -> None:
    params = nn.init_mlp((2, 3, 1), seed=0)
    sgd = nn.sgd(0.1, 0.9)
    adam = nn.adam(0.1)
    for updates in (
        sgd.update(params, sgd.init(params))[0],
        adam.update(params, adam.init(params))[0],
    ):
        assert isinstance(updates, nn.MLP)  # any tree of the right shape works as gradients
        assert nn.apply_updates(params, updates).sizes == params.sizes


def test_optimiser_errors_name_the_problem() -> None:
    opt = nn.sgd(0.1)
    state = opt.init([1.0, 2.0])
    with pytest.raises(ValueError, match="call init"):
        opt.update([1.0], state)
    with pytest.raises(TypeError, match=r"grads\[0\]"):
        opt.update(["x", 1.0], state)
    with pytest.raises(ValueError, match="different structures"):
        nn.apply_updates([1.0], {"a": 1.0})


# ---- training ---------------------------------------------------------------


def accuracy(params: nn.MLP, data: nn.Dataset) -> float:
    right = 0
    for x, y in zip(data.xs, data.ys, strict=True):
        score = nn.mlp(params, x)[0]
        assert isinstance(score, float)
        right += (score > 0.0) == (y > 0.0)
    return right / len(data.ys)


def test_mlp_reaches_full_training_accuracy_on_100_moons_points() -> None:
    data = nn.make_moons(100, noise=0.1, seed=3)
    params = nn.init_mlp((2, 16, 16, 1), seed=3)
    opt = nn.adam(0.1)
    state = opt.init(params)
    assert accuracy(params, data) < 0.9
    for step in range(TRAIN_STEPS):
        batch = range(20 * step % 100, 20 * step % 100 + 20)

        def loss(p: nn.MLP, batch: range = batch) -> Scalar:
            return nn.hinge([nn.mlp(p, data.xs[i])[0] for i in batch], [data.ys[i] for i in batch])

        updates, state = opt.update(ag.grad(loss)(params), state)
        params = nn.apply_updates(params, updates)
    assert accuracy(params, data) == 1.0


TRAIN_STEPS = 60
