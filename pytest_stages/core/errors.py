"""The plugin's errors: one base class that carries its pytest outcome, and the one place "pytest-stages: " is added.

Every error a user may read derives from :class:`StagesError`. Its message is one paragraph
naming the thing and the fix, without the prefix; :meth:`StagesError.shown` adds it. The hook
layer (``hooks/snapshot_assembly.py``) turns an error into pytest's fail or skip from its class's
:class:`Outcome`; at configure time every one of them is a usage error (exit 4).
"""

from __future__ import annotations

import enum
from typing import ClassVar

# What starts each line the plugin writes for a user: errors, skip reasons, report headings.
PREFIX = "pytest-stages: "


class Outcome(enum.Enum):
    """What an error does to the test (or collection) it reaches."""

    FAIL = "fail"  # fails it with the message, no traceback
    SKIP = "skip"  # skips it, the message as the reason
    USAGE = "usage"  # stops the command: a bad argument of the command line, never inside a test


class StagesError(Exception):
    """An error of the plugin a user reads: one paragraph naming the thing and the fix."""

    outcome: ClassVar[Outcome] = Outcome.FAIL
    # The whole traceback of what caused it, shown under the paragraph with ``--tb=long`` ("" when none).
    traceback: str = ""

    def shown(self, long_tracebacks: bool = False) -> str:
        """The message as the user reads it: prefixed, with the cause's traceback under it for ``--tb=long``."""
        whole = f"\n{self.traceback}" if long_tracebacks and self.traceback else ""
        return f"{PREFIX}{self}{whole}"


class ConfigError(StagesError):
    """A setting, marker or option that cannot be used; the message names it and the fix."""


class PathError(StagesError):
    """A path a user named that pytest-stages will not read or write; the message names it, why, and the fix."""

    outcome = Outcome.USAGE


class InputError(StagesError, ValueError):
    """A file or JSON text pytest-stages refuses to read; the message says what is wrong (not the path or a fix)."""


class SnapshotError(StagesError):
    """A snapshot file that cannot be read or written; the message names it and the fix."""
