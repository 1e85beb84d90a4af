"""Trace, lower and compile: device sets (CPU, compile-only topologies), framework adapters, JAX caches."""
