"""store.inventory at its edges: the commit and snapshot tree digest a shard records, which a merge must match."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import PurePosixPath

from pytest_stages.store.inventory import checkout_state, git_commit, snapshot_files, tree_digest


def sha(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


def test_the_commit_is_heads_and_empty_outside_git(tmp_path):
    assert git_commit(tmp_path) == ""
    assert git_commit(tmp_path / "absent") == ""
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    assert git_commit(tmp_path) == "", "a repository without a commit has no HEAD yet"
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    assert len(head) == 40 and git_commit(tmp_path) == head
    assert checkout_state(tmp_path, tmp_path / "snapshots") == (head, sha())


def test_the_tree_digest_covers_every_path_and_each_metadata_files_bytes(tmp_path):
    root = tmp_path / "snapshots"
    assert tree_digest(root) == sha(), "no tree: the digest of nothing"
    folder = root / "m" / "t"
    folder.mkdir(parents=True)
    (folder / "f.cost.json").write_text("{}\n")
    meta = json.dumps({"format": 3, "files": ["f.cost.json"]}).encode()
    (folder / "_stages.json").write_bytes(meta)
    expected = sha(b"m/t/_stages.json\0", hashlib.sha256(meta).digest(), b"m/t/f.cost.json\0")
    assert tree_digest(root) == expected
    (folder / "f.cost.json").write_text('{"a": 1}\n')
    assert tree_digest(root) == expected, "a snapshot's content is not part of the digest: only its name"
    (root / ".pytest-stages").mkdir()
    (root / ".pytest-stages/lock").write_text("")
    assert tree_digest(root) == expected, "the folder of the tree's lock is no part of it (a fresh checkout has none)"
    (folder / "_stages.json").write_bytes(meta + b" ")
    assert tree_digest(root) != expected, "a manifest's bytes are"


def test_links_are_named_not_followed_and_a_fifo_named_as_metadata_is_not_read(tmp_path):
    root = tmp_path / "snapshots"
    (root / "m").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "_stages.json").write_text("{}")
    (root / "m" / "link").symlink_to(tmp_path / "elsewhere")
    os.mkfifo(root / "_stages.json")
    assert tree_digest(root) == sha(b"_stages.json\0", b"m/link\0")
    (root / "m" / "_stages.json").mkdir()
    assert tree_digest(root) == sha(b"_stages.json\0", b"m/link\0"), "a folder is known by what it holds"


def test_without_git_installed_the_commit_is_empty(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert git_commit(tmp_path) == ""


def test_a_file_name_that_is_not_utf8_is_digested_and_told_apart(tmp_path):
    root = tmp_path / "snapshots"
    root.mkdir()
    (root / os.fsdecode(b"\xff.json")).write_text("{}")
    first = tree_digest(root)
    assert first == sha(b"\xff.json\0")
    (root / os.fsdecode(b"\xff.json")).rename(root / os.fsdecode(b"\xfe.json"))
    assert tree_digest(root) == sha(b"\xfe.json\0") != first


def test_a_symlinked_metadata_file_counts_by_its_name_not_its_targets_bytes(tmp_path):
    root = tmp_path / "snapshots"
    root.mkdir()
    (tmp_path / "meta.json").write_text('{"format": 3}')
    (root / "_stages.json").symlink_to(tmp_path / "meta.json")
    assert tree_digest(root) == sha(b"_stages.json\0")


def test_the_lock_of_this_and_of_earlier_versions_is_no_part_of_the_tree(tmp_path):
    """An upgrade leaves the old root lock ``.stages.lock``: neither it nor ``.pytest-stages/`` is listed, so a
    prune never calls either foreign; the same names one folder down are foreign as ever."""
    (tmp_path / ".pytest-stages").mkdir()
    (tmp_path / ".pytest-stages" / "lock").write_text("")
    (tmp_path / ".stages.lock").write_text("")
    (tmp_path / "mod").mkdir()
    (tmp_path / "mod" / ".stages.lock").write_text("")
    listing = snapshot_files(tmp_path)
    assert listing.foreign == [PurePosixPath("mod/.stages.lock")]
    assert listing.own == [] and listing.empty == []
