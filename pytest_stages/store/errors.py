"""The store layer's errors: a pending set, an accept journal or an accept that cannot be used as it is."""

from __future__ import annotations

from pytest_stages.core.errors import Outcome, StagesError


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
