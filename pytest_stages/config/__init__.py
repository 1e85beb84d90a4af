"""``[tool.pytest_stages]`` read, validated and frozen: where the table is, the settings, the device configs."""
