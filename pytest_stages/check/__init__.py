"""Snapshot against staged artifact: findings, budgets, the verdict, upgrade causes, the failure message."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): what only a difference needs, the
# comparison families (each imported at the first pair it judges; deepdiff with the JSON ones), the
# alignment of stage texts and their source lines. A matching snapshot imports none of them.
if TYPE_CHECKING:
    from pytest_stages.check import changed_paths, drift, figures, kernel_changes, ops, placement
    from pytest_stages.ir import alpha as ir_alpha
    from pytest_stages.ir import sources as ir_sources
else:
    changed_paths = lazy_module("pytest_stages.check.changed_paths")
    drift = lazy_module("pytest_stages.check.drift")
    figures = lazy_module("pytest_stages.check.figures")
    kernel_changes = lazy_module("pytest_stages.check.kernel_changes")
    ops = lazy_module("pytest_stages.check.ops")
    placement = lazy_module("pytest_stages.check.placement")
    ir_alpha = lazy_module("pytest_stages.ir.alpha")
    ir_sources = lazy_module("pytest_stages.ir.sources")

__all__ = ["changed_paths", "drift", "figures", "ir_alpha", "ir_sources", "kernel_changes", "ops", "placement"]
