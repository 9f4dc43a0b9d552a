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

from ._data import Dataset as Dataset
from ._data import make_moons as make_moons
from ._data import xor as xor
from ._losses import binary_cross_entropy_with_logits as binary_cross_entropy_with_logits
from ._losses import hinge as hinge
from ._losses import mse as mse
from ._losses import softplus as softplus
from ._mlp import MLP as MLP
from ._mlp import Activation as Activation
from ._mlp import Dense as Dense
from ._mlp import init_mlp as init_mlp
from ._mlp import mlp as mlp
from ._optim import Adam as Adam
from ._optim import AdamState as AdamState
from ._optim import Schedule as Schedule
from ._optim import Sgd as Sgd
from ._optim import SgdState as SgdState
from ._optim import adam as adam
from ._optim import apply_updates as apply_updates
from ._optim import sgd as sgd

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
