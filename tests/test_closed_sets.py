"""Each closed set of the reports is one enum: the shipped report schema lists exactly its members, and a
report entry read back holds the enum members again, not bare strings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest_stages
from pytest_stages.analyse.artifacts import CHECK_KINDS
from pytest_stages.check.upgrade import upgrade_section
from pytest_stages.core.records import CallRecord, Change, DriftCause, Finding, Kind, Migration, Mode, Status
from pytest_stages.core.run_view import ItemOutcome, worse
from pytest_stages.report.html_report import page
from pytest_stages.report.render import STATUS_RANK, column_status

SCHEMA = json.loads((Path(pytest_stages.__file__).parent / "report.schema.json").read_text())
CALL = SCHEMA["properties"]["calls"]["items"]["properties"]
FINDING = CALL["findings"]["items"]["properties"]


def test_the_report_schema_lists_each_closed_set_as_its_enum_does():
    assert SCHEMA["properties"]["mode"]["enum"] == list(Mode)
    assert CALL["status"]["additionalProperties"]["enum"] == list(Status)
    assert FINDING["kind"]["enum"] == list(Kind) == [*CHECK_KINDS, Kind.SKIPPED]
    assert FINDING["change"]["enum"] == list(Change)
    assert CALL["migrated"]["additionalProperties"]["enum"] == list(Migration)
    assert CALL["drift_cause"]["enum"] == [*DriftCause, None]
    assert SCHEMA["properties"]["run"]["properties"]["outcomes"]["additionalProperties"]["enum"] == list(ItemOutcome)


def test_every_status_has_a_rank_in_the_summary_column():
    assert set(STATUS_RANK) == set(Status)
    record = CallRecord("t.py::test_f", "cpu1", "f", "f", status={"jaxpr": Status.OK, "stablehlo": Status.CHANGED})
    assert column_status(record, Kind.TEXT) == Status.CHANGED
    assert column_status(record, Kind.BUDGET) == Status.UNCHECKED
    record = dataclasses.replace(record, written=["snapshots/t/f/cpu1/f.stablehlo"])
    assert column_status(record, Kind.TEXT) == "written"


def test_a_report_entry_read_back_holds_the_enums():
    record = CallRecord(
        "t.py::test_f",
        "cpu1",
        "f",
        "f",
        status={"jaxpr": Status.CHANGED, "budget": Status.UNCHECKED},
        findings=[Finding(Kind.TEXT, "jaxpr", "IR drift", change=Change.DRIFT)],
        drift_cause=DriftCause.FRONTEND,
        migrated={"snapshots/t/f/cpu1/f.jaxpr": Migration.NORMALIZED},
    )
    back = CallRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert back == record
    assert {type(status) for status in back.status.values()} == {Status}
    assert type(back.drift_cause) is DriftCause
    assert {type(why) for why in back.migrated.values()} == {Migration}
    assert (type(back.findings[0].kind), type(back.findings[0].change)) == (Kind, Change)


def test_an_item_outcome_is_its_worst_phase():
    assert worse(ItemOutcome.PASSED, "skipped") == ItemOutcome.SKIPPED
    assert worse("failed", ItemOutcome.SKIPPED) == ItemOutcome.FAILED


def _upgraded(name: str, *kinds: Kind) -> CallRecord:
    return CallRecord(
        f"t.py::test_{name}",
        "cpu1",
        name,
        "f",
        versions="snapshots were taken with jax 1; this run uses jax 2",
        version_change=["jax 1", "jax 2"],
        drift_cause=DriftCause.FRONTEND,
        findings=[Finding(kind, str(kind), "not checked here" if kind == Kind.SKIPPED else "drift") for kind in kinds],
    )


def test_a_skipped_artifact_is_no_finding_on_the_review_page():
    calls = [_upgraded("skipped_only", Kind.SKIPPED), _upgraded("drifted", Kind.TEXT, Kind.SKIPPED)]
    html = page(calls, [["test", "config", "name", "deltas", "seconds"]], {"jax": "2", "jaxlib": "2"}, Mode.COMPARE)
    assert "compare mode; 2 call(s), 1 with findings" in html
    assert "t.py::test_drifted" in html and "t.py::test_skipped_only" not in html


def test_a_skipped_artifact_leaves_text_drift_text_only_churn():
    lines = upgrade_section([_upgraded("a", Kind.TEXT, Kind.SKIPPED), _upgraded("b", Kind.TEXT, Kind.COST)])
    assert "calls drifted: 2 of 2 (2 frontend, 0 compiler, 0 both)" in lines
    assert lines[-1] == "text-only churn: 1 call(s) drifted in IR text or op structure only"
