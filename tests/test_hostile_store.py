"""What pytest-stages keeps for itself, what an accept leaves behind, and writers the file system stops.

The lock and its ``.gitignore`` live in ``snapshots/.pytest-stages/``, which ``git status`` never shows; an
accept drops the calls it applied from their pending sets. A folder that cannot be written (immutable as
root, read-only otherwise), a file-size limit (``RLIMIT_FSIZE``, real ``EFBIG``), a snapshot over the size
cap, a ``snapshots`` link into the project: each gives one paragraph naming the thing and a fix, and leaves
the tree as it was.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest
from test_accept import KILLER, ROOT, accept, make_project, one_paragraph, pending

from pytest_stages.config.settings import parse_settings
from pytest_stages.core.errors import ConfigError, SnapshotError
from pytest_stages.report import cli
from pytest_stages.store.pending import PendingCall, write_call
from pytest_stages.store.storage import SnapshotStore

FOLDER = "snapshots/tests/test_a/test_one/cpu1"


def git(project, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=project.path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@contextlib.contextmanager
def read_only(*folders: Path) -> Iterator[None]:
    """``folders`` made unwritable for this process: immutable as root (which ignores mode bits), else mode 0555."""
    root = os.geteuid() == 0
    if root and shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: no way to make a folder unwritable")
    for folder in folders:
        if root:
            if subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False).returncode:
                pytest.skip(f"chattr +i is not supported on the file system of {folder}")
        else:
            folder.chmod(0o555)
    try:
        yield
    finally:
        for folder in folders:
            if root:
                subprocess.run(["chattr", "-i", str(folder)], check=True)
            else:
                folder.chmod(0o755)


def test_git_status_shows_nothing_pytest_stages_keeps_for_itself(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    git(project, "init", "-q")
    git(project, "add", "-A")
    assert ".pytest-stages" not in git(project, "status", "--porcelain", "--untracked-files=all", "--ignored=no")
    git(project, "commit", "-qm", "recorded")
    assert (project.path / "snapshots/.pytest-stages/lock").is_file(), "an update took the tree's lock"
    folder = pending(project, "stages-pending", "--stages-configs", "cpu1")
    status, output = accept(project, str(folder))
    assert status == 0, output
    assert (
        output.splitlines()[-1]
        == f"pytest-stages accept: dropped the accepted call(s) from {folder} (now empty: removed)"
    )
    changed = git(project, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert changed and all(line.startswith(" M snapshots/") for line in changed), changed


def test_accept_keeps_the_set_with_keep_and_drops_only_the_calls_it_applied(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    assert accept(project, "--keep", str(folder), "-k", "one")[0] == 0
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    status, output = accept(project, str(folder), "-k", "two")
    assert (
        status == 0 and output.splitlines()[-1] == f"pytest-stages accept: dropped the accepted call(s) from {folder}"
    )
    left = {PurePosixPath(p.relative_to(folder)).name for p in folder.rglob("*.pending.json")}
    assert left == {"act.pending.json", "red.pending.json"}, "test_two's call is gone, the others stay"
    # A set whose folder cannot be written is refused before anything is written; --keep takes it as it is.
    with read_only(*[p for p in folder.rglob("*") if p.is_dir()]):
        recorded = project.snapshots()
        status, output = accept(project, str(folder), "-k", "three")
        assert status == 2 and project.snapshots() == recorded
        assert "cannot drop the calls accepted" in output and "pass --keep to leave the set as it is" in output
        assert accept(project, "--keep", str(folder), "-k", "three")[0] == 0


def test_a_snapshot_folder_whose_parent_cannot_be_written_is_one_paragraph(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    root = tmp_path / "sub" / "snapshots"
    with read_only(tmp_path / "sub"), pytest.raises(SnapshotError) as caught:
        SnapshotStore(root).write(root / "m/t/cpu1/f.jaxpr.txt", "x\n")
    why = "Operation not permitted" if os.geteuid() == 0 else "Permission denied"
    assert str(caught.value) == (
        f"cannot take the snapshot folder's lock {root}/.pytest-stages/lock ({why}); nothing was written. Give the "
        f"user running pytest-stages write access to {tmp_path / 'sub'} (a read-only mount or an immutable flag, see "
        "`lsattr`, refuses root too), then run again."
    )


def test_a_read_only_snapshot_folder_without_a_lock_names_the_folder_not_a_file_in_the_way(tmp_path: Path) -> None:
    root = tmp_path / "snapshots"
    (root / "m/t/cpu1").mkdir(parents=True)
    with read_only(root), pytest.raises(SnapshotError) as caught:
        SnapshotStore(root).write(root / "m/t/cpu1/f.jaxpr.txt", "x\n")
    assert f"write access to {root} (a read-only mount" in str(caught.value)
    assert "remove" not in str(caught.value), "nothing is in the lock's place"
    assert not (root / "m/t/cpu1/f.jaxpr.txt").exists()


@pytest.mark.parametrize(("given", "read"), [("tests/../snapshots", "snapshots"), ("./snaps/", "snaps")])
def test_a_snapshot_dir_that_stays_inside_the_rootdir_is_read_as_its_plain_path(given: str, read: str) -> None:
    assert parse_settings({"snapshot_dir": given}).snapshot_dir == read


def test_an_absolute_snapshot_dir_is_called_absolute_not_outside(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings({"snapshot_dir": str(tmp_path / "snapshots")})
    assert str(caught.value).startswith(
        f"[tool.pytest_stages] snapshot_dir = '{tmp_path / 'snapshots'}' is an absolute path; snapshots live inside "
    )
    assert str(caught.value).endswith('Give a folder relative to the rootdir (snapshot_dir = "snapshots").')


def _limited(size: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_accept_under_a_file_size_limit_is_rolled_back_with_one_paragraph(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1")
    recorded = project.snapshots()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    limited = (  # a journal fits in 200 bytes, the staged snapshot files do not
        "import resource, sys; from pytest_stages.report.cli import main; "
        "resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.getrlimit(resource.RLIMIT_FSIZE)[1])); "
        "sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", limited, "accept", "--rootdir", str(project.path), str(folder)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == ""
    message = one_paragraph(done.stdout)
    assert message.startswith("pytest-stages accept: could not write the accepted snapshots in ")
    assert message.endswith(
        "(File too large); the accept was rolled back, so the snapshot folder is as it was before it. Raise the "
        f"file-size limit (`ulimit -f`) or free space on the disk of {message.split(' in ')[1].split(' (')[0]}, "
        "then accept again."
    )
    assert project.snapshots() == recorded
    assert not [p for p in (project.path / "snapshots").rglob(".*") if ".pytest-stages" not in p.parts]
    assert read_set_names(folder), "the set is kept: nothing was accepted"


def read_set_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.pending.json"))


def test_a_pending_write_cut_off_takes_back_its_files_and_keeps_the_others(tmp_path: Path) -> None:
    directory = tmp_path / "pending"
    small = PendingCall(PurePosixPath("m/t/cpu1"), {"f.jaxpr.txt": "small\n"}, {"name": "f", "files": {}})
    write_call(directory, small)
    big = PendingCall(
        PurePosixPath("m/t/cpu1"), {"g.jaxpr.txt": "g\n", "g.cost.json": "x" * 5000}, {"name": "g", "files": {}}
    )
    lone = PendingCall(PurePosixPath("m/u/cpu1"), {"h.jaxpr.txt": "h\n", "h.cost.json": "x" * 5000}, {"name": "h"})
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    _limited(1000)
    try:
        for call in (big, lone):
            with pytest.raises(OSError, match="File too large"):
                write_call(directory, call)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limit)
    assert sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*")) == [
        "m",
        "m/t",
        "m/t/cpu1",
        "m/t/cpu1/f.jaxpr.txt",
        "m/t/cpu1/f.pending.json",
    ], "the cut-off calls' files are gone, the earlier call's stay"


def test_after_a_killed_accept_through_a_snapshots_link_recover_puts_the_tree_back(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    (project.path / "store").mkdir()
    (project.path / "snapshots").rename(project.path / "store/snapshots")
    (project.path / "snapshots").symlink_to("store/snapshots")
    folder = pending(project, "p", "--stages-configs", "cpu1")
    recorded = project.snapshots()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-c", KILLER, "3", "--rootdir", str(project.path), str(folder)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode < 0, done.stdout + done.stderr
    assert (project.path / "snapshots/.stages-accept.json").exists()
    status, output = accept(project, "--recover")
    assert status == 0 and output.startswith("pytest-stages accept: rolled back an interrupted accept of "), output
    assert project.snapshots() == recorded
    project.run().assert_outcomes(passed=8)


@pytest.mark.parametrize("size", [300 << 20, 1100 << 20])
def test_a_snapshot_over_the_size_cap_is_refused_unread(pytester: pytest.Pytester, size: int) -> None:
    project = make_project(pytester)
    path = project.path / FOLDER / "act.jaxpr.txt"
    os.truncate(path, size)  # sparse: no disk is used
    result = project.run("tests/test_a.py::test_one", "--stages-configs", "cpu1", "--durations=1")
    result.assert_outcomes(failed=1)
    shown = f"{size >> 20:,}"
    result.stdout.fnmatch_lines(
        [
            f"pytest-stages: snapshot {path} is {shown} MiB, over the 64 MiB a snapshot file may hold (pytest-stages "
            "never writes one so large), so it is not compared. Restore it from version control, or delete it and "
            "run `pytest --stages-update` to record it again."
        ]
    )
    [seconds] = [float(line.split("s ")[0]) for line in result.outlines if line.endswith("test_one[cpu1]")]
    assert seconds < 60, "refused before reading, not after minutes of comparing"


def test_writing_a_snapshot_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError) as caught:
        SnapshotStore(tmp_path).write(tmp_path / "m/t/cpu1/f.jaxpr.txt", "x" * ((64 << 20) + 1))
    assert str(caught.value).startswith(
        f"the snapshot built for {tmp_path}/m/t/cpu1/f.jaxpr.txt is 64 MiB, over the 64 MiB a snapshot file may hold"
    )
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("command", ["accept", "review"])
def test_accept_into_a_read_only_snapshot_folder_is_rolled_back_with_one_paragraph(
    pytester: pytest.Pytester, command: str
) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    recorded = project.snapshots()
    target = project.path / FOLDER
    with read_only(target.parent, target):
        args = ["review", "--accept-all"] if command == "review" else ["accept"]
        stream = io.StringIO()
        status = cli.main([*args, "--rootdir", str(project.path), str(folder)], stream=stream)
    why = "Operation not permitted" if os.geteuid() == 0 else "Permission denied"
    assert status == 2
    assert one_paragraph(stream.getvalue()) == (
        f"pytest-stages {command}: could not write the accepted snapshots in {target.parent} ({why}); the accept "
        "was rolled back, so the snapshot folder is as it was before it. Give the user running pytest-stages write "
        f"access to {target.parent} (a read-only mount or an immutable flag, see `lsattr`, refuses root too), then "
        "accept again."
    )
    assert project.snapshots() == recorded
