"""One stage_snapshot call as steps (stage, compare, decide, write), and the session state those calls share."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): what only a difference or a
# failure needs, the alignment of renamed texts and the failure message, and the pending sets of
# ``--stages-pending``; the timing of ``--stages-measure`` (and with it ``statistics``); a run whose
# calls all match their snapshots loads none of them (tests/test_lazy_imports.py).
if TYPE_CHECKING:
    from pytest_stages.check import message as check_message
    from pytest_stages.ir import rename as ir_rename
    from pytest_stages.stage import measure as stage_measure
    from pytest_stages.store import pending as store_pending
else:
    check_message = lazy_module("pytest_stages.check.message")
    stage_measure = lazy_module("pytest_stages.stage.measure")
    ir_rename = lazy_module("pytest_stages.ir.rename")
    store_pending = lazy_module("pytest_stages.store.pending")

__all__ = ["check_message", "ir_rename", "stage_measure", "store_pending"]
