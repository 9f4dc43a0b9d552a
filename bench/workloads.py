"""The workloads W1-W4, written once per engine.

Each ``setup_*`` function returns a zero-argument callable that runs one
value-and-gradient step and returns ``(value, [gradients...])``, or raises
`Skip` saying why that engine cannot run it. The engines are this package
(eager and ``jit``), micrograd, PyTorch eager on 0-d float64 tensors, and the
floor: the same step written by hand as straight-line Python float code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from moons import Params, flat

import autograd as ag

Result = tuple[float, list[float]]
Step = Callable[[], Result]
ALPHA = 1e-4


class Skip(Exception):
    """The engine cannot run this workload; the message says why."""


def _micrograd() -> object:
    try:
        import micrograd.engine
    except ImportError as e:
        raise Skip("micrograd not installed (pip install '.[bench]')") from e
    return micrograd.engine


def _torch() -> object:
    try:
        import torch
    except ImportError as e:
        raise Skip("torch not installed (pip install torch==2.13.0)") from e
    return torch


def _jit() -> Callable[..., Callable[..., object]]:
    jit = getattr(ag, "jit", None)
    if jit is None:
        raise Skip("this version of autograd has no jit")
    return jit  # type: ignore[no-any-return]


def pairwise_sum(xs: Sequence[object]) -> object:
    """A balanced sum (micrograd's recursive backward fails on a long chain of additions)."""
    level = list(xs)
    while len(level) > 1:
        nxt = [a + b for a, b in zip(level[0::2], level[1::2], strict=False)]  # type: ignore[operator]
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0]


# ---- W1: the seed loss ((w1 - 1)**2 + (w2 - 5)**2) * 0.5 at (2, 3) ----


def seed_loss(p: dict[str, ag.Scalar]) -> ag.Scalar:
    return ((p["w1"] - 1) ** 2 + (p["w2"] - 5) ** 2) * 0.5


def _w1_ours(vg: Callable[..., object]) -> Step:
    params = {"w1": 2.0, "w2": 3.0}

    def step() -> Result:
        value, g = vg(params)  # type: ignore[misc]
        return value, [g["w1"], g["w2"]]

    return step


def w1_ours() -> Step:
    return _w1_ours(ag.value_and_grad(seed_loss))


def w1_jit() -> Step:
    return _w1_ours(_jit()(ag.value_and_grad(seed_loss)))


def w1_micrograd() -> Step:
    Value = _micrograd().Value  # type: ignore[attr-defined]

    def step() -> Result:
        w1, w2 = Value(2.0), Value(3.0)
        loss = ((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5
        loss.backward()
        return loss.data, [w1.grad, w2.grad]

    return step


def w1_torch() -> Step:
    torch: object = _torch()

    def step() -> Result:
        w1 = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)  # type: ignore[attr-defined]
        w2 = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)  # type: ignore[attr-defined]
        loss = ((w1 - 1) ** 2 + (w2 - 5) ** 2) * 0.5
        loss.backward()
        return loss.item(), [w1.grad.item(), w2.grad.item()]

    return step


def w1_floor() -> Step:
    def step() -> Result:
        w1, w2 = 2.0, 3.0
        a, b = w1 - 1.0, w2 - 5.0
        return (a * a + b * b) * 0.5, [a, b]

    return step


# ---- W2: one value-and-gradient step of micrograd's moons MLP ----


def mlp_loss(params: Params, xs: Sequence[Sequence[float]], ys: Sequence[float]) -> ag.Scalar:
    """max-margin loss of a ReLU MLP, written with this package's ops."""
    losses = []
    for x, y in zip(xs, ys, strict=True):
        h: Sequence[ag.Scalar] = x
        for i, layer in enumerate(params):
            z = [neuron[-1] + ag.dot(neuron[:-1], h) for neuron in layer]
            h = z if i == len(params) - 1 else [ag.relu(v) for v in z]
        losses.append(ag.relu(1.0 - y * h[0]))
    reg = ag.sum([p * p for layer in params for neuron in layer for p in neuron])
    return ag.mean(losses) + ALPHA * reg


def _w2_ours(
    vg: Callable[..., object], params: Params, xs: list[list[float]], ys: list[float]
) -> Step:
    def step() -> Result:
        value, g = vg(params, xs, ys)  # type: ignore[misc]
        return value, flat(g)

    return step


def w2_ours(params: Params, xs: list[list[float]], ys: list[float]) -> Step:
    return _w2_ours(ag.value_and_grad(mlp_loss), params, xs, ys)


def w2_jit(params: Params, xs: list[list[float]], ys: list[float]) -> Step:
    return _w2_ours(_jit()(ag.value_and_grad(mlp_loss)), params, xs, ys)


def w2_micrograd(params: Params, xs: list[list[float]], ys: list[float]) -> Step:
    _micrograd()
    from micrograd.nn import MLP

    model = MLP(2, [16, 16, 1])
    for p, v in zip(model.parameters(), flat(params), strict=True):
        p.data = v

    def step() -> Result:  # micrograd's demo.ipynb loss(), then backward()
        scores = [model(x) for x in xs]
        losses = [(1 + -yi * si).relu() for yi, si in zip(ys, scores, strict=True)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = ALPHA * sum(p * p for p in model.parameters())
        total = data_loss + reg_loss
        model.zero_grad()
        total.backward()
        return total.data, [p.grad for p in model.parameters()]

    return step


def w2_torch(params: Params, xs: list[list[float]], ys: list[float]) -> Step:
    torch: object = _torch()
    f64 = torch.float64  # type: ignore[attr-defined]
    ps = [
        [[torch.tensor(v, dtype=f64, requires_grad=True) for v in n] for n in layer]  # type: ignore[attr-defined]
        for layer in params
    ]
    relu = torch.relu  # type: ignore[attr-defined]

    def step() -> Result:
        losses = []
        for x, y in zip(xs, ys, strict=True):
            h: list[object] = list(x)
            for i, layer in enumerate(ps):
                z = [n[-1] + sum(w * v for w, v in zip(n[:-1], h, strict=True)) for n in layer]
                h = z if i == len(ps) - 1 else [relu(v) for v in z]
            losses.append(relu(1.0 - y * h[0]))  # type: ignore[operator]
        all_p = [p for layer in ps for n in layer for p in n]
        total = sum(losses) * (1.0 / len(losses)) + ALPHA * sum(p * p for p in all_p)
        total.backward()  # type: ignore[attr-defined]
        grads = [p.grad.item() for p in all_p]
        for p in all_p:
            p.grad = None
        return total.item(), grads  # type: ignore[attr-defined]

    return step


def w2_floor(params: Params, xs: list[list[float]], ys: list[float]) -> Step:
    """Forward and backward by hand: loops over floats, no graph."""
    (l1, l2, l3) = params

    def step() -> Result:
        g1 = [[0.0] * len(n) for n in l1]
        g2 = [[0.0] * len(n) for n in l2]
        g3 = [0.0] * len(l3[0])
        total = 0.0
        scale = 1.0 / len(xs)
        w3 = l3[0]
        for (x0, x1), y in zip(xs, ys, strict=True):
            z1 = [n[2] + n[0] * x0 + n[1] * x1 for n in l1]
            h1 = [z if z > 0.0 else 0.0 for z in z1]
            z2 = [n[-1] + sum([w * h for w, h in zip(n, h1, strict=False)]) for n in l2]
            h2 = [z if z > 0.0 else 0.0 for z in z2]
            s = w3[-1] + sum([w * h for w, h in zip(w3, h2, strict=False)])
            margin = 1.0 - y * s
            if margin <= 0.0:
                continue
            total += margin
            ds = -y * scale
            for k, h in enumerate(h2):
                g3[k] += ds * h
            g3[-1] += ds
            dz2 = [ds * w3[k] if z2[k] > 0.0 else 0.0 for k in range(len(l2))]
            dh1 = [0.0] * len(l1)
            for k, (n, d) in enumerate(zip(l2, dz2, strict=True)):
                if d == 0.0:
                    continue
                gk = g2[k]
                for j, h in enumerate(h1):
                    gk[j] += d * h
                    dh1[j] += d * n[j]
                gk[-1] += d
            for j in range(len(l1)):
                if z1[j] > 0.0:
                    d = dh1[j]
                    gj = g1[j]
                    gj[0] += d * x0
                    gj[1] += d * x1
                    gj[2] += d
        reg = 0.0
        grads = []
        for layer, gl in ((l1, g1), (l2, g2), (l3, [g3])):
            for n, gn in zip(layer, gl, strict=True):
                for p, gp in zip(n, gn, strict=True):
                    reg += p * p
                    grads.append(gp + 2.0 * ALPHA * p)
        return total * scale + ALPHA * reg, grads

    return step


# ---- W3: a deep chain x -> tanh(0.9 * x + 0.1), N steps ----


def chain(x: ag.Scalar, n: int) -> ag.Scalar:
    for _ in range(n):
        x = ag.tanh(0.9 * x + 0.1)
    return x


def w3_ours(n: int) -> Step:
    vg = ag.value_and_grad(chain)

    def step() -> Result:
        value, g = vg(0.5, n)
        return value, [g]

    return step


def w3_jit(n: int) -> Step:
    vg = _jit()(ag.value_and_grad(chain), static_argnums=(1,))

    def step() -> Result:
        value, g = vg(0.5, n)  # type: ignore[misc]
        return value, [g]

    return step


def _micrograd_tanh(x: object) -> object:
    """Micrograd 0.1.0 has no tanh: one written in its own style (its lecture's)."""
    Value = _micrograd().Value  # type: ignore[attr-defined]
    t = math.tanh(x.data)  # type: ignore[attr-defined]
    out = Value(t, (x,), "tanh")

    def _backward() -> None:
        x.grad += (1 - t**2) * out.grad  # type: ignore[attr-defined]

    out._backward = _backward
    return out


def w3_micrograd(n: int) -> Step:
    Value = _micrograd().Value  # type: ignore[attr-defined]

    def step() -> Result:
        x0 = Value(0.5)
        x = x0
        for _ in range(n):
            x = _micrograd_tanh(0.9 * x + 0.1)
        x.backward()
        return x.data, [x0.grad]

    return step


def w3_torch(n: int) -> Step:
    torch: object = _torch()

    def step() -> Result:
        x0 = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)  # type: ignore[attr-defined]
        x = x0
        for _ in range(n):
            x = torch.tanh(0.9 * x + 0.1)  # type: ignore[attr-defined]
        x.backward()
        return x.item(), [x0.grad.item()]

    return step


def w3_floor(n: int) -> Step:
    def step() -> Result:
        x = 0.5
        ys = []
        for _ in range(n):
            x = math.tanh(0.9 * x + 0.1)
            ys.append(x)
        g = 1.0
        for y in reversed(ys):
            g = g * (1.0 - y * y) * 0.9
        return x, [g]

    return step


# ---- W4: a wide sum sum_i w_i * x_i ----


def wide_data(n: int) -> tuple[list[float], list[float]]:
    return [math.sin(i) for i in range(n)], [math.cos(0.5 * i) for i in range(n)]


def w4_ours(n: int) -> Step:
    ws, xs = wide_data(n)
    vg = ag.value_and_grad(ag.dot)

    def step() -> Result:
        value, g = vg(ws, xs)
        return value, list(g)

    return step


def w4_jit(n: int) -> Step:
    ws, xs = wide_data(n)
    vg = _jit()(ag.value_and_grad(ag.dot))

    def step() -> Result:
        value, g = vg(ws, xs)  # type: ignore[misc]
        return value, list(g)

    return step


def w4_micrograd(n: int) -> Step:
    Value = _micrograd().Value  # type: ignore[attr-defined]
    ws, xs = wide_data(n)

    def step() -> Result:
        params = [Value(w) for w in ws]
        out = pairwise_sum([w * x for w, x in zip(params, xs, strict=True)])
        out.backward()  # type: ignore[attr-defined]
        return out.data, [p.grad for p in params]  # type: ignore[attr-defined]

    return step


def w4_torch(n: int) -> Step:
    torch: object = _torch()
    ws, xs = wide_data(n)

    def step() -> Result:
        params = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in ws]  # type: ignore[attr-defined]
        out = pairwise_sum([w * x for w, x in zip(params, xs, strict=True)])
        out.backward()  # type: ignore[attr-defined]
        return out.item(), [p.grad.item() for p in params]  # type: ignore[attr-defined]

    return step


def w4_floor(n: int) -> Step:
    ws, xs = wide_data(n)

    def step() -> Result:
        return sum([w * x for w, x in zip(ws, xs, strict=True)]), list(xs)

    return step


# ---- W5: a second derivative: f'(x) and f''(x) of f = tanh(x)**3 * exp(x) at 0.3 ----


def curve(x: ag.Scalar) -> ag.Scalar:
    return ag.tanh(x) ** 3 * ag.exp(x)


def _w5_ours(vg: Callable[..., object]) -> Step:
    def step() -> Result:
        d1, d2 = vg(0.3)  # type: ignore[misc]
        return d1, [d2]

    return step


def w5_ours() -> Step:
    return _w5_ours(ag.value_and_grad(ag.grad(curve)))


def w5_jit() -> Step:
    return _w5_ours(_jit()(ag.value_and_grad(ag.grad(curve))))


def w5_micrograd() -> Step:
    raise Skip("unsupported (micrograd has no second derivatives)")


def w5_torch() -> Step:
    torch: object = _torch()

    def step() -> Result:
        x = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)  # type: ignore[attr-defined]
        y = torch.tanh(x) ** 3 * torch.exp(x)  # type: ignore[attr-defined]
        (d1,) = torch.autograd.grad(y, x, create_graph=True)  # type: ignore[attr-defined]
        (d2,) = torch.autograd.grad(d1, x)  # type: ignore[attr-defined]
        return d1.item(), [d2.item()]

    return step


def w5_floor() -> Step:
    def step() -> Result:
        x = 0.3
        t, e = math.tanh(x), math.exp(x)
        s = 1.0 - t * t
        d1 = e * (3.0 * t * t * s + t * t * t)
        d2 = e * (6.0 * t * t * s + t * t * t + 6.0 * t * s * s - 6.0 * t * t * t * s)
        return d1, [d2]

    return step
