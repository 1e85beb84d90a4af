"""Production topologies: a hybrid mesh over two slices, collectives within (ICI) and across (DCN) them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_stages.check.collectives import dcn_changes
from pytest_stages.ir.hlo import network_collectives

TWO_SLICES = """
[[tool.pytest_stages.configs]]
name = "v5p2"
platform = "tpu"
topology = "v5p:2x2x1"
num_slices = 2
mesh = { data = 1, fsdp = 4 }
dcn_mesh = { data = 2 }
"""

# ``colsum`` reduces over the batch: sharded over "fsdp" it reduces within a slice, over "data" across.
SUM = """
import jax, jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P

BUDGET
def test_sum(stage_snapshot, stage_config):
    assert stage_config.mesh.shape == {"data": 2, "fsdp": 4}
    x = jax.ShapeDtypeStruct((256, 1024), jnp.bfloat16, sharding=NamedSharding(stage_config.mesh, P(AXIS)))
    stage_snapshot(jax.jit(lambda x: x.sum(0), out_shardings=NamedSharding(stage_config.mesh, P())), x, name="colsum")
"""


def sum_test(axis: str, budget: str = "") -> str:
    return SUM.replace("AXIS", repr(axis)).replace("BUDGET", budget)


@pytest.mark.extras("tpu")
def test_a_reduction_that_moves_across_slices_is_the_headline(project):
    project.configure(configs=TWO_SLICES)
    project.write("test_sum.py", sum_test("fsdp"))
    project.run("--stages-update").assert_outcomes(passed=1)
    files = project.snapshots()
    ops = json.loads(files["test_sum/test_sum/v5p2/colsum.ops.json"])
    assert ops["networks"]["dcn"]["count"] == 0 and ops["networks"]["ici"]["count"] >= 1
    sharding = json.loads(files["test_sum/test_sum/v5p2/colsum.sharding.json"])
    assert sharding["networks"]["dcn"] == {"count": 0, "bytes": 0}
    meta = json.loads(files["test_sum/test_sum/v5p2/_stages.json"])
    assert meta["devices"] == 8

    project.write("test_sum.py", sum_test("data"))
    result = project.run()
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "all-reduce bf16[" in out and "now crosses slices: +" in out and "over DCN" in out, out


@pytest.mark.extras("tpu")
def test_dcn_bytes_are_budgeted(project):
    project.configure(configs=TWO_SLICES)
    project.write("test_sum.py", sum_test("data", '@pytest.mark.stages_budget(dcn_bytes="1 KiB")'))
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["  budget: dcn_bytes * exceeds the ceiling 1.0 KiB"])
    project.write("test_sum.py", sum_test("fsdp", '@pytest.mark.stages_budget(dcn_bytes="1 KiB")'))
    project.run("--stages-update").assert_outcomes(passed=1)


MEGASCALE = 'frontend_attributes={_xla_megascale_transfer_type="ALL_REDUCE"}'


def test_collectives_are_told_apart_by_their_groups_slices():
    text = """HloModule m

ENTRY %main (p: f32[8]) -> f32[8] {
  %p = f32[8]{0} parameter(0)
  %a = f32[8]{0} all-reduce(%p), channel_id=1, replica_groups={{0,1},{2,3}}, to_apply=%add
  %b = f32[8]{0} all-reduce(%a), channel_id=2, replica_groups=[2,2]<=[2,2]T(1,0), to_apply=%add
  %s = (f32[2,4]{1,0}, u32[], token[]) send(%b, %t), channel_id=3, is_host_transfer=true, MEGASCALE
  ROOT %c = f32[8]{0} copy(%b)
}
""".replace("MEGASCALE", MEGASCALE)
    found = [(c.op, c.shape, c.bytes, crosses) for c, crosses, _ in network_collectives(text, (0, 0, 1, 1))]
    assert found == [
        ("all-reduce", "f32[8]", 32, False),
        ("all-reduce", "f32[8]", 32, True),
        ("all-reduce", "f32[2,4]", 32, True),
    ]


def test_dcn_changes_name_a_new_crossing_else_the_growth():
    def ops(*shapes):
        collectives = [{"op": "all-reduce", "shape": s, "bytes": b} for s, b in shapes]
        return {
            "networks": {"dcn": {"count": len(shapes), "bytes": sum(b for _, b in shapes), "collectives": collectives}}
        }

    assert dcn_changes(ops(), ops(("bf16[2048,8192]", 32 << 20))) == [
        "all-reduce bf16[2048,8192] now crosses slices: +32.0 MiB over DCN"
    ]
    assert dcn_changes(ops(("f32[4]", 16)), ops(("f32[4]", 16))) == []
    assert dcn_changes({}, {}) == []


def test_a_memory_budget_as_a_share_of_the_device_says_the_headroom():
    from pytest_stages.check.budgets import Share, check_budget, parse_budget
    from pytest_stages.stage.activation import TPU_MEMORY

    v5e = TPU_MEMORY[("TPU v5 lite", None)]
    gib = 2**30
    memory = {
        "argument_size_in_bytes": 8 * gib,
        "output_size_in_bytes": 6 * gib,
        "generated_code_size_in_bytes": 0,
        "temp_size_in_bytes": gib // 2,
        "alias_size_in_bytes": 0,
        "peak_memory_in_bytes": 20 * gib,
    }
    budget = parse_budget("b", {"peak_bytes": "90%", "temp_bytes": "50%"})
    assert budget == {"peak_bytes": Share(0.9), "temp_bytes": Share(0.5)}
    found = check_budget(budget, {"memory": memory}, device_memory=v5e)
    assert [(f.message, f.failing) for f in found] == [
        (
            "peak_bytes 14.5 GiB is 92.1% of the device's 15.7 GiB, over the ceiling 90% (14.2 GiB): "
            "1.2 GiB left on the device",
            True,
        ),
        (
            "temp_bytes 512.0 MiB is 3.2% of the device's 15.7 GiB, within the ceiling 50%: "
            "headroom 7.4 GiB to it, 15.2 GiB left",
            False,
        ),
    ]
    memory["output_size_in_bytes"] = 4 * gib
    found = check_budget({"peak_bytes": Share(0.9)}, {"memory": memory}, device_memory=v5e)
    assert [(f.message, f.failing) for f in found] == [
        (
            "peak_bytes 12.5 GiB is 79.4% of the device's 15.7 GiB, within the ceiling 90%: "
            "headroom 1.7 GiB to it, 3.2 GiB left",
            False,
        )
    ]
    assert [f.message for f in check_budget({"peak_bytes": Share(0.9)}, {"memory": memory})] == [
        "peak_bytes 90%: the device's memory is not known here"
    ]


@pytest.mark.extras("tpu")
def test_the_pods_example_passes_against_its_committed_snapshots():
    """examples/pods, a project of its own: two v5p slices and one v5e chip, compared in a fresh process."""
    pods = Path(__file__).resolve().parent.parent / "examples" / "pods"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-W", "ignore"]
    done = subprocess.run(command, cwd=pods, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:]


@pytest.mark.extras("tpu")
def test_a_mesh_the_pod_cannot_lay_out_is_one_clear_error():
    from pytest_stages.config.device_configs import parse_configs
    from pytest_stages.core.errors import ConfigError
    from pytest_stages.stage.activation import activate

    entry = {"name": "pod", "platform": "tpu", "topology": "v5p:8x8x4", "mesh": {"data": 16, "fsdp": 16}}
    with pytest.raises(ConfigError) as caught:
        activate(parse_configs([entry])[0])
    message = str(caught.value)
    assert message.startswith("config 'pod': mesh data=16 x fsdp=16 cannot be laid over topology 'v5p:8x8x4': ")
    assert "Choose axis sizes that are each a product of the topology's physical axes" in message
    assert "\n" not in message
    (pod,) = parse_configs([{**entry, "mesh": {"data": 8, "fsdp": 32}}])
    assert len(activate(pod).devices) == 256


V4_MEGACORE = """
[[tool.pytest_stages.configs]]
name = "v4mc"
platform = "tpu"
topology = "v4:2x2x1"
chip_config_name = "megacore"
"""


@pytest.mark.extras("tpu")
def test_v4_megacore_stages_and_compares_clean(project):
    project.configure(configs=V4_MEGACORE)
    project.write(
        "test_mc.py",
        """
import jax.numpy as jnp
import pytest

@pytest.mark.stages_budget(peak_bytes="90%")
def test_mc(stage_snapshot, stage_config):
    assert len(stage_config.devices) == 4 and stage_config.device_memory.bytes == round(30.75 * 2**30)
    stage_snapshot(lambda x: jnp.tanh(x).sum(), jnp.ones((256, 128)), name="tanh")
""",
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    result = project.run()
    result.assert_outcomes(passed=1)
    # The summary table's deltas column says how much the program may still grow.
    result.stdout.fnmatch_lines(["*test_mc.py::test_mc*tanh*peak_bytes headroom 27.* GiB*"])


@pytest.mark.parametrize("share", ["120%", "0%", "lots%"])
def test_a_memory_share_out_of_range_is_one_clear_error(share):
    from pytest_stages.check.budgets import parse_budget
    from pytest_stages.core.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        parse_budget("budget", {"peak_bytes": share})
    assert str(caught.value) == (
        f"budget peak_bytes: {share!r} is not a share of the device's memory; "
        'write a percentage from 0 to 100, e.g. "90%".'
    )


def test_dcn_bytes_count_a_collective_once_per_loop_iteration():
    from pytest_stages.analyse.analyses import networks

    text = """HloModule m

%body (p: (s32[], f32[8])) -> (s32[], f32[8]) {
  %p = (s32[], f32[8]{0}) parameter(0)
  %x = f32[8]{0} get-tuple-element(%p), index=1
  %r = f32[8]{0} all-reduce(%x), channel_id=1, replica_groups={{0,2},{1,3}}, to_apply=%add
  %i = s32[] get-tuple-element(%p), index=0
  ROOT %t = (s32[], f32[8]{0}) tuple(%i, %r)
}

%cond (q: (s32[], f32[8])) -> pred[] {
  %q = (s32[], f32[8]{0}) parameter(0)
  ROOT %c = pred[] constant(true)
}

ENTRY %main (a: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %s = f32[8]{0} all-reduce(%a), channel_id=2, replica_groups={{0,1},{2,3}}, to_apply=%add
  %z = s32[] constant(0)
  %init = (s32[], f32[8]{0}) tuple(%z, %s)
  %w = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"12"}}
  ROOT %o = f32[8]{0} get-tuple-element(%w), index=1
}
"""
    found = networks(text, (0, 0, 1, 1))
    assert found["dcn"] == {
        "count": 1,
        "bytes": 12 * 32,
        "collectives": [{"op": "all-reduce", "shape": "f32[8]", "bytes": 32, "iterations": 12}],
    }
    assert found["ici"] == {
        "count": 1,
        "bytes": 32,
        "collectives": [{"op": "all-reduce", "shape": "f32[8]", "bytes": 32}],
    }
