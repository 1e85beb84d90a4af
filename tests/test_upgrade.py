"""JAX upgrades: drift causes, on_version_mismatch = "semantic", and the upgrade section of the reports.

Snapshots are recorded with the running jax, then their metadata is set to older versions and
chosen snapshot texts are edited, so that each cause is produced by a real inner session.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
from conftest import SIMPLE_TEST

import pytest_stages
from pytest_stages.check.upgrade import (
    drift_cause,
    upgrade_section,
    version_change,
    version_note,
)
from pytest_stages.core.records import CallRecord, DriftCause, Finding, Kind

FOLDER = "snapshots/test_model/test_f/cpu1"
OLD = "jax 0.9.0, jaxlib 0.9.0"
NOTE = f"snapshots were taken with {OLD}; this run uses jax 0.10.2, jaxlib 0.10.2"


def edit(project, artifact, old, new):
    path = project.path / FOLDER / f"f.{artifact}"
    text = path.read_text()
    assert old in text, (artifact, old)
    path.write_text(text.replace(old, new))


def recorded_then_upgraded(project, settings="", test=SIMPLE_TEST):
    """Record with the running versions, then plant older ones in the metadata."""
    project.configure(settings)
    project.write("test_model.py", test)
    project.run("--stages-update").assert_outcomes(passed=1)
    meta = project.path / FOLDER / "_stages.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "jax": "0.9.0", "jaxlib": "0.9.0"}))


def call_entry(project, *args):
    """Run with a JSON report, validated against the shipped schema; the outcome and the call entry."""
    report = project.path / "report.json"
    result = project.run(f"--stages-report={report}", *args)
    data = json.loads(report.read_text())
    jsonschema.validate(data, json.loads((Path(pytest_stages.__file__).parent / "report.schema.json").read_text()))
    return result, data["calls"][0]


FRONTEND = [("stablehlo.mlir", "stablehlo.tanh", "stablehlo.sine")]
COMPILER = [("compiled.hlo.txt", " tanh(", " sine(")]


@pytest.mark.parametrize(
    "edits, cause",
    [(FRONTEND, "frontend"), (COMPILER, "compiler"), (FRONTEND + COMPILER, "both"), ([], "none")],
    ids=["frontend", "compiler", "both", "none"],
)
def test_each_drifted_call_gets_a_cause_under_other_versions(project, edits, cause):
    recorded_then_upgraded(project, 'on_version_mismatch = "warn"')
    for artifact, old, new in edits:
        edit(project, artifact, old, new)
    result, call = call_entry(project)
    result.assert_outcomes(passed=1)
    assert call["drift_cause"] == cause
    assert call["versions"] == NOTE
    drifted = {"frontend": "0 compiler, 0 both", "compiler": "1 compiler, 0 both", "both": "0 compiler, 1 both"}
    line = f"calls drifted: {int(cause != 'none')} of 1 ("
    line += (
        "0 frontend, 0 compiler, 0 both)"
        if cause == "none"
        else (f"{int(cause == 'frontend')} frontend, {drifted[cause]})")
    )
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: What the upgrade did",
            f"  versions: {OLD} -> jax 0.10.2, jaxlib 0.10.2",
            f"  {line}",
            "  figures moved: 0",
            f"  text-only churn: {int(cause != 'none')} call(s) drifted in IR text or op structure only",
            "test * config * name *",
        ]
    )


def test_the_cause_is_null_when_the_versions_match(project):
    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    edit(project, "compiled.hlo.txt", " tanh(", " sine(")
    result, call = call_entry(project)
    result.assert_outcomes(failed=1)
    assert call["drift_cause"] is None and call["versions"] == ""
    assert "What the upgrade did" not in result.stdout.str()


def test_semantic_mode_reports_text_churn_without_failing(project):
    recorded_then_upgraded(project)  # the default mode
    edit(project, "stablehlo.mlir", "stablehlo.tanh", "stablehlo.sine")
    edit(project, "compiled.hlo.txt", " tanh(", " sine(")
    edit(project, "ops.json", '"tanh"', '"sine"')
    result, call = call_entry(project)
    result.assert_outcomes(passed=1)
    assert call["status"]["stablehlo"] == call["status"]["compiled"] == call["status"]["ops"] == "changed"
    assert call["drift_cause"] == "both"
    result.stdout.fnmatch_lines(["  text-only churn: 1 call(s) drifted in IR text or op structure only"])


def test_semantic_mode_still_fails_on_a_cost_rise(project):
    recorded_then_upgraded(project, 'on_version_mismatch = "semantic"')
    cost = json.loads((project.path / FOLDER / "f.cost.json").read_text())
    flops = cost["compiled"]["flops"]
    cost["compiled"]["flops"] = flops / 2
    (project.path / FOLDER / "f.cost.json").write_text(json.dumps(cost, sort_keys=True))
    edit(project, "compiled.hlo.txt", " tanh(", " sine(")
    result, call = call_entry(project)
    result.assert_outcomes(failed=1)
    assert call["drift_cause"] == "compiler"
    result.stdout.fnmatch_lines(
        [
            "*pytest-stages: 'f' on config cpu1 differs from its snapshots in snapshots/test_model/test_f/cpu1/",
            f"*  note: {NOTE}; the differences may come from that upgrade.",
            f"*- cost (f.cost.json): flops {flops / 2:g} -> {flops:g} (+100.0%, tolerance 0.1%)",
            '*  upgrade churn, not failing (on_version_mismatch = "semantic"): compiled',
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: What the upgrade did",
            "  figures moved: 1, largest first:",
            f"    test_model.py::test_f[cpu1] f: flops {flops / 2:g} -> {flops:g} (+100.0%)",
            "  text-only churn: 0 call(s) drifted in IR text or op structure only",
        ]
    )


def test_semantic_mode_still_fails_on_an_added_collective(project):
    recorded_then_upgraded(project, 'on_version_mismatch = "semantic"')
    path = project.path / FOLDER / "f.sharding.json"
    sharding = json.loads(path.read_text())
    assert sharding["collectives"] == []
    sharding["collectives"] = [{"op": "all-gather", "shape": "f32[8,4]", "bytes": 128}]
    path.write_text(json.dumps(sharding, sort_keys=True))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "\n- sharding (f.sharding.json): collectives: -1 all-gather f32[8,4] (128 B)\n" in result.stdout.str()


def test_semantic_mode_still_fails_a_budget(project):
    budgeted = SIMPLE_TEST.replace("def test_f", "import pytest\n\n@pytest.mark.stages_budget(flops=1)\ndef test_f")
    project.write("test_model.py", budgeted)
    project.run("--stages-update").assert_outcomes(failed=1)
    recorded_then_upgraded(project, test=SIMPLE_TEST)
    project.write("test_model.py", budgeted)
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*pytest-stages: 'f' on config cpu1 exceeds its budget", "*flops * exceeds the ceiling 1"]
    )


def test_the_report_calls_churn_passing_as_the_test_did(project):
    """Churn a semantic run let pass is in the report, as a finding that did not fail."""
    recorded_then_upgraded(project)
    edit(project, "compiled.hlo.txt", " tanh(", " sine(")
    result, call = call_entry(project)
    result.assert_outcomes(passed=1)
    assert [(f["artifact"], f["failing"]) for f in call["findings"]] == [("compiled", False)]
    project.run("--stages-report=report.md").assert_outcomes(passed=1)
    assert "### Findings" not in (project.path / "report.md").read_text()


def test_fail_mode_fails_text_churn_under_other_versions(project):
    recorded_then_upgraded(project, 'on_version_mismatch = "fail"')
    edit(project, "compiled.hlo.txt", " tanh(", " sine(")
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "upgrade churn" not in result.stdout.str()


def test_markdown_and_html_reports_open_with_the_upgrade_section(project):
    recorded_then_upgraded(project)
    edit(project, "compiled.hlo.txt", " tanh(", " sine(")
    project.run("--stages-report=report.md").assert_outcomes(passed=1)
    project.run("--stages-report=report.html").assert_outcomes(passed=1)
    markdown = (project.path / "report.md").read_text()
    assert markdown.startswith(
        "## pytest-stages\n\n### What the upgrade did\n\n"
        f"- versions: {OLD} -&gt; jax 0.10.2, jaxlib 0.10.2\n"  # Markdown escapes user text: GitHub shows "->"
        "- calls drifted: 1 of 1 (0 frontend, 1 compiler, 0 both)\n"
        "- figures moved: 0\n"
        "- text-only churn: 1 call(s) drifted in IR text or op structure only\n\n| test |"
    )
    page = (project.path / "report.html").read_text()
    section = page.index('<section class="upgrade"><h2>What the upgrade did</h2>')
    assert section < page.index('<table class="summary">')
    assert "<li>calls drifted: 1 of 1 (0 frontend, 1 compiler, 0 both)</li>" in page


STATUSES = {"jaxpr": "ok", "stablehlo": "ok", "compiled": "ok", "cost": "ok", "budget": "-"}


@pytest.mark.parametrize(
    "changed, cause",
    [
        ({"jaxpr": "changed"}, "frontend"),
        ({"stablehlo": "changed", "ops": "ok"}, "frontend"),
        ({"compiled": "changed"}, "compiler"),
        ({"cost": "improved"}, "compiler"),
        ({"sharding": "changed"}, "compiler"),
        ({"hlo": "changed", "memory": "changed"}, "both"),
        ({"budget": "over"}, "none"),
        ({"compiled": "new", "cost": "skipped"}, "none"),
    ],
)
def test_drift_cause_from_statuses(changed, cause):
    assert drift_cause({**STATUSES, **changed}) == cause


def test_version_note_and_change_come_from_the_same_versions():
    then, now = {"jax": "0.9.0", "jaxlib": "0.9.1"}, {"jax": "0.10.2", "jaxlib": "0.10.2"}
    assert version_change(then, now) == ("jax 0.9.0, jaxlib 0.9.1", "jax 0.10.2, jaxlib 0.10.2")
    assert version_note(then, now) == (
        "snapshots were taken with jax 0.9.0, jaxlib 0.9.1; this run uses jax 0.10.2, jaxlib 0.10.2"
    )
    assert version_change(now, now) is None
    assert version_note({"jax": "0.10.2", "jaxlib": "0.10.2"}, {"jax": "0.10.2", "jaxlib": "0.10.2"}) == ""
    assert version_note(None, {"jax": "0.10.2"}) == ""


def call(name, cause, deltas=None, kinds=("text",)):
    return CallRecord(
        nodeid=f"t.py::test_{name}[cpu1]",
        config="cpu1",
        name=name,
        folder="f",
        versions=NOTE,
        version_change=[OLD, "jax 0.10.2, jaxlib 0.10.2"],
        drift_cause=None if cause is None else DriftCause(cause),
        deltas=deltas or {},
        findings=[Finding(Kind(kind), kind, "") for kind in kinds],
    )


def test_upgrade_section_orders_figures_by_relative_change_and_skips_informational_ones():
    calls = [
        call("a", "compiler", {"flops": [100, 101], "utilization0{}": [1, 5]}, kinds=("text", "cost")),
        call("b", "both", {"temp_size_in_bytes": [1000, 500]}, kinds=("text", "memory")),
        call("c", "compiler"),
        call("f", "both", {"flops": [34112000, 34111000]}, kinds=("text", "cost")),
        call("d", "none", kinds=()),
        replace(call("e", None), versions="", version_change=[]),
    ]
    assert upgrade_section(calls) == [
        f"versions: {OLD} -> jax 0.10.2, jaxlib 0.10.2",
        "calls drifted: 4 of 5 (0 frontend, 2 compiler, 2 both)",
        "figures moved: 3, largest first:",
        "  t.py::test_b[cpu1] b: temp_bytes 1000 -> 500 (-50.0%)",
        "  t.py::test_a[cpu1] a: flops 100 -> 101 (+1.0%)",
        "  t.py::test_f[cpu1] f: flops 34112000 -> 34111000 (-0.0029%)",
        "text-only churn: 1 call(s) drifted in IR text or op structure only",
    ]
    assert upgrade_section(calls[-1:]) == []


def test_a_figure_from_zero_in_the_upgrade_section_reads_from_0():
    """A relative change from zero is no number: ``from 0``, never ``+inf%`` (docs/failures.md)."""
    moved = upgrade_section([call("z", "compiler", {"temp_size_in_bytes": [0, 34730]}, kinds=("text", "memory"))])
    assert "  t.py::test_z[cpu1] z: temp_bytes 0 -> 34730 (from 0)" in moved, moved
