"""Right and quiet on real model code: jax.Ref train state, honest notes, readable headlines."""

from __future__ import annotations

import json

from conftest import SIMPLE_TEST, TWO_CONFIGS

from pytest_stages.analyse.artifacts import CHECK_KINDS
from pytest_stages.check.decide import Policy, decide
from pytest_stages.check.figures import compare_metrics
from pytest_stages.check.message import Call, call_message
from pytest_stages.core.records import Change, Finding

# A train step in the style of JAX's training cookbook: the train state lives in jax.Ref s,
# updated in place; the step count is a weakly typed array (jnp.array(0)), not a Python int.
COOKBOOK = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

def train_step(state, batch):
    params = jax.tree.map(lambda ref: ref[...], state["params"])
    loss, grads = jax.value_and_grad(lambda p: jnp.mean((batch @ p["w"] + p["b"]) ** 2))(params)
    for key, ref in state["params"].items():
        p, g = params[key], grads[key]
        ref[...] = {update}
    state["count"][...] += 1
    return loss

def test_train(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    put = lambda x, spec: jax.device_put(x, NamedSharding(mesh, spec))
    params = {{"w": put(jnp.ones((16, 16)), P("data")), "b": put(jnp.zeros((16,)), P())}}
    state = {{"params": jax.tree.map(jax.new_ref, params), "count": jax.new_ref(put(jnp.array(0), P()))}}
    batch = put(jnp.ones((8, 16)), P("data"))
    stage_snapshot(train_step, state, batch)
"""
REASON = "JAX cannot give Compiled.output_shardings for this function (ValueError: Too many leaves for PyTreeDef"


def test_a_jax_ref_train_step_stages_with_the_outputs_left_out_and_jaxs_reason(project):
    project.configure(configs=TWO_CONFIGS)
    project.write("test_cookbook.py", COOKBOOK.format(update="p - 0.1 * g"))
    result = project.run("--stages-update", "--stages-configs=cpu8")
    result.assert_outcomes(passed=1)
    out = project.output(result)
    for artifact, what in (("sharding", "output_shardings"), ("layout", "output_formats")):
        assert (
            f"pytest-stages: config cpu8: {artifact} not checked here: outputs not recorded: "
            f"JAX cannot give Compiled.{what} for this function "
            "(ValueError: Too many leaves for PyTreeDef; expected 1.)"
        ) in out
    files = project.snapshots()
    sharding = json.loads(files["test_cookbook/test_train/cpu8/train_step.sharding.json"])
    assert "outputs" not in sharding
    assert sharding["inputs"]["batch"]["sharding"]["spec"].startswith("P('data'")
    assert sharding["inputs"]["state['params']['w']"]["sharding"]["spec"].startswith("P('data'")
    layout = json.loads(files["test_cookbook/test_train/cpu8/train_step.layout.json"])
    assert set(layout) == {"inputs"}
    project.run("--stages-configs=cpu8").assert_outcomes(passed=1)
    # Weight decay added: the failure carries JAX's reason and no note about Python scalars.
    project.write("test_cookbook.py", COOKBOOK.format(update="p - 0.1 * g - 0.01 * p"))
    result = project.run("--stages-configs=cpu8")
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert f"note: sharding of the outputs not recorded: {REASON}" in out
    assert "Traceback" not in out and "was a Python" not in out


PYTHON_SCALAR = """
import jax, jax.numpy as jnp

def f(x, scale, step):
    return x * scale + step

def test_f(stage_snapshot):
    stage_snapshot(f, jnp.ones((4,)), {scale}, jnp.array(0))
"""


def test_only_a_real_python_scalar_gets_the_static_scalars_note(project):
    project.write("test_scalar.py", PYTHON_SCALAR.format(scale="2.0"))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_scalar.py", PYTHON_SCALAR.format(scale="2.0").replace("x * scale", "x / scale"))
    result = project.run()
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "note: argument scale was a Python float" in out
    assert "argument step was a Python" not in out


ROPE = """
import jax, jax.numpy as jnp

def apply_rope(x, positions):
    return x * positions[None, :]

def model(batch):
    return apply_rope(batch["x"], batch.get("positions"))

def test_model(stage_snapshot):
    stage_snapshot(model, {"x": jnp.ones((4, 4))})
"""


def test_a_trace_error_names_the_innermost_user_frame_and_tb_long_shows_the_traceback(project):
    project.write("test_rope.py", ROPE)
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: stage_snapshot(model): tracing failed with TypeError at test_rope.py:5 in apply_rope:",
            "    'NoneType' object is not subscriptable",
            "Fix the function or its arguments; its snapshots were left untouched.",
        ]
    )
    assert "Traceback" not in project.output(result)
    result = project.run("--tb=long")
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "Traceback (most recent call last):" in out
    assert 'return apply_rope(batch["x"], batch.get("positions"))' in out


PER_PATH = """
[tool.pytest_stages.test_configs]
"models/*" = ["cpu8"]
"models/test_small.py::*" = ["cpu1"]
"""


def test_configs_per_test_path_pattern_with_the_marker_over_them(project):
    project.configure(PER_PATH, configs=TWO_CONFIGS)
    test = SIMPLE_TEST.replace("def test_f(stage_snapshot)", "def test_f(stage_snapshot, stage_config)")
    project.write("models/test_big.py", test)
    project.write("models/test_small.py", test)
    project.write("test_other.py", test)
    project.write(
        "models/test_marked.py",
        "import pytest\n" + test.replace("def test_f", "@pytest.mark.stages(configs=['cpu1', 'cpu8'])\ndef test_f"),
    )
    result = project.run("--collect-only", "-q")
    ids = {line.strip() for line in result.outlines if "::" in line}
    assert ids == {
        "models/test_big.py::test_f[cpu8]",
        "models/test_small.py::test_f[cpu1]",
        "models/test_marked.py::test_f[cpu1]",
        "models/test_marked.py::test_f[cpu8]",
        "test_other.py::test_f[cpu1]",
        "test_other.py::test_f[cpu8]",
    }


def test_a_test_configs_entry_naming_an_unknown_config_is_a_usage_error(project):
    project.configure('[tool.pytest_stages.test_configs]\n"models/*" = ["tpu"]\n', configs=TWO_CONFIGS)
    project.write("test_model.py", SIMPLE_TEST)
    result = project.run()
    assert result.ret == 4
    assert (
        "pytest-stages: [tool.pytest_stages.test_configs] 'models/*': unknown name 'tpu'; choose from cpu1, cpu8."
        in "\n".join(result.errlines)
    )


def _message(findings):
    verdict = decide(findings, Policy(update=False, on_version_mismatch="fail", enforced=CHECK_KINDS), "")
    return call_message(Call("f", "cpu1", "snapshots/x/", {}), verdict, notes=[], diff_lines=20, full=False)


def test_a_figure_that_rounds_to_nothing_or_starts_at_zero_reads_as_an_amount():
    memory = compare_metrics(
        "memory",
        {"peak_memory_in_bytes": 1_000_000_000, "temp_size_in_bytes": 0},
        {"peak_memory_in_bytes": 1_000_000_004, "temp_size_in_bytes": 1_258_291},
        # The allocator's figures are judged at 0.1% by default; an exact tolerance lets +4 B of 1 GB fail.
        {"peak_memory_in_bytes": 0.0},
    )
    headline = _message(memory).splitlines()[1]
    assert headline == "  memory: xla_peak_bytes +4 B; temp_bytes 0 -> 1.2 MiB"
    assert "%" not in headline


def test_xlas_per_operand_cost_keys_stay_out_of_the_headline_and_read_in_peoples_words_below():
    cost = compare_metrics(
        "cost",
        {"compiled": {"flops": 100.0, "bytes accessed1{}": 1000.0, "bytes accessedout{}": 10.0}},
        {"compiled": {"flops": 100.0, "bytes accessed1{}": 2000.0, "bytes accessedout{}": 30.0}},
        # Per-operand figures are judged only where a tolerance names them.
        {"bytes accessed1{}": 0.001, "bytes accessedout{}": 0.001},
    )
    message = _message(cost)
    headline = message.splitlines()[1]
    assert headline == "  cost: ops' operand and output bytes (2 figures)"
    assert "bytes read as operand 1 of the ops [bytes accessed1{}] 1000 -> 2000 (+100.0%, tolerance 0.1%)" in message
    assert "bytes written by the ops [bytes accessedout{}] 10 -> 30 (+200.0%, tolerance 0.1%)" in message


def test_lowered_per_operand_cost_keys_stay_out_of_the_headline_too():
    lowered = {"compiled": {"unavailable": True}, "lowered": {"flops": 10.0, "bytes accessed0{}": 100.0}}
    after = {**lowered, "lowered": {"flops": 10.0, "bytes accessed0{}": 200.0}}
    cost = compare_metrics("cost", lowered, after, {"bytes accessed0{}": 0.001})
    message = _message(cost)
    assert message.splitlines()[1] == "  cost: ops' operand and output bytes (1 figure)"
    assert "lowered bytes read as operand 0 of the ops [bytes accessed0{}] 100 -> 200" in message


def test_per_operand_figures_beside_a_named_one_are_counted_not_named_in_the_headline():
    cost = compare_metrics(
        "cost",
        {"compiled": {"flops": 100.0, "bytes accessed0{}": 100.0, "bytes accessedout{}": 10.0}},
        {"compiled": {"flops": 120.0, "bytes accessed0{}": 200.0, "bytes accessedout{}": 30.0}},
        {"bytes accessed0{}": 0.001, "bytes accessedout{}": 0.001},
    )
    assert _message(cost).splitlines()[1] == "  cost: flops +20.0%; +2 more"


def test_improvements_below_a_failure_are_one_line_per_artifact():
    cost = compare_metrics(
        "cost",
        {"compiled": {"flops": 100.0, **{f"bytes accessed{i}{{}}": 100.0 for i in range(10)}}},
        {"compiled": {"flops": 200.0, **{f"bytes accessed{i}{{}}": 50.0 for i in range(10)}}},
        {f"bytes accessed{i}{{}}": 0.001 for i in range(10)},
    )
    message = _message(cost)
    also = [line for line in message.splitlines() if line.startswith("  also")]
    assert also == ["  also cost improved (not failing): ops' operand and output bytes (10 figures)"]


def test_remat_and_custom_calls_are_named_in_the_op_structure_headline():
    ops = {f"op{k}": -(k + 10) for k in range(8)} | {"remat2": 2}
    drift = Finding(
        "text", "ops", "op structure changed", change=Change.OPS, ops=ops, moves=("+1 custom-call tpu_custom_call",)
    )
    headline = _message([drift]).splitlines()[1]
    assert headline.startswith("  op structure: +1 custom-call tpu_custom_call, +2 remat2, -17 op7, -16 op6, -15 op5")


DECAY = """
import jax, jax.numpy as jnp

def scale(x):
    return jnp.tanh(x)

def step(x):
    y = scale(x)
    {decay}
    return y.sum()

def test_step(stage_snapshot):
    stage_snapshot(step, jax.ShapeDtypeStruct((8,), jnp.float32))
"""


def test_removed_ops_are_never_charged_to_a_line_that_does_not_hold_them(project):
    project.configure('stages = ["jaxpr"]\nanalyses = []')
    project.write("test_decay.py", DECAY.format(decay="y = y - 0.01 * y * y"))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_decay.py", DECAY.format(decay="pass"))
    result = project.run()
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "  IR: jaxpr changed; jaxpr: -2 mul, -1 sub (removed; the snapshot keeps no source lines)" in out
    # The line that reads the result changed and is named as changed; the removals are not charged to it.
    assert "    source: test_decay.py:10 in step (1 changed)\n" in out + "\n"
    assert "    removed: 3 line(s), whose source lines the snapshot does not keep" in out
    assert "removed)" not in out


def test_a_per_operand_cost_change_reads_in_peoples_words_below_a_headline_without_raw_keys(project):
    """Only XLA's operand-1 bytes moved: the headline names no raw key, the details name it for
    people with the raw key beside it, and cost.json keeps the raw key. Per-operand figures are judged only where a
    tolerance names them, so the project names operand 1's."""
    project.configure('[tool.pytest_stages.tolerance]\n"bytes accessed1{}" = 0.001')
    project.write("test_model.py", SIMPLE_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    path = next((project.path / "snapshots").rglob("f.cost.json"))
    cost = json.loads(path.read_text())
    cost["compiled"]["bytes accessed1{}"] /= 2
    path.write_text(json.dumps(cost, indent=2) + "\n")
    result = project.run()
    result.assert_outcomes(failed=1)
    # The failure section prints the headline; under CI=true pytest's short summary repeats it whole.
    headline = {line for line in result.outlines if line.startswith("  cost: ")}
    assert headline == {"  cost: ops' operand and output bytes (1 figure)"}
    assert any(
        line.startswith("- cost (f.cost.json): bytes read as operand 1 of the ops [bytes accessed1{}] ")
        and line.endswith("(+100.0%, tolerance 0.1%)")
        for line in result.outlines
    ), result.outlines
