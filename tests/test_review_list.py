"""``pytest-stages review --list``: every pending call's headline and figures, without a terminal.

A CI log or a script reads what the interactive review shows above its diffs, as text or JSON; nothing is
asked or written. A figure from zero (a donation's aliased bytes) reads ``from 0`` in every renderer, never
``+inf%``.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from conftest import Project

from pytest_stages.check.figure_text import percent_change
from pytest_stages.core.records import CallRecord
from pytest_stages.report import cli
from pytest_stages.report.render import key_deltas

PYPROJECT = """
[project]
name = "demo"

[tool.pytest_stages]
stages = ["jaxpr", "compiled"]
analyses = ["memory", "sharding"]

[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
"""

# STAGES_CHANGE=1 donates x: the output reuses its buffer, so alias_size_in_bytes goes 0 -> 4096.
TEST = """
import os, jax, jax.numpy as jnp

def test_scale(stage_snapshot):
    donate = (0,) if os.environ.get("STAGES_CHANGE") == "1" else ()
    step = jax.jit(lambda x: x * 2.0, donate_argnums=donate)
    stage_snapshot(step, jax.ShapeDtypeStruct((1024,), jnp.float32), name="scale")

def test_sum(stage_snapshot):
    k = 3.0 if os.environ.get("STAGES_CHANGE") == "1" else 2.0
    stage_snapshot(lambda x: (x * k).sum(), jax.ShapeDtypeStruct((8,), jnp.float32), name="total")
"""


def _review(project: Project, *args: str) -> tuple[int, str]:
    stream = io.StringIO()
    status = cli.main(["review", "--rootdir", str(project.path), *args], stream=stream)
    return status, stream.getvalue()


@pytest.fixture
def pending(pytester: pytest.Pytester) -> Project:
    """A project whose two calls changed, each with a pending set entry in ``p`` (and a JSON report)."""
    project = Project(pytester)
    project.write("pyproject.toml", PYPROJECT)
    project.write("tests/test_d.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=2)
    os.environ["STAGES_CHANGE"] = "1"
    try:
        result = project.run("--stages-pending=p", "--stages-report=r.json")
    finally:
        del os.environ["STAGES_CHANGE"]
    result.assert_outcomes(failed=2)
    return project


def test_list_prints_every_calls_headline_and_figures_without_a_terminal(pending: Project) -> None:
    before = pending.snapshots()
    status, output = _review(pending, "p", "--list")  # a StringIO: no terminal
    assert status == 0, output
    lines = output.splitlines()
    assert lines[0] == "(1/2) tests/test_d.py::test_scale[cpu1] 'scale' on cpu1  [p]", output
    assert "  sharding: input x is now donated (XLA reuses its buffer) at tests/test_d.py:6 in test_scale" in lines
    assert "  alias_size_in_bytes: 0 -> 4096 (from 0)" in lines, output
    assert lines[-1] == "pytest-stages review: 2 pending call(s) listed, nothing written", output
    assert any(line.startswith("(2/2) tests/test_d.py::test_sum[cpu1] 'total' on cpu1") for line in lines), output
    assert "+++ " not in output and "accept (a)" not in output  # no diffs, no question
    assert pending.snapshots() == before and (pending.path / "p").is_dir()


def test_list_json_is_one_document_a_script_reads(pending: Project) -> None:
    status, output = _review(pending, "p", "--list", "--json", "-k", "scale")
    assert status == 0, output
    document = json.loads(output)
    assert document["schema"] == "pytest-stages-review-list/1"
    [call] = document["calls"]
    assert (call["nodeid"], call["config"], call["name"], call["source"]) == (
        "tests/test_d.py::test_scale[cpu1]",
        "cpu1",
        "scale",
        "p",
    )
    assert call["headline"][0].startswith("sharding: input x is now donated (XLA reuses its buffer) at ")
    assert call["figures"]["alias_size_in_bytes"] == [0, 4096]
    assert "scale.compiled.hlo.txt" in call["files"]


def test_json_without_list_is_one_paragraph(pending: Project) -> None:
    status, output = _review(pending, "p", "--json")
    assert status == 2
    assert output == "pytest-stages review: --json goes with --list: `pytest-stages review --list --json`.\n"


def test_without_a_terminal_review_names_list(pending: Project) -> None:
    status, output = _review(pending, "p")
    assert status == 2
    assert "list the calls with --list" in output and output.count("\n") == 1


def test_no_renderer_writes_a_change_from_zero_as_inf(pending: Project) -> None:
    """The review list (text, JSON), the terminal summary and the Markdown and HTML reports of a merge."""
    report = json.loads((pending.path / "r.json").read_text(encoding="utf-8"))
    assert any(call["deltas"].get("alias_size_in_bytes") == [0, 4096] for call in report["calls"])
    merged = io.StringIO()
    cli.main(["merge", str(pending.path / "r.json"), "--report", "m.md", "--report", "m.html"], stream=merged)
    texts = [_review(pending, "p", "--list")[1], _review(pending, "p", "--list", "--json")[1], merged.getvalue()]
    texts += [(pending.path / name).read_text(encoding="utf-8") for name in ("m.md", "m.html")]
    assert "from 0" in texts[-1]  # the HTML report's figure table names it
    for text in texts:
        assert "inf%" not in text, text


def test_the_summary_tables_key_deltas_say_from_0() -> None:
    record = CallRecord("t.py::test_a[cpu1]", "cpu1", "f", "f", deltas={"temp_size_in_bytes": [0, 4096]})
    assert key_deltas(record) == "temp_bytes 0->4096 (from 0)"


@pytest.mark.parametrize(
    ("old", "new", "text"),
    [(0, 34730, "from 0"), (0, 0, "+0.0%"), (100, 150, "+50.0%"), (100, 0, "-100.0%"), (0.0, -2.0, "from 0")],
)
def test_percent_change_from_zero_is_named(old: float, new: float, text: str) -> None:
    assert percent_change(old, new) == text


def test_review_list_is_documented() -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "review.md").read_text(encoding="utf-8")
    assert "pytest-stages review --list" in docs and "--json" in docs
