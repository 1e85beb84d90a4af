"""Concurrent writers of the snapshot tree: accepts of conflicting sets, in real processes, many rounds.

Each accept holds the tree's lock (``snapshots/.pytest-stages/lock``) and checks again under it that the
files it replaces are as its set's run found them. Of three accepts of sets that change the same
call three ways, started together, exactly one writes; the others are refused as stale; no file
is lost and no staged copy is left. A process that finds the lock held waits for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import filelock
import pytest
from conftest import Project
from test_accept import ROOT

from pytest_stages.core.errors import SnapshotError
from pytest_stages.store.storage import SnapshotStore

PYPROJECT = """
[project]
name = "race"

[tool.pytest_stages]
analyses = ["cost"]

[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
"""

TEST = """
import os, jax, jax.numpy as jnp

def test_act(stage_snapshot):
    f = {"": jnp.sin, "1": jnp.cos, "2": jnp.tanh, "3": jnp.exp}[os.environ.get("STAGES_CHANGE", "")]
    stage_snapshot(lambda x: f(x), jax.ShapeDtypeStruct((4,), jnp.float32), name="act")

def test_other(stage_snapshot):
    stage_snapshot(lambda x: x * 2.0, jax.ShapeDtypeStruct((4,), jnp.float32), name="other")
"""
ROUNDS = 20
SETS = ("1", "2", "3")


def _tree(root: Path) -> dict[str, bytes]:
    """Every entry under ``root`` (files by content, folders and the lock by name): a lost or stray one shows."""
    return {p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else b"/" for p in sorted(root.rglob("*"))}


def _restore(root: Path, tree: dict[str, bytes]) -> None:
    for path in sorted(root.rglob("*"), key=lambda p: -len(p.parts)):
        path.rmdir() if path.is_dir() else path.unlink()
    for name, data in tree.items():
        (root / name).mkdir(parents=True, exist_ok=True) if data == b"/" else (root / name).write_bytes(data)


def _start(project: Project, pending_set: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    code = "import sys; from pytest_stages.report.cli import main; sys.exit(main(sys.argv[1:]))"
    command = [sys.executable, "-c", code, "accept", "--keep", "--rootdir", str(project.path), str(pending_set)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _project(pytester: pytest.Pytester) -> tuple[Project, dict[str, Path]]:
    project = Project(pytester)
    project.write("pyproject.toml", PYPROJECT)
    project.write("tests/test_race.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=2)
    sets = {}
    for change in SETS:
        os.environ["STAGES_CHANGE"] = change
        try:
            project.run(f"--stages-pending=p{change}")
        finally:
            del os.environ["STAGES_CHANGE"]
        sets[change] = project.path / f"p{change}"
    return project, sets


def test_concurrent_accepts_of_conflicting_sets_one_writes_the_others_are_refused(pytester: pytest.Pytester) -> None:
    project, sets = _project(pytester)
    root = project.path / "snapshots"
    recorded = _tree(root)
    accepted = {}
    for change, pending_set in sets.items():  # what each set alone writes
        _restore(root, recorded)
        done = _start(project, pending_set)
        assert done.wait(timeout=120) == 0, done.communicate()[0]
        accepted[change] = _tree(root)
    assert len({tuple(t.items()) for t in accepted.values()}) == len(SETS)
    for round_ in range(ROUNDS):
        _restore(root, recorded)
        running = {change: _start(project, pending_set) for change, pending_set in sets.items()}
        outcomes = {
            change: (process.wait(timeout=180), process.communicate()[0]) for change, process in running.items()
        }
        won = [change for change, (status, _) in outcomes.items() if status == 0]
        assert len(won) == 1, (round_, outcomes)
        assert _tree(root) == accepted[won[0]], (round_, outcomes)  # nothing lost, nothing staged left beside
        for change, (status, output) in outcomes.items():
            if change != won[0]:
                assert status == 2, output
                assert "is stale: snapshots/tests/test_race/test_act/cpu1/act." in output, output
                assert "Nothing was written." in output, output
    assert not (root / ".stages-accept.json").exists()


def test_an_accept_waits_while_another_process_holds_the_lock(pytester: pytest.Pytester) -> None:
    project, sets = _project(pytester)
    root = project.path / "snapshots"
    recorded = _tree(root)
    lock = filelock.FileLock(root / ".pytest-stages/lock")
    with lock:
        waiting = _start(project, sets["1"])
        time.sleep(3)
        assert waiting.poll() is None, waiting.communicate()[0]  # it waits for the lock ...
        assert _tree(root) == recorded  # ... having written nothing
    output = waiting.communicate(timeout=120)[0]
    assert waiting.returncode == 0, output
    assert "pytest-stages accept: wrote " in output
    assert (
        root / ".pytest-stages/lock"
    ).exists()  # never deleted: a waiting process would lock a file nobody else sees


@pytest.mark.parametrize(
    ("place", "kind", "shown"),
    [
        ("lock", "folder", "folder"),
        ("lock", "link", "symlink"),
        ("lock", "fifo", "FIFO, socket or device"),
        ("own", "file", "file"),
        ("own", "link", "symlink"),
    ],
)
def test_a_lock_file_or_folder_that_is_not_what_it_makes_stops_a_write_with_one_paragraph(tmp_path, place, kind, shown):
    root = tmp_path / "snapshots"
    (root / ".pytest-stages").mkdir(parents=True)
    held = root / ".pytest-stages" / "lock" if place == "lock" else root / ".pytest-stages"
    if place == "own":
        held.rmdir()
    {
        "folder": held.mkdir,
        "file": lambda: held.write_text("mine"),
        "link": lambda: held.symlink_to("/dev/zero" if place == "lock" else tmp_path),
        "fifo": lambda: os.mkfifo(held),
    }[kind]()
    with pytest.raises(SnapshotError) as caught:
        SnapshotStore(root).write(root / "m/t/cpu1/f.jaxpr.txt", "x\n")
    what = "lock file" if place == "lock" else "folder"
    assert str(caught.value) == (
        f"cannot take the snapshot folder's lock {root / '.pytest-stages/lock'}; nothing was written. {held} is a "
        f"{shown}, where pytest-stages keeps its own {what}: remove it, then run again."
    )
    assert not (root / "m").exists()
