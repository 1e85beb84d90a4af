"""``pytest-stages review`` and ``accept`` as a careless or hurried user meets them.

Each bad input is one paragraph and a non-zero exit with nothing written; review shows the headline
pytest printed; Ctrl-C keeps the answers given; a set accepted twice says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Project
from test_accept import ROOT, accept, in_a_terminal, make_project, one_paragraph, pending

from pytest_stages.report import cli
from pytest_stages.store.pending import read_set


def review(project: Project, *args: str) -> tuple[int, str]:
    """``pytest-stages review ARGS`` at the project root, in this process: (exit status, output)."""
    stream = io.StringIO()
    status = cli.main(["review", "--rootdir", str(project.path), *args], stream=stream)
    return status, stream.getvalue()


def test_review_shows_the_headline_pytest_printed_and_each_files_diff(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    os.environ["STAGES_CHANGE"] = "1"
    try:
        result = project.run("--stages-pending=p", "--stages-configs", "cpu1", "-k", "two", "--stages-report=r.md")
    finally:
        del os.environ["STAGES_CHANGE"]
    # The failure's headline (on CI, pytest repeats whole messages in its short summary: read before it).
    failures = result.stdout.str().split("short test summary info")[0].splitlines()
    [headline] = [line.strip() for line in failures if line.startswith("  IR: ")]
    assert " -> " in headline and "tests/test_a.py:" in headline, headline
    assert f"(`p`): {html.escape(headline, quote=False)}" in (project.path / "r.md").read_text()  # the PR comment
    status, output = in_a_terminal(project, ["s"])
    assert status == 0, output
    assert f"\n  {headline}" in output.replace("\r\n", "\n"), output
    assert "+++ b/p/tests/test_a/test_two/cpu1/affine.jaxpr.txt" in output
    assert "IR drift" not in output


def test_ctrl_c_at_the_prompt_applies_the_answers_given_and_keeps_the_rest(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one or two or three")
    first, *rest = read_set(folder).entries
    status, output = in_a_terminal(project, ["a", None])
    assert status == 130, output
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output
    assert "interrupted: the answers given are applied, the rest stay pending" in output
    assert "1 accepted, 0 rejected, 2 skipped" in output
    after = project.snapshots()
    assert all(after[f"{first.folder}/{name}"] == data for name, data in first.texts.items() if name != "_stages.json")
    assert [e.key for e in read_set(folder).entries] == [e.key for e in rest]


def test_a_failing_pager_does_not_hide_the_call(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    for pager in ("false", "no-such-pager-here"):
        status, output = in_a_terminal(project, ["s"], pager=pager)
        assert status == 0 and "tests/test_a.py::test_one[cpu1] 'act' on cpu1" in output, output
        assert "+++ b/p/tests/test_a/test_one/cpu1/act.jaxpr.txt" in output


def test_bad_selections_are_usage_errors_with_nothing_written(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    recorded = project.snapshots()
    for command in (accept, review):
        status, output = command(project, str(folder), "-k", "one and")
        assert status == 2, output
        assert one_paragraph(output).startswith(f"pytest-stages {command.__name__}: -k 'one and' is not an expression")
        status, output = command(
            project, str(folder), "--configs", "", *(["--accept-all"] if command is review else [])
        )
        assert status == 2 and "--configs='' selects nothing" in one_paragraph(output), output
    assert project.snapshots() == recorded
    assert len(read_set(folder).entries) == 1


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` not writable, even by root (immutable: chattr +i), for the block."""
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False).returncode:
            pytest.skip("root, and chattr +i is not allowed here: no folder can be made read-only")
        undo = ["chattr", "-i", str(folder)]
    else:
        folder.chmod(0o555)
        undo = ["chmod", "755", str(folder)]
    try:
        yield
    finally:
        subprocess.run(undo, check=True)


def test_a_read_only_pending_set_is_refused_before_anything_is_written(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    recorded = project.snapshots()
    [entry] = read_set(folder).entries
    with read_only(folder / entry.folder):
        for every in ("--accept-all", "--reject-all"):
            status, output = review(project, str(folder), every)
            assert status == 2, output
            assert one_paragraph(output) == (
                f"pytest-stages review: the pending set {folder} cannot drop the calls answered: "
                f"{folder / entry.folder} is not writable. Nothing was written; make it writable (or copy the set to "
                "a writable folder) and review again."
            )
            assert project.snapshots() == recorded
        # The next compare run cannot replace the set: a usage error before any test runs.
        os.environ["STAGES_CHANGE"] = "1"
        try:
            result = project.run("--stages-pending=p", "--stages-configs", "cpu1", "-k", "one")
        finally:
            del os.environ["STAGES_CHANGE"]
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
        assert f"holds an earlier run's set, which this run replaces, but {folder / entry.folder} is not writable" in (
            result.stderr.str()
        )
    assert len(read_set(folder).entries) == 1


def test_an_edited_record_or_odd_bytes_are_one_paragraph(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    [entry] = read_set(folder).entries
    recorded = project.snapshots()
    manifest_path = folder / entry.folder / "act.pending.json"
    original = manifest_path.read_text()
    edits = {
        "no kind": lambda r: r["findings"][0].pop("kind"),
        "wrong type": lambda r: r.update(findings="x"),
        "missing key": lambda r: r.pop("status"),
        "bad enum": lambda r: r["findings"][0].update(kind="nonsense"),
        "bad delta": lambda r: r.update(deltas={"flops": [1]}),
    }
    for edit in edits.values():
        data = json.loads(original)
        edit(data["record"])
        manifest_path.write_text(json.dumps(data))
        for command in (review, accept):
            status, output = command(project, str(folder), *(["--accept-all"] if command is review else []))
            assert status == 2, output
            assert "does not read as pytest-stages wrote it (the manifest['record']" in one_paragraph(output), output
    # A pending file that is not UTF-8 text, with its digest in the manifest.
    data = json.loads(original)
    data["files"]["act.jaxpr.txt"] = hashlib.sha256(b"\xff\xfe not text\n").hexdigest()
    manifest_path.write_text(json.dumps(data))
    (folder / entry.folder / "act.jaxpr.txt").write_bytes(b"\xff\xfe not text\n")
    for command in (review, accept):
        status, output = command(project, str(folder), *(["--accept-all"] if command is review else []))
        assert (
            status == 2
            and "act.jaxpr.txt does not read as pytest-stages wrote it (it is not UTF-8 text: byte 0)"
            in (one_paragraph(output))
        ), output
    assert project.snapshots() == recorded
    (folder / entry.folder / "act.jaxpr.txt").write_bytes(entry.texts["act.jaxpr.txt"])
    manifest_path.write_text(original)
    # A snapshot that is not UTF-8 text: its diff shown, and said so.
    snapshot = project.path / "snapshots" / entry.folder / "act.jaxpr.txt"
    snapshot.write_bytes(b"\xff\xfe not text\n")
    status, output = in_a_terminal(project, ["s"])
    assert status == 0, output
    assert f"snapshots/{entry.folder}/act.jaxpr.txt is not UTF-8 text: the bytes that are not are shown as U+FFFD" in (
        output
    )
    assert "-\ufffd\ufffd not text" in output


def test_a_file_name_that_is_not_utf8_is_shown_escaped(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    [entry] = read_set(folder).entries
    (folder / entry.folder).joinpath(os.fsdecode(b"stray\xff.txt")).write_text("x")
    process = subprocess.run(
        [sys.executable, "-m", "pytest_stages", "accept", "p"],
        cwd=project.path,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert process.returncode == 2 and not process.stderr, process.stderr.decode(errors="replace")
    assert b"stray\\udcff.txt" in process.stdout and b"no manifest beside it names it" in process.stdout


def test_a_closed_pipe_after_an_accept_ends_quietly(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    pending(project, "p", "--stages-configs", "cpu1")
    read, write = os.pipe()
    os.close(read)  # the reader (`| true`) is gone before the accept prints
    process = subprocess.run(
        [sys.executable, "-m", "pytest_stages", "accept", "--keep", "p"],
        cwd=project.path,
        stdout=write,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    os.close(write)
    assert process.returncode == 1 and process.stderr == b"", process.stderr.decode(errors="replace")
    status, output = accept(project, "p")
    assert status == 2 and "is already applied" in output, output


def test_a_set_accepted_twice_says_already_applied(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    assert accept(project, "--keep", str(folder))[0] == 0
    accepted = project.snapshots()
    status, output = accept(project, str(folder))
    [entry] = read_set(folder).entries
    assert status == 2 and one_paragraph(output) == (
        f"pytest-stages accept: {folder}: {entry.label} is already applied: snapshots/{entry.folder} holds every "
        "file it writes, as it writes them (an earlier or a concurrent accept wrote them). Nothing was written. "
        "Nothing is left to accept; delete the set."
    )
    assert project.snapshots() == accepted
