"""Partial runs, unused files and prune, corrupt snapshots, versions, hostile names, xdist, interrupted updates."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from conftest import SIMPLE_TEST

TWO = (
    SIMPLE_TEST
    + """

def test_g(stage_snapshot):
    stage_snapshot(lambda x: x * 2, jax.ShapeDtypeStruct((4,), jnp.float32), name="double")
"""
)
META = "snapshots/test_model/test_f/cpu1/_stages.json"


def recorded(project, text=TWO, passed=2):
    project.write("test_model.py", text)
    project.run("--stages-update").assert_outcomes(passed=passed)
    return project.snapshots()


def test_unused_files_are_reported_after_a_full_run_and_pruned_only_then(project):
    files = recorded(project)
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 9 unused snapshot file(s); `pytest --stages-prune` deletes them:",
            "  snapshots/test_model/test_g/cpu1/_stages.json",
            "  snapshots/test_model/test_g/cpu1/double.compiled.hlo.txt",
        ]
    )
    refused = project.run("--stages-prune", "-k", "nothing")
    refused.stdout.fnmatch_lines(
        [
            "pytest-stages: --stages-prune refused: 1 collected item(s) were deselected or removed; nothing was "
            "deleted. Run the whole suite, without selecting or stopping early, with --stages-prune."
        ]
    )
    assert project.snapshots() == files
    project.run("--stages-prune").stdout.fnmatch_lines(["pytest-stages: pruning 9 file(s):"])
    assert set(project.snapshots()) == {k for k in files if k.startswith("test_model/test_f/")}


def test_a_partial_run_reports_no_unused_files(project):
    recorded(project)
    for args in (("-k", "test_f"), ("test_model.py::test_f",), ("-x",)):
        assert "unused snapshot file" not in project.output(project.run(*args))


def test_snapshots_of_a_test_that_crashed_before_comparing_are_never_unused(project):
    files = recorded(project)
    project.write(
        "test_model.py",
        TWO.replace("    stage_snapshot(lambda", "    raise RuntimeError('boom')\n    stage_snapshot(lambda"),
    )
    for args in ((), ("--stages-update",), ("--stages-prune",)):
        result = project.run(*args)
        result.assert_outcomes(passed=1, failed=1)
        output = project.output(result)
        assert "unused snapshot file" not in output and "pytest-stages: pruning" not in output
    assert project.snapshots() == files


def test_binary_garbage_in_a_snapshot_names_the_file_and_the_fix(project):
    recorded(project, SIMPLE_TEST, passed=1)
    path = project.path / "snapshots/test_model/test_f/cpu1/f.compiled.hlo.txt"
    path.write_bytes(b"\xff\xfe\x00garbage\x80")
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest-stages: snapshot {path} is not UTF-8 text (corrupt or not written by pytest-stages); "
            "restore it from version control, or delete it and run `pytest --stages-update`."
        ]
    )
    assert "Traceback" not in project.output(result)
    assert path.read_bytes() == b"\xff\xfe\x00garbage\x80"


def test_invalid_json_in_a_snapshot_names_the_file_and_the_fix(project):
    recorded(project, SIMPLE_TEST, passed=1)
    path = project.path / "snapshots/test_model/test_f/cpu1/f.cost.json"
    path.write_text('{"compiled": {"flops": 10,,}')
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest-stages: snapshot {path} is not valid JSON "
            "(Expecting property name enclosed in double quotes, line 1): "
            "it was corrupted or edited by hand. Restore it from version control, or run "
            "`pytest --stages-update test_model.py::test_f?cpu1?` to record it again."
        ]
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    assert json.loads(path.read_text())["compiled"]["flops"] > 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not valid JSON (Expecting value, line 1)"),
        ('{"jax": "0.10.2"}', 'has no integer "format" field'),
        # A newer format is said once a session: tests/test_snapshot_format.py.
    ],
)
def test_a_corrupt_or_newer_metadata_file_is_an_error(project, content, message):
    recorded(project, SIMPLE_TEST, passed=1)
    (project.path / META).write_text(content)
    result = project.run()
    result.assert_outcomes(failed=1)
    assert f"pytest-stages: snapshot metadata {project.path / META} {message}" in result.stdout.str()
    assert (project.path / META).read_text() == content


def test_a_missing_metadata_file_is_an_error_until_updated(project):
    recorded(project, SIMPLE_TEST, passed=1)
    (project.path / META).unlink()
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest-stages: snapshot folder {project.path / META.rsplit('/', 1)[0]} has snapshots but no _stages.json "
            "(the jax/jaxlib versions they were taken with are unknown); restore it from version control, "
            "or run `pytest --stages-update` to record it."
        ]
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    assert (project.path / META).exists()


def plant_old_versions(project):
    meta = project.path / META
    data = json.loads(meta.read_text())
    data.update(jax="0.9.0", jaxlib="0.9.0")
    meta.write_text(json.dumps(data))


@pytest.mark.parametrize("mode", ["fail", "warn", "skip"])
def test_a_drift_under_other_jax_versions_fails_warns_or_skips_as_on_version_mismatch_says(project, mode):
    project.configure(f'on_version_mismatch = "{mode}"')
    recorded(project, SIMPLE_TEST, passed=1)
    plant_old_versions(project)
    project.write("test_model.py", SIMPLE_TEST.replace("jnp.tanh", "jnp.sin"))
    result = project.run("-rs")
    note = "snapshots were taken with jax 0.9.0, jaxlib 0.9.0; this run uses jax 0.10.2, jaxlib 0.10.2"
    if mode == "fail":
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines([f"  note: {note}; the differences may come from that upgrade."])
    elif mode == "warn":
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines([f"pytest-stages: note: {note}"])
    else:
        result.assert_outcomes(skipped=1)
        result.stdout.fnmatch_lines([f'*pytest-stages: {note} (on_version_mismatch = "skip")*'])


def test_an_unchanged_program_under_other_versions_passes_with_a_note(project):
    recorded(project, SIMPLE_TEST, passed=1)
    plant_old_versions(project)
    result = project.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pytest-stages: note: snapshots were taken with jax 0.9.0*"])
    project.run("--stages-update").assert_outcomes(passed=1)
    assert '"jax": "0.10.2"' in (project.path / META).read_text()


HOSTILE = """
import jax, jax.numpy as jnp
import pytest

@pytest.mark.parametrize("tag", ["a/b", "../../escape", "nul\\x00", "é" * 120, ".."])
def test_hostile(stage_snapshot, tag):
    stage_snapshot(lambda x: x + 1, jax.ShapeDtypeStruct((2,), jnp.float32), name=tag)
"""


def test_hostile_ids_and_names_stay_inside_the_snapshot_folder(project):
    project.write("test_model.py", HOSTILE)
    project.run("--stages-update").assert_outcomes(passed=5)
    files = project.snapshots()
    assert len(files) == 5 * 9 and all(".." not in part.split("/") for part in files)
    assert not (project.path.parent / "escape").exists()
    assert sorted({path.split("/")[1] for path in files}) == sorted(
        {path.split("/")[1] for path in files if path.split("/")[1].startswith("test_hostile[")}
    )
    project.run().assert_outcomes(passed=5)
    assert project.snapshots() == files


def test_a_symlink_planted_in_the_snapshot_folder_is_refused(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = project.path / "snapshots/test_model/test_f"
    folder.mkdir(parents=True)
    (folder / "cpu1").symlink_to(outside, target_is_directory=True)
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["pytest-stages: refusing to use *: it resolves to *outside*, outside the snapshot folder *"]
    )
    assert list(outside.iterdir()) == []


def test_xdist_writes_byte_identical_snapshots_and_merges_reports(project, tmp_path):
    many = SIMPLE_TEST + "".join(
        f"""

def test_n{i}(stage_snapshot):
    stage_snapshot(lambda x: jnp.cos(x) * {i}, jax.ShapeDtypeStruct(({i + 2},), jnp.float32), name="cos{i}")
"""
        for i in range(4)
    )
    serial = recorded(project, many, passed=5)
    for path in (project.path / "snapshots").rglob("*"):
        if path.is_file():
            path.unlink()
    report = tmp_path / "report.json"
    result = project.run("-p", "xdist", "-n", "2", "--stages-update", f"--stages-report={report}")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["pytest-stages: wrote 45 snapshot file(s) in 5 folder(s) (pytest -v lists them)"])
    assert project.snapshots() == serial
    assert len(json.loads(report.read_text())["calls"]) == 5
    project.run("-p", "xdist", "-n", "2").assert_outcomes(passed=5)


KILLED = """
import time, jax, jax.numpy as jnp
import pytest

@pytest.mark.parametrize("i", range(40))
def test_many(stage_snapshot, i):
    stage_snapshot(lambda x: jnp.sin(x) * (i + K), jax.ShapeDtypeStruct((8,), jnp.float32), name="sin")
"""


def test_an_update_killed_midway_leaves_every_file_old_or_new(project):
    project.write("test_model.py", KILLED.replace("K", "1"))
    project.run("--stages-update").assert_outcomes(passed=40)
    old = project.snapshots()
    project.write("test_model.py", KILLED.replace("K", "1000"))
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--stages-update"],
        cwd=project.path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and project.snapshots() == old:
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    interrupted = project.snapshots()
    assert interrupted != old, "the update was killed before it wrote anything"
    finished = project.run("--stages-update")
    finished.assert_outcomes(passed=40)
    new = project.snapshots()
    leftovers = [path for path in interrupted if path.rsplit("/", 1)[1].startswith(".")]
    for path, content in interrupted.items():
        if path not in leftovers:
            assert content in (old[path], new[path]), path
    if leftovers:
        finished.stdout.fnmatch_lines(["pytest-stages: * temporary file(s) left by an interrupted update*"])
