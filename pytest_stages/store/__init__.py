"""Snapshot files on disk: safe paths, atomic writes through syrupy, the rules of a safe prune and its listing."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): pytest's ``-k`` expression
# parser, for ``pytest-stages accept -k``; the command line imports no pytest otherwise.
if TYPE_CHECKING:
    from _pytest.mark import expression
else:
    expression = lazy_module("_pytest.mark.expression")

__all__ = ["expression"]
