"""Snapshot safety: a prune deletes exactly what the run observed unused, and nothing in any other mode.

A project with two test files and committed snapshots, plus a planted set of unused files
(a stale call in a test that runs, a removed test, a deleted module, a removed config).
Every mode runs with ``--stages-prune``; the assertions compare the snapshot tree file by
file with what the mode may delete.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import ONE_CONFIG, TWO_CPU1_CONFIGS

CONFIGS = TWO_CPU1_CONFIGS

TEST_A = """
import os, jax, jax.numpy as jnp, pytest

def test_one(stage_snapshot):
    if os.environ.get("STAGES_BREAK"):
        raise AssertionError("broken on purpose")
    stage_snapshot(lambda x: jnp.sin(x), jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")

@pytest.mark.slow
def test_two(stage_snapshot):
    if os.environ.get("STAGES_CRASH") and os.environ.get("PYTEST_XDIST_WORKER"):
        os._exit(3)
    stage_snapshot(lambda x: x * 2, jax.ShapeDtypeStruct((4,), jnp.float32), name="double")
"""

TEST_B = """
import jax, jax.numpy as jnp

def test_three(stage_snapshot):
    stage_snapshot(lambda x: jnp.cos(x).sum(), jax.ShapeDtypeStruct((8,), jnp.float32), name="cos")
"""

COST = '{\n  "flops": 1.0\n}\n'
META = '{\n  "devices": 1,\n  "format": 1,\n  "jax": "0.10.2",\n  "jaxlib": "0.10.2",\n  "platform": null\n}\n'
STALE = "tests/test_a/test_one/cpu1/stale.cost.json"
REMOVED_TEST = {"tests/test_a/test_removed/cpu1/x.cost.json", "tests/test_a/test_removed/cpu1/_stages.json"}
DELETED_MODULE = {"tests/test_gone/test_x/cpu1/x.cost.json", "tests/test_gone/test_x/cpu1/_stages.json"}
REMOVED_CONFIG = {"tests/test_b/test_three/oldcfg/x.cost.json", "tests/test_b/test_three/oldcfg/_stages.json"}
PLANTED = {STALE, *REMOVED_TEST, *DELETED_MODULE, *REMOVED_CONFIG}


@pytest.fixture
def tree(project):
    """The recorded project with its planted unused files; returns the snapshot files by path."""
    project.configure(configs=CONFIGS + "\n[tool.pytest.ini_options]\ntestpaths = ['tests']\nmarkers = ['slow']\n")
    project.write("tests/test_a.py", TEST_A)
    project.write("tests/test_b.py", TEST_B)
    project.run("--stages-update").assert_outcomes(passed=6)
    project.plant({path: META if path.endswith("_stages.json") else COST for path in PLANTED}, META)
    return project.snapshots()


REFUSED = (
    "pytest-stages: --stages-prune refused: {}; nothing was deleted. "
    "Run the whole suite, without selecting or stopping early, with --stages-prune."
)

# mode -> (arguments, environment, files the prune may delete, a line the user reads)
MODES = {
    "full run": ((), {}, PLANTED, "pytest-stages: pruning 7 file(s):"),
    "--collect-only": (("--collect-only",), {}, set(), REFUSED.format("--collect-only runs no test")),
    "--stages-list": (("--stages-list",), {}, set(), None),
    "-k": (("-k", "one"), {}, set(), REFUSED.format("4 collected item(s) were deselected or removed")),
    "-m": (("-m", "not slow"), {}, set(), REFUSED.format("2 collected item(s) were deselected or removed")),
    "--deselect": (
        ("--deselect", "tests/test_b.py::test_three[alt]"),
        {},
        set(),
        REFUSED.format("1 collected item(s) were deselected or removed"),
    ),
    "--ignore": (("--ignore", "tests/test_b.py"), {}, PLANTED - REMOVED_CONFIG, "pytest-stages: pruning 5 file(s):"),
    "path argument": (("tests/test_a.py",), {}, {STALE, *REMOVED_TEST}, "pytest-stages: pruning 3 file(s):"),
    "node id": (("tests/test_a.py::test_one",), {}, {STALE}, "pytest-stages: pruning 1 file(s):"),
    "--stages-configs": (("--stages-configs", "cpu1"), {}, PLANTED, "pytest-stages: pruning 7 file(s):"),
    "a failing test": ((), {"STAGES_BREAK": "1"}, PLANTED - {STALE}, "pytest-stages: pruning 6 file(s):"),
    "-x after a failure": (
        ("-x",),
        {"STAGES_BREAK": "1"},
        set(),
        REFUSED.format("5 collected item(s) did not run to the end; the session stopped early"),
    ),
    "--maxfail": (("--maxfail", "1"), {"STAGES_BREAK": "1"}, set(), None),
    "collection error": (
        (),
        {},
        set(),
        REFUSED.format("1 collection error(s) (tests/test_broken.py); 6 collected item(s) did not run to the end"),
    ),
    "a plugin drops items": ((), {}, set(), REFUSED.format("2 collected item(s) were deselected or removed")),
    "an outer wrapper drops items": ((), {}, set(), REFUSED.format("2 collected item(s) were deselected or removed")),
    "a bad stages marker": (
        (),
        {},
        set(),
        REFUSED.format("1 collection error(s) (tests/test_b.py::test_three[bad-configs])"),
    ),
}
EXTRA_FILES = {
    "collection error": ("tests/test_broken.py", "def test_(:\n"),
    "a plugin drops items": ("tests/conftest.py", "def pytest_collection_modifyitems(items):\n    del items[:2]\n"),
    # A wrapper outside every other implementation, filtering after they ran, calling no hook.
    "an outer wrapper drops items": (
        "conftest.py",
        "import pytest\n\n@pytest.hookimpl(wrapper=True, tryfirst=True)\n"
        "def pytest_collection_modifyitems(items):\n    yield\n    del items[-2:]\n",
    ),
    "a bad stages marker": (
        "tests/test_b.py",
        TEST_B.replace("def test_three", "import pytest\n\n@pytest.mark.stages(configs='cpu1,typo')\ndef test_three"),
    ),
}
XDIST_MODES = [
    "full run",
    "an outer wrapper drops items",
    "--collect-only",
    "-k",
    "--ignore",
    "collection error",
    "a plugin drops items",
    "a failing test",
    "-x after a failure",
]


def _check(project, tree, monkeypatch, mode, xdist):
    args, env, deletable, line = MODES[mode]
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    if mode in EXTRA_FILES:
        project.write(*EXTRA_FILES[mode])
    result = project.run(*(("-p", "xdist", "-n", "2") if xdist else ()), "--stages-prune", *args)
    after = project.snapshots()
    assert set(tree) - set(after) == deletable, project.output(result)
    assert {path: kept(path, after) for path in after} == {path: kept(path, tree) for path in after}, (
        "a kept file changed"
    )
    output = project.output(result)
    if line is not None and not xdist:
        assert line in output.splitlines(), output
    elif line is not None:  # xdist runs on past a collection error and stops later: counts differ
        prefix = line if deletable else "pytest-stages: --stages-prune refused: "
        assert any(row.startswith(prefix) for row in output.splitlines()), output
    if not deletable:
        assert "pytest-stages: pruning" not in output


def kept(path, files):
    """A kept file's content; of a folder's metadata, all but its manifest (a prune updates that)."""
    if not path.endswith("_stages.json"):
        return files[path]
    return {key: value for key, value in json.loads(files[path]).items() if key != "files"}


@pytest.mark.parametrize("mode", MODES)
def test_a_prune_deletes_exactly_what_each_mode_may_and_leaves_the_rest_unchanged(project, tree, monkeypatch, mode):
    _check(project, tree, monkeypatch, mode, xdist=False)


@pytest.mark.parametrize("mode", XDIST_MODES)
def test_a_prune_under_xdist_deletes_exactly_what_each_mode_may_and_leaves_the_rest_unchanged(
    project, tree, monkeypatch, mode
):
    _check(project, tree, monkeypatch, mode, xdist=True)


def test_a_crashed_xdist_worker_refuses_the_prune(project, tree, monkeypatch):
    monkeypatch.setenv("STAGES_CRASH", "1")
    result = project.run("-p", "xdist", "-n", "2", "--stages-prune")
    assert project.snapshots() == tree
    output = project.output(result)
    assert "pytest-stages: --stages-prune refused: " in output and "went down without reporting" in output, output


def test_last_failed_refuses_when_it_filters_a_module(project, tree, monkeypatch):
    """``--lf`` drops the passing tests of a module with a failure inside collection, not by deselecting."""
    monkeypatch.setenv("STAGES_BREAK", "1")
    project.run("-p", "cacheprovider").assert_outcomes(passed=4, failed=2)
    monkeypatch.delenv("STAGES_BREAK")
    result = project.run("-p", "cacheprovider", "--lf", "--stages-prune")
    result.assert_outcomes(passed=2)
    assert project.snapshots() == tree
    assert REFUSED.format("2 collected item(s) were deselected or removed") in project.output(result).splitlines()


def test_last_failed_prunes_only_in_the_modules_it_collected(project, monkeypatch):
    """``--lf`` reports a module without failures as collected with no tests: its snapshots stay."""
    project.configure(configs=ONE_CONFIG + "\n[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    project.write("tests/test_a.py", TEST_A.partition("@pytest.mark.slow")[0])
    project.write("tests/test_b.py", TEST_B)
    project.run("--stages-update").assert_outcomes(passed=2)
    project.plant({STALE: COST}, META)
    before = project.snapshots()
    monkeypatch.setenv("STAGES_BREAK", "1")
    project.run("-p", "cacheprovider").assert_outcomes(passed=1, failed=1)
    monkeypatch.delenv("STAGES_BREAK")
    result = project.run("-p", "cacheprovider", "--lf", "--stages-prune")
    result.assert_outcomes(passed=1)
    assert set(before) - set(project.snapshots()) == {STALE}, project.output(result)
    assert "pytest-stages: pruning 1 file(s):" in project.output(result).splitlines()


def test_a_pyargs_node_id_prunes_only_in_the_test_it_names(project, tree):
    """``--pyargs pkg.mod::test`` narrows a module by name, not by path: found by what collection visited."""
    project.write("tests/__init__.py", "")
    ini = "\n[tool.pytest.ini_options]\ntestpaths = ['tests']\nmarkers = ['slow']\npythonpath = ['.']\n"
    project.configure(configs=CONFIGS + ini)
    result = project.run("--stages-prune", "--pyargs", "tests.test_a::test_one")
    result.assert_outcomes(passed=2)
    assert set(tree) - set(project.snapshots()) == {STALE}, project.output(result)


def test_registrations_in_two_conftests_are_all_seen_and_an_ignored_one_keeps_its_snapshots(project, tree):
    """Two conftest.py outside packages are both imported as ``conftest``; an ignored one is never imported."""
    project.write("conftest.py", REGISTERED_ACT0)
    project.write("tests/models/conftest.py", REGISTERED_ACT)
    project.run("--stages-update").assert_outcomes(passed=10)
    recorded = project.snapshots()
    assert {"stages/act0/cpu1/act0.cost.json", "stages/act/cpu1/act.cost.json"} <= set(recorded)
    result = project.run("--stages-prune", "--ignore=tests/models")
    result.assert_outcomes(passed=8)
    kept = project.snapshots()
    assert {path for path in recorded if path.startswith("stages/")} <= set(kept), project.output(result)
    result = project.run("--stages-prune")
    result.assert_outcomes(passed=10)
    assert {path for path in recorded if path.startswith("stages/")} <= set(project.snapshots())


def test_a_module_outside_the_rootdir_keeps_its_snapshots_when_not_collected(project):
    project.configure(configs=ONE_CONFIG)
    project.write("tests/test_b.py", TEST_B)
    outside = project.write(f"../{project.path.name}_outside/test_z.py", TEST_B.replace("test_three", "test_z"))
    project.run("--stages-update", "--rootdir", ".", "tests", str(outside)).assert_outcomes(passed=2)
    recorded = project.snapshots()
    assert f"_outside_rootdir/_up/{project.path.name}_outside/test_z/test_z/cpu1/cos.cost.json" in recorded
    result = project.run("--stages-prune")
    result.assert_outcomes(passed=1)
    assert project.snapshots() == recorded, project.output(result)


def test_a_prune_lists_each_file_and_removes_emptied_folders(project, tree):
    result = project.run("--stages-prune")
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: pruning 7 file(s):",
            "  snapshots/tests/test_a/test_one/cpu1/stale.cost.json",
            "  snapshots/tests/test_a/test_removed/cpu1/_stages.json",
            "  snapshots/tests/test_a/test_removed/cpu1/x.cost.json",
            "  snapshots/tests/test_b/test_three/oldcfg/_stages.json",
            "  snapshots/tests/test_b/test_three/oldcfg/x.cost.json",
            "  snapshots/tests/test_gone/test_x/cpu1/_stages.json",
            "  snapshots/tests/test_gone/test_x/cpu1/x.cost.json",
            "pytest-stages: removed 6 emptied folder(s)",
        ]
    )
    root = project.path / "snapshots" / "tests"
    assert not (root / "test_gone").exists() and not (root / "test_a" / "test_removed").exists()
    assert (root / "test_a" / "test_one" / "cpu1").is_dir()


def test_reports_are_written_without_the_terminal_plugin(project, tree, tmp_path):
    report = tmp_path / "r.json"
    project.run("-p", "no:terminal", f"--stages-report={report}")
    assert report.is_file()


def test_new_snapshot_files_get_ordinary_permissions(project, tree):
    mask = os.umask(0o022)
    os.umask(mask)
    expected = 0o666 & ~mask
    path = project.path / "snapshots" / "tests" / "test_b" / "test_three" / "cpu1" / "cos.cost.json"
    assert path.stat().st_mode & 0o777 == expected


DISK_FULL = """
import builtins, errno, io, os

_open, _fdopen = builtins.open, os.fdopen


class _DiskFull(io.TextIOWrapper):
    def write(self, text):
        super().write(text[: len(text) // 2])
        self.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _faulty(stream, path):
    if os.environ.get("STAGES_DISK_FULL", "sin.cost.json") in os.path.basename(str(path)) and "w" in stream.mode:
        return _DiskFull(stream.detach(), encoding="utf-8", newline="")
    return stream


def _patched_open(file, mode="r", *args, **kwargs):
    stream = _open(file, mode, *args, **kwargs)
    return _faulty(stream, file) if "b" not in mode else stream


def _patched_fdopen(fd, mode="r", *args, **kwargs):
    path = os.readlink(f"/proc/self/fd/{fd}")
    stream = _fdopen(fd, mode, *args, **kwargs)
    return _faulty(stream, path) if "b" not in mode else stream


def pytest_configure(config):
    builtins.open, os.fdopen = _patched_open, _patched_fdopen


def pytest_unconfigure(config):
    builtins.open, os.fdopen = _open, _fdopen
"""


def test_a_disk_full_mid_write_leaves_the_old_snapshot_whole(project, tree):
    """The write is cut off half-way (ENOSPC); the snapshot keeps its old bytes, no temporary is left."""
    project.write("tests/test_a.py", TEST_A.replace("jnp.sin(x)", "jnp.sin(x) * 3"))
    project.write("tests/conftest.py", DISK_FULL)
    result = project.run("--stages-update", "tests/test_a.py::test_one")
    result.assert_outcomes(passed=0, failed=2)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: could not write snapshot */sin.cost.json (No space left on device); it keeps its "
            "previous content (writes are atomic). Free disk space or fix the folder's permissions, then run "
            "`pytest --stages-update` again.",
        ]
    )
    after = project.snapshots()
    cost = "tests/test_a/test_one/cpu1/sin.cost.json"
    assert after[cost] == tree[cost]
    assert not [path for path in after if path.rsplit("/", 1)[1].startswith(".")]


def test_a_disk_full_mid_write_leaves_the_old_report_whole(project, tree, monkeypatch):
    report = project.path / "out" / "report.json"
    project.run(f"--stages-report={report}").assert_outcomes(passed=6)
    before = report.read_bytes()
    project.write("tests/conftest.py", DISK_FULL)
    monkeypatch.setenv("STAGES_DISK_FULL", "report.json")
    result = project.run(f"--stages-report={report}", "-k", "three")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    assert (
        f"pytest-stages: could not write the report {report} (No space left on device); it keeps its previous "
        "content (writes are atomic). Free disk space or fix the folder's permissions."
    ) in project.output(result).splitlines()
    assert report.read_bytes() == before
    assert [path.name for path in report.parent.iterdir()] == ["report.json"]


REGISTERED_ACT0 = """
import jax, jax.numpy as jnp
from pytest_stages import register

register(lambda x: jnp.tanh(x), args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name="act0")
"""
REGISTERED_ACT = REGISTERED_ACT0.replace("jnp.tanh(x)", "jnp.tanh(x) * 2").replace('"act0"', '"act"')


REGISTERED = """
import jax, jax.numpy as jnp
from pytest_stages import register

register(lambda x: jnp.tanh(x), args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name="act")
"""


def test_registered_snapshots_are_kept_unless_the_run_saw_every_registration(project, tree):
    project.write("conftest.py", REGISTERED)
    project.run("--stages-update").assert_outcomes(passed=8)
    recorded = project.snapshots()
    stale = "stages/act/cpu1/old.cost.json"
    project.plant({stale: COST}, META)
    project.run("--stages-prune", "tests/test_a.py").assert_outcomes(passed=4)
    assert stale in project.snapshots(), "a path argument left the registration out: its folder must be kept"
    project.run("--stages-prune").stdout.fnmatch_lines(["pytest-stages: pruning 5 file(s):", f"  snapshots/{stale}"])
    assert set(recorded) - set(project.snapshots()) == PLANTED and stale not in project.snapshots()
