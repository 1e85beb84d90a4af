"""pytest-stages: compilation-regression tests for JAX programs.

Tests call the ``stage_snapshot`` fixture; it traces, lowers and compiles a
function on every configured device set and compares the stage texts and
analyses with snapshots under ``snapshots/``. Tests that use syrupy's own
``snapshot`` fixture can snapshot the same artifacts with the extensions of
:mod:`pytest_stages.store.extensions` (``StableHLOExtension``, ``extension_for("cost")``, ...).
"""

from pytest_stages.core.errors import Outcome, StagesError
from pytest_stages.hooks.fixtures import StageCompilesFixture, StageSnapshotFixture
from pytest_stages.hooks.registry import register
from pytest_stages.stage.devices import ActiveConfig
from pytest_stages.stage.staging import StageError, StageResult
from pytest_stages.store.extensions import (
    EXTENSIONS,
    ArtifactExtension,
    CompiledHLOExtension,
    CompilesExtension,
    CostExtension,
    HLOExtension,
    JaxprExtension,
    LayoutExtension,
    MemoryExtension,
    OpsExtension,
    ShardingExtension,
    StableHLOExtension,
    extension_for,
)

# One syrupy extension per artifact, as in pytest_stages.store.extensions.__all__.
__all__ = [
    "EXTENSIONS",
    "ActiveConfig",
    "ArtifactExtension",
    "CompiledHLOExtension",
    "CompilesExtension",
    "CostExtension",
    "HLOExtension",
    "JaxprExtension",
    "LayoutExtension",
    "MemoryExtension",
    "OpsExtension",
    "Outcome",
    "ShardingExtension",
    "StableHLOExtension",
    "StageCompilesFixture",
    "StageError",
    "StageResult",
    "StageSnapshotFixture",
    "StagesError",
    "extension_for",
    "register",
]
__version__ = "0.1.0"
