"""The one exception every layer may raise for a setting, marker or option that cannot be used."""


class ConfigError(Exception):
    """A setting that cannot be used; the message names it and the fix."""
