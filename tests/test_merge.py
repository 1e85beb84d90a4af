"""Hand-edited shard reports are refused by the one report schema (report.schema.json), never with a traceback.

The schema the package ships is the one a merge, ``--stages-baseline`` and a pending manifest's record
are read by; :func:`~pytest_stages.store.schemas.schema_mismatch` judges the keywords it uses, and agrees
with the ``jsonschema`` library on real and edited reports.
"""

from __future__ import annotations

import copy
import io
import json
import os
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
from test_accept import make_project

from pytest_stages.core.run_view import CollectionView, ItemOutcome, RunFacts
from pytest_stages.report import cli
from pytest_stages.report.merge import union
from pytest_stages.store.schemas import JSON_SCHEMA_KEYWORDS, report_schema, schema_mismatch


def _keywords(schema: Any) -> set[str]:
    """Every keyword a JSON Schema uses (property names are not keywords)."""
    if isinstance(schema, list):
        return set().union(*map(_keywords, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        if key == "properties":
            found |= set().union(*map(_keywords, value.values()))
        elif key not in ("enum", "const", "required"):
            found |= _keywords(value)
    return found


def test_the_shipped_schema_uses_only_keywords_the_reader_judges():
    assert _keywords(report_schema()) <= JSON_SCHEMA_KEYWORDS


def _finding_with_hunks(data: dict[str, Any]) -> dict[str, Any]:
    return next(f for call in data["calls"] for f in call["findings"] if f.get("detail"))


# A hand edit each; the problem the merge names.
EDITS: dict[str, tuple[Callable[[dict[str, Any]], object], str]] = {
    "a delta with one value": (
        lambda d: d["calls"][0].update(deltas={"flops": [1.0]}),
        "the report['calls'][0]['deltas']['flops'] has 1 item(s), not 2",
    ),
    "a malformed diff hunk": (
        lambda d: _finding_with_hunks(d)["detail"].update(hunks=[[["-", 1]]]),
        "['detail']['hunks'][0][0] has 2 item(s), not 6",
    ),
    "settings without selected": (
        lambda d: d["settings"].pop("selected"),
        "the report['settings'] has no 'selected'",
    ),
    "an odd version_change": (
        lambda d: d["calls"][0].update(version_change=["jax 0.8"]),
        "the report['calls'][0]['version_change'] fits none of the forms it may take",
    ),
    "a call without a name": (lambda d: d["calls"][0].pop("name"), "the report['calls'][0] has no 'name'"),
    "an unknown field": (
        lambda d: d["calls"][0].update(colour="red"),
        "the report['calls'][0] has 'colour', which a report never holds there",
    ),
    "a boolean exit status": (
        lambda d: d["run"].update(exit_status=True),
        "the report['run']['exit_status'] is true, not an integer",
    ),
}


def test_hand_edited_shard_reports_are_one_paragraph_and_exit_2(pytester: pytest.Pytester) -> None:
    project = make_project(pytester)
    os.environ["STAGES_CHANGE"] = "1"
    try:
        project.run("--stages-report=r.json", "--stages-configs", "cpu1")
    finally:
        del os.environ["STAGES_CHANGE"]
    original = json.loads((project.path / "r.json").read_text())
    validator = jsonschema.Draft202012Validator(report_schema())
    assert validator.is_valid(original) and schema_mismatch(original, report_schema(), "the report") is None
    for name, (edit, problem) in EDITS.items():
        data = copy.deepcopy(original)
        edit(data)
        assert not validator.is_valid(data), name  # the library reads the schema as the package does
        path = project.path / "edited.json"
        path.write_text(json.dumps(data))
        stream = io.StringIO()
        status = cli.main(["merge", "--rootdir", str(project.path), str(path)], stream=stream)
        [line] = stream.getvalue().splitlines()
        assert status == cli.USAGE, (name, line)
        assert line.startswith(f"pytest-stages merge: {path} is not a pytest-stages report as pytest-stages writes "), (
            line
        )
        assert problem in line, (name, line)


def test_a_merge_never_writes_its_report_over_a_shard_report_it_reads(pytester: pytest.Pytester) -> None:
    # `merge r.json --report r.json` replaced the shard's own report with the merged one, which no
    # merge reads again: the shard's facts were lost.
    project = make_project(pytester)
    project.run("--stages-report=r.json", "--stages-configs", "cpu1")
    shard = project.path / "r.json"
    before = shard.read_bytes()
    (project.path / "link.json").symlink_to(shard)
    for output in (str(shard), "link.json"):
        stream = io.StringIO()
        status = cli.main(["merge", "--rootdir", str(project.path), str(shard), "--report", output], stream=stream)
        assert status == cli.USAGE
        assert stream.getvalue() == (
            f"pytest-stages merge: --report={output} is {shard}, a shard report this merge reads: the merged report "
            "would replace it. Write the merged report to a file of its own, e.g. --report=merged-report.json.\n"
        )
        assert shard.read_bytes() == before


def test_a_call_one_shard_skipped_is_not_checked_unless_another_shard_ran_it():
    def facts(outcomes: dict[str, ItemOutcome], skipped: dict[str, str]) -> RunFacts:
        return RunFacts(CollectionView(), [], outcomes, list(outcomes), skipped=skipped)

    skipped, passed = ItemOutcome.SKIPPED, ItemOutcome.PASSED
    one = facts({"t.py::a[v5e]": skipped, "t.py::b[v5e]": skipped}, {"t.py::a[v5e]": "no libtpu", "t.py::b[v5e]": "x"})
    other = facts({"t.py::b[v5e]": passed}, {})
    assert union([one, other]).skipped == {"t.py::a[v5e]": "no libtpu"}
