"""store.storage at its edges: the temporary of an atomic write, and each refusal's exact message.

Complements test_store.py (names, modes, symlinks, manifests) with the messages users read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_stages.check.snapshot_format import FORMAT_VERSION
from pytest_stages.core.errors import SnapshotError
from pytest_stages.core.paths import temporary_of
from pytest_stages.store.journal import Swap, write_journal
from pytest_stages.store.names import ACCEPT_JOURNAL, META_FILE
from pytest_stages.store.storage import (
    SnapshotFolder,
    SnapshotStore,
    file_digest,
    parse_meta,
    read_meta_file,
    snapshot_root,
    write_atomically,
)

COST = '{\n  "compiled": {\n    "flops": 2.0\n  }\n}\n'


def refusal(call, *args, **kwargs) -> str:
    with pytest.raises(SnapshotError) as raised:
        call(*args, **kwargs)
    return str(raised.value)


# --- atomic writes ----------------------------------------------------------------------------


def test_an_atomic_write_goes_through_a_hidden_temporary_beside_the_file_that_a_prune_recognizes(tmp_path):
    target = tmp_path / "new" / "deeper" / "f.cost.json"
    seen: list[list[str]] = []

    def pieces() -> Iterator[str]:
        yield '{\n  "compiled": '
        seen.append(sorted(os.listdir(target.parent)))
        yield '{"flops": 2.0}\n}\n'

    write_atomically(target, pieces())
    assert target.read_text(encoding="utf-8") == '{\n  "compiled": {"flops": 2.0}\n}\n'
    ((temporary,),) = seen
    assert temporary.startswith(".f.cost.json.") and temporary.endswith(".tmp")
    assert temporary_of(temporary) == "f.cost.json", "an interrupted write's leftover is known as one"
    assert os.listdir(target.parent) == ["f.cost.json"]


def test_an_atomic_write_keeps_text_as_given(tmp_path):
    path = tmp_path / "f.jaxpr.txt"
    write_atomically(path, "λ x:f32[] \r\n")
    assert path.read_bytes() == "λ x:f32[] \r\n".encode()
    write_atomically(path, ["a", "b\n"])
    assert path.read_bytes() == b"ab\n"


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "f.jaxpr.txt"
    path.write_text("old\n")

    def failing() -> Iterator[str]:
        yield "new"
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError, match="disk gone"):
        write_atomically(path, failing())
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["f.jaxpr.txt"]


# --- reading ----------------------------------------------------------------------------------


def test_a_fifo_is_refused_unopened_with_the_fix(tmp_path):
    fifo = tmp_path / "f.jaxpr.txt"
    os.mkfifo(fifo)
    assert refusal(SnapshotStore(tmp_path).read, fifo) == (
        f"snapshot {fifo} is not a regular file (a FIFO, socket or device); pytest-stages does not open it. "
        "Remove it and run `pytest --stages-update` to record the snapshot."
    )


def test_a_path_through_a_file_cannot_be_read_and_says_why(tmp_path):
    (tmp_path / "m").write_text("a file where a folder should be")
    path = tmp_path / "m" / "f.jaxpr.txt"
    assert refusal(SnapshotStore(tmp_path).read, path) == (
        f"cannot read snapshot {path} (Not a directory); give the user running pytest read access to it "
        "(and its folders), or restore it from version control."
    )


def test_text_that_is_not_utf8_and_a_folder_are_refused_with_the_fix(tmp_path):
    store = SnapshotStore(tmp_path)
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe")
    assert refusal(store.read, tmp_path / "bad.txt") == (
        f"snapshot {tmp_path / 'bad.txt'} is not UTF-8 text (corrupt or not written by pytest-stages); "
        "restore it from version control, or delete it and run `pytest --stages-update`."
    )
    (tmp_path / "d.txt").mkdir()
    assert refusal(store.read, tmp_path / "d.txt") == (
        f"snapshot {tmp_path / 'd.txt'} is a folder, not a file; remove it and run `pytest --stages-update`."
    )


def test_a_symlinked_snapshot_is_refused_naming_it(tmp_path):
    (tmp_path / "real.txt").write_text("x\n")
    link = tmp_path / "f.jaxpr.txt"
    link.symlink_to(tmp_path / "real.txt")
    expected = f"refusing to use {link}: it is a symlink, and snapshots are plain files; remove the link."
    assert refusal(SnapshotStore(tmp_path).read, link) == expected
    assert refusal(SnapshotStore(tmp_path).write, link, "y\n") == expected
    assert (tmp_path / "real.txt").read_text() == "x\n"


def test_a_large_snapshot_reads_back_whole(tmp_path):
    text = "".join(f"  %x.{k} = f32[8]{{0}} add(%a, %b)\n" for k in range(40_000))
    assert len(text.encode()) > 1 << 20, "more than one read"
    (tmp_path / "f.compiled.hlo.txt").write_text(text)
    assert SnapshotStore(tmp_path).read(tmp_path / "f.compiled.hlo.txt") == text


def test_an_edited_json_snapshot_is_refused_unless_an_update_repairs_it(tmp_path):
    path = tmp_path / "f.cost.json"
    path.write_text('{"compiled": 3}\n')
    assert refusal(SnapshotStore(tmp_path).read, path) == (
        f"snapshot {path} does not hold what pytest-stages writes there (the file['compiled'] is the number 3, "
        "not an object): it was edited or corrupted. Restore it from version control, or run "
        "`pytest --stages-update` for its test to record it again."
    )
    assert SnapshotStore(tmp_path, repair=True).read(path) is None
    assert SnapshotStore(tmp_path, repair=True).read_all({"cost": path}) == {"cost": None}
    path.write_text(COST)
    assert SnapshotStore(tmp_path, repair=True).read(path) == COST


# --- writing ----------------------------------------------------------------------------------


def test_a_snapshot_the_reader_would_refuse_is_never_written(tmp_path):
    path = tmp_path / "m" / "f.cost.json"
    assert refusal(SnapshotStore(tmp_path).write, path, "[]\n") == (
        f"the snapshot built for {path} would be refused when read back (the file is a list, not an object); "
        "nothing was written. This is a bug in pytest-stages; please report it with the function staged."
    )
    assert not path.parent.exists()


def test_a_write_onto_a_folder_names_it_and_the_fix(tmp_path):
    path = tmp_path / "f.cost.json"
    path.mkdir()
    assert refusal(SnapshotStore(tmp_path).write, path, COST) == (
        f"could not write snapshot {path} (Is a directory); it keeps its previous content (writes are atomic). "
        "Free disk space or fix the folder's permissions, then run `pytest --stages-update` again."
    )


def test_metadata_pytest_stages_does_not_write_is_written_as_given_after_the_files(tmp_path):
    folder = tmp_path / "m" / "t" / "cpu1"
    done: list[Path] = []
    SnapshotStore(tmp_path).write_all([(folder / META_FILE, '{"other": 1}\n'), (folder / "f.cost.json", COST)], done)
    assert done == [folder / "f.cost.json", folder / META_FILE]
    assert (folder / META_FILE).read_text() == '{"other": 1}\n'


def test_a_manifest_that_misses_a_new_file_lists_it_before_it_is_written(tmp_path):
    folder = SnapshotFolder(tmp_path, "m", "t", "cpu1")
    store = SnapshotStore(tmp_path)
    store.write_all([(folder.meta, json.dumps({"format": FORMAT_VERSION, "files": []}) + "\n")])
    store.write(folder.artifact("f", "cost"), COST)
    assert json.loads(folder.meta.read_text())["files"] == ["f.cost.json"]
    store.write(folder.artifact("g", "cost"), COST)
    assert json.loads(folder.meta.read_text())["files"] == ["f.cost.json", "g.cost.json"]


def test_a_symlink_among_a_folders_files_is_never_listed_as_its_own(tmp_path):
    folder = SnapshotFolder(tmp_path, "m", "t", "cpu1")
    folder.path.mkdir(parents=True)
    (tmp_path / "elsewhere.json").write_text(COST)
    (folder.path / "h.cost.json").symlink_to(tmp_path / "elsewhere.json")
    folder.meta.write_text(json.dumps({"format": FORMAT_VERSION}) + "\n")
    SnapshotStore(tmp_path).write(folder.artifact("f", "cost"), COST)
    assert json.loads(folder.meta.read_text())["files"] == ["f.cost.json"]


# --- pruning ----------------------------------------------------------------------------------


def test_a_prune_that_cannot_delete_a_file_says_how_many_it_deleted(tmp_path):
    folder = tmp_path / "m" / "t" / "cpu1"
    folder.mkdir(parents=True)
    (folder / "a.cost.json").write_text(COST)
    missing = folder / "b.cost.json"
    assert refusal(SnapshotStore(tmp_path).prune, [folder / "a.cost.json", missing]) == (
        f"could not delete {missing} (No such file or directory); 1 of 2 file(s) were deleted, the others are "
        "kept. Give the user running pytest write access to the snapshot folder, then prune again."
    )
    assert not (folder / "a.cost.json").exists()


def test_a_prune_removes_the_empty_folders_it_is_given_and_their_empty_parents(tmp_path):
    empty = tmp_path / "m" / "t" / "cpu1"
    empty.mkdir(parents=True)
    (tmp_path / "m" / "keep.txt").write_text("user file\n")
    assert SnapshotStore(tmp_path).prune([], [empty]) == [empty, tmp_path / "m" / "t"]
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["keep.txt"]


def test_a_prune_refreshes_only_a_manifest_that_lists_files_and_only_a_plain_metadata_file(tmp_path):
    folder = SnapshotFolder(tmp_path, "m", "t", "cpu1")
    store = SnapshotStore(tmp_path)
    store.write_all([(folder.artifact("f", "cost"), COST), (folder.artifact("g", "cost"), COST)])
    store.prune([folder.artifact("g", "cost")])
    assert json.loads(folder.meta.read_text())["files"] == ["f.cost.json"]
    unlisted = json.dumps({"format": FORMAT_VERSION}) + "\n"
    folder.meta.write_text(unlisted)
    store.prune([folder.artifact("f", "cost")])
    assert folder.meta.read_text() == unlisted, "metadata without a manifest is left as it is"


def test_a_prune_that_cannot_delete_a_file_says_so_and_keeps_the_rest(tmp_path):
    """A file replaced by a folder after the listing (root ignores a read-only folder's mode; this fails for all)."""
    root = tmp_path / "snapshots"
    (root / "m/t/c/f.cost.json").mkdir(parents=True)
    (root / "m/t/c/g.cost.json").write_text("{}\n")
    store = SnapshotStore(root)
    with pytest.raises(SnapshotError) as raised:
        store.prune([root / "m/t/c/f.cost.json", root / "m/t/c/g.cost.json"])
    assert str(raised.value).startswith(f"could not delete {root / 'm/t/c/f.cost.json'} (")
    assert str(raised.value).endswith(
        "0 of 2 file(s) were deleted, the others are kept. Give the user running pytest write access to the "
        "snapshot folder, then prune again."
    )
    assert (root / "m/t/c/g.cost.json").exists()


# --- metadata ---------------------------------------------------------------------------------


def test_metadata_is_an_object_with_an_integer_format():
    assert parse_meta('{"format": 2, "jax": "0.10.2"}') == {"format": 2, "jax": "0.10.2"}
    assert parse_meta('{"jax": "0.10.2"}') is None
    assert parse_meta("[2]") is None
    assert parse_meta("{") is None


def test_a_metadata_file_that_is_absent_a_folder_or_not_text_reads_as_none(tmp_path):
    assert read_meta_file(tmp_path / "absent.json") is None
    assert read_meta_file(tmp_path) is None
    (tmp_path / "bad.json").write_bytes(b"\xff")
    assert read_meta_file(tmp_path / "bad.json") is None
    (tmp_path / "ok.json").write_text('{"format": 1}')
    assert read_meta_file(tmp_path / "ok.json") == {"format": 1}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"format": ', "is not valid JSON (Expecting value, line 1)"),
        ('{"format": true}', 'has no integer "format" field'),
    ],
)
def test_bad_metadata_names_the_file_and_the_fix_unless_an_update_repairs_it(tmp_path, text, problem):
    folder = SnapshotFolder(tmp_path, "m", "t", "cpu1")
    folder.path.mkdir(parents=True)
    folder.meta.write_text(text)
    assert refusal(SnapshotStore(tmp_path).read_meta, folder) == (
        f"snapshot metadata {folder.meta} {problem}; "
        "restore it from version control or run `pytest --stages-update` for this test."
    )
    assert SnapshotStore(tmp_path, repair=True).read_meta(folder) is None


def test_a_file_digest_is_its_sha256_and_empty_when_unreadable(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    assert file_digest(tmp_path / "f") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert file_digest(tmp_path / "absent") == ""


# --- the snapshot root ------------------------------------------------------------------------

FIX = 'Give snapshots a folder of their own inside the project (snapshot_dir = "snapshots").'


def test_the_snapshot_root_must_be_a_folder_of_its_own_inside_the_project(tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    assert snapshot_root(project, "snapshots") == project / "snapshots"
    assert refusal(snapshot_root, project, ".") == (
        f"snapshot_dir = '.' is the project root {project}: pytest-stages writes and prunes only in a folder of "
        f"its own. {FIX}"
    )
    assert refusal(snapshot_root, project, "..") == (
        f"snapshot_dir = '..' resolves to {tmp_path}, outside the project {project}: it must lie inside the "
        f"project. {FIX}"
    )
    assert refusal(snapshot_root, project, ".git/refs") == (
        f"snapshot_dir = '.git/refs' resolves to {project / '.git' / 'refs'}, inside .git, version control's own "
        f"folder: files written there corrupt the repository. {FIX}"
    )
    (tmp_path / "outside").mkdir()
    (project / "linked").symlink_to(tmp_path / "outside")
    assert refusal(snapshot_root, project, "linked") == (
        f"snapshot_dir = 'linked' resolves to {tmp_path / 'outside'}, outside the project {project} (through a "
        f"symlink): remove the link. {FIX}"
    )
    (project / "file").write_text("")
    assert refusal(snapshot_root, project, "file") == f"snapshot_dir = 'file' is a file, not a folder. {FIX}"


def test_an_interrupted_accept_stops_the_run_until_it_is_recovered(tmp_path):
    (tmp_path / "snapshots").mkdir()
    write_journal(
        tmp_path / "snapshots", "swapping", [Swap("m/t/cpu1", ".cpu1.accept-0a1b2c3d", ".cpu1.accepted-0a1b2c3d", True)]
    )
    assert refusal(snapshot_root, tmp_path, "snapshots") == (
        f"an interrupted `pytest-stages accept` left {tmp_path / 'snapshots' / ACCEPT_JOURNAL}: some snapshot "
        "folders may be half-way through its swap. Run `pytest-stages accept --recover` to put them back as they "
        "were, then run again."
    )


def test_a_prune_leaves_a_symlinked_metadata_file_and_its_target_alone(tmp_path):
    folder = SnapshotFolder(tmp_path, "m", "t", "cpu1")
    store = SnapshotStore(tmp_path)
    store.write_all([(folder.artifact("f", "cost"), COST), (folder.artifact("g", "cost"), COST)])
    target = tmp_path / "elsewhere.json"
    target.write_text(folder.meta.read_text())
    folder.meta.unlink()
    folder.meta.symlink_to(target)
    before = target.read_text()
    store.prune([folder.artifact("g", "cost")])
    assert folder.meta.is_symlink() and target.read_text() == before
