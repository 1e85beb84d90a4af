"""Every test id pytest can produce goes through the report, the merge, the pending set, accept and review.

An id that needs a safe folder name (a space, non-ASCII, ``<``, ``/``, 300 characters) is stored
under a hashed component (``test_s[small_model]~6ed4f7907e``); the readers of the plugin's own
outputs must take that name as one pytest-stages gives, not refuse the run's own report or set.
"""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

from conftest import ONE_CONFIG, Project
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_stages.core.records import CallRecord
from pytest_stages.core.run_view import CollectionView, RunFacts
from pytest_stages.report import cli
from pytest_stages.report.merge import read_shard
from pytest_stages.report.render import RunReport, report_json
from pytest_stages.store.journal import Journal, Swap, read_journal, staged_names, write_journal
from pytest_stages.store.names import snapshot_folder
from pytest_stages.store.pending import PendingCall, manifest, read_set, write_call
from pytest_stages.store.storage import SnapshotFolder

# Ids as parametrize makes them: any text, and the awkward ones named outright.
IDS = st.one_of(
    st.text(min_size=1),
    st.sampled_from(["small model", "<b>x</b>", "a/b", "é", "x" * 300, "A", "a", "..", ".", "~", "a~0123456789"]),
)


def folder_of(test_id: str) -> str:
    """The snapshot folder of ``tests/test_a.py::test_s[<id>]`` on cpu1, as the writer names it."""
    return SnapshotFolder(Path("snapshots"), "tests/test_a", f"test_s[{test_id}]", "cpu1").relative.as_posix()


@given(IDS)
def test_every_folder_the_writer_names_is_one_the_readers_take(test_id):
    assert snapshot_folder(folder_of(test_id))


@given(IDS, IDS)
def test_ids_differing_in_anything_but_equality_get_distinct_folders(first, second):
    if first != second:
        assert folder_of(first) != folder_of(second)


def test_paths_that_are_no_snapshot_folder_are_refused():
    for folder in ("../../x/y", "/etc/a/b", "a//b/c", "a/b", "a/b/c d", "a/../b/c", "a/b/.hidden", "a/b/x~zz"):
        assert not snapshot_folder(folder), folder


def shard_report(test_id: str) -> dict:
    """A one-call shard report for the test ``test_s[<id>]``, as a run writes it (report_json's JSON)."""
    nodeid, folder = f"tests/test_a.py::test_s[cpu1-{test_id}]", folder_of(test_id)
    facts = RunFacts(CollectionView({"tests/test_a"}, items={nodeid: folder}), ["tests"], {nodeid: "failed"}, [nodeid])
    record = CallRecord(nodeid, "cpu1", "f", folder, status={"jaxpr": "changed"}, pending="p")
    settings_ = {"snapshot_dir": "snapshots", "configs": ["cpu1"], "selected": ["cpu1"]}
    return json.loads("".join(report_json(RunReport([record], False, {"jax": "0", "jaxlib": "0"}, facts, settings_))))


@given(IDS)
def test_a_shard_report_of_any_id_merges(test_id):
    shard = read_shard("r.json", shard_report(test_id))
    assert [r.folder for r in shard.report.records] == [folder_of(test_id)]


@settings(max_examples=40, deadline=None)
@given(IDS)
def test_a_pending_call_of_any_id_reads_back(test_id):
    nodeid, folder = f"tests/test_a.py::test_s[cpu1-{test_id}]", folder_of(test_id)
    files = {"f.jaxpr.txt": "{ lambda ; a:f32[]. let  in (a,) }\n"}
    call = {"nodeid": nodeid, "config": "cpu1", "name": "f", "folder": folder, "config_record": {}, "environment": {}}
    identity = {"project": "demo", "snapshot_dir": "snapshots", "plugin": "0", "commit": None}
    record = CallRecord(nodeid, "cpu1", "f", folder, status={"jaxpr": "new"}, pending="p").to_dict()
    data = manifest(identity=identity, call=call, base={"f.jaxpr.txt": None}, files=files, record=record)
    with tempfile.TemporaryDirectory() as directory:
        write_call(Path(directory), PendingCall(Path(folder), files, data))  # type: ignore[arg-type]
        [entry] = read_set(Path(directory)).entries
    assert entry.key == (nodeid, "cpu1", "f") and entry.folder == folder


@given(IDS)
def test_an_accept_journal_naming_the_folder_of_any_id_reads_back(test_id):
    # The journal's reader re-made each component safe: a hashed one failed that, so an accept of
    # such a folder that stopped part-way left a journal that pytest and --recover both refused.
    folder = folder_of(test_id)
    swap = Swap(folder, *staged_names(folder, "0a1b2c3d"), existed=True)
    with tempfile.TemporaryDirectory() as directory:
        write_journal(Path(directory), "swapping", [swap])
        assert read_journal(Path(directory)) == Journal("swapping", (swap,))


def test_an_accept_refused_part_way_rolls_back_a_folder_of_a_hashed_id(pytester, monkeypatch):
    project = Project(pytester)
    project.write("pyproject.toml", '[tool.pytest_stages]\nanalyses = ["cost"]\n' + ONE_CONFIG)
    project.write("tests/test_a.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=2)
    monkeypatch.setenv("STAGES_CHANGE", "1")
    project.run("--stages-pending=p").assert_outcomes(failed=2)
    before = project.snapshots()
    [other] = [p for p in (project.path / "snapshots/tests/test_a").iterdir() if "small_model" not in p.name]
    (other / "cpu1" / "sub").mkdir()  # accept refuses a folder holding a subfolder, after its journal is written
    stream = io.StringIO()
    status = cli.main(["accept", "--rootdir", str(project.path), str(project.path / "p")], stream=stream)
    assert status == 2, stream.getvalue()
    assert stream.getvalue() == (
        f"pytest-stages accept: {other / 'cpu1' / 'sub'} is a folder, FIFO or device inside a snapshot folder; accept "
        f"swaps whole snapshot folders and leaves this one alone. Move it out of {other / 'cpu1'}. Nothing was "
        "written.\n"
    )
    assert project.snapshots() == before
    assert not list((project.path / "snapshots").rglob(".*accept*"))


TEST = """
import os, jax, jax.numpy as jnp, pytest

@pytest.mark.parametrize("k", [pytest.param(2.0, id="small model"), pytest.param(3.0, id="<b>x</b>/\\u00e9")])
def test_s(stage_snapshot, k):
    k = k + float(os.environ.get("STAGES_CHANGE", "0"))
    stage_snapshot(lambda x: x * k + 1, jax.ShapeDtypeStruct((4,), jnp.float32), name="affine")
"""


def test_a_run_with_ids_that_need_safe_names_goes_through_merge_accept_and_review(pytester, monkeypatch):
    project = Project(pytester)
    settings_ = '[project]\nname = "demo"\n[tool.pytest_stages]\nanalyses = ["cost"]\n'
    project.write("pyproject.toml", settings_ + ONE_CONFIG)
    project.write("tests/test_a.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=2)
    assert any("small_model]~" in name for name in project.snapshots())
    monkeypatch.setenv("STAGES_CHANGE", "1")
    project.run("--stages-pending=p", "--stages-report=r.json").assert_outcomes(failed=2)
    stream = io.StringIO()
    assert cli.main(["merge", "--rootdir", str(project.path), str(project.path / "r.json")], stream=stream) == 1
    assert "merged 1 shard report(s), 2 call(s)" in stream.getvalue()
    # The next run into the same folder replaces the set (no usage error).
    project.run("--stages-pending=p").assert_outcomes(failed=2)
    assert len(read_set(project.path / "p").entries) == 2

    def command(*args: str) -> tuple[int, str]:
        stream = io.StringIO()
        return cli.main([*args, "--rootdir", str(project.path), str(project.path / "p")], stream=stream), (
            stream.getvalue()
        )

    status, output = command("accept", "-k", "small")
    assert status == 0 and "wrote 3 file(s) of 1 call(s)" in output, output
    status, output = command("review", "--accept-all", "-k", "not small")
    assert status == 0 and "1 accepted, 0 rejected, 0 skipped" in output, output
    project.run().assert_outcomes(passed=2)
