"""What accept and ``accept --recover`` trust: nothing they read is used before it is checked in full.

A journal left in the snapshot folder names folders to rename and delete: one whose paths lead
out of the snapshot tree (``../../../../victim``) or that is garbled must be refused before
anything is touched, with the same paragraph from pytest and from ``--recover``, naming the way
out. A pending manifest whose base does not cover every file it writes, and a pending file the
compare would refuse to read (with a digest that matches), are refused with nothing written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import Project
from test_accept import accept, make_project, one_paragraph, pending

from pytest_stages.store.pending import digest

JOURNAL = "snapshots/.stages-accept.json"
FOLDER = "tests/test_a/test_one/cpu1"


_SWAP = {
    "folder": FOLDER,
    "staged": ".cpu1.accept-0a1b2c3d",
    "old": ".cpu1.accepted-0a1b2c3d",
    "existed": True,
    "created": [],
}


def _journal(project: Project, phase: str, **swap: object) -> Path:
    fields = {"folder": FOLDER, "staged": ".cpu1.accept-0a1b2c3d", "old": ".cpu1.accepted-0a1b2c3d"}
    data = {"schema": "pytest-stages-accept/1", "phase": phase, "swaps": [{**fields, "existed": True, "created": []}]}
    data["swaps"][0].update(swap)
    path = project.path / JOURNAL
    path.write_text(json.dumps(data))
    return path


def _everything(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _refused_paragraph(path: Path, why: str) -> str:
    return (
        f"the accept journal {path} does not read as pytest-stages writes it ({why}), so `pytest-stages accept "
        "--recover` touches nothing it names. If an accept was interrupted, folders named .<name>.accept-<token> "
        f"or .<name>.accepted-<token> beside the snapshot folders hold its copies: check `git status "
        f"{path.parent}`, restore the snapshot folders from version control where needed, then remove {path}."
    )


def test_a_journal_naming_paths_outside_the_tree_is_refused_before_anything_is_touched(pytester, tmp_path):
    project = make_project(pytester)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me")
    escape = os.path.relpath(victim, project.path / "snapshots" / FOLDER).replace("\\", "/")
    cases = [
        ("staging", {"staged": escape, "old": escape}),
        ("committed", {"old": escape}),
        ("swapping", {"old": "../../../../tests"}),
        ("swapping", {"folder": "../../../../tests", "old": ".tests.accepted-0a1b2c3d"}),
        ("staging", {"created": ["../../.."]}),
        ("swapping", {"staged": ".cpu1.accept-0a1b2c3d", "old": ".cpu1.accepted-ffffffff"}),
    ]
    for phase, swap in cases:
        path = _journal(project, phase, **swap)
        before = _everything(project.path)
        status, output = accept(project, "--recover")
        assert status == 2, (swap, output)
        message = one_paragraph(output).removeprefix("pytest-stages accept: ")
        assert message.startswith(f"the accept journal {path} does not read as pytest-stages writes it ("), message
        assert _everything(project.path) == before, swap
        assert (victim / "precious.txt").read_text() == "keep me"
        # pytest says the same, word for word, and names the file to remove.
        result = project.run("-q")
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert f"ERROR: pytest-stages: {message}" in result.errlines, result.errlines
    assert message == _refused_paragraph(
        path,
        f"the staged '.cpu1.accept-0a1b2c3d' or old '.cpu1.accepted-ffffffff' of '{FOLDER}' is not a name accept gives",
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json", "not valid JSON: Expecting value, line 1"),
        ("{}", 'it is not an object of "schema", "phase" and "swaps"'),
        (
            '{"schema": "pytest-stages-accept/1", "phase": "swapping", "swaps": [{"folder": 3}]}',
            "a swap is not an object of folder, staged, old, existed, created of the types accept writes",
        ),
        (
            '{"schema": "pytest-stages-accept/1", "phase": "done", "swaps": []}',
            "its phase 'done' is none of staging, swapping, committed",
        ),
        ("folder", "it is a folder, link, FIFO or device, not a file"),
        ("fifo", "it is a folder, link, FIFO or device, not a file"),
        (
            json.dumps({"schema": "pytest-stages-accept/1", "phase": "swapping", "swaps": [_SWAP] * 2}),
            "its swaps name a folder more than once",
        ),
    ],
)
def test_a_garbled_journal_is_one_paragraph_from_pytest_and_recover_and_its_removal_ends_it(project, text, why):
    project.write("tests/test_m.py", "def test_plain():\n    pass\n")
    path = project.path / JOURNAL
    path.parent.mkdir()
    if text == "folder":
        path.mkdir()
    elif text == "fifo":
        os.mkfifo(path)
    else:
        path.write_text(text)
    status, output = accept(project, "--recover")
    assert status == 2
    assert one_paragraph(output) == f"pytest-stages accept: {_refused_paragraph(path, why)}"
    result = project.run("-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: pytest-stages: {_refused_paragraph(path, why)}" in result.errlines, result.errlines
    path.rmdir() if text == "folder" else path.unlink()  # the way out the message names
    assert project.run("-q").ret == pytest.ExitCode.OK


def _rewrite(pending_set: Path, name: str, data: bytes) -> Path:
    """Replace the pending file ``name`` with ``data`` and give its manifest the matching digest (a careful edit)."""
    path = next(pending_set.rglob(name))
    path.write_bytes(data)
    manifest = next(path.parent.glob("*.pending.json"))
    record = json.loads(manifest.read_text())
    record["files"][path.name] = digest(data)
    manifest.write_text(json.dumps(record))
    return manifest


def test_a_manifest_whose_base_is_emptied_or_partial_is_refused(pytester):
    project = make_project(pytester)
    good = pending(project, "p", "tests/test_a.py::test_one", "--stages-configs", "cpu1")
    before = project.snapshots()
    manifest = next(good.rglob("*.pending.json"))
    record = json.loads(manifest.read_text())
    for base in ({}, dict(list(record["base"].items())[1:])):
        manifest.write_text(json.dumps({**record, "base": base}))
        status, output = accept(project, str(good))
        assert status == 2 and project.snapshots() == before, output
        message = one_paragraph(output)
        assert f"{manifest} does not read as pytest-stages wrote it (its base and its files do not name the same " in (
            message
        )


def test_a_manifest_whose_base_digest_is_not_a_sha256_is_refused_as_edited(pytester):
    # An edited base digest ("ZZ") read as a stale snapshot: "it was SHA-256 ZZ at commit ...".
    project = make_project(pytester)
    good = pending(project, "p", "tests/test_a.py::test_one", "--stages-configs", "cpu1")
    before = project.snapshots()
    manifest = next(good.rglob("*.pending.json"))
    record = json.loads(manifest.read_text())
    first = sorted(record["base"])[0]
    for value in ("ZZ", record["base"][first].upper()):
        manifest.write_text(json.dumps({**record, "base": {**record["base"], first: value}}))
        status, output = accept(project, str(good))
        assert status == 2 and project.snapshots() == before, output
        message = one_paragraph(output)
        assert f"{manifest} does not read as pytest-stages wrote it (its digest of {first!r} is not a SHA-256 " in (
            message
        )
        assert "stale" not in message


THREE = "tests/test_b/test_three/cpu1"


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("red.cost.json", b"{not json", "not valid JSON: "),
        ("red.cost.json", b'{"compiled": 3}', "the file['compiled'] is the number 3, not an object"),
    ],
)
def test_accept_writes_nothing_its_own_reader_refuses(pytester, name, data, why):
    project = make_project(pytester)
    good = pending(project, "p", "tests/test_b.py::test_three", "--stages-configs", "cpu1")
    before = project.snapshots()
    _rewrite(good, name, data)
    for command in ("accept", "review"):
        status, output = accept(project, str(good)) if command == "accept" else _review_all(project, good)
        assert status == 2 and project.snapshots() == before, output
        message = one_paragraph(output)
        assert f"would write snapshots/{THREE}/{name}, which the compare would refuse to read ({why}" in message
        assert "Nothing was written." in message


def test_accept_refuses_pending_text_that_is_not_utf8_before_planning(pytester):
    """The pending reader refuses such bytes first, naming the file; nothing is written."""
    project = make_project(pytester)
    good = pending(project, "p", "tests/test_b.py::test_three", "--stages-configs", "cpu1")
    before = project.snapshots()
    _rewrite(good, "red.jaxpr.txt", b"\xff\xfe not utf-8")
    for command in ("accept", "review"):
        status, output = accept(project, str(good)) if command == "accept" else _review_all(project, good)
        assert status == 2 and project.snapshots() == before, output
        message = one_paragraph(output)
        assert "red.jaxpr.txt does not read as pytest-stages wrote it (it is not UTF-8 text: byte 0)" in message
        assert "nothing was written" in message


def _review_all(project: Project, pending_set: Path) -> tuple[int, str]:
    import io

    from pytest_stages.report import cli

    stream = io.StringIO()
    status = cli.main(["review", "--accept-all", "--rootdir", str(project.path), str(pending_set)], stream=stream)
    return status, stream.getvalue()


def test_a_prune_keeps_the_copies_an_interrupted_accept_left(pytester):
    # With the journal removed (as its refusal says, once the folders are checked), the copy set
    # aside read as a folder of an unknown config, and a prune deleted it as unused.
    project = make_project(pytester)
    folder = project.path / "snapshots" / FOLDER
    for leftover in (".cpu1.accepted-0a1b2c3d", ".cpu1.accept-0a1b2c3d"):
        copy = folder.parent / leftover
        copy.mkdir()
        for file in folder.iterdir():
            (copy / file.name).write_bytes(file.read_bytes())
    before = project.snapshots()
    result = project.run("--stages-prune")
    result.assert_outcomes(passed=8)
    assert project.snapshots() == before
    assert "unused snapshot file" not in result.stdout.str()
