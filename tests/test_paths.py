"""Every path pytest-stages writes for a user goes through one resolver (``core/paths.py``).

A pending folder, a report, a compilation cache or a snapshot folder inside ``.git`` would
corrupt the repository; a path longer than the OS takes must be a usage error, not an
INTERNALERROR; a FIFO or a folder where a file goes is refused. Each refusal is one paragraph
of one form: what the user wrote, why, and the fix.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import Project

from pytest_stages.core.errors import PathError
from pytest_stages.core.paths import MAX_PATH, Use, checked_path

SIN_TEST = """
import jax, jax.numpy as jnp

def test_sin(stage_snapshot):
    stage_snapshot(jnp.sin, jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")
"""
GIT_CORRUPTS = "version control's own folder: files written there corrupt the repository."


def _git(project: Project) -> dict[str, bytes]:
    subprocess.run(["git", "init", "-q", str(project.path)], check=True)
    return _tree(project.path / ".git")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("setting", "option", "named", "fix"),
    [
        (
            "",
            "--stages-pending=.git/refs/tags",
            "--stages-pending=.git/refs/tags",
            "Name a folder of its own for the pending set, e.g. --stages-pending=stages-pending.",
        ),
        (
            'pending_dir = ".git/refs/tags"',
            "",
            "[tool.pytest_stages] pending_dir = '.git/refs/tags'",
            "Name a folder of its own for the pending set, e.g. --stages-pending=stages-pending.",
        ),
        (
            'compilation_cache = ".git/refs/tags"',
            "",
            "[tool.pytest_stages] compilation_cache = '.git/refs/tags'",
            'Name a folder of its own (compilation_cache = ".jax_cache"), or true for pytest\'s cache.',
        ),
        (
            "",
            "--stages-report=.git/refs/heads/r.json",
            "--stages-report=.git/refs/heads/r.json",
            "Write it elsewhere, e.g. --stages-report=stages-report.json.",
        ),
        (
            "",
            "--stages-report=.git/review.html",
            "--stages-report=.git/review.html",
            "Write it elsewhere, e.g. --stages-report=stages-report.html.",
        ),
    ],
)
def test_no_output_is_written_inside_git(project, setting, option, named, fix):
    before = _git(project)
    project.write("tests/test_m.py", SIN_TEST)
    project.configure(setting)
    result = project.run(*[a for a in [option] if a])
    message = project.usage_error(result)
    target = project.path / (option or setting).split("=", 1)[1].strip().strip('"')
    assert message == f"{named} resolves to {target}, inside .git, {GIT_CORRUPTS} {fix}"
    assert _tree(project.path / ".git") == before
    assert not (project.path / "snapshots").exists()


def test_a_step_summary_inside_git_is_not_appended_to(project, monkeypatch):
    before = _git(project)
    project.write("tests/test_m.py", SIN_TEST)
    summary = project.path / ".git/refs/heads/summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = project.run("--stages-update")
    result.assert_outcomes(passed=1)
    assert (
        f"pytest-stages: could not append to $GITHUB_STEP_SUMMARY {summary} (it resolves to {summary}, inside .git, "
        f"{GIT_CORRUPTS} Point it at a file outside version control's folders.)."
    ) in result.outlines
    assert _tree(project.path / ".git") == before


@pytest.mark.parametrize("which", ["snapshot_dir", "--stages-pending"])
def test_a_path_longer_than_the_os_takes_is_a_usage_error(project, which):
    deep = "/".join(["d" * 200] * 21)  # every name fits, the path does not (over 4096 bytes)
    project.write("tests/test_m.py", SIN_TEST)
    if which == "snapshot_dir":
        project.configure(f'snapshot_dir = "{deep}"')
        result = project.run("--stages-update")
    else:
        result = project.run(f"--stages-pending={deep}")
    message = project.usage_error(result)
    size = len(os.fsencode(str(project.path / deep)))
    shown = f"{deep[:40]}...{deep[-40:]}"
    named = f"snapshot_dir = {shown!r}" if which == "snapshot_dir" else f"--stages-pending={shown}"
    assert message.startswith(
        f"{named} is {size} bytes long once absolute; file systems take a path of fewer than {MAX_PATH}. "
    ), message
    assert not (project.path / ("d" * 200)).exists()


# --- the resolver itself ------------------------------------------------------------------------

REPORT = Use("--stages-report=r.json", "Write it elsewhere.", folder=False)


def _refused(path: Path, use: Use = REPORT) -> str:
    with pytest.raises(PathError) as caught:
        checked_path(path, use)
    return str(caught.value)


def test_special_files_and_the_wrong_kind_are_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    assert _refused(tmp_path / "fifo") == (
        "--stages-report=r.json is a FIFO, socket or device, not a file: pytest-stages writes only plain files and "
        "folders. Write it elsewhere."
    )
    assert _refused(Path("/dev/null")).startswith("--stages-report=r.json is a FIFO, socket or device, not a file")
    (tmp_path / "folder").mkdir()
    assert _refused(tmp_path / "folder") == "--stages-report=r.json is a folder, not a file. Write it elsewhere."
    (tmp_path / "file").write_text("")
    folder = Use("--stages-pending=file", "Name a folder.", folder=True)
    assert _refused(tmp_path / "file", folder) == "--stages-pending=file is a file, not a folder. Name a folder."
    (tmp_path / "link").symlink_to(tmp_path / "fifo")
    assert "is a FIFO, socket or device" in _refused(tmp_path / "link")  # followed to what it names
    assert "has a name of 256 bytes; file systems take at most 255 a name." in _refused(tmp_path / ("n" * 256))
    assert _refused(tmp_path / "a\0b") == (
        "--stages-report=r.json holds a NUL character, which no file system takes. Write it elsewhere."
    )


def test_outputs_outside_the_project_are_fine_but_not_what_must_lie_inside(tmp_path):
    project = tmp_path / "project"
    (project / ".hg").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    assert checked_path(tmp_path / "outside" / "r.json", REPORT) == tmp_path / "outside" / "r.json"
    inside = Use("snapshot_dir = 'x'", "Fix it.", folder=True, inside=project)
    assert checked_path(project / "snapshots", inside) == project / "snapshots"
    assert _refused(tmp_path / "outside", inside) == (
        f"snapshot_dir = 'x' resolves to {tmp_path / 'outside'}, outside the project {project}: it must lie inside "
        "the project. Fix it."
    )
    (project / "link").symlink_to(tmp_path / "outside")
    assert _refused(project / "link", inside) == (
        f"snapshot_dir = 'x' resolves to {tmp_path / 'outside'}, outside the project {project} (through a "
        "symlink): remove the link. Fix it."
    )
    for vcs in (".hg/store", "sub/.svn", ".git"):
        assert "version control's own folder" in _refused(project / vcs / "r.json")
    (project / "to-hg").symlink_to(project / ".hg")
    assert f"resolves to {project / '.hg' / 'r.json'}, inside .hg" in _refused(project / "to-hg" / "r.json")


@pytest.mark.parametrize(
    ("setting", "option", "named", "example"),
    [
        (
            "",
            "--stages-report=out/report.json",
            "--stages-report=out/report.json",
            "--stages-report=stages-report.json",
        ),
        (
            'compilation_cache = "out/jax"',
            "",
            "[tool.pytest_stages] compilation_cache = 'out/jax'",
            'compilation_cache = ".jax_cache"',
        ),
    ],
)
def test_nothing_else_is_written_into_the_pending_folder(project, setting, option, named, example):
    # One artifact folder for the set and the report is the natural CI step; but a file no manifest
    # names makes accept and review refuse the set, and the next --stages-pending run the folder.
    project.write("tests/test_m.py", SIN_TEST)
    project.configure(setting)
    result = project.run("--stages-pending=out", *[a for a in [option] if a])
    message = project.usage_error(result)
    assert message == (
        f"{named} is inside the pending folder {project.path / 'out'}, which holds the pending set alone: "
        "`pytest-stages accept` and `review` refuse a set holding other files, and the next --stages-pending run "
        f"refuses the folder. Put it beside the pending folder, e.g. {example}."
    )
    assert not (project.path / "out").exists()
