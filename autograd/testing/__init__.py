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

from .._expr import Binary as Binary
from .._expr import Call as Call
from .._expr import Expr as Expr
from .._expr import Neg as Neg
from .._expr import Num as Num
from .._expr import Var as Var
from .._expr import children as children
from .._expr import evaluate as evaluate
from .._expr import names as names
from .._expr import parse as parse
from .._expr import postorder as postorder
from .._expr import to_source as to_source
from .._json import FORMAT as FORMAT
from .._json import JSON as JSON
from .._json import Program as Program
from .._json import decode_float as decode_float
from .._json import encode_float as encode_float
from .._json import expr_from_tree as expr_from_tree
from .._json import expr_to_tree as expr_to_tree
from .._json import grad_result as grad_result
from .._json import program_from_json as program_from_json
from .._json import program_to_json as program_to_json
from .._json import reference as reference
from ._check import Adapter as Adapter
from ._check import Conventions as Conventions
from ._check import EngineMismatch as EngineMismatch
from ._check import check_engine as check_engine
from ._strategies import ALL_OPS as ALL_OPS
from ._strategies import EXPONENTS as EXPONENTS
from ._strategies import SPECIAL_VALUES as SPECIAL_VALUES
from ._strategies import Op as Op
from ._strategies import expressions as expressions
from ._strategies import floats as floats
from ._strategies import programs as programs
