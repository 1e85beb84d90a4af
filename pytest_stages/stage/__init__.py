"""Trace, lower and compile: device sets (CPU, compile-only topologies), framework adapters, JAX caches."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): JAX, so that a pytest session
# that never stages imports none of it, and the frameworks a staged function may come from (flax,
# equinox: none is a dependency; each is read only for a function of that framework); the source
# lines of a stage text, which only a failure message asks for.
if TYPE_CHECKING:
    import equinox
    import jax
    from flax import linen, nnx
    from flax.nnx.transforms import compilation as nnx_compilation
    from jax.experimental import mesh_utils, topologies

    from pytest_stages.ir import sources as ir_sources
else:
    equinox = lazy_module("equinox")
    jax = lazy_module("jax")
    linen = lazy_module("flax.linen")
    nnx = lazy_module("flax.nnx")
    nnx_compilation = lazy_module("flax.nnx.transforms.compilation")
    mesh_utils = lazy_module("jax.experimental.mesh_utils")
    topologies = lazy_module("jax.experimental.topologies")
    ir_sources = lazy_module("pytest_stages.ir.sources")

__all__ = ["equinox", "ir_sources", "jax", "linen", "mesh_utils", "nnx", "nnx_compilation", "topologies"]
