"""A compare run's pending set as the run leaves it: kept when nothing runs, never claimed when unwritten,
and named in the summary by commands that work as printed."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys

import pytest
from conftest import ONE_CONFIG, SIMPLE_TEST, Project
from test_accept import ROOT, make_project, pending

from pytest_stages.report import cli


def test_a_run_that_runs_no_test_keeps_the_earlier_set(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1")
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert before
    for args in (["--collect-only"], ["--stages-list"], ["-k", "no_such_test"]):
        pending(project, "p", "--stages-configs", "cpu1", *args)
        assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before, args
    broken = project.write("tests/test_broken.py", "def test_x(:\n")  # a collection error: pytest runs nothing
    pending(project, "p", "--stages-configs", "cpu1")
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    broken.unlink()
    # A run that runs tests replaces it: here the change is gone, so the set is empty; under xdist too.
    project.run("--stages-pending=p", "--stages-configs", "cpu1").assert_outcomes(passed=4)
    assert not [p for p in folder.rglob("*") if p.is_file()]
    pending(project, "p", "--stages-configs", "cpu1")
    project.run("--stages-pending=p", "--stages-configs", "cpu1", "-n", "2").assert_outcomes(passed=4)
    assert not [p for p in folder.rglob("*") if p.is_file()]


def test_the_summary_commands_work_as_printed_from_the_project_root(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    os.environ["STAGES_CHANGE"] = "1"
    try:
        result = project.run("--stages-pending=sets of mine/p 1", "--stages-configs", "cpu1", "-k", "one")
    finally:
        del os.environ["STAGES_CHANGE"]
    [line] = [line for line in result.outlines if "left what --stages-update would write" in line]
    assert line == (
        "pytest-stages: 1 call(s) left what --stages-update would write in the pending set(s) 'sets of mine/p 1': "
        "`pytest-stages review 'sets of mine/p 1'` walks them, `pytest-stages accept 'sets of mine/p 1'` applies them"
    )
    command = line.split("`")[3]
    stream = io.StringIO()
    assert cli.main(shlex.split(command)[1:], stream=stream) == 0, stream.getvalue()
    assert "wrote 4 file(s) of 1 call(s)" in stream.getvalue()


def test_pending_writes_that_fail_are_not_claimed_as_pending(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "STAGES_CHANGE": "1"}
    command = shlex.join(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--stages-pending=p", "--stages-configs", "cpu1"]
    )
    # A file-size limit of 1 KiB: the first pending file larger than that cannot be written.
    process = subprocess.run(
        ["bash", "-c", f"ulimit -f 1 && {command}"],
        cwd=project.path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "could not write the pending set" in process.stdout, process.stdout[-3000:]
    assert "left what --stages-update would write" not in process.stdout, process.stdout[-3000:]


def test_a_pending_folder_name_that_is_not_utf8_is_a_usage_error(pytester: pytest.Pytester) -> None:
    project = Project(pytester)
    project.configure(configs=ONE_CONFIG)
    project.write("test_f.py", SIMPLE_TEST)
    result = project.run("--stages-pending=" + os.fsdecode(b"p\xff"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert f"ERROR: pytest-stages: --stages-pending={project.path}/p\\udcff is not a UTF-8 name; name the pending " in (
        result.stderr.str()
    )
