"""The plugin's entry point (pytest11 ``stages``): it registers the hook modules, one concern each.

They are registered by :func:`pytest_addhooks`, which pytest calls as it registers this module
(before it reads any option or conftest), not named in ``pytest_plugins``: pytest looks each
name there up among every installed distribution's entry points first (a scan of all their
metadata, three per session), and warns "Module already imported so cannot be rewritten" for
a named module imported before. The observer and the reporter are registered later, by
:func:`~pytest_stages.hooks.configure.activate`, and only where a session uses the plugin.
"""

from __future__ import annotations

import pytest

from pytest_stages.hooks import configure, items, options


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the hook modules under their module names, as ``pytest_plugins`` would."""
    for module in (options, configure, items):
        pluginmanager.register(module, module.__name__)
