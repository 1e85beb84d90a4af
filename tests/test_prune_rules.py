"""store.prune's rules, table by table: ownership, judged folders, refusals; how report.refusal_text shows each refusal.

Pure: plain data in, verdicts out (one test lists a real folder to show a symlink never counts as a file).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path, PurePosixPath

import pytest

from pytest_stages.core.run_view import CollectionView, RunFacts, RunView
from pytest_stages.report.refusal_text import gap_text, refusal_lines
from pytest_stages.store.inventory import snapshot_files
from pytest_stages.store.prune import (
    Evidence,
    Inventory,
    Listing,
    Tree,
    is_meta,
    merge_gaps,
    module_file,
    own_name,
    owned_names,
    refusal,
    run_gaps,
    take_inventory,
    temporary_of,
)
from pytest_stages.store.prune_reasons import (
    Disagreement,
    Facet,
    Foreign,
    Gap,
    Incomplete,
    IncompleteRun,
    IncompleteShards,
    Mismatch,
    OtherState,
    SplitShard,
    Unreadable,
)

P = PurePosixPath
ROOT = Path("/project")
META = "_stages.json"
TMP = ".f.cost.json.ab12cd34.tmp"

# --- 1. ownership -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "own"),
    [
        ("f.cost.json", True),
        ("mlp-2.compiled.hlo.txt", True),
        ("_lambda_~a15349b880.jaxpr.txt", True),  # a lambda's: safe_component hashes "<lambda>"
        ("f~a15349b880x.jaxpr.txt", False),
        (".f~a15349b880.jaxpr.txt", False),
        ("f.compiles.json", True),
        ("input.csv", False),
        ("a b.cost.json", False),
        (".cost.json", False),
        ("_stages.json", False),
        (TMP, False),
    ],
)
def test_own_name_is_a_safe_name_with_an_artifact_suffix(name, own):
    assert own_name(name) is own


@pytest.mark.parametrize(
    ("name", "becomes"),
    [(TMP, "f.cost.json"), (".f.cost.json.AB12CD34.tmp", None), ("f.cost.json", None), (".f.cost.json.tmp", None)],
)
def test_temporary_of_names_the_file_an_interrupted_write_was_to_become(name, becomes):
    assert temporary_of(name) == becomes


@pytest.mark.parametrize(
    ("data", "meta"),
    [({"format": 1}, True), ({"format": True}, False), ({"format": "1"}, False), ([1], False), ({}, False)],
)
def test_metadata_pytest_stages_writes_is_an_object_with_an_integer_format(data, meta):
    assert is_meta(data) is meta


LISTED = {"format": 1, "files": ["f.cost.json", "input.csv", "gone.cost.json"]}
UNLISTED = {"format": 1, "jax": "0.10.2"}

OWNERSHIP = [
    # (case, folder, names in the folder, metadata, owned)
    ("the manifest lists it", "cpu1", {META, "f.cost.json"}, LISTED, {META, "f.cost.json"}),
    ("the manifest does not list it", "cpu1", {META, "f.cost.json", "g.cost.json"}, LISTED, {META, "f.cost.json"}),
    ("listed, but not a name pytest-stages gives", "cpu1", {META, "input.csv"}, LISTED, {META}),
    ("listed, but not a file here (a symlink)", "cpu1", {META}, LISTED, {META}),
    ("metadata without a manifest: its naming", "cpu1", {META, "f.cost.json", "notes.md"}, UNLISTED,
     {META, "f.cost.json"}),
    ("no metadata", "cpu1", {"f.cost.json"}, None, set()),
    ("no metadata, _compiles of its own files", "_compiles", {"b.compiles.json", "c.compiles.json"}, None,
     {"b.compiles.json", "c.compiles.json"}),
    ("no metadata, _compiles with another file", "_compiles", {"b.compiles.json", "notes.md"}, None, set()),
    ("no metadata, _compiles with another artifact", "_compiles", {"b.compiles.json", "f.cost.json"}, None, set()),
    ("no metadata, a folder not named _compiles", "cpu1", {"b.compiles.json"}, None, set()),
    ("a temporary of an owned file", "cpu1", {META, "f.cost.json", TMP}, LISTED, {META, "f.cost.json", TMP}),
    ("a temporary of a file it does not own", "cpu1", {META, ".g.cost.json.ab12cd34.tmp"}, LISTED, {META}),
    ("a temporary in _compiles", "_compiles", {"b.compiles.json", ".b.compiles.json.ab12cd34.tmp"}, None,
     {"b.compiles.json", ".b.compiles.json.ab12cd34.tmp"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("folder", "names", "meta", "owned"), [case[1:] for case in OWNERSHIP], ids=[case[0] for case in OWNERSHIP]
)
def test_a_folder_owns_exactly_the_names_its_manifest_or_naming_proves(folder, names, meta, owned):
    assert owned_names(folder, names, meta) == owned


def test_a_symlink_the_manifest_lists_is_foreign_in_the_listing(tmp_path):
    folder = tmp_path / "m/t/cpu1"
    folder.mkdir(parents=True)
    (folder / META).write_text(json.dumps({"format": 1, "files": ["f.cost.json", "g.cost.json"]}))
    (folder / "f.cost.json").write_text("{}")
    (folder / "g.cost.json").symlink_to(folder / "f.cost.json")
    assert snapshot_files(tmp_path) == Listing(
        own=[P("m/t/cpu1", META), P("m/t/cpu1/f.cost.json")], foreign=[P("m/t/cpu1/g.cost.json")]
    )


# --- 2. judged folders --------------------------------------------------------------------------

OWNED = "tests/test_a/test_f/cpu1"
ITEM = "tests/test_a.py::test_f"


def view(items=None, outcomes=None, *, modules=("tests/test_a",), ignored=(), roots=(ROOT,)) -> RunView:
    items = {ITEM: OWNED} if items is None else items
    outcomes = {ITEM: "passed"} if outcomes is None else outcomes
    collection = CollectionView(modules=set(modules), ignored=[str(ROOT / p) for p in ignored], items=items)
    return RunView(collection, roots=list(roots), outcomes=outcomes, finished=set(outcomes))


def tree(*, exists=(), selected=("cpu1", "cpu8"), called=None) -> Tree:
    return Tree(ROOT, ("cpu1", "cpu8"), selected, module_exists=lambda module: module in exists, called=called)


def unused(folder: str, view: RunView, tree: Tree) -> bool:
    """Whether the run calls the unused file ``old.cost.json`` of ``folder`` unused (``f.cost.json`` is used)."""
    files = [P(folder, META), P(folder, "f.cost.json"), P(folder, "old.cost.json")]
    found = take_inventory(files, {P(folder, META), P(folder, "f.cost.json")}, view, tree)
    assert set(found.unused) <= {P(folder, "old.cost.json")}, "a used file is never unused"
    return found.unused == [P(folder, "old.cost.json")]


JUDGED = [
    # (case, folder, view, tree, unused)
    ("owned by items that all passed", OWNED, view(), tree(), True),
    ("owned by an item that failed", OWNED, view(outcomes={ITEM: "failed"}), tree(), False),
    ("owned by an item that was skipped", OWNED, view(outcomes={ITEM: "skipped"}), tree(), False),
    ("owned by an item that errored", OWNED, view(outcomes={ITEM: "error"}), tree(), False),
    ("owned by an item with no outcome", OWNED, view(outcomes={}), tree(), False),
    ("shared by a passed and a failed item", OWNED,
     view({ITEM: OWNED, f"{ITEM}2": OWNED}, {ITEM: "passed", f"{ITEM}2": "failed"}), tree(), False),
    ("shared by items that all passed", OWNED,
     view({ITEM: OWNED, f"{ITEM}2": OWNED}, {ITEM: "passed", f"{ITEM}2": "passed"}), tree(), True),
    ("merge: owned and passed, named by a call", OWNED, view(), tree(called={OWNED}), True),
    ("merge: owned and passed, named by no call", OWNED, view(), tree(called=set()), False),
    ("a config that exists but was not selected", "tests/test_a/test_f/cpu8", view(), tree(selected=("cpu1",)), False),
    ("a removed config", "tests/test_a/test_f/tpu", view(), tree(selected=("cpu1",)), True),
    ("a module collected in full, owned by no item", "tests/test_a/test_gone/cpu1", view(), tree(), True),
    ("a top-level module collected in full", "test_model/test_gone/cpu1", view(modules=("test_model",)), tree(), True),
    ("a nested module collected in full", "tests/unit/test_b/test_gone/cpu1", view(modules=("tests/unit/test_b",)),
     tree(), True),
    ("a module that exists but was not collected", "tests/test_b/test_g/cpu1", view(), tree(exists=("tests/test_b",)),
     False),
    ("a package collected, its module not", "tests/unit/test_b/test_gone/cpu1", view(modules=("tests/unit",)),
     tree(exists=("tests/unit/test_b",)), False),
    ("a deleted module, collection covered it", "tests/test_b/test_g/cpu1", view(), tree(), True),
    ("a deleted module, collection started at its file", "tests/test_b/test_g/cpu1",
     view(roots=(ROOT / "tests/test_b.py",)), tree(), True),
    ("a deleted module, collection started elsewhere", "tests/test_b/test_g/cpu1", view(roots=(ROOT / "other",)),
     tree(), False),
    ("a deleted module, --ignore'd", "tests/test_b/test_g/cpu1", view(ignored=("tests/test_b.py",)), tree(), False),
    ("a deleted module, its folder --ignore'd", "tests/test_b/test_g/cpu1", view(ignored=("tests",)), tree(), False),
    ("a hashed module name", "tests/test_x~0123456789/test_f/cpu1", view(), tree(), False),
    ("outside the layout: two deep", "notes/x", view(), tree(), False),
    ("outside the layout: the root", ".", view(), tree(), False),
]  # fmt: skip


@pytest.mark.parametrize(("folder", "view", "tree", "judged"), [c[1:] for c in JUDGED], ids=[c[0] for c in JUDGED])
def test_a_folder_is_judged_only_where_the_run_saw_all_that_could_still_use_it(folder, view, tree, judged):
    assert unused(folder, view, tree) is judged


@pytest.mark.parametrize(("outcome", "unused"), [("passed", [P(OWNED, "old.cost.json")]), ("failed", [])])
def test_temporaries_are_leftovers_whatever_their_folder(outcome, unused):
    files = [P(OWNED, TMP), P("notes", TMP), P(OWNED, "old.cost.json")]
    assert take_inventory(files, set(), view(outcomes={ITEM: outcome}), tree()) == Inventory(
        unused=unused, leftovers=[P(OWNED, TMP), P("notes", TMP)]
    )


@pytest.mark.parametrize(
    ("module", "file"),
    [
        ("tests/test_a", "tests/test_a.py"),
        ("stages", None),
        ("_outside_rootdir/up/test_x", None),
        ("stages2", "stages2.py"),
    ],
)
def test_module_file_is_none_where_a_snapshot_module_has_no_file_here(module, file):
    assert module_file(module) == file


# --- 3. refusals --------------------------------------------------------------------------------

ITEMS = {"t.py::a": "m/t/c", "t.py::b": "m/t/c"}


def facts(**changes) -> RunFacts:
    """A run that collected and finished two items and passed, with ``changes``."""
    collection = CollectionView(items=ITEMS, **changes.pop("collection", {}))
    return RunFacts(collection, **{"roots": ["."], "outcomes": {}, "finished": list(ITEMS), **changes})


GAPS = [
    # (case, facts, gaps)
    ("a complete run", facts(), []),
    ("a run with failures", facts(exit_status=1), []),
    ("a run that collected nothing", facts(exit_status=5), []),
    ("--collect-only", facts(collect_only=True, finished=[]), [Incomplete(Gap.COLLECT_ONLY)]),
    ("collection errors", facts(collection={"errors": ["a.py", "b.py"]}),
     [Incomplete(Gap.COLLECTION_ERRORS, 2, ("a.py", "b.py"))]),
    ("removed items", facts(collection={"removed": ["t.py::c"]}), [Incomplete(Gap.REMOVED, 1)]),
    ("a lost worker", facts(lost_workers=["gw1"]), [Incomplete(Gap.LOST_WORKERS, 1, ("gw1",))]),
    ("an unfinished item", facts(finished=["t.py::a"]), [Incomplete(Gap.UNFINISHED, 1)]),
    ("stopped early", facts(stopped_early=True, finished=[]),
     [Incomplete(Gap.UNFINISHED, 2), Incomplete(Gap.STOPPED_EARLY)]),
    ("an interrupted session, nothing else seen", facts(exit_status=2), [Incomplete(Gap.EXIT_STATUS, 2)]),
    ("an exit status beside another reason", facts(exit_status=2, stopped_early=True), [Incomplete(Gap.STOPPED_EARLY)]),
]  # fmt: skip


@pytest.mark.parametrize(("facts", "gaps"), [c[1:] for c in GAPS], ids=[c[0] for c in GAPS])
def test_each_gap_that_makes_a_run_incomplete_is_found(facts, gaps):
    assert run_gaps(facts) == gaps


def test_a_split_shard_leaves_its_removed_items_to_the_merge():
    shard = facts(collection={"removed": ["t.py::c"]}, split={"splits": 2, "group": 1})
    assert run_gaps(shard, count_removed=False) == []
    union = facts(collection={"removed": ["t.py::d", "t.py::e"]})
    assert merge_gaps([("s1.json", shard), ("s2.json", facts(stopped_early=True))], ["2/3"], union) == [
        Incomplete(Gap.STOPPED_EARLY, shard="s2.json"),
        Incomplete(Gap.SHARDS_MISSING, 1, ("2/3",)),
        Incomplete(Gap.RAN_IN_NO_SHARD, 2, ("t.py::d", "t.py::e")),
    ]
    unsplit = facts(collection={"removed": ["t.py::c"]})
    assert merge_gaps([("s.json", unsplit)], [], facts()) == [Incomplete(Gap.REMOVED, 1, shard="s.json")]


SPLIT = {"splits": 3, "group": 2}
COLLECT, STOPPED = Incomplete(Gap.COLLECT_ONLY), Incomplete(Gap.STOPPED_EARLY)
MISSING = Incomplete(Gap.SHARDS_MISSING, 1, ("2/3",))
COLLECTED = CollectionView(
    modules={"tests/test_a", "tests/test_b", "stages", "_outside_rootdir/up/test_x"},
    digests={"tests/test_a": "aa", "tests/test_b": "bb"},
)
CHECKOUT = {"tests/test_a": "aa", "tests/test_b": "bb"}
FOREIGN = Listing(own=[P("m/t/c", META)], foreign=[P("input.csv")])
UNREADABLE = Listing(foreign=[P("input.csv")], unreadable=[P("m/locked")])
HERE = ("c1", "t1")  # the commit and snapshot tree digest of the checkout a merge runs in

REFUSALS = [
    # (case, evidence, refusal)
    ("a complete run, pruning", Evidence(prune=True, listing=Listing(own=[P("m/t/c", META)])), None),
    ("a complete run, the tree not listed yet", Evidence(prune=True), None),
    ("a split shard, pruning", Evidence(prune=True, split=SPLIT), SplitShard(3, 2)),
    ("a split shard, listing only", Evidence(prune=False, split=SPLIT), None),
    ("a split shard before its incomplete view", Evidence(prune=True, split=SPLIT, incomplete=(STOPPED,)),
     SplitShard(3, 2)),
    ("an incomplete run, pruning", Evidence(prune=True, incomplete=(COLLECT, STOPPED)),
     IncompleteRun((COLLECT, STOPPED))),
    ("an incomplete run, listing only", Evidence(prune=False, incomplete=(STOPPED,)), IncompleteRun((STOPPED,))),
    ("an incomplete run before the tree", Evidence(prune=True, incomplete=(STOPPED,), listing=FOREIGN),
     IncompleteRun((STOPPED,))),
    ("incomplete shards", Evidence(prune=True, shards_incomplete=(MISSING,)), IncompleteShards((MISSING,))),
    ("incomplete shards before the digests", Evidence(prune=False, shards_incomplete=(MISSING,), collected=COLLECTED),
     IncompleteShards((MISSING,))),
    ("shards that agree with the checkout", Evidence(prune=True, collected=COLLECTED, checkout=CHECKOUT), None),
    ("a collected module not in the checkout",
     Evidence(prune=True, collected=COLLECTED, checkout={"tests/test_a": "aa"}),
     Disagreement("tests/test_b", Mismatch.ABSENT)),
    ("a collected module without a digest",
     Evidence(prune=False, collected=CollectionView(modules={"tests/test_a"}), checkout=CHECKOUT),
     Disagreement("tests/test_a", Mismatch.NO_DIGEST)),
    ("a collected module with other bytes",
     Evidence(prune=True, collected=COLLECTED, checkout={**CHECKOUT, "tests/test_a": "zz"}),
     Disagreement("tests/test_a", Mismatch.DIFFERS)),
    ("an unreadable checkout file",
     Evidence(prune=True, collected=COLLECTED, checkout={**CHECKOUT, "tests/test_b": ""}),
     Disagreement("tests/test_b", Mismatch.DIFFERS)),
    ("a disagreement before the tree", Evidence(prune=True, collected=COLLECTED, checkout={}, listing=FOREIGN),
     Disagreement("tests/test_a", Mismatch.ABSENT)),
    ("foreign files, pruning", Evidence(prune=True, listing=FOREIGN), Foreign((P("input.csv"),))),
    ("foreign files, listing only", Evidence(prune=False, listing=FOREIGN), None),
    ("unreadable folders before foreign files", Evidence(prune=True, listing=UNREADABLE), Unreadable((P("m/locked"),))),
    ("unreadable folders, listing only", Evidence(prune=False, listing=UNREADABLE), None),
    ("shards of the checkout's commit and tree",
     Evidence(prune=True, states=[("a.json", "c1", "t1")], here=HERE), None),
    ("a shard of another commit, the first by name",
     Evidence(prune=True, states=[("b.json", "c2", "t1"), ("a.json", "c1", "t1")], here=HERE),
     OtherState("b.json", Facet.COMMIT, "c2", "c1")),
    ("a shard of another snapshot tree", Evidence(prune=False, states=[("a.json", "c1", "t2")], here=HERE),
     OtherState("a.json", Facet.SNAPSHOTS, "t2", "t1")),
    ("another tree, from shards that wrote snapshots",
     Evidence(prune=True, states=[("a.json", "c1", "t2")], here=HERE, wrote=True), None),
    ("another commit, from shards that wrote snapshots",
     Evidence(prune=True, states=[("a.json", "c2", "t2")], here=HERE, wrote=True),
     OtherState("a.json", Facet.COMMIT, "c2", "c1")),
    ("a shard that recorded no state", Evidence(prune=True, states=[("a.json", "", "")], here=HERE),
     OtherState("a.json", Facet.COMMIT, "", "c1")),
    ("outside git, the same tree", Evidence(prune=True, states=[("a.json", "", "t1")], here=("", "t1")), None),
    ("shards sorted by name, not by what differs",
     Evidence(prune=True, states=[("z.json", "c9", "t1"), ("b.json", "c1", "t9")], here=HERE),
     OtherState("b.json", Facet.SNAPSHOTS, "t9", "t1")),
    ("a run judges its own checkout", Evidence(prune=True, states=[("a.json", "c2", "t2")]), None),
    ("another state before a disagreement",
     Evidence(prune=True, states=[("a.json", "c2", "t1")], here=HERE, collected=COLLECTED, checkout={}),
     OtherState("a.json", Facet.COMMIT, "c2", "c1")),
]  # fmt: skip


@pytest.mark.parametrize(("evidence", "refused"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_a_prune_is_refused_for_each_reason_the_evidence_shows(evidence, refused):
    assert refusal(evidence) == refused


def test_a_merge_prune_refuses_a_report_that_recorded_no_state():
    evidence = Evidence(prune=True, states=[("a.json", "", "")], here=("", "d1"))
    assert refusal(evidence) == OtherState("a.json", Facet.SNAPSHOTS, "", "d1")
    evidence = Evidence(prune=True, states=[("a.json", "c1", "d1"), ("b.json", "c2", "d1")], here=("c1", "d1"))
    assert refusal(evidence) == OtherState("b.json", Facet.COMMIT, "c2", "c1")
    assert refusal(Evidence(prune=True, states=[("a.json", "c1", "d0")], here=("c1", "d1"), wrote=True)) is None
    assert refusal(Evidence(prune=True, states=[("a.json", "c1", "d1")], here=("c1", "d1"))) is None


# --- rendering ----------------------------------------------------------------------------------

MERGE_FIX = "Merge the reports of shards that ran this checkout, from its root (--rootdir)."
LINES = [
    # (case, refusal, prune, lines)
    ("a split shard", SplitShard(3, 2), True, [
        "pytest-stages: --stages-prune refused: this run is group 2 of 3 of a split suite (pytest-split --splits 3 "
        "--group 2) and judged only its own items; nothing was deleted. Write each shard's report "
        "(--stages-report=shard-N.json) and prune from all of them: `python -m pytest_stages merge --prune "
        "shard-*.json`."]),
    ("an incomplete run, pruning", IncompleteRun((COLLECT, STOPPED)), True, [
        "pytest-stages: --stages-prune refused: --collect-only runs no test; the session stopped early; nothing was "
        "deleted. Run the whole suite, without selecting or stopping early, with --stages-prune."]),
    ("an incomplete run, listing only", IncompleteRun((STOPPED,)), False, []),
    ("incomplete shards, pruning", IncompleteShards((replace(STOPPED, shard="s.json"), MISSING)), True, [
        "pytest-stages: merge --prune refused: s.json: the session stopped early; shard(s) 2/3 missing; nothing was "
        "deleted. Merge the reports of every shard of a run of the whole suite that collected and ran everything."]),
    ("incomplete shards, listing only", IncompleteShards((MISSING,)), False, [
        "pytest-stages: no unused-file report: shard(s) 2/3 missing; Merge the reports of every shard of a run of the "
        "whole suite that collected and ran everything."]),
    ("a module not in the checkout", Disagreement("tests/test_b", Mismatch.ABSENT), True, [
        "pytest-stages: merge --prune refused: the shards' collection does not agree with the checkout in /project "
        f"(tests/test_b.py was collected but is not in this checkout); nothing was deleted. {MERGE_FIX}"]),
    ("a module without a digest", Disagreement("tests/test_b", Mismatch.NO_DIGEST), False, [
        "pytest-stages: no unused-file report: the shards' collection does not agree with the checkout in /project "
        f"(the reports carry no digest of tests/test_b.py (written by an older pytest-stages)). {MERGE_FIX}"]),
    ("a module with other bytes", Disagreement("tests/test_b", Mismatch.DIFFERS), True, [
        "pytest-stages: merge --prune refused: the shards' collection does not agree with the checkout in /project "
        f"(tests/test_b.py differs from the file the shards collected); nothing was deleted. {MERGE_FIX}"]),
    ("unreadable folders", Unreadable(tuple(P(f"m/{n}") for n in range(7))), True, [
        "pytest-stages: --stages-prune refused: cannot list 7 folder(s) (snapshots/m/0, snapshots/m/1, snapshots/m/2, "
        "snapshots/m/3, snapshots/m/4); nothing was deleted. Give the user running pytest read access to the "
        "snapshot folder."]),
    ("foreign files", Foreign(tuple(P(f"m/{n}.csv") for n in range(6))), True, [
        "pytest-stages: --stages-prune refused: snapshots/ holds 6 file(s) pytest-stages did not write "
        "(snapshots/m/0.csv, snapshots/m/1.csv, snapshots/m/2.csv, snapshots/m/3.csv, snapshots/m/4.csv, ...), so it "
        "is not a snapshot folder of its own; nothing was deleted. Move those files out (a file of a folder that lost "
        "its _stages.json: restore that from version control, or delete the folder), or give the snapshots a folder "
        'of their own (snapshot_dir = "snapshots").']),
]  # fmt: skip


@pytest.mark.parametrize(("refused", "prune", "lines"), [c[1:] for c in LINES], ids=[c[0] for c in LINES])
def test_each_refusal_is_shown_in_the_lines_the_terminal_prints(refused, prune, lines):
    assert refusal_lines(refused, prune, "snapshots", ROOT) == lines


TEXTS = [
    # (gap, text)
    (Incomplete(Gap.COLLECT_ONLY), "--collect-only runs no test"),
    (Incomplete(Gap.COLLECTION_ERRORS, 4, ("a.py", "b.py", "c.py", "d.py")),
     "4 collection error(s) (a.py, b.py, c.py)"),
    (Incomplete(Gap.REMOVED, 3), "3 collected item(s) were deselected or removed"),
    (Incomplete(Gap.LOST_WORKERS, 2, ("gw0", "gw1")), "xdist worker(s) gw0, gw1 went down without reporting"),
    (Incomplete(Gap.UNFINISHED, 5), "5 collected item(s) did not run to the end"),
    (Incomplete(Gap.STOPPED_EARLY, shard="s.json"), "s.json: the session stopped early"),
    (Incomplete(Gap.EXIT_STATUS, 2), "the session ended with exit status 2"),
    (Incomplete(Gap.SHARDS_MISSING, 2, ("1/3", "3/3")), "shard(s) 1/3, 3/3 missing"),
    (Incomplete(Gap.RAN_IN_NO_SHARD, 2, ("t.py::{a}", "t.py::b")),
     "2 collected item(s) ran in no shard (t.py::{a}, ...): deselected, or their shard is missing"),
]  # fmt: skip


@pytest.mark.parametrize(("gap", "text"), TEXTS, ids=[gap.gap.name for gap, _ in TEXTS])
def test_each_gap_is_named_in_words(gap, text):
    assert gap_text(gap) == text


def test_foreign_files_at_the_project_root_are_named_without_a_prefix():
    (line,) = refusal_lines(Foreign((P("input.csv"),)), True, ".", ROOT)
    assert "./ holds 1 file(s) pytest-stages did not write (input.csv), so" in line
