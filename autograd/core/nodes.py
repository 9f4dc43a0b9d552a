"""The graph: `Leaf`, `Const` and one frozen class per op, each holding its rules; `NodeUnion`.

The graph is built in layers, each importing only those below it:
`autograd.core.base` (what every node is, the operators), `define`, `rules`
(the vocabulary rules are written in), `ops` and `more_ops` (one class per
op). This module joins them: it defines `NodeUnion`, hands the layers
below the op classes they build (`rules.CLASSES`, `base`'s builders), compiles
every op, and re-exports the layers' names, so ``nodes`` names the whole graph.

Every op class carries its forward rule (the ``value`` default, computed when
the node is built) and its derivative rule (``vjp``). A rule is written once,
generic over the scalar type ``S``: the first-order sweep runs it on floats
(fast, nothing recorded); a sweep whose result will be differentiated again
runs it on nodes, so the derivative is itself a graph. Rules use only the
operations nodes have (``+``, ``*``, `divide`, `power`, ...), never Python's
``/`` on floats (it raises on zero) or ``math`` on ``.value``, so the two
instantiations give bit-identical numbers.
"""

from __future__ import annotations

from typing import (
    TypeAlias,
)

from autograd.core import base, rules
from autograd.core import define as _define
from autograd.core.base import _KIT as _KIT
from autograd.core.base import _VALUE_SLOTS as _VALUE_SLOTS
from autograd.core.base import MINUS_ONE as MINUS_ONE
from autograd.core.base import OPS as OPS
from autograd.core.base import PARENTS as PARENTS
from autograd.core.base import RESULT_ONE as RESULT_ONE
from autograd.core.base import SHARED as SHARED
from autograd.core.base import VARIABLE_ONE as VARIABLE_ONE
from autograd.core.base import CompareDotValue as CompareDotValue
from autograd.core.base import Const as Const
from autograd.core.base import Leaf as Leaf
from autograd.core.base import Node as Node
from autograd.core.base import Op as Op
from autograd.core.base import Primal as Primal
from autograd.core.base import Push as Push
from autograd.core.base import S as S
from autograd.core.base import V as V
from autograd.core.base import _Arith as _Arith
from autograd.core.base import _const as _const
from autograd.core.base import _forwarded as _forwarded
from autograd.core.base import _input as _input
from autograd.core.base import _input_getters as _input_getters
from autograd.core.base import _inputs as _inputs
from autograd.core.base import _lift_scalar as _lift_scalar
from autograd.core.base import _self as _self
from autograd.core.base import fresh_leaf as fresh_leaf
from autograd.core.base import guard_values as guard_values
from autograd.core.base import lift as lift
from autograd.core.base import parents as parents
from autograd.core.base import produced_nan as produced_nan
from autograd.core.convert import NotANumber as NotANumber
from autograd.core.convert import to_float as to_float
from autograd.core.define import BUILD1 as BUILD1
from autograd.core.define import _build1 as _build1
from autograd.core.define import _build2 as _build2
from autograd.core.define import _compiled_forwards as _compiled_forwards
from autograd.core.define import define as define
from autograd.core.define import undefine as undefine
from autograd.core.more_ops import Arccos as Arccos
from autograd.core.more_ops import Arcsin as Arcsin
from autograd.core.more_ops import Arctan as Arctan
from autograd.core.more_ops import Arctan2 as Arctan2
from autograd.core.more_ops import Compare as Compare
from autograd.core.more_ops import Cosh as Cosh
from autograd.core.more_ops import Exp2 as Exp2
from autograd.core.more_ops import Expm1 as Expm1
from autograd.core.more_ops import Hypot as Hypot
from autograd.core.more_ops import Log1p as Log1p
from autograd.core.more_ops import Log2 as Log2
from autograd.core.more_ops import Log10 as Log10
from autograd.core.more_ops import Maximum as Maximum
from autograd.core.more_ops import Minimum as Minimum
from autograd.core.more_ops import Sign as Sign
from autograd.core.more_ops import Sinh as Sinh
from autograd.core.more_ops import Tan as Tan
from autograd.core.more_ops import Where as Where
from autograd.core.ops import Abs as Abs
from autograd.core.ops import Add as Add
from autograd.core.ops import Cos as Cos
from autograd.core.ops import Div as Div
from autograd.core.ops import Exp as Exp
from autograd.core.ops import Log as Log
from autograd.core.ops import Mul as Mul
from autograd.core.ops import Pow as Pow
from autograd.core.ops import Relu as Relu
from autograd.core.ops import Sigmoid as Sigmoid
from autograd.core.ops import Sin as Sin
from autograd.core.ops import Sqrt as Sqrt
from autograd.core.ops import Tanh as Tanh
from autograd.core.rules import _COMPARISONS as _COMPARISONS
from autograd.core.rules import COMPARE_SYMBOLS as COMPARE_SYMBOLS
from autograd.core.rules import CONST as CONST
from autograd.core.rules import NODE as NODE
from autograd.core.rules import PLAIN as PLAIN
from autograd.core.rules import CompareOp as CompareOp
from autograd.core.rules import Cond as Cond
from autograd.core.rules import _pow_is_scalar_path as _pow_is_scalar_path
from autograd.core.rules import apply as apply
from autograd.core.rules import both as both
from autograd.core.rules import compare as compare
from autograd.core.rules import constant as constant
from autograd.core.rules import divide as divide
from autograd.core.rules import eager_kind as eager_kind
from autograd.core.rules import eq as eq
from autograd.core.rules import float_result as float_result
from autograd.core.rules import floats_in_eager as floats_in_eager
from autograd.core.rules import kind_in_order as kind_in_order
from autograd.core.rules import le as le
from autograd.core.rules import log as log
from autograd.core.rules import lt as lt
from autograd.core.rules import ne as ne
from autograd.core.rules import number_in_eager as number_in_eager
from autograd.core.rules import plain_in_eager as plain_in_eager
from autograd.core.rules import pow_scalar_source as pow_scalar_source
from autograd.core.rules import power as power
from autograd.core.rules import power_var as power_var
from autograd.core.rules import reaches as reaches
from autograd.core.rules import sigmoid_slope_near_zero as sigmoid_slope_near_zero
from autograd.core.rules import tanh_slope as tanh_slope
from autograd.core.rules import where as where

NodeUnion: TypeAlias = (
    Leaf
    | Const
    | Add
    | Mul
    | Div
    | Pow
    | Exp
    | Log
    | Sqrt
    | Abs
    | Sin
    | Cos
    | Tanh
    | Relu
    | Sigmoid
    | Tan
    | Sinh
    | Cosh
    | Arcsin
    | Arccos
    | Arctan
    | Log1p
    | Expm1
    | Log2
    | Log10
    | Exp2
    | Sign
    | Arctan2
    | Hypot
    | Maximum
    | Minimum
    | Compare
    | Where
)
"""The closed union of the concrete node classes: `match` on it is checked for exhaustiveness."""

Scalar: TypeAlias = float | Node
"""What ops and loss functions take and return: a plain number or a node."""


rules.CLASSES.mul, rules.CLASSES.log, rules.CLASSES.tanh = Mul, Log, Tanh
rules.CLASSES.compare, rules.CLASSES.where = Compare, Where
_define.complete_all()  # rules read each other's ops: compiled once all of them exist
base._add, base._mul, base._div, base._pow = _build2(Add), _build2(Mul), _build2(Div), _build2(Pow)
base._plain_in_trace = rules.plain_in_eager
