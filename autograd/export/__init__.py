"""Export a typed scalar function to another array library: `to_jax` (the ``jax`` extra).

The function is traced once per argument structure, as `autograd.jit` traces
it, and each op of its graph is written in JAX from the op's one definition:
a third dialect beside Python floats and NumPy. The result is a JAX function
on float64 arrays, for ``jax.jit``, ``jax.vmap``, ``jax.grad`` and sharding
over devices (docs/jax.md). JAX is imported on first use, never by
``import autograd``.
"""

from autograd.export._to_jax import to_arrays as to_arrays
from autograd.export._to_jax import to_jax as to_jax

__all__ = ["to_arrays", "to_jax"]
