"""The store at its edges: names, atomic writes, refusals, the listing of the tree, the files a run used.

The prune's rules (ownership, judged folders, refusals) are tested table by table in test_prune_rules.py.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePosixPath

import pytest

from pytest_stages.check.snapshot_format import FORMAT_VERSION
from pytest_stages.core.errors import SnapshotError
from pytest_stages.store.inventory import snapshot_files
from pytest_stages.store.names import MAX_COMPONENT, safe_component, safe_path
from pytest_stages.store.prune import Listing, used_files
from pytest_stages.store.storage import SnapshotFolder, SnapshotStore

ROOT = Path("/project")
P = PurePosixPath


# --- names ------------------------------------------------------------------------------------


def test_a_safe_name_up_to_the_limit_is_kept_and_one_past_it_is_cut_and_hashed():
    assert safe_component("a" * MAX_COMPONENT) == "a" * MAX_COMPONENT
    long = safe_component("a" * (MAX_COMPONENT + 1))
    assert len(long) == MAX_COMPONENT
    assert long.startswith("a" * (MAX_COMPONENT - 11) + "~")
    assert safe_component("test_f[a-b,c=1.5+@x]") == "test_f[a-b,c=1.5+@x]"


def test_unsafe_names_get_underscores_and_a_hash_that_keeps_them_apart():
    slash, space = safe_component("a/b"), safe_component("a b")
    assert slash.startswith("a_b~") and space.startswith("a_b~")
    assert slash != space
    assert len(slash) == len("a_b~") + 10
    assert safe_component("..hidden.").startswith("hidden~"), "leading and trailing dots go"
    assert safe_component("").startswith("_~")
    assert safe_component("...").startswith("_~")


def test_a_path_keeps_its_safe_parts_and_makes_the_others_safe():
    assert safe_path("tests/test_a") == P("tests/test_a")
    made = safe_path("tests/my test")
    assert made.parts[0] == "tests" and made.parts[1].startswith("my_test~")


def test_a_snapshot_folder_is_module_test_config_under_the_root():
    folder = SnapshotFolder(ROOT / "snapshots", "tests/test_a", "test_f[x]", "cpu8")
    assert folder.relative == P("tests/test_a/test_f[x]/cpu8")
    assert folder.path == ROOT / "snapshots/tests/test_a/test_f[x]/cpu8"
    assert folder.meta == folder.path / "_stages.json"
    assert folder.artifact("f", "compiled") == folder.path / "f.compiled.hlo.txt"
    assert folder.artifact("f", "cost") == folder.path / "f.cost.json"


# --- reading and writing ----------------------------------------------------------------------


def test_a_written_snapshot_reads_back_byte_for_byte_with_an_ordinary_file_mode(tmp_path):
    store = SnapshotStore(tmp_path)
    path = tmp_path / "m/t/cpu1/f.jaxpr.txt"
    assert store.read(path) is None
    text = "{ lambda ; a:f32[8]. let b:f32[8] = sin a in (b,) }\nline two ü\n"
    old_umask = os.umask(0o022)
    try:
        store.write(path, text)
    finally:
        os.umask(old_umask)
    assert path.read_bytes() == text.encode("utf-8")
    assert store.read(path) == text
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in path.parent.iterdir()) == ["_stages.json", "f.jaxpr.txt"], "no temporary is left"
    assert json.loads((path.parent / "_stages.json").read_text()) == {
        "files": ["f.jaxpr.txt"],
        "format": FORMAT_VERSION,
    }


def test_a_rewrite_keeps_the_files_mode(tmp_path):
    store = SnapshotStore(tmp_path)
    path = tmp_path / "f.cost.json"
    store.write(path, "{}\n")
    path.chmod(0o600)
    store.write(path, '{"compiled": {"flops": 1}}\n')
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == '{"compiled": {"flops": 1}}\n'


def test_paths_outside_the_root_and_symlinks_inside_it_are_refused(tmp_path):
    root = tmp_path / "snapshots"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("mine")
    store = SnapshotStore(root)
    with pytest.raises(SnapshotError, match="outside the snapshot folder"):
        store.write(root / "../outside.txt", "overwritten")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    with pytest.raises(SnapshotError, match="it is a symlink, and snapshots are plain files"):
        store.read(root / "link.txt")
    inner = root / "inner.txt"
    inner.write_text("x")
    (root / "inner_link.txt").symlink_to(inner)
    with pytest.raises(SnapshotError, match="remove the link"):
        store.write(root / "inner_link.txt", "y")
    assert (tmp_path / "outside.txt").read_text() == "mine"
    assert inner.read_text() == "x"


def test_reading_a_folders_files_at_once_refuses_what_reading_each_refuses(tmp_path):
    root = tmp_path / "snapshots"
    (root / "t").mkdir(parents=True)
    (root / "t/f.jaxpr.txt").write_text("{ lambda ; }")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/f.cost.json").write_text("{}")
    store = SnapshotStore(root)
    texts = store.read_all({"jaxpr": root / "t/f.jaxpr.txt", "cost": root / "t/f.cost.json"})
    assert texts == {"jaxpr": "{ lambda ; }", "cost": None}
    (root / "t/f.cost.json").symlink_to(tmp_path / "outside/f.cost.json")
    with pytest.raises(SnapshotError, match=r"f\.cost\.json: it is a symlink"):
        store.read_all({"jaxpr": root / "t/f.jaxpr.txt", "cost": root / "t/f.cost.json"})
    (root / "u").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(SnapshotError, match="outside the snapshot folder"):
        store.read_all({"cost": root / "u/f.cost.json"})


def test_a_link_at_any_depth_below_the_root_is_judged_by_where_it_resolves(tmp_path):
    """The quick check (no link among the parts below the root) never lets a deeper link out."""
    root = tmp_path / "snapshots"
    (root / "a/b").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/f.cost.json").write_text("{}")
    (root / "a/b/f.cost.json").write_text("{}")
    store = SnapshotStore(root)
    (root / "a/b/c").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(SnapshotError, match="outside the snapshot folder"):
        store.read_all({"cost": root / "a/b/c/f.cost.json"})
    with pytest.raises(SnapshotError, match="outside the snapshot folder"):
        store.read_all({"cost": root / "a/../../outside/f.cost.json"})
    (tmp_path / "outside/t").mkdir()
    (tmp_path / "outside/t/f.cost.json").write_text("{}")
    (root / "u").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(SnapshotError, match="outside the snapshot folder"):
        store.read_all({"cost": root / "u/t/f.cost.json"})  # the link is the first part of two
    with pytest.raises(SnapshotError, match="outside the snapshot folder"):
        store.read_all({"cost": tmp_path / "outside/t/f.cost.json"})  # not under the root at all
    (root / "inside").symlink_to(root / "a", target_is_directory=True)
    assert store.read_all({"cost": root / "inside/b/f.cost.json"}) == {"cost": "{}"}
    assert store.read_all({"cost": root / "a/missing/deeper/f.cost.json"}) == {"cost": None}


def test_a_linked_snapshot_root_reads_its_files(tmp_path):
    (tmp_path / "real/t").mkdir(parents=True)
    (tmp_path / "real/t/f.cost.json").write_text("{}")
    (tmp_path / "snapshots").symlink_to(tmp_path / "real", target_is_directory=True)
    store = SnapshotStore(tmp_path / "snapshots")
    assert store.read_all({"cost": tmp_path / "snapshots/t/f.cost.json"}) == {"cost": "{}"}


def test_a_snapshot_checked_out_with_windows_line_endings_reads_as_written(tmp_path):
    """Read as syrupy reads text (universal newlines): a checkout with CRLF endings compares unchanged."""
    store = SnapshotStore(tmp_path)
    (tmp_path / "f.jaxpr.txt").write_bytes(b"{ lambda ; a:f32[3]. let\r\n    b = sin a\r\n  in (b,) }\r\n")
    (tmp_path / "g.jaxpr.txt").write_bytes(b"old\rmac\n")
    texts = store.read_all({"f": tmp_path / "f.jaxpr.txt", "g": tmp_path / "g.jaxpr.txt"})
    assert texts == {"f": "{ lambda ; a:f32[3]. let\n    b = sin a\n  in (b,) }\n", "g": "old\nmac\n"}


def test_unreadable_snapshots_name_the_file_and_the_fix(tmp_path):
    store = SnapshotStore(tmp_path)
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(SnapshotError, match=r"bad.txt is not UTF-8 text .* delete it and run `pytest --stages-update`"):
        store.read(tmp_path / "bad.txt")
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(SnapshotError, match=r"folder\.txt is a folder, not a file; remove it"):
        store.read(tmp_path / "folder.txt")


def test_a_failed_write_names_the_file_leaves_what_was_there_and_no_temporary(tmp_path):
    store = SnapshotStore(tmp_path)
    path = tmp_path / "f.cost.json"
    path.mkdir()
    (path / "inside.txt").write_text("kept")
    with pytest.raises(SnapshotError, match=r"could not write snapshot .*f.cost.json .*it keeps its previous content"):
        store.write(path, "new\n")
    assert (path / "inside.txt").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".pytest-stages", "_stages.json", "f.cost.json"], (
        "the temporary is removed (the lock of the tree, its root here, stays)"
    )


def write_meta(tmp_path: Path, text: str) -> tuple[SnapshotStore, SnapshotFolder]:
    folder = SnapshotFolder(tmp_path, "m", "t", "cpu1")
    folder.path.mkdir(parents=True)
    folder.meta.write_text(text)
    return SnapshotStore(tmp_path), folder


def test_metadata_of_any_format_reads_back(tmp_path):
    store, folder = write_meta(tmp_path, json.dumps({"format": 1, "jax": "0.10.2"}))
    assert store.read_meta(folder) == {"format": 1, "jax": "0.10.2"}
    assert store.read_meta(SnapshotFolder(tmp_path, "m", "t", "cpu8")) is None
    (folder.meta).write_text('{"format": 0}')
    assert store.read_meta(folder) == {"format": 0}
    (folder.meta).write_text('{"format": 99}')
    assert store.read_meta(folder) == {"format": 99}, "a newer format is read; the run says once it cannot compare it"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"format": ', r"is not valid JSON \(Expecting value, line 1\)"),
        ("[1]", 'has no integer "format" field'),
        ('{"format": "1"}', 'has no integer "format" field'),
        ('{"jax": "0.10.2"}', 'has no integer "format" field'),
    ],
)
def test_bad_metadata_is_an_error_naming_the_file(tmp_path, text, message):
    store, folder = write_meta(tmp_path, text)
    with pytest.raises(SnapshotError, match=message) as raised:
        store.read_meta(folder)
    assert str(folder.meta) in str(raised.value)


def test_prune_deletes_the_files_then_only_the_folders_left_empty(tmp_path):
    root = tmp_path / "snapshots"
    kept = root / "m/t/cpu1/f.cost.json"
    doomed = [root / "m/t/cpu8/f.cost.json", root / "m/t/cpu8/_stages.json", root / "m/u/cpu1/f.jaxpr.txt"]
    for path in [kept, *doomed]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    emptied = SnapshotStore(root).prune(doomed)
    assert sorted(emptied) == [root / "m/t/cpu8", root / "m/u", root / "m/u/cpu1"]
    assert emptied[-1] == root / "m/u", "deepest first: a parent empties once its children are gone"
    assert kept.exists() and root.is_dir()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == [
        ".pytest-stages",
        ".pytest-stages/.gitignore",
        ".pytest-stages/lock",
        "m",
        "m/t",
        "m/t/cpu1",
        kept.relative_to(root).as_posix(),
    ]
    assert SnapshotStore(root).prune([kept]) == [root / "m/t/cpu1", root / "m/t", root / "m"]
    assert root.is_dir(), "the snapshot root itself stays"


def test_prune_removes_a_symlink_without_touching_its_target(tmp_path):
    root = tmp_path / "snapshots"
    (root / "m").mkdir(parents=True)
    target = tmp_path / "precious.txt"
    target.write_text("keep")
    (root / "m/link.txt").symlink_to(target)
    assert SnapshotStore(root).prune([root / "m/link.txt"]) == [root / "m"]
    assert target.read_text() == "keep"


def test_prune_refuses_a_file_outside_the_root(tmp_path):
    root = tmp_path / "snapshots"
    root.mkdir()
    outside = tmp_path / "other.txt"
    outside.write_text("keep")
    with pytest.raises(SnapshotError):
        SnapshotStore(root).prune([root / "../other.txt"])
    assert outside.read_text() == "keep"


# --- the inventory ----------------------------------------------------------------------------


def test_snapshot_files_sorts_the_tree_into_own_files_and_everything_else(tmp_path):
    assert snapshot_files(tmp_path / "missing") == Listing()
    own = tmp_path / "m/t/cpu1"
    own.mkdir(parents=True)
    (own / "_stages.json").write_text('{"format": 1, "files": ["f.cost.json", "input.csv"]}')
    for name in ("f.cost.json", "g.cost.json", "input.csv", ".f.cost.json.ab12cd34.tmp"):
        (own / name).write_text("")
    (tmp_path / "b/c").mkdir(parents=True)
    (tmp_path / "b/c/z.cost.json").write_text("")  # no metadata: not a folder pytest-stages wrote
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "b/dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "b/linked").symlink_to(tmp_path / "b/c")  # listed, never entered
    (tmp_path / "e/f").mkdir(parents=True)
    os.mkfifo(tmp_path / "b/fifo")
    assert snapshot_files(tmp_path) == Listing(
        own=[P("m/t/cpu1/.f.cost.json.ab12cd34.tmp"), P("m/t/cpu1/_stages.json"), P("m/t/cpu1/f.cost.json")],
        foreign=[
            P("a.txt"),
            P("b/c/z.cost.json"),
            P("b/dangling"),
            P("b/fifo"),
            P("b/linked"),
            P("m/t/cpu1/g.cost.json"),  # not in the manifest
            P("m/t/cpu1/input.csv"),  # in the manifest, but not a name pytest-stages gives
        ],
        empty=[P("e/f")],
    )


def test_a_folder_without_a_manifest_owns_the_files_of_its_naming_and_the_next_write_lists_them(tmp_path):
    folder = tmp_path / "m/t/cpu1"
    folder.mkdir(parents=True)
    (folder / "_stages.json").write_text('{"format": 1, "jax": "0.10.2"}')
    for name in ("f.cost.json", "notes.md"):
        (folder / name).write_text("{}")
    assert snapshot_files(tmp_path).own == [P("m/t/cpu1/_stages.json"), P("m/t/cpu1/f.cost.json")]
    SnapshotStore(tmp_path).write(folder / "g.jaxpr.txt", "text\n")
    meta = json.loads((folder / "_stages.json").read_text())
    assert meta == {"files": ["f.cost.json", "g.jaxpr.txt"], "format": 1, "jax": "0.10.2"}


class RecordingStore(SnapshotStore):
    """A store that notes each file it writes and checks, after each, that every file is listed."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.writes: list[str] = []

    def _write(self, path: Path, text: str) -> None:
        super()._write(path, text)
        self.writes.append(path.relative_to(self.root).as_posix())
        listed = json.loads((path.parent / "_stages.json").read_text())["files"]
        assert {p.name for p in path.parent.iterdir()} - {"_stages.json"} <= set(listed), self.writes


def test_an_update_lists_a_folders_files_in_one_manifest_write_before_writing_them(tmp_path):
    store = RecordingStore(tmp_path)
    store.write(tmp_path / "a/cpu1/f.cost.json", "{}\n")  # listed by an earlier run
    store.writes.clear()
    files = [(tmp_path / "a/cpu1" / name, "{}\n") for name in ("f.cost.json", "g.cost.json", "h.ops.json")]
    files += [(tmp_path / "b/cpu1" / name, "{}\n") for name in ("f.cost.json", "g.cost.json")]
    files.append((tmp_path / "a/cpu1/_stages.json", '{"format": 1, "jax": "0.10.2"}'))
    done: list[Path] = []
    store.write_all(files, done)
    assert store.writes == [
        "a/cpu1/_stages.json",
        "a/cpu1/f.cost.json",
        "a/cpu1/g.cost.json",
        "a/cpu1/h.ops.json",
        "b/cpu1/_stages.json",
        "b/cpu1/f.cost.json",
        "b/cpu1/g.cost.json",
    ]
    assert sorted(done) == sorted(path for path, _ in files)
    meta = json.loads((tmp_path / "a/cpu1/_stages.json").read_text())
    assert meta == {"files": ["f.cost.json", "g.cost.json", "h.ops.json"], "format": 1, "jax": "0.10.2"}
    store.writes.clear()
    store.write_all(files[:3])  # all listed already: no manifest write
    assert store.writes == ["a/cpu1/f.cost.json", "a/cpu1/g.cost.json", "a/cpu1/h.ops.json"]


def test_a_prune_updates_the_manifest_of_a_folder_it_keeps(tmp_path):
    store = SnapshotStore(tmp_path)
    folder = tmp_path / "m/t/cpu1"
    for name in ("f.cost.json", "old.cost.json"):
        store.write(folder / name, "{}\n")
    store.prune([folder / "old.cost.json"])
    assert json.loads((folder / "_stages.json").read_text())["files"] == ["f.cost.json"]


def test_used_files_are_each_calls_artifacts_and_its_folders_metadata():
    used = used_files([("m/t/cpu1", "f", ["jaxpr", "cost", "no-such-artifact"]), ("m/t/cpu8", "my f", [])])
    assert used == {
        P("m/t/cpu1/_stages.json"),
        P("m/t/cpu1/f.jaxpr.txt"),
        P("m/t/cpu1/f.cost.json"),
        P("m/t/cpu8/_stages.json"),
    }
    named = used_files([("m/t/cpu1", "my f", ["ops"])])
    assert P(f"m/t/cpu1/{safe_component('my f')}.ops.json") in named
