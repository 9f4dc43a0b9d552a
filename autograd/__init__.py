"""typed-autograd: a strictly typed, functional reverse-mode autograd for Python scalars.

The graph is immutable data (frozen node classes, the closed union `Node`);
differentiation is a transform: ``grad(loss_fn)(params)`` returns gradients
shaped like ``params``.

>>> import autograd as ag
>>> ag.grad(lambda w: ((w[0] - 1) ** 2 + (w[1] - 5) ** 2) * 0.5)([2.0, 3.0])
[1.0, -2.0]
"""

from ._check import check_grads as check_grads
from ._debug import debug_nans as debug_nans
from ._jacobian import hessian as hessian
from ._jacobian import jacobian as jacobian
from ._jacobian import jvp as jvp
from ._jacobian import vjp as vjp
from ._jit import jit as jit
from ._nodes import Abs as Abs
from ._nodes import Add as Add
from ._nodes import Compare as Compare
from ._nodes import Const as Const
from ._nodes import Cos as Cos
from ._nodes import Div as Div
from ._nodes import Exp as Exp
from ._nodes import Leaf as Leaf
from ._nodes import Log as Log
from ._nodes import Mul as Mul
from ._nodes import Node as Node
from ._nodes import Pow as Pow
from ._nodes import Relu as Relu
from ._nodes import Scalar as Scalar
from ._nodes import Sigmoid as Sigmoid
from ._nodes import Sin as Sin
from ._nodes import Sqrt as Sqrt
from ._nodes import Tanh as Tanh
from ._nodes import Where as Where
from ._ops import Elementwise as Elementwise
from ._ops import abs as abs
from ._ops import cos as cos
from ._ops import dot as dot
from ._ops import exp as exp
from ._ops import log as log
from ._ops import mean as mean
from ._ops import relu as relu
from ._ops import sigmoid as sigmoid
from ._ops import sin as sin
from ._ops import sqrt as sqrt
from ._ops import sum as sum
from ._ops import tanh as tanh
from ._transforms import grad as grad
from ._transforms import gradients as gradients
from ._transforms import stop_gradient as stop_gradient
from ._transforms import value_and_grad as value_and_grad
from ._viz import to_dot as to_dot
from ._vmap import stack as stack
from ._vmap import unstack as unstack
from ._vmap import vmap as vmap

__version__ = "0.1.0"
