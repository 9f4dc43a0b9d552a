"""Tools to test autograd engines against this one: random programs, `check_engine`, JSON.

Needs hypothesis: install the ``testing`` extra (``pip install 'typed-autograd[testing]'``).

>>> from autograd.testing import check_engine, programs, program_to_json
"""

try:
    import hypothesis as _hypothesis  # noqa: F401  # only to fail early with a clear message
except ImportError as _e:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "autograd.testing needs hypothesis: install the 'testing' extra, "
        "pip install 'typed-autograd[testing]'"
    ) from _e

from autograd.drawing import GUARDS as GUARDS
from autograd.drawing import build_expression as build_expression
from autograd.expr import BINARY_FUNCTIONS as BINARY_FUNCTIONS
from autograd.expr import COMPARISONS as COMPARISONS
from autograd.expr import Binary as Binary
from autograd.expr import Call as Call
from autograd.expr import Call2 as Call2
from autograd.expr import CompareName as CompareName
from autograd.expr import Expr as Expr
from autograd.expr import Neg as Neg
from autograd.expr import Num as Num
from autograd.expr import Var as Var
from autograd.expr import Where as Where
from autograd.expr import children as children
from autograd.expr import evaluate as evaluate
from autograd.expr import names as names
from autograd.expr import parse as parse
from autograd.expr import postorder as postorder
from autograd.expr import to_source as to_source
from autograd.programs import FORMAT as FORMAT
from autograd.programs import FORMATS as FORMATS
from autograd.programs import JSON as JSON
from autograd.programs import Hessian as Hessian
from autograd.programs import Program as Program
from autograd.programs import decode_float as decode_float
from autograd.programs import encode_float as encode_float
from autograd.programs import expr_from_tree as expr_from_tree
from autograd.programs import expr_to_tree as expr_to_tree
from autograd.programs import grad_result as grad_result
from autograd.programs import program_from_json as program_from_json
from autograd.programs import program_to_json as program_to_json
from autograd.programs import random_program as random_program
from autograd.programs import reference as reference
from autograd.testing._check import Adapter as Adapter
from autograd.testing._check import Conventions as Conventions
from autograd.testing._check import EngineMismatch as EngineMismatch
from autograd.testing._check import HessianAdapter as HessianAdapter
from autograd.testing._check import check_engine as check_engine
from autograd.testing._check import reference_hessian as reference_hessian
from autograd.testing._strategies import ALL_OPS as ALL_OPS
from autograd.testing._strategies import EXPONENTS as EXPONENTS
from autograd.testing._strategies import SPECIAL_VALUES as SPECIAL_VALUES
from autograd.testing._strategies import Op as Op
from autograd.testing._strategies import expressions as expressions
from autograd.testing._strategies import floats as floats
from autograd.testing._strategies import programs as programs
