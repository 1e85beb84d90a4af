"""The plugin's entry point (pytest11 ``stages``): it names the hook modules, one concern each.

They are named as strings, not imported here, so that pytest marks them for assertion rewriting
before importing them; an import here would make pytest warn "Module already imported so cannot
be rewritten" in every session. The observer and the reporter are registered later, by
:func:`~pytest_stages.hooks.configure.activate`, and only where a session uses the plugin.
"""

pytest_plugins = ["pytest_stages.hooks.options", "pytest_stages.hooks.configure", "pytest_stages.hooks.items"]
