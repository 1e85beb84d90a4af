"""What a run did not check: every report lists it with the reason, and ``--stages-strict`` fails a gate that has any.

A gate that skipped every TPU call (no ``tpu`` extra) or a budget with no figure on this backend
must not read as green without a word.
"""

from __future__ import annotations

import json
import sys

import jax
import pytest
from conftest import ONE_CONFIG

V5E = """
[[tool.pytest_stages.configs]]
name = "v5e"
platform = "tpu"
topology = "v5e:2x2"
"""

BUDGETED = """
import jax, jax.numpy as jnp, pytest

X = jax.ShapeDtypeStruct((4,), jnp.float32)

@pytest.mark.stages_budget(estimated_seconds="0.3ms", flops=100)
def test_step(stage_snapshot):
    stage_snapshot(lambda x: x * 2, X)
"""

SKIP_REASON = (
    f"pytest-stages: config 'v5e' compiles for a tpu topology, which needs libtpu; install it with "
    f'`pip install "jax[tpu]=={jax.__version__}"`. If pip finds no matching libtpu (a JAX release can come before '
    f'its libtpu), `pip install "jax[tpu]<={jax.__version__}"` installs the newest JAX whose libtpu is published'
)
NO_ESTIMATE = (
    "no estimate: no chip figures for device kind 'cpu' (a CPU's time depends on its host); name a chip in the "
    'config (chip = { name = "v5e" }) to estimate for it'
)


@pytest.fixture
def no_libtpu(monkeypatch):
    monkeypatch.setitem(sys.modules, "libtpu", None)  # what Python sees when libtpu is not installed


def test_every_report_lists_the_skipped_calls_and_unjudged_budgets_with_the_reason(project, no_libtpu):
    project.configure(configs=ONE_CONFIG + V5E)
    project.write("test_m.py", BUDGETED)
    project.run("--stages-update").assert_outcomes(passed=1, skipped=1)
    project.run("--stages-report", "gate.md").assert_outcomes(passed=1, skipped=1)
    result = project.run("--stages-report", "gate.json")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == 0, "without --stages-strict the gate passes, saying what it left out"
    lines = result.outlines
    start = lines.index(
        "pytest-stages: not checked in this run: 1 staged call(s) skipped, 0 call(s) with artifacts not checked here, "
        "1 budget(s) with no figure (a run under --stages-strict fails on them):"
    )
    assert lines[start + 1 : start + 3] == [
        f"  test_m.py::test_step[cpu1]: budget estimated_seconds: {NO_ESTIMATE}",
        f"  test_m.py::test_step[v5e]: skipped: {SKIP_REASON}",
    ] or lines[start + 1 : start + 3] == [
        f"  test_m.py::test_step[v5e]: skipped: {SKIP_REASON}",
        f"  test_m.py::test_step[cpu1]: budget estimated_seconds: {NO_ESTIMATE}",
    ]
    # The budget met is shown with its unit beside the figure, in a passing run too.
    assert "pytest-stages: budget of test_m.py::test_step[cpu1] <lambda>: flops 4, ceiling 100" in lines
    data = json.loads((project.path / "gate.json").read_text(encoding="utf-8"))
    assert sorted(data["not_checked"], key=lambda e: e["kind"]) == [
        {"nodeid": "test_m.py::test_step[cpu1]", "kind": "budget", "what": "estimated_seconds", "reason": NO_ESTIMATE},
        {
            "nodeid": "test_m.py::test_step[v5e]",
            "kind": "call",
            "what": "the whole call (its snapshots and budgets)",
            "reason": SKIP_REASON,
        },
    ]
    # A budget with no figure is not "ok": its cell says it was skipped.
    assert [call["status"]["budget"] for call in data["calls"]] == ["skipped"]
    markdown = (project.path / "gate.md").read_text(encoding="utf-8")
    assert "### Not checked in this run (2)" in markdown
    assert (
        "| test_m.py::test_step[v5e] | the whole call (its snapshots and budgets) | pytest-stages: config" in markdown
    )
    assert "| test_m.py::test_step[cpu1] | budget estimated_seconds | no estimate: no chip figures" in markdown


def test_stages_strict_fails_a_run_that_left_a_call_or_a_budget_unchecked(project, no_libtpu):
    project.configure(configs=ONE_CONFIG + V5E)
    project.write("test_m.py", BUDGETED)
    project.run("--stages-update")
    result = project.run("--stages-strict", "--stages-report", "gate.json")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "(--stages-strict fails the run):" in project.output(result)
    assert json.loads((project.path / "gate.json").read_text(encoding="utf-8"))["run"]["exit_status"] == 1
    # Without the budget that has no figure, and without the skipped config, the strict gate passes.
    project.write("test_m.py", BUDGETED.replace('estimated_seconds="0.3ms", ', ""))
    result = project.run("--stages-strict", "--stages-configs", "cpu1")
    result.assert_outcomes(passed=1, skipped=0)
    assert result.ret == 0, project.output(result)
    assert "not checked in this run" not in project.output(result)


def test_a_test_left_out_by_stages_configs_is_a_choice_not_a_gap(project, no_libtpu):
    project.configure(configs=ONE_CONFIG + V5E)
    project.write("test_m.py", BUDGETED.replace('estimated_seconds="0.3ms", ', ""))
    project.write(
        "test_tpu_only.py",
        "import pytest\n"
        + BUDGETED.replace("@pytest", "@pytest.mark.stages(configs=['v5e'])\n@pytest")
        .replace('estimated_seconds="0.3ms", ', "")
        .replace("test_step", "test_tpu"),
    )
    project.run("--stages-update", "--stages-configs", "cpu1")
    result = project.run("--stages-strict", "--stages-configs", "cpu1")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == 0, project.output(result)


ON_CHIP = """
[[tool.pytest_stages.configs]]
name = "on-chip"
platform = "tpu"
"""


def test_config_selectors_select_by_where_a_config_stages_and_name_none(project, no_libtpu):
    project.configure(configs=ONE_CONFIG + V5E + ON_CHIP)
    project.write("test_m.py", BUDGETED.replace('estimated_seconds="0.3ms", ', ""))
    attached = project.run("--co", "-q", "--stages-configs=@attached")
    assert [line for line in attached.outlines if "::" in line] == ["test_m.py::test_step[on-chip]"]
    anywhere = project.run("--co", "-q", "--stages-configs=@anywhere")
    assert [line for line in anywhere.outlines if "::" in line] == [
        "test_m.py::test_step[cpu1]",
        "test_m.py::test_step[v5e]",
    ]
    project.configure(configs=ONE_CONFIG)
    assert project.usage_error(project.run("--stages-configs=@attached")) == (
        "--stages-configs=@attached selects no config: none of ['cpu1'] stages on an attached accelerator (a "
        "platform and no topology). Leave this run out (a CI job for such configs has nothing to do in this "
        "project), or name configs."
    )
