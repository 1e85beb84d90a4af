"""Findings carry what the renderers show as fields: no renderer reads text back out of a message."""

from __future__ import annotations

from pytest_stages.check import compile_counts
from pytest_stages.check.decide import Verdict
from pytest_stages.check.drift import summary_lines
from pytest_stages.check.message import Call, call_message, details
from pytest_stages.core.records import CallRecord, Finding
from pytest_stages.report.html_report import _call_section

CALL = Call("f", "cpu1", "snaps", {})
EXPLAINED = "TRACING CACHE MISS at model.py:3 (f):\n  never seen input type signature"


def _message(*failing: Finding) -> str:
    return call_message(CALL, Verdict(failing=failing), notes=(), diff_lines=100, full=False)


def test_a_compile_count_finding_carries_jax_explanations_as_a_field() -> None:
    before = {"functions": {"step": {"traces": 1, "lowerings": 1, "compiles": 1, "signatures": ["a"]}}}
    after = {"functions": {"step": {"traces": 2, "lowerings": 2, "compiles": 2, "signatures": ["a", "b"]}}}
    (found,) = compile_counts.compare_counts(before, after, {"step": ["first", EXPLAINED]})
    assert found.message == "step: 2 traces, was 1; 2 lowerings, was 1; 2 compiles, was 1; new signature (b)"
    assert found.explanations == (EXPLAINED,)
    assert details(found)[1:] == [
        "    JAX: TRACING CACHE MISS at model.py:3 (f):",
        "      never seen input type signature",
    ]
    assert CallRecord.from_dict({**_record(), "findings": [found.to_dict()]}).findings == [found]
    html = _call_section({**_record(), "findings": [found.to_dict()], "versions": "", "deltas": {}})
    assert "new signature (b)<br>JAX: TRACING CACHE MISS at model.py:3 (f):<br>never seen input type signature" in html


def test_budget_details_are_left_out_only_when_the_headline_says_them_whole() -> None:
    flops = Finding("budget", "budget", "flops 120 exceeds the ceiling 100")
    assert _message(flops).splitlines()[1:3] == [
        "  budget: flops 120 exceeds the ceiling 100",
        "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program.",
    ]
    ceiling = {"functions": {"step": {"compiles": 2, "signatures": ["a", "b"]}}}
    (breach,) = compile_counts.check_budget(1, ceiling, {"step": ["first", EXPLAINED]})
    assert breach.message == "step: 2 compiles exceed the ceiling 1; new signature (b)"
    text = _message(breach)
    assert "- budget: step: 2 compiles exceed the ceiling 1; new signature (b)" in text
    assert "    JAX: TRACING CACHE MISS at model.py:3 (f):" in text


def test_a_drift_summary_keeps_its_source_lines_as_data() -> None:
    detail = {"summary": ["ops: +1 add"], "sources": [["model.py:3 in f", {"added": 1}]], "removed": 2}
    assert summary_lines(detail) == [
        "ops: +1 add",
        "source: model.py:3 in f (1 added)",
        "removed: 2 line(s), whose source lines the snapshot does not keep",
    ]
    finding = Finding("text", "jaxpr", "IR drift", detail={**detail, "hunks": [], "truncated": False})
    html = _call_section({**_record(), "findings": [finding.to_dict()], "versions": "", "deltas": {}})
    assert "<li>ops: +1 add</li>\n<li>removed: 2 line(s)" in html
    assert "source:" not in html
    assert '<li class="source">model.py:3 in f: 1 added</li>' in html


def _record() -> dict[str, str]:
    return {"nodeid": "t.py::test_f", "config": "cpu1", "name": "f", "folder": "snaps"}
