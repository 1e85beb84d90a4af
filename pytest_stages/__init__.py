"""pytest-stages: compilation-regression tests for JAX programs.

Tests call the ``stage_snapshot`` fixture; it traces, lowers and compiles a
function on every configured device set and compares the stage texts and
analyses with snapshots under ``snapshots/``. Tests that use syrupy's own
``snapshot`` fixture can snapshot the same artifacts with the extensions of
:mod:`pytest_stages.store.syrupy_extensions` (``StableHLOExtension``, ``extension_for("cost")``, ...).
"""

from typing import TYPE_CHECKING, Any

from pytest_stages.core.errors import Outcome, StagesError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.hooks.fixtures import StageCompilesFixture, StageSnapshotFixture
from pytest_stages.hooks.registry import register
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.errors import StagingFailed
from pytest_stages.stage.staging import StageResult

# Imported late, named once (core/lazy.py says how): the syrupy extensions, which a session that
# only stages never needs.
if TYPE_CHECKING:
    from pytest_stages.store import syrupy_extensions as extensions_
    from pytest_stages.store.syrupy_extensions import (
        EXTENSIONS,
        ArtifactExtension,
        CompiledHLOExtension,
        CompilesExtension,
        CostExtension,
        HLOExtension,
        JaxprExtension,
        KernelIRExtension,
        KernelsExtension,
        LayoutExtension,
        MemoryExtension,
        OpsExtension,
        ShardingExtension,
        StableHLOExtension,
        extension_for,
    )
else:
    extensions_ = lazy_module("pytest_stages.store.syrupy_extensions")


def __getattr__(name: str) -> Any:
    """The syrupy extensions, imported on first use: a session that only stages never needs them.

    Every other name of ``__all__`` is bound above, so only an extension's name is looked up here
    (the plugin's entry point imports this package first).
    """
    if name in __all__:
        return getattr(extensions_, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# One syrupy extension per artifact, as in pytest_stages.store.syrupy_extensions.__all__.
__all__ = [
    "EXTENSIONS",
    "ActiveConfig",
    "ArtifactExtension",
    "CompiledHLOExtension",
    "CompilesExtension",
    "CostExtension",
    "HLOExtension",
    "JaxprExtension",
    "KernelIRExtension",
    "KernelsExtension",
    "LayoutExtension",
    "MemoryExtension",
    "OpsExtension",
    "Outcome",
    "ShardingExtension",
    "StableHLOExtension",
    "StageCompilesFixture",
    "StageResult",
    "StageSnapshotFixture",
    "StagesError",
    "StagingFailed",
    "extension_for",
    "register",
]
# A development version until the first release: its dev number is the snapshot format it writes
# (check/snapshot_format.FORMAT_VERSION), so a format change moves the version (CONTRIBUTING.md).
__version__ = "0.2.0.dev2"
