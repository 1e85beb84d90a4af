"""What the calls layer keeps on disk and carries between processes: snapshot metadata and the records xdist sends."""

from __future__ import annotations

import json

from conftest import SIMPLE_TEST

from pytest_stages.check.drift import compare_text
from pytest_stages.core.records import CallRecord

META = "test_model/test_f/cpu1/_stages.json"


def test_only_a_rerecord_rewrites_metadata_whose_platform_is_not_the_configs(project):
    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    path = project.path / "snapshots" / META
    meta = json.loads(path.read_text())
    assert meta["platform"] == "cpu"
    path.write_text(json.dumps({**meta, "platform": "tpu"}, indent=2))
    project.run("--stages-update").assert_outcomes(failed=1)
    assert json.loads(path.read_text())["platform"] == "tpu", "a plain update refuses another platform's folder"
    result = project.run("--stages-update", "--stages-rerecord", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["pytest-stages: wrote 1 snapshot file(s)", f"  snapshots/{META}"])
    assert json.loads(path.read_text()) == meta
    project.run("--stages-update").stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])


def test_a_record_crosses_to_the_xdist_controller_with_its_findings_detail():
    found = compare_text(
        "jaxpr",
        "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }\n",
        "{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }\n",
        diff_lines=10,
    )
    record = CallRecord("t.py::test_f", "cpu1", "f", "t/test_f/cpu1", status={"jaxpr": "changed"}, findings=[found])
    wire = json.loads(json.dumps(record.to_dict()))
    assert wire["findings"][0]["detail"]["hunks"], "the side-by-side diff travels"
    back = CallRecord.from_dict(wire)
    assert back == record
    assert back.findings[0].detail == found.detail


def test_a_json_snapshot_is_judged_by_its_data_and_an_update_keeps_its_printing(project):
    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    cost = project.path / "snapshots" / "test_model/test_f/cpu1/f.cost.json"
    data = json.loads(cost.read_text())
    compact = json.dumps(data)  # the same data printed on one line
    cost.write_text(compact)
    project.run().assert_outcomes(passed=1)
    project.run("--stages-update").stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert cost.read_text() == compact
    data["compiled"]["flops"] /= 2  # recorded as half: the program now does twice the work
    cost.write_text(json.dumps(data))
    project.run().assert_outcomes(failed=1)
