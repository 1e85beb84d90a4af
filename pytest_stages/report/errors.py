"""The report layer's errors: shard reports that cannot be merged, a command's output that cannot be written."""

from __future__ import annotations

from pytest_stages.core.errors import Outcome, StagesError


class MergeError(StagesError):
    """Reports that cannot be merged; the message names the report and the fix (the command exits 2)."""

    outcome = Outcome.USAGE


class OutputLost(Exception):
    """Standard output could not take a command's text (not a closed pipe: a full disk, a closed descriptor).

    Not a :class:`StagesError`: the commands' own error handling must not catch it and write again.
    """
