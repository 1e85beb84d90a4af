"""The estimated step time: a figure of every cost snapshot, judged with a tolerance, named with its binding term.

Inner sessions stage programs for compile-only TPU v5e and H100 topologies on this CPU machine
and edit them as a user would (a compute-bound product becomes a memory-bound sum, and back);
the estimate's arithmetic and the chip table are tested as pure functions.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_stages.analyse import step_time
from pytest_stages.check.budgets import check_budget, parse_budget
from pytest_stages.check.figures import compare_metrics
from pytest_stages.config.device_configs import parse_configs
from pytest_stages.core.errors import ConfigError
from pytest_stages.ir import hlo_kernels

V5E = """
[[tool.pytest_stages.configs]]
name = "v5e1"
platform = "tpu"
topology = "v5e:1x1"
chips_per_host_bounds = [1, 1, 1]
"""
H100 = """
[[tool.pytest_stages.configs]]
name = "h100"
platform = "cuda"
topology = "1x1x1"
gpu = "h100"
"""
CPU = """
[[tool.pytest_stages.configs]]
name = "cpu1"
"""
# Of two bf16 4096 x 4096 matrices: their product (compute-bound on a v5e: 137 GFLOP against
# 100 MB), or their sum in float32 (memory-bound: 134 MB, no products).
PROGRAMS = {
    "compute": "x @ w",
    "memory": "x.astype(jnp.float32) + w.astype(jnp.float32)",
}
TEST = """
import jax
import jax.numpy as jnp
import pytest

N = {n}


def step(x, w):
    return {body}


{marker}
def test_step(stage_snapshot):
    mat = jax.ShapeDtypeStruct((N, N), jnp.bfloat16)
    stage_snapshot(step, mat, mat, name="step")
"""


def staged(project, body: str, marker: str = "", n: int = 4096) -> None:
    project.write("test_step.py", TEST.format(body=body, marker=marker, n=n))


def cost_file(project, config: str = "v5e1") -> dict:
    return json.loads(Path(project.path, f"snapshots/test_step/test_step/{config}/step.cost.json").read_text())


@pytest.mark.extras("tpu")
def test_a_memory_bound_sum_becoming_a_compute_bound_product_flips_the_binding_term(project, tmp_path):
    project.configure(configs=V5E)
    staged(project, PROGRAMS["memory"])
    project.run("--stages-update").assert_outcomes(passed=1)
    step = cost_file(project)["step"]
    assert step["binding"] == "HBM"
    assert step["chip"] == "TPU v5e"
    assert 0.1e-3 < step["estimated_seconds"] < 0.4e-3  # 134 MB at 80% of 819 GB/s: 0.2 ms

    staged(project, PROGRAMS["compute"])  # slower: a failure that names the new binding term
    result = project.run("--stages-check=cost")
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "  cost: estimated step on TPU v5e +" in out  # the headline names the estimate first
    assert "(compute-bound: flops +" in out

    project.run("--stages-update").assert_outcomes(passed=1)
    assert cost_file(project)["step"]["binding"] == "compute"
    staged(project, PROGRAMS["memory"])  # faster: an improvement that names the binding term
    report = tmp_path / "report.json"
    result = project.run("--stages-check=cost", f"--stages-report={report}")
    result.assert_outcomes(passed=1)
    messages = [f["message"] for call in json.loads(report.read_text())["calls"] for f in call["findings"]]
    assert any(m.startswith("estimated step on TPU v5e -") and "(HBM-bound: bytes accessed -" in m for m in messages)
    assert any("test_step[v5e1]" in line and " µs HBM " in line for line in result.outlines)


@pytest.mark.extras("tpu")
def test_a_tolerance_on_estimated_seconds_lets_a_slower_step_pass_or_fail(project):
    """The other figures are let through (default 10x); the estimate alone is judged against its own tolerance."""
    settings = '[tool.pytest_stages.tolerance]\ndefault = 10\nestimated_seconds = "{}"\n'
    project.configure(settings.format("5%"), configs=V5E)
    staged(project, PROGRAMS["compute"], n=2048)
    project.run("--stages-update").assert_outcomes(passed=1)
    staged(project, PROGRAMS["compute"], n=2560)  # (2560 / 2048)^3: the product's flops +95%
    result = project.run("--stages-check=cost")
    result.assert_outcomes(failed=1)
    assert "  cost: estimated step on TPU v5e +" in project.output(result)
    assert ", tolerance 5%" in project.output(result)

    project.configure(settings.format("150%"), configs=V5E)
    project.run("--stages-check=cost").assert_outcomes(passed=1)


@pytest.mark.extras("tpu")
def test_a_budget_on_estimated_seconds_fails_above_it_and_says_where_there_is_no_estimate(project, tmp_path):
    project.configure(configs=V5E + CPU)
    staged(project, PROGRAMS["compute"], marker='@pytest.mark.stages_budget(estimated_seconds="100 us")')
    report = tmp_path / "report.json"
    result = project.run("--stages-update", f"--stages-report={report}")
    result.assert_outcomes(passed=1, failed=1)
    assert "  budget: estimated_seconds 734 µs on TPU v5e (compute-bound) exceeds the ceiling 100 µs" in (
        project.output(result)
    )
    notes = {
        call["config"]: [f["message"] for f in call["findings"] if f["kind"] == "budget"]
        for call in json.loads(report.read_text())["calls"]
    }
    assert notes["cpu1"] == [
        "estimated_seconds: no estimate: no chip figures for device kind 'cpu' (a CPU's time depends on its host); "
        'name a chip in the config (chip = { name = "v5e" }) to estimate for it'
    ]


@pytest.mark.extras("tpu")
def test_a_cost_snapshot_from_before_the_estimate_passes_unchanged_and_is_not_rewritten(project, tmp_path):
    project.configure(configs=V5E)
    staged(project, PROGRAMS["compute"], n=1024)
    project.run("--stages-update").assert_outcomes(passed=1)
    path = Path(project.path, "snapshots/test_step/test_step/v5e1/step.cost.json")
    older = json.loads(path.read_text())
    del older["step"]
    path.write_text(json.dumps(older, indent=2, sort_keys=True) + "\n")
    before = project.snapshots()

    pending = tmp_path / "pending"
    result = project.run(f"--stages-pending={pending}")
    result.assert_outcomes(passed=1)
    assert project.snapshots() == before
    assert not pending.exists() or not any(pending.rglob("*.cost.json"))
    project.run("--stages-update").assert_outcomes(passed=1)
    assert project.snapshots() == before  # an update of a passing call leaves it as it is


@pytest.mark.extras("tpu", "cuda")
def test_every_config_has_an_estimate_or_says_why_not_and_the_summary_shows_it(project):
    project.configure(configs=V5E + H100 + CPU)
    staged(project, PROGRAMS["memory"])
    result = project.run("--stages-update")
    result.assert_outcomes(passed=3)
    assert cost_file(project)["step"]["binding"] == "HBM"
    gpu = cost_file(project, "h100")["step"]
    assert gpu["chip"] == "NVIDIA H100 SXM"
    assert "lowered program" in gpu["notes"]
    assert "no chip figures for device kind 'cpu'" in cost_file(project, "cpu1")["step"]["unknown"]
    rows = [line for line in result.outlines if "test_step.py::test_step[" in line]
    assert any("v5e1" in row and " µs HBM " in row for row in rows)
    assert any("cpu1" in row and " n/a " in row for row in rows)


@pytest.mark.extras("tpu")
def test_a_config_naming_a_chip_overrides_its_figures(project):
    halved = V5E + "chip = { hbm_gbps = 409.5 }\n"
    project.configure(configs=halved)
    staged(project, PROGRAMS["memory"])
    project.run("--stages-update").assert_outcomes(passed=1)
    slow = cost_file(project)["step"]["hbm_seconds"]
    project.configure(configs=V5E)
    project.run("--stages-update").assert_outcomes(passed=1)
    assert cost_file(project)["step"]["hbm_seconds"] == pytest.approx(slow / 2)


def test_chip_table_maps_the_device_kinds_jax_names():
    assert step_time.chip_for("TPU v5 lite").name == "TPU v5e"
    assert step_time.chip_for("TPU v5").name == "TPU v5p"
    assert step_time.chip_for("TPU v6 lite").name == "TPU v6e"
    assert step_time.chip_for("TPU v4").name == "TPU v4"
    assert step_time.chip_for("NVIDIA H100 80GB HBM3").name == "NVIDIA H100 SXM"
    assert step_time.chip_for("NVIDIA A100-SXM4-80GB").name == "NVIDIA A100 SXM"
    assert step_time.chip_for("cpu") is None
    assert step_time.chip_for("cpu", {"name": "v5e"}).name == "TPU v5e"
    assert step_time.chip_for("TPU v5 lite", {"hbm_gbps": 100}).hbm_bytes_per_s == 100e9


@pytest.mark.parametrize(
    ("chip", "message"),
    [
        ({"hbm": 1}, "chip has an unknown key 'hbm'"),
        ({"hbm_gbps": -1}, "chip hbm_gbps = -1 must be a positive number"),
        ({"hbm_fraction": 1.5}, "chip hbm_fraction = 1.5 must be a fraction above 0, at most 1"),
        ({"name": "v9"}, "chip name 'v9' is not in the chip table"),
        ("v5e", "chip must be a table"),
    ],
)
def test_a_chip_table_with_bad_figures_is_refused_with_the_fix(chip, message):
    with pytest.raises(ConfigError, match="config 'x': " + message.replace("(", r"\(")):
        parse_configs([{"name": "x", "chip": chip}])


def _figures(flops: float, bytes_accessed: float, **more) -> dict:
    return {"compiled": {"flops": flops, "bytes accessed": bytes_accessed, **more}}


def test_the_binding_term_is_the_largest_and_the_launch_hides_a_short_program():
    compute = step_time.estimate(_figures(1e12, 1e6), None, "TPU v5 lite")
    assert compute["binding"] == "compute"
    assert compute["estimated_seconds"] == pytest.approx(1e12 / (197e12 * 0.95))
    memory = step_time.estimate(_figures(1e6, 1e9), None, "TPU v5 lite")
    assert memory["binding"] == "HBM"
    assert memory["estimated_seconds"] == pytest.approx(1e9 / (819e9 * 0.8))
    tiny = step_time.estimate(_figures(10, 10), None, "TPU v5 lite")
    assert tiny["binding"] == "launch"
    assert tiny["estimated_seconds"] == step_time.CHIPS["v5e"].launch_seconds


def test_xla_optimal_seconds_is_shown_only_where_it_is_a_time():
    assert step_time.estimate(_figures(1, 1, optimal_seconds=2e-6), None, "TPU v5 lite")["xla_optimal_seconds"] == 2e-6
    assert "xla_optimal_seconds" not in step_time.estimate(_figures(1, 1, optimal_seconds=-3.0), None, "TPU v5 lite")


def test_kernels_without_a_cost_make_the_estimate_unknown_never_free():
    cost = {**_figures(1e9, 1e9), "unknown": {"custom_calls": 1, "kernels": ["add_kernel"]}}
    found = step_time.estimate(cost, None, "TPU v5 lite")
    assert found == {"unknown": "kernels without a cost estimate (add_kernel): XLA counts nothing inside them"}
    budget = check_budget(parse_budget("marker", {"estimated_seconds": 0.001}), {"cost": {**cost, "step": found}})
    assert [f.message for f in budget] == [
        "estimated_seconds: no estimate: kernels without a cost estimate (add_kernel): XLA counts nothing inside them"
    ]
    assert not budget[0].failing


# A scan's compiled HLO as a v5e compile gives it (trimmed): a body with one product, run from 0 while < 256;
# the counter's start is a copy of a constant, the stacked input is sliced in a fusion, the weights live in
# on-chip memory (S(1)).
# The loop state, with its layouts (``S(1)``: on-chip memory) and without.
STATE = "(s32[]{:T(128)}, f32[64,512]{1,0:T(8,128)S(1)}, bf16[512,512"
STATE += "]{1,0:T(8,128)(2,1)S(1)}, f32[256,64,512]{2,1,0:T(8,128)})"
PLAIN = "(s32[], f32[64,512], bf16[512,512], f32[256,64,512])"
SCAN = """HloModule jit_rnn

%fused_slice (param_0: f32[256,64,512], param_1: s32[]) -> f32[64,512] {
  %param_0 = f32[256,64,512]{2,1,0:T(8,128)} parameter(0)
  %param_1 = s32[]{:T(128)} parameter(1)
  %constant.1 = s32[]{:T(128)} constant(0)
  %dynamic-slice.1 = f32[1,64,512]{2,1,0:T(8,128)} dynamic-slice(%param_0, %param_1, %constant.1, %constant.1)
  ROOT %bitcast.1 = f32[64,512]{1,0:T(8,128)} bitcast(%dynamic-slice.1)
}

%fused_product (param_0.1: f32[64,512], param_1.1: bf16[512,512]) -> f32[64,512] {
  %param_0.1 = f32[64,512]{1,0:T(8,128)} parameter(0)
  %param_1.1 = bf16[512,512]{1,0:T(8,128)(2,1)S(1)} parameter(1)
  %convert.1 = bf16[64,512]{1,0:T(8,128)(2,1)} convert(%param_0.1)
  ROOT %convolution.1 = f32[64,512]{1,0:T(8,128)S(1)} convolution(%convert.1, %param_1.1), dim_labels=bf_io->bf
}

%body (arg: PLAIN) -> PLAIN {
  %arg = STATE parameter(0)
  %gte.0 = s32[]{:T(128)} get-tuple-element(%arg), index=0
  %gte.2 = bf16[512,512]{1,0:T(8,128)(2,1)S(1)} get-tuple-element(%arg), index=2
  %gte.3 = f32[256,64,512]{2,1,0:T(8,128)} get-tuple-element(%arg), index=3
  %one = s32[]{:T(128)} constant(1)
  %next = s32[]{:T(128)} add(%gte.0, %one)
  %slice = f32[64,512]{1,0:T(8,128)} fusion(%gte.3, %gte.0), kind=kLoop, calls=%fused_slice
  %product = f32[64,512]{1,0:T(8,128)S(1)} fusion(%slice, %gte.2), kind=kOutput, calls=%fused_product
  ROOT %tuple.1 = STATE tuple(%next, %product, %gte.2, %gte.3)
}

%condition (arg.1: PLAIN) -> pred[] {
  %limit = s32[]{:T(128)} constant(256)
  %arg.1 = STATE parameter(0)
  %counter = s32[]{:T(128)} get-tuple-element(%arg.1), index=0
  ROOT %lt = pred[]{:T(512)} compare(%counter, %limit), direction=LT
}

ENTRY %main (w: bf16[512,512], xs: f32[256,64,512]) -> f32[64,512] {
  %w = bf16[512,512]{1,0:T(8,128)(2,1)S(1)} parameter(0)
  %xs = f32[256,64,512]{2,1,0:T(8,128)} parameter(1)
  %zero = s32[]{:T(128)} constant(0)
  %start = s32[]{:T(128)} copy(%zero)
  %h0 = f32[64,512]{1,0:T(8,128)S(1)} custom-call(), custom_call_target="AllocateBuffer"
  %init = STATE tuple(%start, %h0, %w, %xs)
  %while.1 = STATE while(%init), condition=%condition, body=%body
  ROOT %out = f32[64,512]{1,0:T(8,128)} get-tuple-element(%while.1), index=1
}
""".replace("STATE", STATE).replace("PLAIN", PLAIN)


def test_a_loop_counts_its_body_once_per_iteration_from_the_counter_it_compares():
    """XLA's cost analysis counts the body once; the estimate runs its kernels 256 times."""
    program = hlo_kernels.Module(SCAN).program()
    ((body, trips),) = program.entry.loops
    assert trips == 256
    slice_kernel, product = (k for k in body.kernels if k.opcode == "fusion")
    # 64 rows stream through the 128-wide unit (8 at a time); the 512 columns and contraction fill it.
    assert product.macs == (("bf16", 64 * 512 * 512),)
    # The slice reads one 64 x 512 float32 row block of xs (not all of xs) and writes it to HBM; the product
    # reads it back. The weights and the carried state live on chip (S(1)) and are not counted.
    assert slice_kernel.hbm_bytes == 2 * 64 * 512 * 4 + 4  # and the 4-byte counter it slices at
    assert product.hbm_bytes == 64 * 512 * 4
    assert (program.inputs, program.outputs) == (2, 1)
    chip = step_time.CHIPS["v5e"]
    once = step_time._block(body, chip, looped=True).seconds + chip.iteration_seconds
    looped = step_time.estimate(_figures(1, 1), SCAN, "TPU v5 lite")
    assert looped["estimated_seconds"] == pytest.approx(max(chip.launch_seconds + 2 * 1.1e-6 + 9e-6, 256 * once))


def test_a_loop_whose_trip_count_is_unknown_says_so():
    unknown = SCAN.replace("%limit = s32[]{:T(128)} constant(256)", "%limit = s32[]{:T(128)} parameter(1)")
    program = hlo_kernels.Module(unknown).program()
    assert program.unknown_trips == 1
    assert program.entry.loops[0][1] == 1
    found = step_time.estimate(_figures(1, 1), unknown, "TPU v5 lite")
    assert found["notes"] == "1 loop(s) of unknown trip count: each body counted once"


def test_a_snapshot_without_the_estimate_is_judged_on_its_other_figures_alone():
    """A cost compared for another reason (a figure within its tolerance) does not read the missing estimate as 0."""
    older = _figures(1000.0, 2000.0)
    now = {**_figures(1000.5, 2000.0), "step": step_time.estimate(_figures(1000.5, 2000.0), None, "TPU v5 lite")}
    assert compare_metrics("cost", older, now, {"flops": 0.01}) == []
    assert compare_metrics("cost", now, older, {"flops": 0.01}) == []


def test_stages_measure_times_the_compiled_call_on_its_device_beside_the_estimate(project, tmp_path):
    """On the attached CPU (named a v5e for its estimate): the reports get the measured time and the ratio;
    the snapshot does not (a host's time must not drift a file)."""
    project.configure(configs=CPU + 'chip = { name = "v5e" }\n')
    staged(project, PROGRAMS["compute"], n=256)
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    report = tmp_path / "report.json"
    result = project.run("--stages-measure", f"--stages-report={report}")
    result.assert_outcomes(passed=1)
    step = json.loads(report.read_text())["calls"][0]["step"]
    assert step["measured_min"] <= step["measured_seconds"] <= step["measured_max"]
    assert step["estimate_over_measured"] == pytest.approx(step["estimated_seconds"] / step["measured_seconds"])
    assert step["measured_calls"] == "20 queued"
    assert any("test_step[cpu1]" in line and "; measured " in line for line in result.outlines)
    assert project.snapshots() == before
