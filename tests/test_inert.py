"""Installed anywhere: a session that does not use the plugin finds the process as it was; settings are read
from the file pytest chose as its configuration, and a table it does not read is warned about."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import jax
import pytest
from conftest import ONE_CONFIG, SIMPLE_TEST

from pytest_stages.hooks.options import STAGES_OPTIONS

# The JAX options the plugin may set (CPU platform and devices, the persistent compilation cache).
OPTIONS = (
    "jax_platforms",
    "jax_num_cpu_devices",
    "jax_compilation_cache_dir",
    "jax_persistent_cache_min_compile_time_secs",
    "jax_persistent_cache_min_entry_size_bytes",
    "jax_enable_compilation_cache",
)
# Variables pytest itself sets while a test runs.
PYTESTS_OWN = ("PYTEST_CURRENT_TEST", "PYTEST_VERSION")
# The variables the plugin sets before `import jax` (and JAX reads at import).
PLUGIN_VARIABLES = (
    "JAX_PLATFORMS",
    "JAX_NUM_CPU_DEVICES",
    "JAX_COMPILATION_CACHE_DIR",
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES",
    "PYTEST_STAGES_JAX_CACHE_DIR",
    "PYTEST_STAGES_SET_JAX_PLATFORMS",
)

# A test that writes what it sees of the process to seen.json: the environment, JAX's options, the plugin objects.
INSPECT = f"""
import json, os
from pathlib import Path

import jax

def test_inspect(request):
    seen = {{
        "environ": {{k: v for k, v in os.environ.items() if k not in {PYTESTS_OWN!r}}},
        "options": {{name: repr(getattr(jax.config, name)) for name in {OPTIONS!r}}},
        "plugins": [n for n in ("stages-observer", "stages-reporter") if request.config.pluginmanager.get_plugin(n)],
    }}
    Path(request.config.rootpath, "seen.json").write_text(json.dumps(seen))
"""


def environ() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key not in PYTESTS_OWN}


def options() -> dict[str, str]:
    return {name: repr(getattr(jax.config, name)) for name in OPTIONS}


def seen(pytester: pytest.Pytester) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((pytester.path / "seen.json").read_text())
    return result


def stages_cache(pytester: pytest.Pytester) -> Path:
    return pytester.path / ".pytest_cache" / "d" / "pytest-stages-jax"


def test_a_session_without_the_table_leaves_the_process_as_it_found_it(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[project]\nname = "unrelated"\n')
    pytester.makepyfile(test_inspect=INSPECT)
    environ_before, before = environ(), options()
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, warnings=0)  # no "Module already imported" warning for the hook modules either
    inside = seen(pytester)
    assert inside["environ"] == environ_before
    assert inside["options"] == before
    assert inside["plugins"] == []
    assert environ() == environ_before
    assert options() == before
    assert not stages_cache(pytester).exists()
    assert "stages:" not in result.stdout.str()  # no header line either


def test_a_fresh_process_without_the_table_gets_no_variable(pytester: pytest.Pytester) -> None:
    """The case users meet: the variables are set before ``import jax``, so only a fresh process shows them."""
    for name in PLUGIN_VARIABLES:
        pytester._monkeypatch.delenv(name, raising=False)
    pytester.makepyprojecttoml('[project]\nname = "unrelated"\n')
    pytester.makepyfile(test_inspect=INSPECT)
    result = pytester.runpytest_subprocess("-p", "no:xdist")
    result.assert_outcomes(passed=1, warnings=0)
    inside = seen(pytester)
    assert sorted(set(PLUGIN_VARIABLES) & set(inside["environ"])) == []
    assert inside["plugins"] == []
    assert not stages_cache(pytester).exists()


# A plugin loaded with -p (before pytest looks for installed plugins): counts pytest's scans of every installed
# distribution's entry points, and says whether the hook modules are registered under their names.
SCANS = """
import pluggy

scans = []
load = pluggy.PluginManager.load_setuptools_entrypoints


def counted(self, *args, **kwargs):
    scans.append(args)
    return load(self, *args, **kwargs)


pluggy.PluginManager.load_setuptools_entrypoints = counted


def pytest_unconfigure(config):
    plugins = config.pluginmanager
    hooks = [n for n in ("options", "configure", "items") if plugins.get_plugin(f"pytest_stages.hooks.{n}")]
    (config.rootpath / "scans.txt").write_text(f"{len(scans)} {','.join(hooks)}")
"""


def test_the_hook_modules_are_registered_without_another_scan_of_installed_plugins(pytester: pytest.Pytester) -> None:
    """Each name in a ``pytest_plugins`` list costs a scan of every installed distribution's metadata."""
    pytester.makepyprojecttoml('[project]\nname = "unrelated"\n')
    pytester.makepyfile(scan_count=SCANS, test_plain="def test_plain():\n    pass\n")
    pytester.runpytest_subprocess("-p", "scan_count", "-p", "no:stages").assert_outcomes(passed=1)
    scans, registered = (pytester.path / "scans.txt").read_text().split(" ")
    assert registered == ""
    pytester.runpytest_subprocess("-p", "scan_count").assert_outcomes(passed=1, warnings=0)
    assert (pytester.path / "scans.txt").read_text() == f"{scans} options,configure,items"


def test_a_session_with_the_table_restores_what_it_set(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(f"[tool.pytest_stages]\n{ONE_CONFIG}")
    pytester.makepyfile(test_inspect=INSPECT, test_simple=SIMPLE_TEST)
    environ_before, before = environ(), options()
    result = pytester.runpytest("-W", "ignore::UserWarning", "--stages-update")
    result.assert_outcomes(passed=2)
    inside = seen(pytester)
    assert inside["plugins"] == ["stages-observer", "stages-reporter"]
    assert inside["options"]["jax_compilation_cache_dir"] == repr(str(stages_cache(pytester)))
    assert environ() == environ_before
    assert options() == before


def test_a_session_without_the_table_starts_when_a_test_stages(pytester: pytest.Pytester) -> None:
    """The fixtures work without a table (the defaults apply); staging puts the plugin to work then."""
    pytester.makepyprojecttoml('[project]\nname = "unrelated"\n')
    pytester.makepyfile(test_simple=SIMPLE_TEST)
    environ_before, before = environ(), options()
    result = pytester.runpytest("-W", "ignore::UserWarning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'f' on config default has no snapshots yet in snapshots/test_simple/test_f/default/",
            "test_simple.py::test_f?default?  default  f     new   new   new*",  # the summary table
        ]
    )
    assert stages_cache(pytester).is_dir()
    assert environ() == environ_before
    assert options() == before


TABLE_CPU2 = """
[tool.pytest_stages]
snapshot_dir = "stage-snaps"

[[tool.pytest_stages.configs]]
name = "cpu2"
devices = 1
"""


def test_a_pytest_ini_beside_the_pyproject_reads_its_table(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\n")
    pytester.makepyprojecttoml(TABLE_CPU2)
    pytester.makepyfile(test_simple=SIMPLE_TEST)
    result = pytester.runpytest("--collect-only", "-q")
    assert "test_simple.py::test_f[cpu2]" in result.stdout.lines


def test_a_table_pytest_does_not_read_is_warned_about(pytester: pytest.Pytester) -> None:
    """``tests/pytest.ini`` makes ``tests/`` the rootdir; the table in the project's pyproject.toml is not read."""
    pytester.makepyprojecttoml(TABLE_CPU2)
    tests = pytester.mkdir("tests")
    (tests / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tests / "test_simple.py").write_text(textwrap.dedent(SIMPLE_TEST), encoding="utf-8")
    result = pytester.runpytest("tests", "--collect-only", "-q", "-p", "no:cacheprovider")
    pyproject = pytester.path / "pyproject.toml"
    warning = (
        f"PytestConfigWarning: pytest-stages: {pyproject} has a [tool.pytest_stages] table, but pytest chose its "
        f"configuration {tests / 'pytest.ini'} (rootdir {tests}), so the table is not read and the defaults "
        f"apply. Move the table into {tests / 'pyproject.toml'}, or pytest's own settings into "
        f"[tool.pytest.ini_options] of {pyproject}."
    )
    assert warning in result.stdout.str()
    assert "test_simple.py::test_f[default]" in result.stdout.lines


def test_every_stages_option_puts_the_plugin_to_work(pytester: pytest.Pytester) -> None:
    """Any ``--stages-*`` option pytest parses starts the plugin without a table (``--stages-measure`` once did not)."""
    parsed = {name for name in vars(pytester.parseconfig().option) if name.startswith("stages_")}
    assert parsed == set(STAGES_OPTIONS)
