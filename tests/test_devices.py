"""Device configurations on 8 virtual CPU devices: ids, narrowing, meshes, sharding and donation drift, platforms."""

from __future__ import annotations

import pytest
from conftest import TWO_CONFIGS as CONFIGS

TPU = """
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
mesh = { data = 4, model = 2 }
"""

SHARDED = """
import jax, jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P

@pytest.mark.stages(configs=["cpu8"])
def test_sharded(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    x = jax.ShapeDtypeStruct((64, 512), jnp.float32, sharding=NamedSharding(mesh, SPEC))
    stage_snapshot(FN, x, name="scale")
"""


def sharded(spec="P('data')", fn="jax.jit(lambda x: x * 2)"):
    return SHARDED.replace("SPEC", spec).replace("FN", fn)


@pytest.fixture
def multi(project):
    project.configure(configs=CONFIGS)
    return project


def test_each_config_is_a_test_id(multi):
    multi.write(
        "test_ids.py",
        """
        def test_f(stage_config):
            assert stage_config.name in ("cpu1", "cpu8")
            assert len(stage_config.devices) == {"cpu1": 1, "cpu8": 8}[stage_config.name]

        def test_plain():
            pass
    """,
    )
    result = multi.run("-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["*test_ids.py::test_f?cpu1? PASSED*", "*test_ids.py::test_f?cpu8? PASSED*", "*test_plain PASSED*"]
    )


def test_mesh_comes_from_the_config(multi):
    multi.write(
        "test_mesh.py",
        """
        from jax.sharding import AxisType

        def test_mesh(stage_config):
            expected = {"cpu1": {"data": 1}, "cpu8": {"data": 4, "model": 2}}[stage_config.name]
            assert dict(stage_config.mesh.shape) == expected
            assert stage_config.attached and stage_config.platform == "cpu"
            assert list(stage_config.mesh.devices.flat) == list(stage_config.devices)
    """,
    )
    multi.run().assert_outcomes(passed=2)


def test_axis_types_are_configurable(project):
    project.configure(
        configs=CONFIGS.replace(
            "mesh = { data = 4, model = 2 }", 'mesh = { data = 4, model = 2 }\naxis_types = ["auto", "explicit"]'
        )
    )
    project.write(
        "test_axes.py",
        """
        from jax.sharding import AxisType
        import pytest

        @pytest.mark.stages(configs=["cpu8"])
        def test_axes(stage_config):
            assert stage_config.mesh.axis_types == (AxisType.Auto, AxisType.Explicit)
    """,
    )
    project.run().assert_outcomes(passed=1)


def test_without_a_mesh_axis_types_apply_to_the_default_axis_and_a_lowered_only_mesh_is_explicit(project):
    project.configure(
        configs="""
[[tool.pytest_stages.configs]]
name = "cpu4"
devices = 4
axis_types = "auto"

[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
devices = 4
mesh = { data = 2, model = 2 }
"""
    )
    project.write(
        "test_axes.py",
        """
        from jax.sharding import AxisType

        def test_axes(stage_config):
            expected = {"cpu4": (AxisType.Auto,), "tpu": (AxisType.Explicit, AxisType.Explicit)}
            assert stage_config.mesh.axis_types == expected[stage_config.name]
    """,
    )
    project.run().assert_outcomes(passed=2)


def test_marker_and_command_line_narrow_configs(multi):
    multi.write(
        "test_narrow.py",
        """
        import pytest

        @pytest.mark.stages(configs=["cpu8"])
        def test_only8(stage_config):
            assert stage_config.name == "cpu8"

        def test_both(stage_config):
            pass
    """,
    )
    result = multi.run("-v", "--stages-configs=cpu1")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["*test_only8?no-config? SKIPPED*", "*test_both?cpu1? PASSED*"])
    multi.run("-v").assert_outcomes(passed=3)


def test_unknown_config_names_are_usage_errors_and_a_marker_one_fails_only_its_test(multi):
    multi.write(
        "test_unknown.py",
        """
        import pytest

        @pytest.mark.stages(configs=["gpu4"])
        def test_f(stage_config):
            pass

        def test_g(stage_config):
            pass
    """,
    )
    result = multi.run("--stages-configs=cpu9")
    assert result.ret == 4
    assert (
        "ERROR: pytest-stages: --stages-configs: unknown name 'cpu9' (did you mean 'cpu8'?); choose from cpu1, cpu8."
        in result.stderr.str()
    )
    result = multi.run()
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: @pytest.mark.stages(configs=...) on test_unknown.py::test_f: unknown name 'gpu4'; "
            "choose from cpu1, cpu8.",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_mesh_that_does_not_match_the_device_count_is_a_usage_error(project):
    project.configure(
        configs='[[tool.pytest_stages.configs]]\nname = "big"\ndevices = 8\nmesh = { data = 4, model = 4 }\n'
    )
    result = project.run()
    assert result.ret == 4
    assert (
        "config 'big': mesh data=4 x model=4 holds 16 devices but devices = 8; "
        "make the axis sizes multiply to the device count." in result.stderr.str()
    )


def test_more_devices_than_the_started_backend_has_is_a_clear_error(project):
    project.configure(configs='[[tool.pytest_stages.configs]]\nname = "cpu16"\ndevices = 16\n')
    project.write("test_big.py", "def test_f(stage_config):\n    pass\n")
    result = project.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: config 'cpu16' needs 16 CPU devices but JAX has 8: its backend started before "
            "pytest-stages could set the count*JAX_NUM_CPU_DEVICES=16."
        ]
    )


def test_changed_partition_spec_fails_as_a_sharding_change(multi):
    multi.write("test_sh.py", sharded())
    multi.run("--stages-update").assert_outcomes(passed=1)
    multi.write("test_sh.py", sharded("P(None, 'model')"))
    result = multi.run("--stages-check=sharding")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "- sharding (scale.sharding.json):",
            "    input x: P('data') over mesh(data=4,model=2) -> P(None, 'model') over mesh(data=4,model=2)",
            "    output output: P('data', None) over mesh(data=4,model=2) -> "
            "P(None, 'model') over mesh(data=4,model=2)",
            "  also changed, but not checked in this run: jaxpr, stablehlo, compiled, cost, memory*",
        ]
    )


def test_lost_donation_fails_as_a_donation_change(multi):
    multi.write("test_sh.py", sharded(fn="jax.jit(lambda x: x * 2, donate_argnums=0)"))
    multi.run("--stages-update").assert_outcomes(passed=1)
    snapshot = (multi.path / "snapshots/test_sh/test_sharded/cpu8/scale.sharding.json").read_text()
    assert '"aliased_to": "output"' in snapshot and '"donated": true' in snapshot
    multi.write("test_sh.py", sharded())
    result = multi.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "  sharding: input x no longer donated (XLA had reused its buffer) at test_sh.py:10 in test_sharded",
            "  memory: xla_peak_bytes +100.0%; alias_bytes -100.0%",
            "  IR: stablehlo, compiled changed; stablehlo: tf.aliasing_output 0 -> unset",
            "- sharding (scale.sharding.json): input x no longer donated (XLA had reused its buffer)",
            "- memory (scale.memory.json):",
            "    alias_bytes 32768 -> 0 (-100.0%, tolerance exact): fewer bytes shared between inputs and outputs",
        ]
    )
    assert "improved" not in result.stdout.str()


def test_output_sharding_that_forces_an_all_gather_reports_the_collective(multi):
    multi.write("test_sh.py", sharded())
    multi.run("--stages-update").assert_outcomes(passed=1)
    multi.write("test_sh.py", sharded(fn="jax.jit(lambda x: x * 2, out_shardings=NamedSharding(mesh, P()))"))
    result = multi.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "  sharding: output output: P('data', None) -> P(); collectives: +1 all-gather f32?64,512? (128.0 KiB)",
            "- sharding (scale.sharding.json):",
            "    output output: P('data', None) over mesh(data=4,model=2) -> P() over mesh(data=4,model=2)",
            "    collectives: +1 all-gather f32?64,512? (128.0 KiB)",
            "- compiled (scale.compiled.hlo.txt): IR drift",
            "    ops: +1 all-gather*",
            "    collectives: +1 all-gather f32?64,512? (128.0 KiB)",
        ]
    )


def test_a_foreign_platform_is_lowered_never_compiled(project):
    project.configure(configs=CONFIGS + TPU)
    project.write(
        "test_tpu.py",
        sharded().replace('configs=["cpu8"]', 'configs=["tpu"]')
        + """
def test_plain_tpu(stage_snapshot, stage_config):
    if stage_config.name != "tpu":
        pytest.skip("tpu only")
    result = stage_snapshot(lambda x: jnp.sin(x) @ x.T, jax.ShapeDtypeStruct((8, 8), jnp.float32), name="sinmm")
    assert result.compiled is None and result.cost_source == "lowered" and result.cost["flops"] == 1024
    assert set(result.skipped) == {"compiled", "memory", "ops", "sharding", "layout"}
    assert "tpu" in result.lowered.as_text() or "mhlo.num_partitions" in result.lowered.as_text()
""",
    )
    result = project.run("--stages-update", "-k", "tpu")
    result.assert_outcomes(passed=2, skipped=2)
    files = project.snapshots()
    assert set(files) == {
        "test_tpu/test_sharded/tpu/_stages.json",
        "test_tpu/test_sharded/tpu/scale.jaxpr.txt",
        "test_tpu/test_sharded/tpu/scale.stablehlo.mlir",
        "test_tpu/test_sharded/tpu/scale.cost.json",
        "test_tpu/test_plain_tpu/tpu/_stages.json",
        "test_tpu/test_plain_tpu/tpu/sinmm.jaxpr.txt",
        "test_tpu/test_plain_tpu/tpu/sinmm.stablehlo.mlir",
        "test_tpu/test_plain_tpu/tpu/sinmm.cost.json",
    }
    assert '"platform": "tpu"' in files["test_tpu/test_sharded/tpu/_stages.json"].decode()
    assert (
        'sdy.mesh @mesh = <["data"=4, "model"=2]>' in files["test_tpu/test_sharded/tpu/scale.stablehlo.mlir"].decode()
    )
    result.stdout.fnmatch_lines(
        [
            "*test_plain_tpu?tpu?*tpu*sinmm*written*written*skipped*skipped*skipped*",
            "pytest-stages: config tpu: compiled, layout, memory, ops, sharding not checked here: platform 'tpu' is "
            "not attached: lowered for it, never compiled (compiling would silently build code for the local backend)",
        ]
    )
    again = project.run("-k", "tpu")
    again.assert_outcomes(passed=2, skipped=2)
    again.stdout.fnmatch_lines(["*test_plain_tpu?tpu?*tpu*sinmm*ok*ok*skipped*skipped*skipped*"])
