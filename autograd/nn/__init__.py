"""Small pure building blocks for training: MLP parameters, losses, optimisers, data.

Parameters are immutable pytrees, optimisers are ``init``/``update`` pairs,
and nothing is ever mutated: a training step maps old parameters to new ones.

>>> import autograd as ag
>>> from autograd import nn
>>> data = nn.xor()
>>> params = nn.init_mlp((2, 8, 1), seed=0)
>>> def loss(p: nn.MLP) -> ag.Scalar:
...     return nn.hinge([nn.mlp(p, x, ag.tanh)[0] for x in data.xs], data.ys)
>>> opt = nn.adam(0.05)
>>> state = opt.init(params)
>>> for _ in range(150):
...     updates, state = opt.update(ag.grad(loss)(params), state)
...     params = nn.apply_updates(params, updates)
>>> [1.0 if nn.mlp(params, x, ag.tanh)[0] > 0 else -1.0 for x in data.xs] == list(data.ys)
True
"""

from autograd.nn._data import Dataset as Dataset
from autograd.nn._data import make_moons as make_moons
from autograd.nn._data import xor as xor
from autograd.nn._losses import binary_cross_entropy_with_logits as binary_cross_entropy_with_logits
from autograd.nn._losses import hinge as hinge
from autograd.nn._losses import mse as mse
from autograd.nn._losses import softplus as softplus
from autograd.nn._mlp import MLP as MLP
from autograd.nn._mlp import Activation as Activation
from autograd.nn._mlp import Dense as Dense
from autograd.nn._mlp import init_mlp as init_mlp
from autograd.nn._mlp import mlp as mlp
from autograd.nn._optim import Adam as Adam
from autograd.nn._optim import AdamState as AdamState
from autograd.nn._optim import Schedule as Schedule
from autograd.nn._optim import Sgd as Sgd
from autograd.nn._optim import SgdState as SgdState
from autograd.nn._optim import adam as adam
from autograd.nn._optim import apply_updates as apply_updates
from autograd.nn._optim import sgd as sgd

__all__ = [
    "MLP",
    "Activation",
    "Adam",
    "AdamState",
    "Dataset",
    "Dense",
    "Schedule",
    "Sgd",
    "SgdState",
    "adam",
    "apply_updates",
    "binary_cross_entropy_with_logits",
    "hinge",
    "init_mlp",
    "make_moons",
    "mlp",
    "mse",
    "sgd",
    "softplus",
    "xor",
]
