"""pytest-stages: compilation-regression tests for JAX programs.

Tests call the ``stage_snapshot`` fixture; it traces, lowers and compiles a
function on every configured device set and compares the stage texts and
analyses with snapshots under ``snapshots/``. Tests that use syrupy's own
``snapshot`` fixture can snapshot the same artifacts with the extensions of
:mod:`pytest_stages.extensions` (``StableHLOExtension``, ``extension_for("cost")``, ...).
"""

from pytest_stages.hooks.registry import register
from pytest_stages.stage.devices import ActiveConfig
from pytest_stages.stage.staging import StageError, StageResult
from pytest_stages.store.extensions import *  # noqa: F403  (one syrupy extension per artifact, named in its __all__)
from pytest_stages.store.extensions import __all__ as _extensions

__all__ = ["ActiveConfig", "StageError", "StageResult", "register", *_extensions]
__version__ = "0.1.0"
