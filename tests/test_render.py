"""report.render: the Markdown report, whose fences and names hold whatever text a diff or a test id carries."""

from __future__ import annotations

from pytest_stages.core.records import CallRecord, Finding
from pytest_stages.report.markdown import markdown
from pytest_stages.report.render import RunReport, table_rows


def _record(name, *diff_lines):
    added = [["+", None, None, k + 1, line, None] for k, line in enumerate(diff_lines)]
    detail = {"summary": ["1 line changed"], "hunks": [[["-", 1, "old", None, None, None], *added]]}
    return CallRecord(
        nodeid="test_m.py::test_f\x1b[31m",
        config="cpu1",
        name=name,
        folder="test_m/test_f/cpu1",
        status={"jaxpr": "changed"},
        findings=[Finding("text", "jaxpr", "jaxpr changed", detail=detail)],
    )


def test_markdown_fences_outlast_backticks_and_names_show_escapes():
    record = _record("f\x1b]0;title\x07", "```", "## injected", "<details>")
    text = markdown(RunReport([record], False, {"jax": "x"}))
    lines = text.splitlines()
    opening = next(line for line in lines if line.strip().endswith("diff") and line.strip().startswith("`"))
    fence = opening.strip()[: -len("diff")]
    assert len(fence) >= 4, "longer than the ``` inside the diff"
    assert f"  {fence}" in lines[lines.index(opening) + 1 :]
    assert "\x1b" not in text and "\\x1b]0;title\\x07" in text
    assert "\x1b" not in "".join(cell for row in table_rows([_record("f", "x")]) for cell in row)
