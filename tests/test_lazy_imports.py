"""What a passing run loads: the modules only a difference or a failure needs stay unimported.

Start-up is a fixed cost of every session (benchmarks/README.md); a run whose calls all match
their snapshots never imports the comparison families, the renumbering-proof diff, the message
renderer or the syrupy extensions; nor does it import ``jax.extend`` (and with it Pallas). Each
module binds what it imports late at its top (``pytest_stages/core/lazy.py``; tests/test_package_shape.py
holds how).
"""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import SIMPLE_TEST

from pytest_stages.core.lazy import lazy_module, lazy_pattern

# Imported only when an artifact differs, a test fails or a report or extension asks for them.
ON_DEMAND = {
    "pytest_stages.check.changed_paths",
    "pytest_stages.check.collectives",
    "pytest_stages.check.drift",
    "pytest_stages.check.figures",
    "pytest_stages.check.kernel_changes",
    "pytest_stages.check.message",
    "pytest_stages.check.ops",
    "pytest_stages.check.placement",
    "pytest_stages.hooks.chip_schedule",
    "pytest_stages.ir.renaming",
    "pytest_stages.ir.frame_tables",
    "pytest_stages.ir.hlo_kernels",
    "pytest_stages.ir.hlo_records",
    "pytest_stages.ir.sources",
    "pytest_stages.ir.textdiff",
    "pytest_stages.ir.dialect_names",
    "pytest_stages.ir.diff_render",
    "pytest_stages.report.baseline",
    "pytest_stages.report.html_report",
    "pytest_stages.report.markdown",
    "pytest_stages.report.merge",
    "pytest_stages.report.outputs",
    "pytest_stages.report.refusal_text",
    "pytest_stages.stage.measure",
    "pytest_stages.store.syrupy_extensions",
    "pytest_stages.store.pending",
    "pytest_stages.store.prune_reasons",
    "deepdiff",
    "statistics",
}

# Writes the plugin's modules (and the libraries above) loaded by the end of the session to loaded.json.
CONFTEST = """
import json, sys

def pytest_unconfigure(config):
    loaded = sorted(
        name
        for name in sys.modules
        if name.startswith(("pytest_stages", "jax.extend")) or name in ("deepdiff", "filelock", "statistics")
    )
    (config.rootpath / "loaded.json").write_text(json.dumps(loaded))
"""


def loaded(project) -> set[str]:
    return set(json.loads((project.path / "loaded.json").read_text()))


def test_a_passing_run_never_loads_what_only_a_difference_needs(project):
    project.write("conftest.py", CONFTEST)
    project.write("test_m.py", SIMPLE_TEST)
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "--stages-update").ret == 0
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 0
    assert "pytest_stages.calls.snapshot_call" in loaded(project)
    assert loaded(project) & ON_DEMAND == set()
    # Nor JAX's public extension modules: importing jax.extend imports Pallas, 55-80 ms a process
    # that the same calls by hand never pay (the kernels analysis reads JAX's core module instead).
    assert "jax.extend" not in loaded(project)
    # A difference loads them: the same suite with the function changed fails with a diff.
    project.write("test_m.py", SIMPLE_TEST.replace("jnp.tanh", "jnp.sin"))
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 1
    assert {"pytest_stages.check.drift", "pytest_stages.check.message"} <= loaded(project)


def test_a_session_that_stages_nothing_loads_no_lock_library(project):
    """filelock (some 30 modules) is for the snapshot tree's lock, which only a write or a prune takes.

    A session that stages imports JAX, which imports filelock itself; one that does not pays for none of it.
    """
    project.write("conftest.py", CONFTEST)
    project.write("test_plain.py", "def test_plain():\n    pass\n")
    assert project.pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 0
    assert "pytest_stages.calls.snapshot_call" in loaded(project)
    assert loaded(project) & (ON_DEMAND | {"filelock"}) == set()


def test_a_late_module_is_imported_at_its_first_attribute_read(tmp_path, monkeypatch):
    (tmp_path / "late_probe.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "late_probe", raising=False)
    late = lazy_module("late_probe")
    assert repr(late) == "<lazy module 'late_probe'>"
    # What pytest reads of each name of a plugin module (a hook module's late imports) imports nothing.
    for probed in ("_mock_name", "__wrapped__", "_fixture_function_marker", "_pytestfixturefunction"):
        assert getattr(late, probed, None) is None
    assert "late_probe" not in sys.modules  # nothing stands in for it there: "jax" in sys.modules stays honest
    assert late.VALUE == 42
    assert sys.modules["late_probe"].VALUE == 42
    monkeypatch.setattr(sys.modules["late_probe"], "VALUE", 7)
    assert late.VALUE == 7  # each read is of the module as it is now
    with pytest.raises(AttributeError):
        _ = late.missing


def test_a_late_module_that_is_not_installed_fails_at_its_first_read():
    late = lazy_module("pytest_stages_no_such_module")
    with pytest.raises(ModuleNotFoundError, match="pytest_stages_no_such_module"):
        _ = late.anything


def test_a_late_pattern_is_compiled_at_its_first_use_and_then_matches_as_re_compile_does():
    late = lazy_pattern(r"(?P<name>[a-z]+\d*)\[(?P<dims>[^\]]*)\]", re.ASCII)
    assert repr(late).startswith("<lazy pattern ")
    compiled = re.compile(r"(?P<name>[a-z]+\d*)\[(?P<dims>[^\]]*)\]", re.ASCII)
    text = "f32[8,4] s32[] x"
    assert late.search(text)[0] == compiled.search(text)[0] == "f32[8,4]"
    assert late.findall(text) == compiled.findall(text)
    assert late.sub("T", text) == compiled.sub("T", text)
    assert late.flags == compiled.flags and late.groupindex == compiled.groupindex


def test_a_late_pattern_is_not_compiled_before_its_first_use():
    broken = lazy_pattern("(unclosed")  # compiling it raises: made eagerly, this line would
    with pytest.raises(re.error, match="missing \\)"):
        broken.search("x")
