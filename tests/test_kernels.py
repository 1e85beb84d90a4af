"""Pallas kernels as readable snapshots: kernel IR, kernel findings, VMEM budgets and honest costs.

Inner sessions stage a small Pallas TPU kernel on a compile-only ``v5e:1x1`` (libtpu, the ``tpu``
extra) and edit it as a kernel author would; the pure functions are tested without pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Imported here, before any inner session: pytester's in-process runs drop the modules a run
# imported, and a second import fails: Pallas TPU registers its PRNG, and the MLIR dialects that
# lowering a kernel loads register their namespaces, once per process.
import jax._src.pallas.mosaic.pallas_call_registration  # noqa: F401
import jaxlib.mlir.dialects.builtin
import jaxlib.mlir.dialects.mhlo  # noqa: F401
import pytest
from jax.experimental.pallas import tpu as _pallas_tpu  # noqa: F401

from pytest_stages.analyse.analyses import cost, unknown_note
from pytest_stages.analyse.kernel_specs import uncosted_calls
from pytest_stages.check.budgets import check_budget, parse_budget
from pytest_stages.ir import kernel_payloads
from pytest_stages.ir.normalize import normalize_hlo, normalize_mlir
from pytest_stages.ir.textdiff import edit_script

V5E = """
[[tool.pytest_stages.configs]]
name = "v5e1"
platform = "tpu"
topology = "v5e:1x1"
chips_per_host_bounds = [1, 1, 1]
"""

KERNEL = """
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

SCALE = {scale}
BLOCK = {block}


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * SCALE + y_ref[...]


def add(x, y):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // BLOCK[0],),
        in_specs=[pl.BlockSpec(BLOCK, lambda i: (i, 0))] * 2,
        out_specs=pl.BlockSpec(BLOCK, lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
        cost_estimate={estimate},
        interpret={interpret},
    )(x, y)
"""

TEST = """
import jax, jax.numpy as jnp
import pytest
from kern import add

{marker}
def test_add(stage_snapshot):
    x = jax.ShapeDtypeStruct((512, 128), jnp.float32)
    stage_snapshot(add, x, x)
"""

FOLDER = "test_kern/test_add/v5e1"


def kernel(scale: str = "2.0", block: str = "(128, 128)", estimate: str = "None", interpret: str = "False") -> str:
    return KERNEL.format(scale=scale, block=block, estimate=estimate, interpret=interpret)


def staged(project, marker: str = "", **edits: str):
    project.configure(configs=V5E)
    project.write("kern.py", kernel(**edits))
    project.write("test_kern.py", TEST.format(marker=marker))


@pytest.mark.extras("tpu")
def test_a_kernel_is_readable_ir_and_the_stage_texts_reference_it(project):
    staged(project)
    project.run("--stages-update").assert_outcomes(passed=1)
    files = {name: data.decode() for name, data in project.snapshots().items()}
    section = files[f"{FOLDER}/add.kernels.mlir"]
    header = section.splitlines()[0]
    assert header.startswith("// kernel add_kernel#") and header.endswith(": Mosaic TPU")
    reference = header.removeprefix("// kernel ").split(":")[0]
    assert "arith.constant 2.000000e+00 : f32" in section
    assert "#tpu.memory_space<vmem>" in section and "tpu.vector_store" in section
    assert str(project.path) not in section and "loc(" not in section  # no host path, no locations
    for stage in ("stablehlo.mlir", "compiled.hlo.txt"):
        text = files[f"{FOLDER}/add.{stage}"]
        assert f"kernel:{reference}" in text
        assert "TUzvUgFN" not in text  # no base64 payload
    specs = json.loads(files[f"{FOLDER}/add.kernels.json"])
    add = specs["kernels"]["add_kernel"]
    assert add["grid"] == [4]
    assert [b["block"] for b in add["blocks"]] == [[128, 128]] * 3
    assert add["dimension_semantics"] == ["parallel"]
    assert add["vmem_estimate_bytes"] == 3 * 128 * 128 * 4 * 2
    assert specs["vmem_capacity"]["bytes"] == 128 * 2**20
    assert "estimate" in specs["vmem_estimate_rule"]


@pytest.mark.extras("tpu")
def test_a_one_constant_edit_names_the_kernel_its_ir_line_and_its_python_line(project):
    staged(project)
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write("kern.py", kernel(scale="3.0"))
    result = project.run()
    result.assert_outcomes(failed=1)
    output = project.output(result)
    headline = next(line for line in result.outlines if line.startswith("  IR: "))
    assert "kernel add_kernel: arith.constant {2.000000e+00 -> 3.000000e+00} : f32" in headline
    assert "at kern.py:11 in add_kernel" in headline
    assert "TUzvUgFN" not in output
    project.run("--stages-update").assert_outcomes(passed=1)
    after = project.snapshots()
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {f"{FOLDER}/add.{s}" for s in ("jaxpr.txt", "stablehlo.mlir", "kernels.mlir", "compiled.hlo.txt")}
    lines = sum(len(set(after[n].decode().splitlines()) ^ set(before[n].decode().splitlines())) for n in changed)
    assert lines == 10  # jaxpr, stablehlo, compiled: one line each side; kernels.mlir: header and constant


@pytest.mark.extras("tpu")
def test_a_block_shape_change_is_a_kernel_finding_with_the_vmem_estimate(project):
    staged(project)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("kern.py", kernel(block="(256, 128)"))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert (
        "  kernels: kernel add_kernel: grid (4,) -> (2,); block (128, 128) -> (256, 128); "
        "VMEM est. 384.0 KiB -> 768.0 KiB"
    ) in result.outlines


@pytest.mark.extras("tpu")
def test_a_vmem_budget_fails_with_the_kernel_and_its_estimate(project):
    staged(project, marker='@pytest.mark.stages_budget(vmem_bytes="0.5%")', block="(256, 128)")
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    assert (
        "  budget: vmem_bytes: kernel add_kernel VMEM est. 768.0 KiB exceeds the ceiling 0.5% of 128.0 MiB VMEM "
        "(655.4 KiB)"
    ) in result.outlines


@pytest.mark.extras("tpu")
def test_costs_say_unknown_without_an_estimate_and_count_it_with_one(project):
    staged(project)
    result = project.run("--stages-update")
    result.assert_outcomes(passed=1)
    note = (
        "flops, transcendentals and bytes accessed unknown for 1 custom call(s) (add_kernel: no pl.CostEstimate, "
        "and XLA does not look inside a kernel); the figures count the rest"
    )
    assert f"pytest-stages: config v5e1: cost not checked here: {note}" in result.outlines
    recorded = json.loads(project.snapshots()[f"{FOLDER}/add.cost.json"])
    assert recorded["unknown"] == {"custom_calls": 1, "kernels": ["add_kernel"]}
    assert "flops" not in recorded["compiled"]
    project.write("kern.py", kernel(estimate="pl.CostEstimate(flops=131072, transcendentals=0, bytes_accessed=786432)"))
    result = project.run()
    result.assert_outcomes(failed=1)
    assert "  cost: flops 0 -> 131072; bytes_accessed 0 -> 768.0 KiB" in result.outlines
    assert "unknown for" not in project.output(result)


def test_interpret_mode_on_cpu_has_no_kernel_to_decode(project):
    """``interpret=True`` lowers a kernel to plain StableHLO: no payload to decode, every figure counted;
    its grid and blocks are still the kernel's (no VMEM size on CPU)."""
    project.write("kern.py", kernel(interpret="True"))
    project.write("test_kern.py", TEST.format(marker=""))
    project.run("--stages-update").assert_outcomes(passed=1)
    files = project.snapshots()
    assert "test_kern/test_add/cpu1/add.kernels.mlir" not in files
    assert "unknown" not in json.loads(files["test_kern/test_add/cpu1/add.cost.json"])
    specs = json.loads(files["test_kern/test_add/cpu1/add.kernels.json"])
    assert specs["kernels"]["add_kernel"]["grid"] == [4] and "vmem_capacity" not in specs


@pytest.mark.extras("tpu")
def test_kernel_ir_is_the_same_lowered_on_a_bare_host_and_compiled_only(project):
    """Lowering for TPU without libtpu's topology writes Mosaic version 11, compile-only 15: the same kernel."""
    project.configure(configs=V5E + '\n[[tool.pytest_stages.configs]]\nname = "bare"\nplatform = "tpu"\n')
    project.write("kern.py", kernel())
    project.write("test_kern.py", TEST.format(marker=""))
    project.run("--stages-update").assert_outcomes(passed=2)
    files = project.snapshots()
    for suffix in ("kernels.mlir", "stablehlo.mlir"):
        assert files[f"{FOLDER}/add.{suffix}"] == files[f"test_kern/test_add/bare/add.{suffix}"]


@pytest.mark.extras("tpu")
def test_the_kernels_example_passes_against_its_committed_snapshots():
    """examples/kernels, a project of its own: JAX's flash, splash and paged attention and megablox on one v5e chip."""
    folder = Path(__file__).resolve().parent.parent / "examples" / "kernels"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-W", "ignore"]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "6 passed" in done.stdout, done.stdout[-3000:]


H100 = """
[[tool.pytest_stages.configs]]
name = "h100"
platform = "cuda"
topology = "1x1x1"
gpu = "h100"
"""

GPU_KERNELS = """
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0 + y_ref[...]


def add(x, y, params=None):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((128, 128), lambda i: (i, 0))] * 2,
        out_specs=pl.BlockSpec((128, 128), lambda i: (i, 0)),
        compiler_params=params,
    )(x, y)


def test_mosaic_gpu(stage_snapshot):
    x = jax.ShapeDtypeStruct((512, 128), jnp.float32)
    stage_snapshot(add, x, x, name="mosaic")


def test_triton(stage_snapshot):
    x = jax.ShapeDtypeStruct((512, 128), jnp.float32)
    stage_snapshot(lambda x, y: add(x, y, pltriton.CompilerParams(num_warps=4)), x, x, name="triton")
"""


@pytest.mark.extras("cuda")
def test_pallas_gpu_kernels_on_a_compile_only_h100_are_readable_too(project):
    """Mosaic GPU (pallas_call's GPU default in JAX 0.10) and Triton payloads decode; no VMEM on a GPU.

    In a fresh process: the Pallas GPU modules register their MLIR types once per process.
    """
    project.configure(configs=H100)
    project.write("test_gpu.py", GPU_KERNELS)
    result = project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "ignore", "--stages-update")
    result.assert_outcomes(passed=2)
    files = {name: data.decode() for name, data in project.snapshots().items()}
    for test, name, compiler in (("test_mosaic_gpu", "mosaic", "Mosaic GPU"), ("test_triton", "triton", "Triton")):
        folder = f"test_gpu/{test}/h100/{name}"
        header = files[f"{folder}.kernels.mlir"].splitlines()[0]
        assert header.startswith("// kernel add_kernel#") and header.endswith(f": {compiler}")
        assert "arith.constant 2.000000e+00 : f32" in files[f"{folder}.kernels.mlir"]
        for stage in ("stablehlo.mlir", "compiled.hlo.txt"):
            assert "ML\\EFR" not in files[f"{folder}.{stage}"]
        assert header.removeprefix("// kernel ").split(":")[0] in files[f"{folder}.stablehlo.mlir"]
        specs = json.loads(files[f"{folder}.kernels.json"])
        assert "vmem_estimate_bytes" not in specs["kernels"]["add_kernel"] and "vmem_capacity" not in specs
    assert 'kernel_hash = "(the module\'s)"' in files["test_gpu/test_mosaic_gpu/h100/mosaic.stablehlo.mlir"]


# --- pure functions -------------------------------------------------------------------------------

MLIR_LINE = (
    '%0 = stablehlo.custom_call @tpu_custom_call(%arg0) {backend_config = "{\\22custom_call_config\\22: '
    '{\\22body\\22: \\22QUJDREVGR0hJSktMTU5PUA==\\22}}", kernel_name = "k"} : (tensor<8xf32>) -> tensor<8xf32>'
)


def test_an_undecodable_payload_is_referenced_by_the_digest_of_its_bytes():
    text = normalize_mlir(MLIR_LINE)
    assert "QUJDREVGR0hJSktMTU5PUA==" not in text
    assert "kernel:payload#" in text
    (found,) = kernel_payloads.kernels(MLIR_LINE)
    assert found.error and found.section().startswith(f"// kernel payload#{found.digest}: Mosaic TPU, not decoded (")
    hlo = (
        'ROOT %c = f32[8]{0} custom-call(%p), custom_call_target="tpu_custom_call", '
        'backend_config={"custom_call_config":{"body":"QUJDREVGR0hJSktMTU5PUA=="}}'
    )
    assert f'"body":"kernel:payload#{found.digest}"' in normalize_hlo(hlo)


def test_uncosted_calls_are_kernel_calls_without_an_estimate():
    with_estimate = MLIR_LINE.replace("\\22body", "\\22cost_estimate\\22: {}, \\22body")
    assert uncosted_calls(MLIR_LINE) == ["k"]
    assert uncosted_calls(with_estimate) == []
    assert uncosted_calls("%0 = stablehlo.custom_call @Sharding(%arg0)") == []


def test_xla_unavailable_figures_are_recorded_as_null_and_unknown_is_noted():
    class Compiled:
        def cost_analysis(self):
            return {"flops": -1.0, "bytes accessed": 64.0}

    found = cost(Compiled(), None, uncosted=["k"])
    assert found["compiled"] == {"flops": None, "bytes accessed": 64}
    assert found["unknown"] == {"custom_calls": 1, "kernels": ["k"]}
    assert "unknown for 1 custom call(s) (k: no pl.CostEstimate" in str(unknown_note(found))
    assert unknown_note(cost(Compiled(), None)) is None


def test_mlir_string_escapes_are_read_back_as_bytes():
    assert kernel_payloads.unescape("ML\\EFR\\01\\\\EF\\22x\\n") == b'ML\xefR\x01\\EF"x\n'


def test_changed_lines_name_the_kernel_and_the_changed_token():
    old = "// kernel k#1: Mosaic TPU\nmodule {\n  %cst = arith.constant 2.000000e+00 : f32\n}\n"
    new = "// kernel k#2: Mosaic TPU\nmodule {\n  %cst = arith.constant 2.500000e+00 : f32\n}\n"
    script = edit_script("mlir", old, new)
    assert kernel_payloads.changed_lines(script) == ["kernel k: arith.constant {2.000000e+00 -> 2.500000e+00} : f32"]
    assert kernel_payloads.changed_lines(edit_script("mlir", "a = 1\n", "a = 2\n")) == []


def test_a_vmem_budget_is_a_size_or_a_share_of_the_recorded_vmem():
    specs = {"kernels": {"k": {"vmem_estimate_bytes": 3 * 2**20}}, "vmem_capacity": {"bytes": 128 * 2**20}}
    over = check_budget(parse_budget("marker", {"vmem_bytes": "2 MiB"}), {"kernels": specs})
    assert [f.message for f in over] == ["vmem_bytes: kernel k VMEM est. 3.0 MiB exceeds the ceiling 2.0 MiB"]
    assert check_budget(parse_budget("marker", {"vmem_bytes": "50%"}), {"kernels": specs}) == []
    unknown = check_budget(parse_budget("marker", {"vmem_bytes": "50%"}), {"kernels": {"kernels": specs["kernels"]}})
    assert [f.message for f in unknown] == ["vmem_bytes 50%: the VMEM size of this device is not known here"]
    assert not unknown[0].failing
    assert check_budget(parse_budget("marker", {"vmem_bytes": "1 KiB"}), {}) == []
