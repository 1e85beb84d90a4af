"""Accept over a tree a user left odd, and the refusal a losing concurrent accept gives.

A folder whose ``_stages.json`` is corrupt, gone or not a file is refused (accept would list only
its own files there, leaving the folder's others unowned). Of a selection with a stale call and an
already applied one, the stale call is named; an already applied refusal names every such call,
and only says "select the other calls" where another call is left. Two accepts of one set at once:
one writes, the other says every call is already applied.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_accept import ROOT, accept, make_project, one_paragraph, pending
from test_accept_concurrency import _restore, _start, _tree

from pytest_stages.report import cli
from pytest_stages.store.pending import read_set

FOLDER = "snapshots/tests/test_a/test_one/cpu1"


def cli_run(project, command: str, *args: str) -> tuple[int, str]:
    """``pytest-stages accept|review --reject-all ARGS`` at the project root, in this process."""
    stream = io.StringIO()
    extra = ["--reject-all"] if command == "review" else []
    return cli.main([command, "--rootdir", str(project.path), *extra, *args], stream=stream), stream.getvalue()


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (lambda meta: meta.write_text("{corrupt"), "does not read as pytest-stages writes it (corrupt or edited)"),
        (lambda meta: meta.write_text('{"files": []}'), "does not read as pytest-stages writes it (corrupt or edited)"),
        (lambda meta: meta.write_bytes(b"\xff\xfe"), "does not read as pytest-stages writes it (corrupt or edited)"),
        (Path.unlink, "is gone, though the folder holds files"),
        (lambda meta: (meta.unlink(), meta.mkdir()), "is not a plain file (a folder, a link, a FIFO or a device)"),
        (lambda meta: (meta.unlink(), os.mkfifo(meta)), "is not a plain file (a folder, a link, a FIFO or a device)"),
    ],
)
def test_accept_into_a_folder_whose_metadata_is_spoiled_is_refused_and_owns_every_file(pytester, spoil, why):
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    spoil(project.path / FOLDER / "_stages.json")
    before = project.snapshots()
    status, output = accept(project, str(folder))
    [entry] = read_set(folder).entries
    assert status == 2
    assert one_paragraph(output) == (
        f"pytest-stages accept: {folder}: {entry.label} would write into {FOLDER}, whose _stages.json {why}: accept "
        "lists the files it writes in it, and the folder's other files would be left unowned (a prune refuses a "
        f"tree with files it did not write). Nothing was written. Restore {FOLDER}/_stages.json from version "
        "control (or record the test again with `pytest --stages-update`, which repairs it), then accept."
    )
    assert project.snapshots() == before


def test_a_stale_call_is_named_before_an_applied_one_and_applied_ones_are_named_together(pytester):
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1")
    one, two, _ = read_set(folder).entries
    assert accept(project, "--keep", str(folder), "-k", "one")[0] == 0
    status, output = accept(project, str(folder))
    assert status == 2 and one_paragraph(output) == (
        f"pytest-stages accept: 1 of the 3 calls selected are already applied ({folder}: {one.label}): snapshots "
        "holds every file they write, as they write them. Nothing was written. Leave them out (select the other "
        "calls by node id, -k or --configs), or delete them from the set."
    )
    edited = project.path / "snapshots" / two.folder / "affine.jaxpr.txt"
    edited.write_text(edited.read_text() + "# edited\n")
    before = project.snapshots()
    status, output = accept(project, str(folder))
    assert status == 2 and f"{folder}: {two.label} is stale: snapshots/{two.folder}/affine.jaxpr.txt" in output
    assert project.snapshots() == before


def test_two_accepts_of_one_set_at_once_one_writes_the_other_says_all_is_applied(pytester):
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1")
    shown = "; ".join(f"{folder}: {entry.label}" for entry in read_set(folder).entries)
    root = project.path / "snapshots"
    recorded = _tree(root)
    for _ in range(3):
        _restore(root, recorded)
        running = [_start(project, folder) for _ in range(2)]
        outcomes = sorted((process.wait(timeout=180), process.communicate()[0]) for process in running)
        assert [status for status, _ in outcomes] == [0, 2], outcomes
        assert outcomes[1][1] == (
            f"pytest-stages accept: every call selected is already applied ({shown}): snapshots holds every file "
            "they write, as they write them (an earlier or a concurrent accept wrote them). Nothing was written. "
            "Nothing is left to accept; delete the set.\n"
        )


@pytest.mark.parametrize("command", ["accept", "review"])
def test_a_manifest_naming_another_call_than_its_file_is_refused_and_nothing_is_removed(pytester, command):
    # Rejecting it would remove the manifest of the call it names (``other.pending.json``), not its own.
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    path = folder / "tests/test_a/test_one/cpu1/act.pending.json"
    path.write_text(path.read_text().replace('"name": "act"', '"name": "other"'))
    before, pending_before = project.snapshots(), sorted(p.name for p in path.parent.iterdir())
    status, output = cli_run(project, command, str(folder))
    assert status == 2
    assert one_paragraph(output).endswith(
        f"pending set {folder}: {path} does not read as pytest-stages wrote it (it names the call 'other', whose "
        "manifest is not 'act.pending.json'): it was edited by hand, cut off or mixed with other files, and nothing "
        "was written. Download the CI artifact again, or rerun the compare with --stages-pending into an empty folder."
    )
    assert project.snapshots() == before
    assert sorted(p.name for p in path.parent.iterdir()) == pending_before


@pytest.mark.parametrize(
    "keyword",
    ["(" * 5000 + "one" + ")" * 5000, " or ".join(["x"] * 20000)],
    ids=["5000-parentheses", "20000-ors"],
)
@pytest.mark.parametrize("command", ["accept", "review"])
def test_a_k_expression_nested_past_the_recursion_limit_is_one_paragraph(pytester, command, keyword):
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    before = project.snapshots()
    status, output = cli_run(project, command, "-k", keyword, str(folder))
    assert status == 2
    message = one_paragraph(output)
    assert message.startswith(f"pytest-stages {command}: -k '") and "Traceback" not in output
    assert message.endswith(
        "is not an expression pytest's -k takes (maximum recursion depth exceeded); write it as for pytest, e.g. "
        "-k 'test_a and not cpu8'."
    )
    assert len(message) < 600
    assert project.snapshots() == before


def _accept_process(project, folder: Path, shell_redirect: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m pytest_stages accept FOLDER`` with its standard output redirected as ``shell_redirect`` says."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" -m pytest_stages accept "$1" {shell_redirect}', sys.executable, str(folder)],
        cwd=project.path,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )


def test_an_accept_whose_standard_output_is_full_or_closed_writes_and_ends_in_one_line(pytester):
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    root = project.path / "snapshots"
    recorded = _tree(root)
    process = _accept_process(project, folder, "> /dev/full")
    assert process.returncode == 1
    assert process.stderr.decode() == (
        "pytest-stages: could not write to standard output (No space left on device); the output stops there.\n"
    )
    accepted = _tree(root)
    assert accepted != recorded  # the accept wrote before it printed
    _restore(root, recorded)
    process = _accept_process(project, folder, ">&-")  # no standard output at all
    assert (process.returncode, process.stderr) == (0, b"")
    assert _tree(root) == accepted


@pytest.mark.parametrize("command", ["accept", "review"])
def test_a_selection_that_chooses_no_call_is_refused_by_accept_and_review_alike(pytester, command):
    project = make_project(pytester)
    folder = pending(project, "p", "--stages-configs", "cpu1", "-k", "one")
    before = project.snapshots()
    status, output = cli_run(project, command, "-k", "no_such_test", str(folder))
    assert status == 2
    assert one_paragraph(output) == (
        f"pytest-stages {command}: no call of {folder} is selected by the node ids, -k or --configs given; Nothing "
        "was written. Run `pytest-stages accept --dry-run DIR...` without a selection to see the calls."
    )
    assert project.snapshots() == before
    assert read_set(folder).entries  # the set is kept
