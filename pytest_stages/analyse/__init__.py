"""Staged JAX objects in, JSON-ready analyses out; the artifact table that describes every snapshot file once."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): JAX, for the shardings of a
# compiled program; importing the plugin imports none of it.
if TYPE_CHECKING:
    import jax
else:
    jax = lazy_module("jax")

__all__ = ["jax"]
