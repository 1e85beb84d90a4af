"""Staged JAX objects in, JSON-ready analyses out; the artifact table that describes every snapshot file once."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): JAX, for the shardings of a
# compiled program; importing the plugin imports none of it. The source lines of a stage text,
# which only a failure message asks for.
if TYPE_CHECKING:
    import jax

    from pytest_stages.ir import sources as ir_sources
else:
    jax = lazy_module("jax")
    ir_sources = lazy_module("pytest_stages.ir.sources")

__all__ = ["ir_sources", "jax"]
