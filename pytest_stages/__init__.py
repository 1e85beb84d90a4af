"""pytest-stages: compilation-regression tests for JAX programs.

Tests call the ``stage_snapshot`` fixture; it traces, lowers and compiles a
function on every configured device set and compares the stage texts and
analyses with snapshots under ``snapshots/``. Tests that use syrupy's own
``snapshot`` fixture can snapshot the same artifacts with the extensions of
:mod:`pytest_stages.extensions` (``StableHLOExtension``, ``extension_for("cost")``, ...).
"""

from .devices import ActiveConfig
from .extensions import *  # noqa: F403  (one syrupy extension per artifact, named in its __all__)
from .extensions import __all__ as _extensions
from .registry import register
from .staging import StageError, StageResult

__all__ = ["ActiveConfig", "StageError", "StageResult", "register", *_extensions]
__version__ = "0.1.0"
