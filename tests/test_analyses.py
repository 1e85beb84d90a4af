"""Cost/memory regressions, tolerances, improvements, budgets (also during update) and reports."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

import pytest_stages
from pytest_stages.analyse.analyses import ops
from pytest_stages.core.units import format_bytes
from pytest_stages.ir import hlo, hlo_records

LOOP = """
import jax, jax.numpy as jnp
import pytest

def body(i, x):
    return jnp.sin(x) @ x

def looped(x):
    return jax.lax.fori_loop(0, TRIPS, body, x)

BUDGET
def test_loop(stage_snapshot):
    stage_snapshot(looped, jax.ShapeDtypeStruct((SIZE, SIZE), DTYPE))
"""


def loop(trips=4, size=64, dtype="jnp.float32", budget=""):
    return (
        LOOP.replace("TRIPS", str(trips)).replace("SIZE", str(size)).replace("DTYPE", dtype).replace("BUDGET", budget)
    )


def test_a_cost_regression_fails_with_the_figures(project):
    project.write("test_cost.py", loop(size=64))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_cost.py", loop(size=72))
    result = project.run("--stages-check=cost,memory")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'looped' on config cpu1 differs from its snapshots in snapshots/test_cost/test_loop/cpu1/",
            "  memory: xla_peak_bytes +26.6%; temp_bytes +26.5%; argument_bytes +26.6%; +1 more",
            "  cost: flops +42.4%; bytes_accessed +26.6%; transcendentals +26.6%",
            "- memory (looped.memory.json):",
            "    xla_peak_bytes 32780 -> 41484 (+26.6%, tolerance 0.1%)",
            "    temp_bytes 32836 -> 41540 (+26.5%, tolerance 0.1%)",
            "    argument_bytes 16384 -> 20736 (+26.6%, tolerance exact)",
            "*",
            "- cost (looped.cost.json):",
            "    flops 524290 -> 746498 (+42.4%, tolerance 0.1%)",
            "    bytes_accessed 147517 -> 186685 (+26.6%, tolerance 0.1%)",
            "    transcendentals 4096 -> 5184 (+26.6%, tolerance 0.1%)",
            "*also changed, but not checked in this run: jaxpr, stablehlo, compiled, ops",
        ]
    )


def test_a_compiled_cost_file_holds_no_lowered_cost_and_an_older_one_with_it_passes(project):
    project.write("test_cost.py", loop())
    project.run("--stages-update").assert_outcomes(passed=1)
    path = project.path / "snapshots/test_cost/test_loop/cpu1/looped.cost.json"
    written = json.loads(path.read_text())
    assert list(written) == ["compiled", "step"] and written["compiled"]["flops"] > 0
    # As an earlier version wrote it: the lowered cost beside the compiled one, never judged there.
    path.write_text(json.dumps({**written, "lowered": {"flops": 1.0}}, indent=2, sort_keys=True) + "\n")
    result = project.run()
    result.assert_outcomes(passed=1)
    assert "improved" not in project.output(result) and "lowered" in path.read_text()
    project.run("--stages-update").assert_outcomes(passed=1)
    assert json.loads(path.read_text()) == written


def test_more_loop_trips_show_in_the_compiled_text_not_the_per_iteration_cost(project):
    project.write("test_cost.py", loop(trips=4))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_cost.py", loop(trips=8))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["- compiled (looped.compiled.hlo.txt): IR drift", "*constant(4)*", "*constant(8)*"])


def test_bf16_instead_of_f32_changes_bytes_and_text(project):
    project.write("test_cost.py", loop())
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_cost.py", loop(dtype="jnp.bfloat16"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "- jaxpr (looped.jaxpr.txt): IR drift",
            "    -{ lambda ; a:f32?64,64?. let",
            "    +{ lambda ; a:bf16?64,64?. let",
        ]
    )
    assert "    argument_bytes" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["  also memory improved (not failing): xla_peak_bytes -50.0%; argument_bytes -50.0%; output_bytes -50.0%"]
    )


def test_a_tolerance_lets_small_changes_pass(project):
    project.configure(
        "[tool.pytest_stages.tolerance]\n"
        'flops = "50%"\n'
        "transcendentals = 0.5\n"
        "'bytes accessed' = 0.5\n"
        "'bytes accessed0{}' = 0.5\n"
        "'bytes accessedout{}' = 0.5\n"
        "'bytes accessed1{}' = 0.5\n"
    )
    project.write("test_cost.py", loop(size=64))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_cost.py", loop(size=72))
    project.run("--stages-check=cost").assert_outcomes(passed=1)


def test_a_marker_tolerance_overrides_the_global_one(project):
    project.write("test_cost.py", loop(size=64))
    project.run("--stages-update").assert_outcomes(passed=1)
    marker = '@pytest.mark.stages(tolerance={"default": "60%"})'
    project.write("test_cost.py", loop(size=72, budget=marker))
    project.run("--stages-check=cost").assert_outcomes(passed=1)


def test_an_improvement_passes_and_is_reported_with_the_update_hint(project):
    project.write("test_cost.py", loop(size=72))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_cost.py", loop(size=64))
    result = project.run("--stages-check=cost,memory")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_cost.py::test_loop?cpu1?*improved*improved*flops 746498->524290 (-29.8%)*",
            "pytest-stages: 1 call(s) improved on their snapshots; "
            "run `pytest --stages-update` to record the new figures",
        ]
    )


def test_a_bad_budget_marker_is_one_paragraph_printed_once(project):
    project.write(
        "test_b.py",
        "import jax, jax.numpy as jnp, pytest\n\n@pytest.mark.stages_budget(flopz=2e8)\n"
        "def test_f(stage_snapshot):\n"
        "    stage_snapshot(lambda x: jnp.sin(x), jax.ShapeDtypeStruct((4,), jnp.float32))\n",
    )
    result = project.run()
    result.assert_outcomes(errors=1)
    output = project.output(result)
    paragraphs = [line for line in output.splitlines() if "'flopz'" in line and not line.startswith("ERROR ")]
    assert len(paragraphs) == 1, output  # pytest's short summary line aside (its width varies)
    assert "During handling of the above exception" not in output
    marker = "pytest-stages: @pytest.mark.stages_budget on test_b.py::test_f[cpu1]"
    assert f"{marker}: unknown budget metric 'flopz' (did you mean 'flops'?); " in output


def test_budgets_fail_over_and_pass_under_also_during_update(project):
    over = loop(budget='@pytest.mark.stages_budget(flops=5e5, temp_bytes="1 KiB", collectives={"all-gather": 0})')
    project.write("test_cost.py", over)
    compared = project.run()
    compared.assert_outcomes(failed=1)
    compared.stdout.fnmatch_lines(
        [
            "  budget: flops 524290 exceeds the ceiling 500000; temp_bytes 32.1 KiB exceeds the ceiling 1.0 KiB",
            "  no snapshot yet: jaxpr (looped.jaxpr.txt), stablehlo (looped.stablehlo.mlir), *",
        ]
    )
    assert "- budget" not in project.output(compared), "the headline says every breach; no detail repeats it"
    for _ in range(2):
        result = project.run("--stages-update")
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(
            [
                "pytest-stages: 'looped' on config cpu1 exceeds its budget",
                "  budget: flops 524290 exceeds the ceiling 500000; temp_bytes 32.1 KiB exceeds the ceiling 1.0 KiB",
                "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program.",
            ]
        )
    assert project.snapshots() == {}
    project.write("test_cost.py", loop(budget='@pytest.mark.stages_budget(flops=6e5, temp_bytes="64 KiB")'))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.run().assert_outcomes(passed=1)


def test_budgets_from_pyproject_match_node_id_patterns(project):
    project.configure(
        "[tool.pytest_stages.budgets]\n'test_cost.py::test_loop*' = { flops = 1e5 }\n'other/*' = { flops = 1 }\n"
    )
    project.write("test_cost.py", loop())
    result = project.run("--stages-check=budget")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["  budget: flops 524290 exceeds the ceiling 100000"])


def test_a_bad_budget_unit_names_it(project):
    project.write("test_cost.py", loop(budget='@pytest.mark.stages_budget(temp_bytes="64 MB/s")'))
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: @pytest.mark.stages_budget on test_cost.py::test_loop?cpu1? temp_bytes: "
            "'64 MB/s' is not a size; write e.g. 64 MiB, 1.5 GB or 4096."
        ]
    )
    project.configure("[tool.pytest_stages.budgets]\n'*' = { temp_bytes = '3 parsecs' }\n")
    result = project.run()
    assert result.ret == 4
    assert "unknown unit 'parsecs' in '3 parsecs'" in result.stderr.str()


def test_json_report_validates_against_its_schema(project, tmp_path):
    project.write("test_cost.py", loop(budget="@pytest.mark.stages_budget(flops=6e5)"))
    project.run("--stages-update").assert_outcomes(passed=1)
    report = tmp_path / "out" / "stages.json"
    project.run(f"--stages-report={report}").assert_outcomes(passed=1)
    data = json.loads(report.read_text())
    schema = json.loads((Path(pytest_stages.__file__).parent / "report.schema.json").read_text())
    jsonschema.validate(data, schema)
    (call,) = data["calls"]
    assert call["nodeid"] == "test_cost.py::test_loop[cpu1]" and call["status"]["budget"] == "ok"
    assert data["environment"] == {"jax": "0.10.2", "jaxlib": "0.10.2"} and data["mode"] == "compare"


def test_markdown_report_and_github_step_summary(project, tmp_path, monkeypatch):
    project.write("test_cost.py", loop())
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    report = tmp_path / "stages.md"
    project.run(f"--stages-report={report}").assert_outcomes(failed=1)
    text = report.read_text()
    assert text.startswith("## pytest-stages\n")
    assert "| test_cost.py::test_loop[cpu1] | cpu1 | looped | new | new | new | new | new | - |" in text
    assert "- `test_cost.py::test_loop[cpu1]` looped / jaxpr: no snapshot yet" in text
    assert summary.read_text() == "earlier step\n" + text
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(report / "under_a_file.md"))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert result.ret == 1, "the verdict stands"
    assert f"pytest-stages: could not append to $GITHUB_STEP_SUMMARY {report}/under_a_file.md (Not a directory)." in (
        project.output(result)
    )


def test_a_bad_report_name_is_a_usage_error(project):
    result = project.run("--stages-report=out.txt")
    assert result.ret == 4
    assert "--stages-report=out.txt: name a .json, .md or .html file." in result.stderr.str()


def test_ops_parses_real_shapes_and_collectives():
    text = (
        "HloModule m, input_output_alias={ {0}: (1, {}, may-alias) }, entry_computation_layout={()->f32[]}\n\n"
        "ENTRY %main (p: f32[16,512]) -> (f32[64,512], f32[]) {\n"
        "  %p = f32[16,512]{1,0} parameter(0)\n"
        "  %ag = f32[64,512]{1,0} all-gather(%p), channel_id=1, dimensions={0}\n"
        '  %cc = (f32[2]{0}, s32[]) custom-call(%p), custom_call_target="foo"\n'
        "  %f = f32[] fusion(%ag), kind=kLoop, calls=%c\n"
        "  ROOT %t = (f32[64,512]{1,0}, f32[]) tuple(%ag, %f)\n"
        "}\n"
    )
    result = ops(text)
    assert result["collectives"] == [{"op": "all-gather", "shape": "f32[64,512]", "bytes": 131072}]
    assert result["custom_calls"] == {"foo": 1}
    assert result["fusions"] == {"kLoop": 1} and result["fusion_count"] == 1
    assert result["entry"] == {"parameters": ["f32[16,512]"], "output": "(f32[64,512], f32[])"}
    assert hlo.parse_instruction("  %cc = (f32[2]{0}, s32[]) custom-call(%p)").shape == "(f32[2], s32[])"
    assert hlo.aliases(text) == (hlo_records.Alias((0,), 1, "may-alias"),)
    assert hlo.shape_bytes("(bf16[8,8], pred[3])") == 131 and format_bytes(2048) == "2.0 KiB"
