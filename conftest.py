"""What the whole test session shares: the package's doctests, tests/ and docs/.

JAX (the ``jax`` extra) is told to split the host CPU into 8 devices before
anything imports it: XLA reads the flag once, when its CPU backend starts, and
docs/jax.md's data-parallel example shards its batch over a mesh of all 8.
Without JAX, the doctests that need it (`autograd.export`, docs/jax.md) are
skipped, saying which extra to install.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

HOST_DEVICES = "--xla_force_host_platform_device_count=8"
if HOST_DEVICES not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {HOST_DEVICES}".strip()

NEEDS_JAX = ("autograd/export/", "docs/jax.md")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if importlib.util.find_spec("jax") is not None:
        return
    skip = pytest.mark.skip(reason="needs JAX: pip install -e '.[jax]'")
    for item in items:
        if item.nodeid.startswith(NEEDS_JAX):
            item.add_marker(skip)
