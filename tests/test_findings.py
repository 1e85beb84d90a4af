"""Findings that never mislead: changed literals show, leaves align, verdicts and tolerances are right."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from conftest import TWO_CONFIGS

from pytest_stages.check.decide import Verdict
from pytest_stages.check.drift import compare_text
from pytest_stages.check.figures import compare_metrics, metric_tolerance
from pytest_stages.check.message import Call, call_message, details
from pytest_stages.check.placement import compare_placement
from pytest_stages.config.settings import parse_settings
from pytest_stages.core.errors import ConfigError
from pytest_stages.core.records import CallRecord, Mode
from pytest_stages.ir.diff_render import unified
from pytest_stages.ir.normalize import normalize_hlo, normalize_mlir
from pytest_stages.ir.sources import (
    Location,
    describe_all,
    hlo_locations,
    mlir_locations,
    preferred,
)
from pytest_stages.ir.textdiff import edit_script
from pytest_stages.report.html_report import page


def _compiled_text(rate: float) -> str:
    def step(params, grads):
        return jax.tree.map(lambda p, g: p - rate * g, params, grads)

    spec = jax.ShapeDtypeStruct((64,), jnp.float32)
    return normalize_hlo(jax.jit(step).lower(spec, spec).compile().as_text())


def test_a_changed_literal_always_shows():
    before, after = _compiled_text(1e-3), _compiled_text(3e-4)
    assert "constant(0.001)" in before and "constant(0.0003)" in after
    message = "\n".join(details(compare_text("compiled", before, after, diff_lines=20)))
    assert "only value names changed" not in message
    assert any(line.strip().startswith("-") and "constant(0.001)" in line for line in message.splitlines())
    assert any(line.strip().startswith("+") and "constant(0.0003)" in line for line in message.splitlines())
    negative = before.replace("constant(0.001)", "constant(-0.001)")
    rows = edit_script("hlo", negative, negative.replace("constant(-0.001)", "constant(-0.0003)")).rows
    assert [row.tag for row in rows if row.tag != "="] == ["~"]


def test_a_diff_cut_twice_counts_every_line_left_out():
    """Cut to 3 lines when found, to 1 by the message's budget: the count is of the whole diff."""
    before, after = _compiled_text(1e-3), _compiled_text(3e-4)
    whole = unified(edit_script("hlo", before, after), sys.maxsize)
    finding = compare_text("compiled", before, after, diff_lines=3)
    assert (finding.diff, finding.omitted) == (tuple(whole[:3]), len(whole) - 3)
    verdict = Verdict(failing=(finding,))
    message = call_message(Call("f", "cpu1", "snapshots/x/", {}), verdict, notes=[], diff_lines=1, full=False)
    lines = message.splitlines()
    assert lines[-3:-1] == [f"    {whole[0]}", f"    ... {len(whole) - 1} more diff lines (see -vv or --stages-report)"]


MAIN = "func.func public @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<4x4xf32>) {\n"
DOT = ", contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>\n"


def test_a_consumer_reading_an_inserted_op_is_paired_and_its_rename_learned():
    before = (
        MAIN + f"  %0 = stablehlo.dot_general %arg0, %arg1{DOT}"
        "  %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<4x4xf32>\n"
        "  %2 = stablehlo.divide %0, %1 : tensor<4x4xf32>\n"
        "  return %2 : tensor<4x4xf32>\n}\n"
    )
    after = (
        MAIN + "  %0 = stablehlo.sine %arg0 : tensor<4x4xf32>\n"
        f"  %1 = stablehlo.dot_general %0, %arg1{DOT}"
        "  %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<4x4xf32>\n"
        "  %3 = stablehlo.divide %1, %2 : tensor<4x4xf32>\n"
        "  return %3 : tensor<4x4xf32>\n}\n"
    )
    rows = edit_script("mlir", before, after).rows
    assert [(row.tag, row.old, row.new) for row in rows if row.tag != "="] == [("+", None, 1), ("~", 1, 2)]


def test_a_cost_key_xla_omits_is_zero():
    before = {"compiled": {"flops": 100.0, "transcendentals": 26898.0}}
    after = {"compiled": {"flops": 100.0}}
    (finding,) = compare_metrics("cost", before, after, {})
    assert (finding.message, finding.failing) == (
        "transcendentals 26898 -> 0 (-100.0%): improved; run `pytest --stages-update` to accept it",
        False,
    )
    (finding,) = compare_metrics("cost", after, before, {})
    assert (finding.message, finding.failing) == ("transcendentals 0 -> 26898 (from 0, tolerance 0.1%)", True)


def test_less_aliasing_is_a_regression_not_an_improvement():
    (finding,) = compare_metrics("memory", {"alias_size_in_bytes": 8192}, {"alias_size_in_bytes": 0}, {})
    assert finding.failing
    assert finding.message == (
        "alias_bytes 8192 -> 0 (-100.0%, tolerance exact): fewer bytes shared between inputs and outputs"
    )
    (finding,) = compare_metrics("memory", {"alias_size_in_bytes": 0}, {"alias_size_in_bytes": 8192}, {})
    assert not finding.failing


def test_a_lost_donation_is_one_finding_per_leaf():
    def leaf(donated):
        return {"sharding": None, "donated": donated, "aliased_to": "output" if donated else None}

    before = {"inputs": {"y": leaf(True)}, "outputs": {}, "collectives": []}
    after = {"inputs": {"y": leaf(False)}, "outputs": {}, "collectives": []}
    assert [f.message for f in compare_placement("sharding", before, after)] == [
        "input y no longer donated (XLA had reused its buffer)"
    ]
    assert [f.message for f in compare_placement("sharding", after, before)] == [
        "input y is now donated (XLA reuses its buffer)"
    ]


@pytest.mark.parametrize("metric", ["bytes accessed0{}", "bytes accessed1{}", "bytes accessedout{}"])
def test_a_bytes_accessed_tolerance_covers_the_per_operand_figures(metric):
    assert metric_tolerance(metric, 100.0, 150.0, {"bytes accessed": 0.5}) == 0.5
    assert metric_tolerance(metric, 100.0, 150.0, {"bytes accessed": 0.5, metric: 0.2}) == 0.2
    assert compare_metrics("cost", {metric: 100.0}, {metric: 140.0}, {"bytes accessed": 0.5}) == []


def test_an_unknown_tolerance_metric_names_the_choices():
    with pytest.raises(ConfigError) as info:
        parse_settings({"tolerance": {"flop": 0.1}})
    assert str(info.value).startswith(
        "[tool.pytest_stages.tolerance]: unknown metric 'flop' (did you mean 'flops'?); choose from default, flops, "
        "transcendentals, bytes_accessed, argument_bytes,"
    )
    assert parse_settings({"tolerance": {"bytes accessedout{}": 0.1}}).tolerance == {"bytes accessedout{}": 0.1}
    with pytest.raises(ConfigError, match=re.escape("unknown metric 'flops0{}'")):
        parse_settings({"tolerance": {"flops0{}": 0.1}})


UNUSED = """
import jax, jax.numpy as jnp

def f(x, unused, y):
    return x + y

def test_f(stage_snapshot):
    s = jax.ShapeDtypeStruct((1024,), jnp.float32)
    stage_snapshot(jax.jit(f, donate_argnums=2), s, s, s)
"""


def test_an_input_jit_drops_keeps_every_leaf_aligned(project):
    project.write("test_unused.py", UNUSED)
    project.run("--stages-update").assert_outcomes(passed=1)
    sharding = json.loads(project.snapshots()["test_unused/test_f/cpu1/f.sharding.json"])
    inputs = sharding["inputs"]
    assert sorted(inputs) == ["unused", "x", "y"]
    assert inputs["unused"] == {"aliased_to": None, "donated": False, "sharding": None}
    assert (inputs["y"]["donated"], inputs["y"]["aliased_to"]) == (True, "output")
    assert (inputs["x"]["donated"], inputs["x"]["aliased_to"]) == (False, None)
    layout = json.loads(project.snapshots()["test_unused/test_f/cpu1/f.layout.json"])
    assert sorted(layout["inputs"]) == ["unused", "x", "y"]


def test_a_budget_with_a_malformed_number_is_a_usage_error(project):
    project.configure("[tool.pytest_stages.budgets]\n'*' = { temp_bytes = '1.2.3 MiB' }\n")
    project.write("test_unused.py", UNUSED)
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert (
        "ERROR: pytest-stages: [tool.pytest_stages.budgets] '*' temp_bytes: '1.2.3 MiB' is not a size; "
        "write e.g. 64 MiB, 1.5 GB or 4096." in result.stderr.str()
    )


def test_identical_per_leaf_changes_are_one_line():
    def leaf(donated):
        return {"sharding": None, "donated": donated, "aliased_to": "output" if donated else None}

    names = [f"params[{k}]" for k in range(19)]
    before = {"inputs": {n: leaf(True) for n in names}, "outputs": {}, "collectives": []}
    after = {"inputs": {n: leaf(n == "params[7]") for n in names}, "outputs": {}, "collectives": []}
    assert [f.message for f in compare_placement("sharding", before, after)] == [
        "18 inputs (params[0], params[10], params[11], +15 more) no longer donated (XLA had reused its buffer)"
    ]


SHARDED = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
import pytest

from conftest import TWO_CONFIGS

SPEC = "model"

def layer(w, b, x):
    return jnp.tanh(x @ w + b)

@pytest.mark.stages(configs=["cpu8"])
def test_layer(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    w = jax.ShapeDtypeStruct((512, 512), jnp.float32, sharding=NamedSharding(mesh, P(None, SPEC)))
    b = jax.ShapeDtypeStruct((512,), jnp.float32, sharding=NamedSharding(mesh, P(SPEC)))
    x = jax.ShapeDtypeStruct((64, 512), jnp.float32, sharding=NamedSharding(mesh, P("data")))
    stage_snapshot(layer, w, b, x)
"""


def _failure(result, name: str = "layer") -> list[str]:
    lines = result.outlines
    start = next(k for k, line in enumerate(lines) if line.startswith(f"pytest-stages: {name!r}"))
    end = next(k for k, line in enumerate(lines) if line.startswith("Run `pytest --stages-update`"))
    return lines[start : end + 1]


def test_a_failure_opens_with_one_headline_line_per_kind_in_order(project):
    project.configure(configs=TWO_CONFIGS)
    project.write("test_layer.py", SHARDED)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_layer.py", SHARDED.replace('SPEC = "model"', "SPEC = None"))
    result = project.run()
    result.assert_outcomes(failed=1)
    message = _failure(result)
    assert message[1:6] == [
        "  sharding: input b: P('model') -> P(None); input w: P(None, 'model') -> P(None, None); "
        "output output: P('data', 'model') -> P('data', None)",
        "  memory: xla_peak_bytes +94.3%; argument_bytes +94.1%; output_bytes +100.0%",
        "  cost: flops +100.0%; bytes_accessed +94.6%; transcendentals +100.0%",
        "  op structure: entry shapes changed",
        "  IR: jaxpr, stablehlo, compiled changed at test_layer.py:11 in layer (4 changed)",
    ]
    details = [line.split(" ")[1] for line in message if line.startswith("- ")]
    assert details == ["sharding", "memory", "cost", "ops", "jaxpr", "stablehlo", "compiled"]
    diff = [line for line in message[message.index("- jaxpr (layer.jaxpr.txt): IR drift") :] if line[4:5] in "-+ @"]
    assert len(diff) <= 60 + 2
    assert message[-2] == "    ... 22 more diff lines (see -vv or --stages-report)"
    full = _failure(project.run("-vv"))
    assert not any("see -vv" in line for line in full)
    assert len(full) > len(message)


SIGNATURE = """
import jax, jax.numpy as jnp

def apply(params, x):
    return jnp.tanh(x @ params["l1"]["kernel"]).sum()

def test_apply(stage_snapshot):
    params = {"l1": {"kernel": jax.ShapeDtypeStruct((64, WIDTH), jnp.float32)}}
    stage_snapshot(apply, params, jax.ShapeDtypeStruct((8, 64), jnp.float32))
"""


def test_changed_argument_shapes_get_an_input_signature_line(project):
    project.write("test_apply.py", SIGNATURE.replace("WIDTH", "128"))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_apply.py", SIGNATURE.replace("WIDTH", "160"))
    result = project.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'apply' on config cpu1 differs from its snapshots in snapshots/test_apply/test_apply/cpu1/",
            "  inputs: params['l1']['kernel'] f32[64,128] -> f32[64,160]",
        ]
    )


def test_source_lines_prefer_the_users_frame_over_installed_libraries(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "fakeopt"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import jax.numpy as jnp\n\ndef update(x):\n    return jnp.sin(x) * 3\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site-packages"))
    import fakeopt

    def step(x):
        return fakeopt.update(x) + 1

    line = step.__code__.co_firstlineno + 1
    lowered = jax.jit(step).lower(jax.ShapeDtypeStruct((4,), jnp.float32))
    compiled = lowered.compile().as_text()
    for located in (
        hlo_locations(compiled, normalize_hlo(compiled)),
        mlir_locations(lowered.as_text(debug_info=True), normalize_mlir(lowered.as_text())),
    ):
        places = {where for where in describe_all(located, Path(__file__).parent) if where}
        assert any(where.startswith(f"test_findings.py:{line} in ") and where.endswith("step") for where in places)
        assert not any("fakeopt" in where for where in places)
    library = Location(str(package / "__init__.py"), 4, "update")
    assert library.describe(Path(__file__).parent) == "fakeopt/__init__.py:4 in update"
    assert preferred([library, None]) is library


def test_the_html_review_page_lists_failures_first():
    def call(nodeid, findings):
        return {
            "nodeid": nodeid,
            "name": "f",
            "config": "cpu1",
            "folder": "x",
            "versions": "",
            "deltas": {},
            "findings": findings,
        }

    drift = {"summary": ["ops: +1 sine"], "sources": [], "hunks": [], "truncated": False}
    passing = call(
        "test_a.py::test_passes",
        [
            {"kind": "text", "artifact": "jaxpr", "message": "IR drift", "failing": False, "detail": drift},
        ],
    )
    failing = call(
        "test_b.py::test_fails",
        [
            {"kind": "text", "artifact": "jaxpr", "message": "IR drift", "failing": True, "detail": drift},
            {"kind": "cost", "artifact": "cost", "message": "flops 1 -> 2 (+100.0%, tolerance 0.1%)", "failing": True},
            {
                "kind": "cost",
                "artifact": "cost",
                "message": "bytes accessed 2 -> 1 (-50.0%): improved",
                "failing": False,
            },
        ],
    )
    calls = [CallRecord.from_dict(passing), CallRecord.from_dict(failing)]
    text = page(calls, [["test", "config", "name", "deltas"]], {"jax": "0.10.2", "jaxlib": "0.10.2"}, Mode.COMPARE)
    assert text.index("test_b.py::test_fails") < text.index("test_a.py::test_passes")
    section = text[text.index("test_b.py::test_fails") : text.index("test_a.py::test_passes")]
    assert section.index("flops 1 -&gt; 2") < section.index("jaxpr: IR drift") < section.index("improved")


def test_removed_leaves_are_grouped_and_never_crash_the_comparison():
    def leaf():
        return {"sharding": {"kind": "SingleDeviceSharding", "devices": [0]}}

    before = {"inputs": {}, "outputs": {f"output[1][{k}]": leaf() for k in range(7)}, "collectives": []}
    after = {"inputs": {}, "outputs": {"output[0]": leaf()}, "collectives": []}
    assert [f.message for f in compare_placement("sharding", before, after)] == [
        "output output[0]: new leaf (SingleDeviceSharding on devices [0])",
        "7 outputs (output[1][0], output[1][1], output[1][2], +4 more): leaf removed",
    ]


BERT = """
import equinox as eqx
import jax

EPS = 1e-5


class Block(eqx.Module):
    norm: eqx.nn.LayerNorm
    dense: eqx.nn.Linear

    def __init__(self, key):
        self.norm = eqx.nn.LayerNorm(64, eps=EPS)
        self.dense = eqx.nn.Linear(64, 64, key=key)

    def __call__(self, x):
        return jax.nn.gelu(jax.vmap(self.dense)(jax.vmap(self.norm)(x)))
"""

BERT_TEST = """
import equinox as eqx
import jax, jax.numpy as jnp
import bert

def test_block(stage_snapshot):
    params, static = eqx.partition(bert.Block(jax.random.key(0)), eqx.is_array)
    block = jax.jit(lambda p, x: eqx.combine(p, static)(x))
    stage_snapshot(block, params, jax.ShapeDtypeStruct((8, 64), jnp.float32), name="block")
"""


def test_a_changed_constant_names_old_and_new_value_at_the_model_modules_line(project):
    """The epsilon lives in equinox's LayerNorm; the line named is the model module's, not the
    library's or the test file's, and the headline says the value."""
    pytest.importorskip("equinox")
    project.write("bert.py", BERT)
    project.write("test_bert.py", BERT_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("bert.py", BERT.replace("EPS = 1e-5", "EPS = 1e-12"))
    result = project.run()
    result.assert_outcomes(failed=1)
    line = 1 + BERT.splitlines().index("        return jax.nn.gelu(jax.vmap(self.dense)(jax.vmap(self.norm)(x)))")
    message = _failure(result, "block")
    eps = 1 + BERT.splitlines().index("EPS = 1e-5")
    assert message[1] == (
        f"  IR: jaxpr, stablehlo, compiled changed; stablehlo: 1e-05 -> 1e-12 at bert.py:{line} in Block.__call__"
        f"; 1e-12 is EPS at bert.py:{eps}"
    )
    # The jaxpr keeps one frame per equation, equinox's; the headline names the model's line instead.
    assert "    constants: 1e-05 -> 1e-12 at equinox/nn/_normalisation.py:152 in LayerNorm.__call__" in message
