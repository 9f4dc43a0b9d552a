"""typed-autograd: a strictly typed, functional reverse-mode autograd for Python scalars.

The graph is immutable data (frozen node classes, each a `Node`; their closed union `NodeUnion`);
differentiation is a transform: ``grad(loss_fn)(params)`` returns gradients
shaped like ``params``.

>>> import autograd as ag
>>> ag.grad(lambda w: ((w[0] - 1) ** 2 + (w[1] - 5) ** 2) * 0.5)([2.0, 3.0])
[1.0, -2.0]
"""

from autograd.compiler.jit import Jitted as Jitted
from autograd.compiler.jit import jit as jit
from autograd.compiler.lowering import Lowered as Lowered
from autograd.core.functions import Comparison as Comparison
from autograd.core.functions import Cond as Cond
from autograd.core.functions import Elementwise as Elementwise
from autograd.core.functions import abs as abs
from autograd.core.functions import cos as cos
from autograd.core.functions import dot as dot
from autograd.core.functions import eq as eq
from autograd.core.functions import exp as exp
from autograd.core.functions import ge as ge
from autograd.core.functions import gt as gt
from autograd.core.functions import le as le
from autograd.core.functions import log as log
from autograd.core.functions import lt as lt
from autograd.core.functions import mean as mean
from autograd.core.functions import ne as ne
from autograd.core.functions import relu as relu
from autograd.core.functions import sigmoid as sigmoid
from autograd.core.functions import sin as sin
from autograd.core.functions import sqrt as sqrt
from autograd.core.functions import sum as sum
from autograd.core.functions import tanh as tanh
from autograd.core.functions import where as where
from autograd.core.nodes import Abs as Abs
from autograd.core.nodes import Add as Add
from autograd.core.nodes import Compare as Compare
from autograd.core.nodes import Const as Const
from autograd.core.nodes import Cos as Cos
from autograd.core.nodes import Div as Div
from autograd.core.nodes import Exp as Exp
from autograd.core.nodes import Leaf as Leaf
from autograd.core.nodes import Log as Log
from autograd.core.nodes import Mul as Mul
from autograd.core.nodes import Node as Node
from autograd.core.nodes import NodeUnion as NodeUnion
from autograd.core.nodes import Pow as Pow
from autograd.core.nodes import Relu as Relu
from autograd.core.nodes import Scalar as Scalar
from autograd.core.nodes import Sigmoid as Sigmoid
from autograd.core.nodes import Sin as Sin
from autograd.core.nodes import Sqrt as Sqrt
from autograd.core.nodes import Tanh as Tanh
from autograd.core.nodes import Where as Where
from autograd.debug import debug_nans as debug_nans
from autograd.transforms.check import check_grads as check_grads
from autograd.transforms.grad import grad as grad
from autograd.transforms.grad import gradients as gradients
from autograd.transforms.grad import stop_gradient as stop_gradient
from autograd.transforms.grad import value_and_grad as value_and_grad
from autograd.transforms.jacobian import hessian as hessian
from autograd.transforms.jacobian import jacobian as jacobian
from autograd.transforms.jacobian import jvp as jvp
from autograd.transforms.jacobian import vjp as vjp
from autograd.transforms.vmap import stack as stack
from autograd.transforms.vmap import unstack as unstack
from autograd.transforms.vmap import vmap as vmap
from autograd.viz import to_dot as to_dot

__version__ = "0.1.0"

from autograd import rules as rules
from autograd.core.functions import Binary as Binary
from autograd.core.functions import arccos as arccos
from autograd.core.functions import arcsin as arcsin
from autograd.core.functions import arctan as arctan
from autograd.core.functions import arctan2 as arctan2
from autograd.core.functions import cosh as cosh
from autograd.core.functions import exp2 as exp2
from autograd.core.functions import expm1 as expm1
from autograd.core.functions import hypot as hypot
from autograd.core.functions import log1p as log1p
from autograd.core.functions import log2 as log2
from autograd.core.functions import log10 as log10
from autograd.core.functions import maximum as maximum
from autograd.core.functions import minimum as minimum
from autograd.core.functions import sign as sign
from autograd.core.functions import sinh as sinh
from autograd.core.functions import tan as tan
from autograd.core.nodes import Arccos as Arccos
from autograd.core.nodes import Arcsin as Arcsin
from autograd.core.nodes import Arctan as Arctan
from autograd.core.nodes import Arctan2 as Arctan2
from autograd.core.nodes import Cosh as Cosh
from autograd.core.nodes import Exp2 as Exp2
from autograd.core.nodes import Expm1 as Expm1
from autograd.core.nodes import Hypot as Hypot
from autograd.core.nodes import Log1p as Log1p
from autograd.core.nodes import Log2 as Log2
from autograd.core.nodes import Log10 as Log10
from autograd.core.nodes import Maximum as Maximum
from autograd.core.nodes import Minimum as Minimum
from autograd.core.nodes import Sign as Sign
from autograd.core.nodes import Sinh as Sinh
from autograd.core.nodes import Tan as Tan
from autograd.user_ops import BinaryRule as BinaryRule
from autograd.user_ops import UnaryRule as UnaryRule
from autograd.user_ops import define_op as define_op
from autograd.user_ops import undefine_op as undefine_op
