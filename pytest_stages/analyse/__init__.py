"""Staged JAX objects in, JSON-ready analyses out; the artifact table that describes every snapshot file once."""
