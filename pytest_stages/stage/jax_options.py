"""JAX's config options, read and set for a block, typed.

JAX declares its options (``jax_platforms``, ``jax_use_shardy_partitioner``, ...) at run
time, so type checkers do not see them as attributes of ``jax.config``; they are read here
by name. JAX is imported when one is first read or set, never by importing this module.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pytest_stages.core.lazy import lazy_module

if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")


def option(name: str) -> Any:
    """The current value of the JAX option ``name`` (``option("jax_platforms")`` -> ``"cpu"``)."""
    return getattr(jax.config, name)


@contextlib.contextmanager
def option_set(name: str, value: object) -> Iterator[None]:
    """The JAX option ``name`` set to ``value`` inside the block, then restored."""
    before = option(name)
    jax.config.update(name, value)
    try:
        yield
    finally:
        jax.config.update(name, before)
