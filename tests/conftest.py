"""Hypothesis profiles: "ci" is reproducible (derandomized), "dev" explores."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="module")
def exact_numpy() -> Iterator[None]:
    """Batched `jit(vmap(...))` with NumPy's transcendental functions replaced by ``math``'s.

    The batched program then gives the loop's bits, so tests that compare
    bit for bit check its structure; NumPy's own last bits are checked
    against the ulp table in tests/test_vmap_batched.py.
    """
    from autograd.compiler import arrays  # a fixture's own import

    if not arrays.HAVE_NUMPY:
        yield
        return
    with arrays.exact():
        yield
