"""The store layer's errors: a pending set, an accept journal or an accept that cannot be used as it is."""

from __future__ import annotations

import errno
from pathlib import Path

from pytest_stages.core.errors import Outcome, StagesError

# The errors of a write that the file system refused for want of room, and of a write it refused for want of rights.
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_DENIED = {errno.EACCES, errno.EPERM, errno.EROFS}


class PendingError(StagesError):
    """A pending set that cannot be used as it is; the message names it and the fix."""

    outcome = Outcome.USAGE


class JournalError(StagesError):
    """An accept journal pytest-stages did not write as it is; the message names it and the way out."""

    outcome = Outcome.USAGE


class AcceptError(StagesError):
    """Pending sets that cannot be accepted as they are; the message says which, why, and what to do."""

    outcome = Outcome.USAGE


class HistoryError(StagesError):
    """A history that cannot be read (no git, no repository, a bad revision); the message says why and the fix."""

    outcome = Outcome.USAGE


def write_fix(exc: OSError, folder: Path) -> str:
    """What to do about a write in ``folder`` that failed with ``exc``, as a sentence: a fix that works."""
    if exc.errno in _FULL:
        if exc.errno == errno.EFBIG:
            return f"Raise the file-size limit (`ulimit -f`) or free space on the disk of {folder}, then run again."
        return f"Free space on the disk that holds {folder}, then run again."
    if exc.errno in _DENIED:
        return (
            f"Give the user running pytest-stages write access to {folder} (a read-only mount or an immutable "
            "flag, see `lsattr`, refuses root too), then run again."
        )
    return f"Make {folder} a folder the user running pytest-stages can write in, then run again."
