"""Compile-only TPU and GPU topologies, lowered cost on foreign platforms, partitioners, HBM budgets."""

from __future__ import annotations

import json
import subprocess
import sys

import jax
import pytest

from pytest_stages.config.device_configs import parse_configs
from pytest_stages.core.errors import ConfigError

V5E = """
[[tool.pytest_stages.configs]]
name = "v5e"
platform = "tpu"
topology = "v5e:2x2"
mesh = { data = 2, model = 2 }
"""

H100 = """
[[tool.pytest_stages.configs]]
name = "h100"
platform = "cuda"
topology = "1x1x4"
gpu = "h100"
mesh = { data = 2, model = 2 }
"""

TPU_LOWERED = """
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
"""

STEP = """
import jax, jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding, PartitionSpec as P

def step(w, x):
    return jnp.tanh(x @ w).sum()

def test_step(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    w = jax.ShapeDtypeStruct((512, 256), jnp.float32, sharding=NamedSharding(mesh, P(None, W_SPEC)))
    x = jax.ShapeDtypeStruct((64, 512), jnp.float32, sharding=NamedSharding(mesh, P("data")))
    result = stage_snapshot(step, w, x)
    assert result.compiled is not None and result.memory["peak_memory_in_bytes"] > 0

def test_unsharded(stage_snapshot):
    import numpy as np
    result = stage_snapshot(lambda a, b: a @ b, jax.ShapeDtypeStruct((128, 128), jnp.float32),
                            np.ones((128, 128), np.float32), name="matmul")
    assert result.cost["flops"] > 0
"""


def step(w_spec='"model"'):
    return STEP.replace("W_SPEC", w_spec)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"platform": "gpu"}, "platform 'gpu' is ambiguous (JAX reads it as whichever of cuda or rocm is installed)"),
        ({"platform": "metal"}, "platform 'metal' is not one of ['cpu', 'tpu', 'cuda', 'rocm']"),
        ({"topology": "v5e:2x2"}, 'topology needs platform = "tpu" or "cuda", got None'),
        ({"platform": "tpu", "topology": "2x2"}, 'a tpu topology names its chip, e.g. "v5e:2x2"'),
        ({"platform": "tpu", "topology": "v5e 2x2"}, 'must look like "v5e:2x2" (tpu) or "1x1x4"'),
        ({"platform": "cuda", "topology": "1x1x4"}, "a cuda topology needs gpu = a shipped spec name"),
        ({"platform": "cuda", "topology": "4", "gpu": "h100"}, "a cuda topology is slices x hosts x devices"),
        ({"platform": "tpu", "topology": "v5e:2x2", "devices": 4}, "leave devices out of a topology config"),
        ({"gpu": "h100"}, "gpu = 'h100' needs platform = \"cuda\" and a topology"),
        ({"partitioner": "alpa"}, "partitioner 'alpa' is not one of ['shardy', 'gspmd']"),
        ({"num_slices": 2}, 'num_slices applies to a TPU topology only; add platform = "tpu" and a topology'),
        (
            {"platform": "tpu", "topology": "v5e:1x1", "chips_per_host_bounds": [1, 1]},
            "chips_per_host_bounds = [1, 1] must be three positive integers",
        ),
        ({"platform": "tpu", "topology": "v5p:2x2x1", "num_slices": 0}, "num_slices must be a positive integer"),
        (
            {"platform": "tpu", "topology": "v5p:2x2x1", "dcn_mesh": {"data": 2}, "mesh": {"data": 1, "fsdp": 4}},
            "dcn_mesh spreads mesh axes across slices, but num_slices is 1; add num_slices = 2",
        ),
        (
            {"platform": "tpu", "topology": "v5p:2x2x1", "num_slices": 2, "mesh": {"fsdp": 4}},
            "num_slices = 2 with a mesh needs dcn_mesh, each axis's size across slices (their product 2), "
            "e.g. dcn_mesh = { fsdp = 2 }",
        ),
        (
            {"platform": "tpu", "topology": "v5p:2x2x1", "num_slices": 2, "mesh": {"fsdp": 4}, "dcn_mesh": {"data": 2}},
            "dcn_mesh axis 'data' is not in mesh; every dcn_mesh axis must also be in mesh (size 1 there is allowed",
        ),
        (
            {
                "platform": "tpu",
                "topology": "v5p:2x2x1",
                "num_slices": 2,
                "mesh": {"data": 1, "fsdp": 4},
                "dcn_mesh": {"data": 4},
            },
            "dcn_mesh data=4 spans 4 slices but num_slices = 2; make the dcn_mesh sizes multiply to 2.",
        ),
        (
            {"platform": "tpu", "topology": "v5p:2x2x1", "num_slices": 2, "dcn_mesh": {"data": 2}},
            "dcn_mesh needs a mesh giving each axis's size within a slice",
        ),
        (
            {"platform": "tpu", "topology": "v4:2x2x1", "chip_config_name": 3},
            'chip_config_name = 3 must be a name libtpu knows, e.g. "megacore"',
        ),
    ],
)
def test_bad_device_configs_say_why_in_one_line(entry, message):
    with pytest.raises(ConfigError) as caught:
        parse_configs([{"name": "c", **entry}])
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_hybrid_mesh_multiplies_each_axis_within_and_across_slices():
    (config,) = parse_configs(
        [
            {
                "name": "pod",
                "platform": "tpu",
                "topology": "v5p:2x2x1",
                "num_slices": 2,
                "mesh": {"data": 1, "fsdp": 4},
                "dcn_mesh": {"data": 2},
            }
        ]
    )
    assert config.mesh_shape == {"data": 2, "fsdp": 4} and config.devices == 8 and config.num_slices == 2


@pytest.mark.extras("tpu", "cuda")
def test_topology_configs_compile_real_tpu_and_gpu_code(project):
    project.configure(configs=V5E + H100)
    project.write("test_step.py", step())
    result = project.run("--stages-update")
    result.assert_outcomes(passed=4)
    files = project.snapshots()
    v5e = {k.split("/")[-1]: v.decode() for k, v in files.items() if "/test_step/v5e/" in k}
    h100 = {k.split("/")[-1]: v.decode() for k, v in files.items() if "/test_step/h100/" in k}
    assert "{1,0:T(8,128)}" in v5e["step.compiled.hlo.txt"]
    assert '"platform": "tpu"' in v5e["_stages.json"] and '"devices": 4' in v5e["_stages.json"]
    assert json.loads(v5e["step.cost.json"])["compiled"]["flops"] > 0
    assert "gemm_fusion" in h100["step.compiled.hlo.txt"]
    cost = json.loads(h100["step.cost.json"])
    assert cost["compiled"] == {"unavailable": True} and cost["lowered"]["flops"] > 0
    assert json.loads(h100["step.memory.json"])["temp_size_in_bytes"] > 0
    for name in ("ops", "sharding", "layout"):
        assert f"step.{name}.json" in v5e and f"step.{name}.json" in h100


V5E_1X1 = """
[[tool.pytest_stages.configs]]
name = "v5e1"
platform = "tpu"
topology = "v5e:1x1"
chips_per_host_bounds = [1, 1, 1]
"""


@pytest.mark.extras("tpu")
def test_arguments_without_a_sharding_are_staged_as_plain_jit_on_one_device(project):
    """No argument sharded: one device of the topology, no mesh, no sdy ops (what jax.jit compiles on the chip)."""
    project.configure(configs=V5E)
    project.write("test_step.py", step())
    project.run("--stages-update", "-k", "test_unsharded").assert_outcomes(passed=1)
    files = project.snapshots()
    matmul = json.loads(files["test_step/test_unsharded/v5e/matmul.sharding.json"])
    assert [leaf["sharding"] for leaf in matmul["inputs"].values()] == [
        {"kind": "SingleDeviceSharding", "devices": [0], "replicated": True, "memory_kind": "device"}
    ] * 2
    stablehlo = files["test_step/test_unsharded/v5e/matmul.stablehlo.mlir"].decode()
    assert "sdy." not in stablehlo and "mhlo.sharding" not in stablehlo  # no mesh, no shardings, no constraints
    assert "f32[128,128]{1,0:T(8,128)}" in files["test_step/test_unsharded/v5e/matmul.compiled.hlo.txt"].decode()


@pytest.mark.extras("tpu")
def test_a_single_chip_v5e_compiles_the_program_plain_jit_compiles_there(project):
    """``v5e:1x1`` with chips_per_host_bounds: the snapshot is jit's own compile for that device, byte for byte."""
    project.configure(configs=V5E_1X1)
    project.write(
        "test_one.py",
        """
import jax, jax.numpy as jnp
from jax.experimental import topologies
from pytest_stages.ir.normalize import normalize_hlo, normalize_mlir

def step(w, x):
    return jnp.tanh(x @ w).sum()

def test_one(stage_snapshot, stage_config):
    w, x = jnp.ones((512, 256)), jnp.ones((64, 512))
    result = stage_snapshot(step, w, x)
    topo = topologies.get_topology_desc(platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1))
    with jax.default_device(topo.devices[0]):  # what jit does with uncommitted arrays on the chip
        plain = jax.jit(step).trace(w, x).lower()
    assert result.texts["stablehlo"] == normalize_mlir(plain.as_text())
    compiled = plain.compile()
    assert result.texts["compiled"] == normalize_hlo(compiled.as_text())
    assert result.memory["temp_size_in_bytes"] == compiled.memory_analysis().temp_size_in_bytes
    assert stage_config.device_memory.bytes == 16_909_336_064
""",
    )
    project.run("--stages-update").assert_outcomes(passed=1)
    meta = json.loads(project.snapshots()["test_one/test_one/v5e1/_stages.json"])
    assert meta["devices"] == 1 and meta["platform"] == "tpu"


WEAK = """
import jax.numpy as jnp

def test_weak(stage_snapshot):
    stage_snapshot(lambda x, s: x * s, jnp.ones((4, 128), jnp.bfloat16), jnp.asarray(2.0), name="scale")
"""


@pytest.mark.extras("tpu")
def test_a_weakly_typed_argument_stays_weak_on_a_topology(project):
    """``x_bf16 * jnp.asarray(2.0)`` is bf16 on any backend; the topology must not promote it to f32."""
    project.configure(configs=V5E.replace("mesh = { data = 2, model = 2 }", ""))
    project.write("test_weak.py", WEAK)
    project.run("--stages-update").assert_outcomes(passed=1)
    stablehlo = project.snapshots()["test_weak/test_weak/v5e/scale.stablehlo.mlir"].decode()
    assert "-> (tensor<4x128xbf16>" in stablehlo and "xf32>" not in stablehlo.split("func.func public @main", 1)[1]


@pytest.mark.extras("tpu", "cuda")
def test_topology_snapshots_are_reproducible_across_processes(project):
    project.configure(configs=V5E + H100)
    project.write("test_step.py", step())
    project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "--stages-update").assert_outcomes(passed=4)
    first = project.snapshots()
    again = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    again.assert_outcomes(passed=4)
    assert project.snapshots() == first
    assert len([k for k in first if k.endswith(".compiled.hlo.txt")]) == 4


@pytest.mark.extras("tpu")
def test_an_all_gather_appearing_on_v5e_fails_the_test(project):
    project.configure(configs=V5E)
    project.write("test_step.py", step())
    project.run("--stages-update").assert_outcomes(passed=2)
    project.write("test_step.py", step('"model"').replace('P(None, "model")', 'P("data", "model")'))
    result = project.run("test_step.py::test_step")
    result.assert_outcomes(failed=1)
    out = project.output(result)
    assert "pytest-stages: 'step' on config v5e differs from its snapshots" in out
    assert "collectives:" in out and "all-gather" in out


@pytest.mark.extras("cuda")
def test_hbm_budget_breach_on_h100(project):
    project.configure(configs=H100)
    project.write(
        "test_step.py",
        step().replace(
            "def test_step(", "@pytest.mark.stages_budget(peak_bytes='256 KiB', argument_bytes='1 GiB')\ndef test_step("
        ),
    )
    result = project.run("--stages-update", "test_step.py::test_step")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: 'step' on config h100 exceeds its budget",
            "  budget: peak_bytes * exceeds the ceiling 256.0 KiB",
        ]
    )
    # The ceiling argument_bytes meets fails nothing: it is only a passing note with the figure beside its ceiling.
    out = project.output(result)
    assert not any("argument_bytes" in line and "exceeds" in line for line in out.splitlines())
    assert "step: argument_bytes 320.0 KiB, ceiling 1.0 GiB" in out


@pytest.mark.extras("tpu")
def test_mesh_that_does_not_fit_the_topology_is_one_clear_error(project):
    project.configure(configs=V5E.replace("data = 2", "data = 4"))
    project.write("test_step.py", step())
    result = project.run()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*config 'v5e': mesh data=4 x model=2 holds 8 devices but topology 'v5e:2x2' has 4; "
            "make the axis sizes multiply to 4.",
        ]
    )


@pytest.mark.extras("tpu", "cuda")
@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            V5E.replace("v5e:2x2", "v5e:1x1").replace("mesh = { data = 2, model = 2 }", ""),
            "*config 'v5e': topology 'v5e:1x1' cannot be made for tpu: *",
        ),
        (
            H100.replace('gpu = "h100"', 'gpu = "rtx9090"'),
            "*config 'h100': gpu = 'rtx9090' is neither a shipped spec (a100, h100) nor a GpuTargetConfig text file.",
        ),
    ],
)
def test_topology_and_spec_errors_are_one_line(project, config, message):
    project.configure(configs=config)
    project.write("test_step.py", step())
    result = project.run("-k", "test_unsharded")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


@pytest.mark.extras("cuda")
def test_a_spec_file_path_is_accepted(project):
    from pytest_stages.stage.topology import SPEC_DIR

    project.write("specs/my_gpu.txtpb", (SPEC_DIR / "a100.txtpb").read_text())
    project.configure(configs=H100.replace('gpu = "h100"', 'gpu = "specs/my_gpu.txtpb"'))
    project.write("test_step.py", step())
    project.run("--stages-update", "-k", "test_unsharded").assert_outcomes(passed=1)


def test_without_the_plugin_a_topology_config_is_skipped_with_the_install_command(project, monkeypatch):
    monkeypatch.setitem(sys.modules, "libtpu", None)  # what Python sees when libtpu is not installed
    project.configure(configs=V5E)
    project.write("test_step.py", step())
    result = project.run("-rs")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(
        [
            "SKIPPED * pytest-stages: config 'v5e' compiles for a tpu topology, which needs libtpu; "
            f'install it with `pip install "jax?tpu?=={jax.__version__}"`. If pip finds no matching libtpu (a JAX '
            f'release can come before its libtpu), `pip install "jax?tpu?<={jax.__version__}"` installs the newest '
            "JAX whose libtpu is published",
        ]
    )


@pytest.mark.extras("tpu", "cuda")
def test_accelerator_plugins_stay_quiet(project, monkeypatch):
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    project.configure(
        configs="""
[[tool.pytest_stages.configs]]
name = "cpu4"
mesh = { data = 2, model = 2 }
"""
        + V5E
        + H100
    )
    project.write(
        "test_step.py",
        step()
        + """
def test_backend(stage_config):
    assert jax.default_backend() == "cpu"
""",
    )
    result = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", "--stages-update")
    result.assert_outcomes(passed=9)
    noise = "\n".join(result.outlines + result.errlines)
    markers = ("TPU_ACCELERATOR_TYPE", "TPU_WORKER_HOSTNAMES", "cuInit", "cudart_stub", "Traceback", "E0000", "I0000")
    assert [marker for marker in markers if marker in noise] == []


def test_foreign_platform_lowered_cost_is_judged_and_budgeted(project):
    project.configure(configs=TPU_LOWERED)
    body = """
import jax, jax.numpy as jnp
import pytest

@pytest.mark.stages_budget(flops=BUDGET)
def test_mm(stage_snapshot):
    x = jax.ShapeDtypeStruct((64, 64), jnp.float32)
    result = stage_snapshot(lambda a: FN, x, name="mm")
    assert result.cost_source == "lowered" and result.cost["flops"] > 0
"""
    project.write("test_mm.py", body.replace("BUDGET", "1e9").replace("FN", "a @ a"))
    project.run("--stages-update").assert_outcomes(passed=1)
    cost = json.loads(project.snapshots()["test_mm/test_mm/tpu/mm.cost.json"])
    assert cost["compiled"] == {"unavailable": True} and cost["lowered"]["flops"] == 2 * 64**3
    project.write("test_mm.py", body.replace("BUDGET", "1e9").replace("FN", "(a @ a) @ a"))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "    lowered flops 524288 -> 1.05e6 (+100.0%, tolerance 0.1%)" in project.output(result)
    project.write("test_mm.py", body.replace("BUDGET", "1e5").replace("FN", "a @ a"))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "  budget: flops (lowered) 524288 exceeds the ceiling 100000" in project.output(result)


def test_partitioner_per_config(project):
    project.configure(
        configs="""
[[tool.pytest_stages.configs]]
name = "shardy"
devices = 8
mesh = { data = 8 }
partitioner = "shardy"

[[tool.pytest_stages.configs]]
name = "gspmd"
devices = 8
mesh = { data = 8 }
partitioner = "gspmd"
"""
    )
    project.write(
        "test_p.py",
        """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

def test_p(stage_snapshot, stage_config):
    before = jax.config.jax_use_shardy_partitioner
    x = jax.ShapeDtypeStruct((64, 8), jnp.float32, sharding=NamedSharding(stage_config.mesh, P("data")))
    stage_snapshot(lambda x: x.sum(0), x, name="colsum")
    assert jax.config.jax_use_shardy_partitioner == before
""",
    )
    project.run("--stages-update").assert_outcomes(passed=2)
    files = project.snapshots()
    assert "sdy.sharding" in files["test_p/test_p/shardy/colsum.stablehlo.mlir"].decode()
    gspmd = files["test_p/test_p/gspmd/colsum.stablehlo.mlir"].decode()
    assert "mhlo.sharding" in gspmd and "sdy." not in gspmd


@pytest.mark.extras("tpu")
def test_equinox_filter_jit_stages_on_a_topology(project):
    """Uncommitted arrays stay arrays: filter_jit does not take them for static values (it did as ShapeDtypeStructs)."""
    project.configure(configs=V5E_1X1)
    project.write(
        "test_eqx.py",
        """
import jax.numpy as jnp
import pytest

eqx = pytest.importorskip("equinox")

def test_eqx(stage_snapshot):
    result = stage_snapshot(eqx.filter_jit(lambda a, b: jnp.tanh(a @ b)), jnp.ones((128, 128)), jnp.ones((128, 128)))
    assert "{1,0:T(8,128)}" in result.texts["compiled"]
""",
    )
    project.run("--stages-update").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"topology": "v5e:32x32"},
            "config 'big': topology 'v5e:32x32' is larger than a v5e slice can be: at most 16 chips along each axis "
            "(v5e:16x16); libtpu would abort the process compiling for it. Name a smaller slice, or join slices with "
            'num_slices (e.g. topology = "v5e:16x16", num_slices = 2).',
        ),
        ({"topology": "v5e:16x32"}, "config 'big': topology 'v5e:16x32' is larger than a v5e slice can be"),
        (
            {"topology": "v5e:2x2", "num_slices": 2**40},
            "config 'big': num_slices = 1099511627776 slices of topology 'v5e:2x2' hold 4398046511104 devices, more "
            "than the 16384 pytest-stages stages; name at most 4096 slices.",
        ),
    ],
)
def test_a_tpu_topology_libtpu_aborts_on_is_a_usage_error(entry, message):
    with pytest.raises(ConfigError) as raised:
        parse_configs([{"name": "big", "platform": "tpu", **entry}])
    assert str(raised.value).startswith(message), str(raised.value)


def test_the_largest_tpu_topologies_it_accepts_parse():
    for entry in ({"topology": "v5e:16x16"}, {"topology": "v5e:2x2", "num_slices": 4096}, {"topology": "v6e:32x16"}):
        parse_configs([{"name": "ok", "platform": "tpu", **entry}])


@pytest.mark.extras("tpu")
@pytest.mark.parametrize("topology", ["v5e:16x32", "v5e:2x2|4096"])
def test_what_libtpu_accepts_is_what_the_config_accepts(topology):
    """The measured bound: libtpu aborts a process compiling for v5e:16x32, and compiles 4096 slices of v5e:2x2."""
    name, _, slices = topology.partition("|")
    code = (
        "import os, numpy as np, jax, jax.numpy as jnp\n"
        "os.environ.setdefault('ALLOW_MULTIPLE_LIBTPU_LOAD', '1')\n"
        "from jax.experimental import topologies\n"
        "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
        f"d = topologies.get_topology_desc(platform='tpu', topology_name={name!r}, num_slices={int(slices or 1)})\n"
        "s = NamedSharding(Mesh(np.array(d.devices), ('d',)), P())\n"
        "jax.jit(jnp.sin, in_shardings=s, out_shardings=s).lower(jax.ShapeDtypeStruct((4,), jnp.float32)).compile()\n"
        "print('compiled', len(d.devices))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**__import__("os").environ, "JAX_PLATFORMS": "cpu"},
        check=False,
    )
    if slices:
        assert done.returncode == 0 and done.stdout.strip() == "compiled 16384", done.stderr[-2000:]
    else:
        assert done.returncode < 0 and "chip_bounds().y <= 16" in done.stderr, (done.returncode, done.stderr[-2000:])
