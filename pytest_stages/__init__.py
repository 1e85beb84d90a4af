"""pytest-stages: compilation-regression tests for JAX programs.

Tests call the ``stage_snapshot`` fixture; it traces, lowers and compiles a
function on every configured device set and compares the stage texts and
analyses with snapshots under ``snapshots/``. Tests that use syrupy's own
``snapshot`` fixture can snapshot the same artifacts with the extensions of
:mod:`pytest_stages.store.syrupy_extensions` (``StableHLOExtension``, ``extension_for("cost")``, ...).
"""

from typing import TYPE_CHECKING, Any

from pytest_stages.analyse.artifacts import ARTIFACTS
from pytest_stages.core.errors import Outcome, StagesError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.hooks.fixtures import StageCompilesFixture, StageSnapshotFixture
from pytest_stages.hooks.registry import register
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.errors import StagingFailed
from pytest_stages.stage.staging import StageResult
from pytest_stages.store.names import extension_name

# The syrupy extensions, imported at their first use: a session that only stages never needs them.
# mypy reads their names and types from the module's __all__.
if TYPE_CHECKING:
    from pytest_stages.store import syrupy_extensions
    from pytest_stages.store.syrupy_extensions import *  # noqa: F403
else:
    syrupy_extensions = lazy_module("pytest_stages.store.syrupy_extensions")


def __getattr__(name: str) -> Any:
    """A syrupy extension (every name of ``__all__`` not bound above), imported on first use."""
    if name in __all__:
        return getattr(syrupy_extensions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ActiveConfig",
    "Outcome",
    "StageCompilesFixture",
    "StageResult",
    "StageSnapshotFixture",
    "StagesError",
    "StagingFailed",
    "register",
]
# store/syrupy_extensions.py's __all__, derived: its table, base class and look-up, and one extension per artifact.
__all__ += ["EXTENSIONS", "ArtifactExtension", "extension_for"]  # noqa: F405
__all__ += [extension_name(artifact.name, artifact.suffix) for artifact in ARTIFACTS]
# A development version until the first release: its dev number is the snapshot format it writes
# (check/snapshot_format.FORMAT_VERSION), so a format change moves the version (CONTRIBUTING.md).
__version__ = "0.2.0.dev2"
