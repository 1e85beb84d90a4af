"""pytest-stages: compilation-regression tests for JAX programs.

Tests call the ``stage_snapshot`` fixture; it traces, lowers and compiles a
function on every configured device set and compares the stage texts and
analyses with snapshots under ``snapshots/``.
"""

from .devices import ActiveConfig
from .registry import register
from .staging import StageError, StageResult

__all__ = ["ActiveConfig", "StageError", "StageResult", "register"]
__version__ = "0.1.0"
