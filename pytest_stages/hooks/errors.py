"""The hook layer's errors: a registration that cannot become a test, or cannot be staged on a config."""

from __future__ import annotations

from pytest_stages.core.errors import StagesError


class RegistrationError(StagesError):
    """A registration that cannot become a test (a collection error); the message names the function and the cause."""


class RegisteredFunctionError(StagesError):
    """A registration that cannot be staged on a config: its item fails with this one paragraph."""
