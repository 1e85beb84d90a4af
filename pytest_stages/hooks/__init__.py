"""The pytest side: test assembly, registered-item collection, observation of the run, stash keys."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): JAX, for a
# registered function's jit options and its arguments' shapes, so that a session that never stages
# imports none of it; the xdist scheduler, which needs xdist and only an xdist controller asks
# for; the reader of ``--stages-baseline``; the pending sets, which only ``--stages-pending``
# starts; the report files and the step summary, which only ``--stages-report`` and
# ``$GITHUB_STEP_SUMMARY`` ask for. The hook modules ``plugin.py`` registers read them here
# (``hooks.chip_schedule``) and bind none themselves: pytest reads every name of a plugin module,
# which would import them.
if TYPE_CHECKING:
    import jax

    from pytest_stages.hooks import chip_schedule
    from pytest_stages.report import baseline as report_baseline
    from pytest_stages.report import outputs as report_outputs
    from pytest_stages.store import pending as store_pending
else:
    jax = lazy_module("jax")
    chip_schedule = lazy_module("pytest_stages.hooks.chip_schedule")
    report_baseline = lazy_module("pytest_stages.report.baseline")
    report_outputs = lazy_module("pytest_stages.report.outputs")
    store_pending = lazy_module("pytest_stages.store.pending")

__all__ = ["chip_schedule", "jax", "report_baseline", "report_outputs", "store_pending"]
