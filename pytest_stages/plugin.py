"""The plugin's entry point (pytest11 ``stages``): it registers the hook modules, one concern each.

The observer and the reporter are registered later, by :func:`~pytest_stages.hooks.configure.activate`,
and only where a session uses the plugin.
"""

from pytest_stages.hooks import configure, items, options

pytest_plugins = [module.__name__ for module in (options, configure, items)]
