"""Sharded runs: a suite split by pytest-split over 2 and 3 shards, merged, must read as one run.

The project has three test modules, a registered function and two configs (12 items), committed
snapshots, one drifted program and planted unused files. Each shard writes its JSON report; the
merge (``python -m pytest_stages merge``) must give the summary rows, verdicts and unused-file
list of one full run, prune exactly what one full run's prune deletes, and refuse a prune when
a shard is missing or did not judge all its items.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import jsonschema
import pytest
from conftest import TWO_CPU1_CONFIGS

import pytest_stages
from pytest_stages.config.settings import parse_settings
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.run_view import CollectionView, RunFacts
from pytest_stages.report import cli
from pytest_stages.report.errors import MergeError
from pytest_stages.report.merge import Shard, merge_reports, missing_groups, union
from pytest_stages.report.render import REPORT_SCHEMA, TIME_COLUMN, RunReport, report_json
from pytest_stages.stage.disk_cache import choose

CONFIGS = (
    TWO_CPU1_CONFIGS
    + """
[tool.pytest.ini_options]
testpaths = ["tests"]
"""
)

TEST_A = """
import os, jax, jax.numpy as jnp

def test_one(stage_snapshot):
    if os.environ.get("STAGES_BREAK"):
        raise AssertionError("broken on purpose")
    stage_snapshot(lambda x: jnp.sin(x), jax.ShapeDtypeStruct((4,), jnp.float32), name="sin")

def test_two(stage_snapshot):
    stage_snapshot(lambda x: x * 2, jax.ShapeDtypeStruct((4,), jnp.float32), name="double")
"""

TEST_B = """
import jax, jax.numpy as jnp

def test_three(stage_snapshot):
    stage_snapshot(lambda x: jnp.cos(x).sum(), jax.ShapeDtypeStruct((8,), jnp.float32), name="cos")

def test_four(stage_snapshot):
    stage_snapshot(lambda x: jnp.exp(x) + 1, jax.ShapeDtypeStruct((8,), jnp.float32), name="exp")
"""

TEST_C = """
import jax, jax.numpy as jnp

def test_five(stage_snapshot):
    stage_snapshot(lambda x: x.T @ x, jax.ShapeDtypeStruct((4, 4), jnp.float32), name="gram")
"""

REGISTERED = """
import jax, jax.numpy as jnp
from pytest_stages import register

register(lambda x: jnp.tanh(x), args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name="act")
"""

COST = '{\n  "flops": 1.0\n}\n'
META = '{\n  "devices": 1,\n  "format": 1,\n  "jax": "0.10.2",\n  "jaxlib": "0.10.2",\n  "platform": null\n}\n'
PLANTED = {
    "tests/test_a/test_one/cpu1/stale.cost.json",
    "tests/test_a/test_removed/cpu1/x.cost.json",
    "tests/test_a/test_removed/cpu1/_stages.json",
    "tests/test_gone/test_x/cpu1/x.cost.json",
    "tests/test_gone/test_x/cpu1/_stages.json",
    "tests/test_b/test_three/oldcfg/x.cost.json",
    "tests/test_b/test_three/oldcfg/_stages.json",
    "stages/act/alt/old.cost.json",
}
ITEMS = 12


def write_suite(project):
    project.configure(configs=CONFIGS)
    project.write("conftest.py", REGISTERED)
    project.write("tests/test_a.py", TEST_A)
    project.write("tests/test_b.py", TEST_B)
    project.write("tests/test_c.py", TEST_C)


@pytest.fixture
def tree(project):
    """The recorded suite, one program drifted since, and the planted unused files; the snapshot files by path."""
    write_suite(project)
    project.run("--stages-update").assert_outcomes(passed=ITEMS)
    project.write("tests/test_c.py", TEST_C.replace("x.T @ x", "x.T @ x + 1"))
    project.plant({path: META if path.endswith("_stages.json") else COST for path in PLANTED}, META)
    return project.snapshots()


def run_shards(project, splits, *args, groups=None, extra=None):
    """Run each group of a pytest-split split with its JSON report; the reports' paths."""
    paths = []
    for group in groups or range(1, splits + 1):
        path = project.path / f"shard-{group}.json"
        more = (extra or {}).get(group, ())
        project.run("--splits", str(splits), "--group", str(group), f"--stages-report={path}", *args, *more)
        paths.append(str(path))
    return paths


def merge(*args):
    """``python -m pytest_stages merge ARGS`` in this process: (exit status, output lines)."""
    stream = io.StringIO()
    status = cli.main(["merge", *args], stream=stream)
    return status, stream.getvalue().splitlines()


def table(lines):
    """The summary table's rows as cells, from its header row on, without the wall-time column.

    Compile seconds differ from run to run (and shard to shard); every other cell must match.
    """
    start = next(k for k, line in enumerate(lines) if line.startswith("test ") and " config " in line)
    rows = []
    for line in lines[start:]:
        if line.startswith(("pytest-stages:", "=")) or not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    assert rows[0][-1] == TIME_COLUMN
    return [row[:-1] for row in rows]


def unused(lines):
    """The files listed under ``N unused snapshot file(s)``."""
    start = next((k for k, line in enumerate(lines) if "unused snapshot file(s)" in line), None)
    if start is None:
        return []
    listed = []
    for line in lines[start + 1 :]:
        if not line.startswith("  snapshots/"):
            break
        listed.append(line.strip())
    return listed


def verdicts(report):
    return [(c["nodeid"], c["name"], c["status"], [f["message"] for f in c["findings"]]) for c in report["calls"]]


@pytest.mark.parametrize("splits", [2, 3])
def test_merged_shards_read_as_one_run(project, tree, tmp_path, splits):
    full = project.run(f"--stages-report={tmp_path / 'full.json'}")
    full.assert_outcomes(passed=ITEMS - 2, failed=2)
    shards = run_shards(project, splits)
    status, lines = merge(*shards, "--rootdir", str(project.path), "--report", str(tmp_path / "merged.json"))
    full_lines = project.output(full).splitlines()
    assert table(lines) == table(full_lines)
    assert unused(lines) == unused(full_lines) == [f"snapshots/{path}" for path in sorted(PLANTED)]
    assert status == cli.FAILED, "a drifted program fails the gate"
    full_report = json.loads((tmp_path / "full.json").read_text())
    merged_report = json.loads((tmp_path / "merged.json").read_text())
    assert verdicts(merged_report) == verdicts(full_report)
    schema = json.loads((Path(pytest_stages.__file__).parent / "report.schema.json").read_text())
    for path in [*shards, tmp_path / "merged.json"]:
        jsonschema.validate(json.loads(Path(path).read_text()), schema)
    assert [s["split"] for s in merged_report["shards"]] == [
        {"splits": splits, "group": g} for g in range(1, 1 + splits)
    ]
    assert project.snapshots() == tree, "a merge without --prune deletes nothing"


def test_the_merged_prune_deletes_what_one_full_runs_prune_deletes(project, tree, tmp_path):
    shards = run_shards(project, 2, extra={1: ("-p", "xdist", "-n", "2")})
    status, lines = merge(*shards, "--rootdir", str(project.path), "--prune")
    pruned = set(tree) - set(project.snapshots())
    assert pruned == PLANTED, "\n".join(lines)
    assert f"pytest-stages: pruning {len(PLANTED)} file(s):" in lines
    assert status == cli.FAILED
    for path, content in tree.items():
        (project.path / "snapshots" / path).parent.mkdir(parents=True, exist_ok=True)
        (project.path / "snapshots" / path).write_bytes(content)
    project.run("--stages-prune")
    assert set(tree) - set(project.snapshots()) == pruned


def test_the_gate_is_the_shards_verdict_not_a_recount_of_findings(project, tree):
    """An update run's shards pass with drift and new files among their findings; so does the merge."""
    shards = run_shards(project, 2, "--stages-update")
    status, lines = merge(*shards, "--rootdir", str(project.path))
    assert status == cli.OK, "\n".join(lines)


def test_a_shard_refuses_its_own_prune_and_says_how_to_prune(project, tree):
    result = project.run("--splits", "2", "--group", "1", "--stages-prune")
    assert project.snapshots() == tree
    assert (
        "pytest-stages: --stages-prune refused: this run is group 1 of 2 of a split suite (pytest-split --splits 2 "
        "--group 1) and judged only its own items; nothing was deleted. Write each shard's report "
        "(--stages-report=shard-N.json) and prune from all of them: `python -m pytest_stages merge --prune "
        "shard-*.json`."
    ) in project.output(result).splitlines()


REFUSAL_TAIL = (
    "nothing was deleted. Merge the reports of every shard of a run of the whole suite "
    "that collected and ran everything."
)


def test_the_merged_prune_refuses_a_missing_shard(project, tree):
    shards = run_shards(project, 3, groups=[1, 3])
    status, lines = merge(*shards, "--rootdir", str(project.path), "--prune")
    assert project.snapshots() == tree
    assert status == cli.INCOMPLETE
    assert "pytest-stages: shard(s) 2/3 missing: their items were not judged" in lines
    refusal = next(line for line in lines if line.startswith("pytest-stages: merge --prune refused: "))
    assert "shard(s) 2/3 missing; " in refusal and "collected item(s) ran in no shard" in refusal
    assert refusal.endswith(REFUSAL_TAIL), refusal


@pytest.mark.parametrize(
    "case",
    [
        (("-k", "not test_two"), {}, "2 collected item(s) ran in no shard (tests/test_a.py::test_two[alt], ...)"),
        (("-x",), {"STAGES_BREAK": "1"}, "shard-1.json: 5 collected item(s) did not run to the end"),
    ],
    ids=["-k in every shard", "a shard stopped early"],
)
def test_the_merged_prune_refuses_shards_that_did_not_judge_everything(project, tree, monkeypatch, case):
    args, env, reason = case
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    shards = run_shards(project, 2, *args)
    status, lines = merge(*shards, "--rootdir", str(project.path), "--prune")
    assert project.snapshots() == tree
    assert status == cli.INCOMPLETE
    refusal = next(line for line in lines if line.startswith("pytest-stages: merge --prune refused: "))
    assert reason in refusal, refusal
    assert not unused(lines)


def test_shards_updating_snapshots_write_what_one_update_writes(project, tmp_path):
    write_suite(project)
    run_shards(project, 3, "--stages-update")
    sharded = project.snapshots()
    for path in (project.path / "snapshots").rglob("*"):
        if path.is_file():
            path.unlink()
    project.run("--stages-update").assert_outcomes(passed=ITEMS)
    assert sharded == project.snapshots() and len(sharded) == ITEMS * 9


def test_the_command_line_merges_and_passes_the_gate(project, pytester, tmp_path, monkeypatch):
    write_suite(project)
    project.run("--stages-update").assert_outcomes(passed=ITEMS)
    shards = run_shards(project, 2)
    md, page = tmp_path / "merged.md", tmp_path / "merged.html"
    summary = tmp_path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.run(
        sys.executable, "-m", "pytest_stages", "merge", *shards, "--report", str(md), "--report", str(page)
    )
    assert result.ret == cli.OK, result.outlines
    assert "pytest-stages: merged 2 shard report(s), 12 call(s)" in result.outlines
    assert md.read_text().startswith("## pytest-stages") and summary.read_text() == md.read_text()
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_a_merge_of_unrelated_reports_is_refused_with_the_reason(project, tmp_path):
    write_suite(project)
    project.run("--stages-update", f"--stages-report={tmp_path / 'update.json'}")
    project.run(f"--stages-report={tmp_path / 'compare.json'}")
    status, lines = merge(str(tmp_path / "compare.json"), str(tmp_path / "update.json"), "--rootdir", str(project.path))
    assert status == cli.USAGE
    assert lines == [
        f"pytest-stages merge: {tmp_path / 'update.json'} and {tmp_path / 'compare.json'} differ in mode (update vs "
        "compare): they are not shards of one run. Merge the JSON reports (--stages-report=PATH.json) that the "
        "shards of one run wrote."
    ]
    (tmp_path / "other.json").write_text("{}")
    status, lines = merge(str(tmp_path / "other.json"))
    assert status == cli.USAGE and "is not a pytest-stages JSON report" in lines[0]
    (tmp_path / "merged.json").write_text("")
    merge(str(tmp_path / "compare.json"), "--rootdir", str(project.path), "--report", str(tmp_path / "merged.json"))
    status, lines = merge(str(tmp_path / "merged.json"), "--rootdir", str(project.path))
    assert status == cli.USAGE and "it is a merged report" in lines[0], lines
    cut = json.loads((tmp_path / "compare.json").read_text())
    del cut["run"]["collection"]
    (tmp_path / "cut.json").write_text(json.dumps(cut))
    status, lines = merge(str(tmp_path / "cut.json"), "--rootdir", str(project.path))
    assert status == cli.USAGE and lines == [
        f"pytest-stages merge: {tmp_path / 'cut.json'} is not a pytest-stages report as pytest-stages writes it "
        "(the report['run'] has no 'collection'): "
        "it was edited, cut off, or written by another pytest-stages version. Merge the JSON reports "
        "(--stages-report=PATH.json) that the shards of one run wrote."
    ]
    status, lines = merge(str(tmp_path / "compare.json"), "--rootdir", str(tmp_path / "nowhere"))
    assert status == cli.USAGE and "is not a folder" in lines[0]
    unwritable = str(tmp_path / "compare.json" / "x.md")  # under a file
    status, lines = merge(str(tmp_path / "compare.json"), "--rootdir", str(project.path), "--report", unwritable)
    assert status == cli.USAGE and "nothing was pruned" in lines[-1], lines


def test_an_empty_shard_passes_and_the_merge_judges_the_tree(project, tree, tmp_path):
    """pytest-split can give a group no item (pytest exits 5): that shard passed, and judged its nothing."""
    shards = run_shards(project, ITEMS + 1)
    assert json.loads(Path(shards[-1]).read_text())["run"]["exit_status"] == 5
    status, lines = merge(*shards, "--rootdir", str(project.path))
    assert unused(lines) == [f"snapshots/{path}" for path in sorted(PLANTED)], "\n".join(lines)
    assert status == cli.FAILED, "the drifted program still fails the gate"


# Pure: the union of shard facts, without pytest.


def facts(items, removed=(), split=None, **kwargs):
    view = CollectionView(modules={"tests/test_a"}, items=dict.fromkeys(items, "f"), removed=list(removed))
    outcomes = dict.fromkeys(items, "passed")
    return RunFacts(view, ["tests"], outcomes, sorted(items), split=split, **kwargs)


def shard(name, run, selected=("cpu1",)):
    settings = {"snapshot_dir": "snapshots", "configs": ["cpu1", "alt"], "selected": list(selected)}
    return Shard(name, run, settings, RunReport([], update=False, environment={"jax": "0.10.2"}))


def test_an_item_one_shard_removed_and_another_ran_counts_as_run():
    merged = union([facts(["a"], removed=["b", "c"]), facts(["b"], removed=["a", "c"])])
    assert merged.collection.removed == ["c"]
    assert sorted(merged.collection.items) == ["a", "b"] and merged.finished == ["a", "b"]


def test_a_failed_outcome_in_any_shard_wins():
    one, two = facts(["a"]), facts(["a"])
    two.outcomes["a"] = "failed"
    assert union([one, two]).outcomes == {"a": "failed"}


def test_missing_groups_are_named_per_cut_of_configs():
    shards = [
        shard("1", facts([], split={"splits": 3, "group": 1})),
        shard("2", facts([], split={"splits": 2, "group": 2}), selected=("alt",)),
    ]
    assert missing_groups(shards) == ["2/3 (configs cpu1)", "3/3 (configs cpu1)", "1/2 (configs alt)"]


def test_the_same_group_twice_is_refused():
    one = shard("a.json", facts(["x"], split={"splits": 2, "group": 1}))
    with pytest.raises(MergeError, match=r"b.json and a.json are both group 1 of the split"):
        merge_reports([one, shard("b.json", facts(["x"], split={"splits": 2, "group": 1}))])
    with pytest.raises(MergeError, match=r"b.json and a.json are both the whole suite on configs cpu1"):
        merge_reports([shard("a.json", facts(["x"])), shard("b.json", facts(["x"]))])


def test_the_worst_exit_status_is_the_merged_one():
    statuses = [0, 5, 1, 5, 0]
    merged = union(facts([], exit_status=status) for status in statuses)
    assert merged.exit_status == 1
    assert union(facts([], exit_status=status) for status in (0, 5)).exit_status == 5


def test_a_cut_by_configs_is_complete_when_every_config_ran():
    merged = merge_reports([shard("cpu1", facts(["a[cpu1]"])), shard("alt", facts(["a[alt]"]), selected=("alt",))])
    assert merged.incomplete == [] and merged.settings["selected"] == ["cpu1", "alt"]


# A compile cache shared by the shards.


def cache_hits(result):
    line = next(line for line in result.outlines if "JAX compilation cache" in line)
    found, asked = re.search(r": (\d+) of (\d+) compile", line).groups()
    return int(found), int(asked)


def test_shards_share_one_compile_cache_folder(project, tmp_path):
    """Two shards of one run fill one absolute cache folder; the next sharded run reads every executable back."""
    shared = tmp_path / "shared-cache"
    write_suite(project)
    project.configure(f'compilation_cache = "{shared}"', configs=CONFIGS)
    project.run("--stages-update").assert_outcomes(passed=ITEMS)

    def sharded():
        return [
            project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "--splits", "2", "--group", str(group))
            for group in (1, 2)
        ]

    cold = [cache_hits(result) for result in sharded()]
    warm = [cache_hits(result) for result in sharded()]
    assert [asked for _, asked in warm] == [asked for _, asked in cold] and sum(a for _, a in cold) == ITEMS
    assert [found for found, _ in warm] == [asked for _, asked in warm]


def test_a_bucket_as_compilation_cache_names_jaxs_own_setting():
    with pytest.raises(ConfigError, match=r"set JAX's own JAX_COMPILATION_CACHE_DIR instead"):
        parse_settings({"compilation_cache": "gs://bucket/jax-cache"})
    assert choose("/mnt/shared/jax", None, Path("/p"), None).path == Path("/mnt/shared/jax")


def _edited(path, tmp_path, name, edit):
    """A copy of the shard report at ``path`` with ``edit`` applied to its data; the copy's path."""
    data = json.loads(Path(path).read_text())
    edit(data)
    copy = tmp_path / name
    copy.write_text(json.dumps(data))
    return str(copy)


def test_a_merge_prunes_only_what_the_checkout_agrees_with(project, tree, tmp_path):
    """Crafted, foreign or hollowed-out shard reports never make a live test's snapshot look unused."""
    shards = run_shards(project, 2)
    root = ("--rootdir", str(project.path), "--prune")
    bad = {
        "items.json": (
            lambda d: d["run"]["collection"].update(items=[]),
            "the report['run']['collection']['items'] is a list, not an object",
        ),
        "status.json": (
            lambda d: d["calls"][0].update(status=None),
            "the report['calls'][0]['status'] is null, not an object",
        ),
        "null.json": (
            lambda d: d["calls"][0]["status"].update(jaxpr=None),
            "the report['calls'][0]['status']['jaxpr'] is null, not one of ['ok', 'new', 'changed', 'improved', "
            "'skipped', 'over', '-']",
        ),
        "folder.json": (
            lambda d: d["run"]["collection"]["items"].update({"tests/test_a.py::x": "../../sentinel/x/y"}),
            "the snapshot folder '../../sentinel/x/y' is not one pytest-stages names",
        ),
    }
    for name, (edit, problem) in bad.items():
        status, lines = merge(_edited(shards[0], tmp_path, name, edit), shards[1], *root)
        assert status == cli.USAGE, lines
        assert f"is not a pytest-stages report as pytest-stages writes it ({problem})" in lines[0], lines
    inside = str(project.path / "snapshots/tests/test_a/test_one/cpu1/sin.cost.json")
    status, lines = merge(*shards, "--rootdir", str(project.path), "--report", inside[: -len(".json")] + ".md")
    assert status == cli.USAGE and "is inside the snapshot folder" in lines[0], lines
    assert project.snapshots() == tree
    # The shards ran other code than this checkout holds: a report of another project reads the same.
    project.write("tests/test_b.py", TEST_B + "\n")
    status, lines = merge(*shards, *root)
    assert status == cli.INCOMPLETE and "merge --prune refused" in lines[-1], lines
    assert "tests/test_b.py differs from the file the shards collected" in lines[-1], lines
    assert project.snapshots() == tree
    project.write("tests/test_b.py", TEST_B)
    # Reports that lost their calls: the folders their items own are judged by no call, and kept.
    hollow = [
        _edited(path, tmp_path, f"hollow-{k}.json", lambda d: d.update(calls=[])) for k, path in enumerate(shards)
    ]
    merge(*hollow, *root)
    owned = {"tests/test_a/test_one/cpu1/stale.cost.json", "stages/act/alt/old.cost.json"}
    assert set(tree) - set(project.snapshots()) == PLANTED - owned


def test_the_json_report_is_written_one_call_a_line_and_parses_as_the_indented_one_did(project, tmp_path):
    """The streamed writer (a merge of 100,000 calls in bounded memory) keeps the report's content."""
    write_suite(project)
    project.run("--stages-update").assert_outcomes(passed=ITEMS)
    project.write("tests/test_c.py", TEST_C.replace("x.T @ x", "x.T @ x + 1"))
    path = tmp_path / "report.json"
    project.run(f"--stages-report={path}").assert_outcomes(passed=ITEMS - 2, failed=2)
    text = path.read_text()
    report = RunReport.from_json(json.loads(text))
    indented = json.loads(json.dumps(json.loads("".join(report_json(report))), indent=2, sort_keys=True))
    assert json.loads(text) == indented
    assert any(call["findings"] for call in indented["calls"]), "a failing finding's detail is in the comparison"
    lines = text.splitlines()
    assert lines[0] == '{"calls":['
    assert [json.loads(line.rstrip(",")) for line in lines[1 : 1 + len(report.records)]] == indented["calls"]
    empty = RunReport(records=[], update=False, environment=report.environment)
    expected = {"calls": [], "environment": report.environment, "mode": "compare", "schema": REPORT_SCHEMA}
    assert json.loads("".join(report_json(empty))) == expected
