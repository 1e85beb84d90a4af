"""Snapshot against staged artifact: findings, budgets, the verdict, upgrade causes, the failure message."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): deepdiff, for the changed
# paths of a JSON artifact that differs from its snapshot; a matching snapshot never imports it.
if TYPE_CHECKING:
    import deepdiff
    from deepdiff import helper as deepdiff_helper
else:
    deepdiff = lazy_module("deepdiff")
    deepdiff_helper = lazy_module("deepdiff.helper")

__all__ = ["deepdiff", "deepdiff_helper"]
