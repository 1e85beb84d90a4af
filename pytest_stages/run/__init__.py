"""One stage_snapshot call as steps (stage, compare, decide, write), and the session state those calls share."""

from typing import TYPE_CHECKING

from pytest_stages.core.lazy import lazy_module

# What this layer imports late, named once (core/lazy.py says how): what only a difference or a
# failure needs, the alignment of renamed texts and the failure message, and the pending sets of
# ``--stages-pending``; the timing of ``--stages-measure`` (and with it ``statistics``); a run whose
# calls all match their snapshots loads none of them (tests/test_lazy_imports.py).
if TYPE_CHECKING:
    from pytest_stages.check import message as message_
    from pytest_stages.ir import rename
    from pytest_stages.stage import measure as measure_
    from pytest_stages.store import pending as pending_
else:
    message_ = lazy_module("pytest_stages.check.message")
    measure_ = lazy_module("pytest_stages.stage.measure")
    rename = lazy_module("pytest_stages.ir.rename")
    pending_ = lazy_module("pytest_stages.store.pending")

__all__ = ["measure_", "message_", "pending_", "rename"]
