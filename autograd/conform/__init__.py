"""``autograd conform``: check another autograd engine against this one, op by op.

Shipped adapters (``torch``, ``jax``, ``tinygrad``, ``micrograd``; ``hips``
through a worker) import their engine only when loaded. Your own engine is an
`Engine` (or just an `Adapter` function), named ``module:function`` on the
command line, or a worker speaking JSON lines (docs/reference-testing.md).

>>> from autograd.conform import Engine, Options, conform
>>> from autograd.programs import reference
>>> def ours(expr, inputs):
...     p = reference(expr, inputs)
...     return p.value, p.gradients
>>> report = conform(Engine("ours", "0", ours, ops=("*", "tanh")), Options(n=20))
>>> report.ok, [r.agree for r in report.results]
(True, [10, 10])
"""

from autograd.conform._engine import Case as Case
from autograd.conform._engine import Engine as Engine
from autograd.conform._engine import EngineUnavailable as EngineUnavailable
from autograd.conform._engine import Known as Known
from autograd.conform._engine import Mismatch as Mismatch
from autograd.conform._engine import Site as Site
from autograd.conform._engine import at as at
from autograd.conform._engine import nonfinite_inside as nonfinite_inside
from autograd.conform._load import ENGINES as ENGINES
from autograd.conform._load import load_engine as load_engine
from autograd.conform._ops import OPS as OPS
from autograd.conform._protocol import Adapter as Adapter
from autograd.conform._protocol import Conventions as Conventions
from autograd.conform._protocol import HessianAdapter as HessianAdapter
from autograd.conform._protocol import reference_hessian as reference_hessian
from autograd.conform._report import Example as Example
from autograd.conform._report import OpResult as OpResult
from autograd.conform._report import Report as Report
from autograd.conform._run import Options as Options
from autograd.conform._run import conform as conform
from autograd.conform._worker import PROTOCOL as PROTOCOL
