"""``pytest-stages --version``: the installed plugin and the JAX it stages with, as the JSON report records them."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata


def test_version_names_the_plugin_jax_and_jaxlib():
    done = subprocess.run(
        [sys.executable, "-m", "pytest_stages", "--version"], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    plugin, jax, jaxlib = (metadata.version(name) for name in ("pytest-stages", "jax", "jaxlib"))
    assert done.stdout == f"pytest-stages {plugin} (jax {jax}, jaxlib {jaxlib})\n"
