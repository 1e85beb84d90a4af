"""The calls layer's errors: a call whose findings fail its test, or a call that is skipped."""

from __future__ import annotations

from pytest_stages.core.errors import Outcome, StagesError


class StagesFailure(StagesError):
    """A call whose findings fail the test; the message is what the user reads."""


class StagesSkip(StagesError):
    """A call that is skipped; the message is the reason.

    Snapshots from other JAX versions under ``on_version_mismatch = "skip"``, or a function its
    configuration cannot stage (:class:`~pytest_stages.stage.errors.Unsupported`).
    """

    outcome = Outcome.SKIP
