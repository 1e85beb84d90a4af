"""What a passing run loads: the modules only a difference or a failure needs stay unimported.

Start-up is a fixed cost of every session (benchmarks/README.md); a run whose calls all match
their snapshots never imports the comparison families, the renumbering-proof diff, the message
renderer or the syrupy extensions; nor does it import ``jax.extend`` (and with it Pallas).
"""

from __future__ import annotations

import json

from conftest import SIMPLE_TEST

# Imported only when an artifact differs, a test fails or a report or extension asks for them.
ON_DEMAND = {
    "pytest_stages.check.compare",
    "pytest_stages.check.drift",
    "pytest_stages.check.message",
    "pytest_stages.check.pair",
    "pytest_stages.ir.alpha",
    "pytest_stages.ir.rename",
    "pytest_stages.ir.textdiff",
    "pytest_stages.report.baseline",
    "pytest_stages.report.html_report",
    "pytest_stages.report.merge",
    "pytest_stages.store.extensions",
}

# Writes the plugin's modules loaded by the end of the session to loaded.json.
CONFTEST = """
import json, sys

def pytest_unconfigure(config):
    loaded = sorted(name for name in sys.modules if name.startswith(("pytest_stages", "jax.extend")))
    (config.rootpath / "loaded.json").write_text(json.dumps(loaded))
"""


def loaded(project) -> set[str]:
    return set(json.loads((project.path / "loaded.json").read_text()))


def test_a_passing_run_never_loads_what_only_a_difference_needs(project):
    project.write("conftest.py", CONFTEST)
    project.write("test_m.py", SIMPLE_TEST)
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "--stages-update").ret == 0
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 0
    assert "pytest_stages.run.runner" in loaded(project)
    assert loaded(project) & ON_DEMAND == set()
    # Nor JAX's public extension modules: importing jax.extend imports Pallas, 55-80 ms a process
    # that the same calls by hand never pay (the kernels analysis reads JAX's core module instead).
    assert "jax.extend" not in loaded(project)
    # A difference loads them: the same suite with the function changed fails with a diff.
    project.write("test_m.py", SIMPLE_TEST.replace("jnp.tanh", "jnp.sin"))
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 1
    assert {"pytest_stages.check.drift", "pytest_stages.check.message"} <= loaded(project)
