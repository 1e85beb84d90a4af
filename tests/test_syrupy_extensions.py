"""syrupy's own ``snapshot`` fixture with the pytest-stages extensions, as a syrupy user meets it."""

from __future__ import annotations

import json

import jax
import jax.numpy as jnp
import pytest
from syrupy.utils import import_module_member

import pytest_stages
from pytest_stages import EXTENSIONS, StableHLOExtension, extension_for
from pytest_stages.analyse.artifacts import ARTIFACTS
from pytest_stages.ir.normalize import normalize_mlir
from pytest_stages.store import syrupy_extensions

SYRUPY_MODULE = """
import jax, jax.numpy as jnp
from pytest_stages import CompiledHLOExtension, CostExtension, HLOExtension, StableHLOExtension

X = jax.ShapeDtypeStruct((8,), jnp.float32)

def f(x):
    y = jnp.tanh(x)
    return jnp.exp(y).sum()

def test_ir(stage_snapshot, snapshot):
    result = stage_snapshot(f, X)
    assert result.texts["stablehlo"] == snapshot.with_defaults(extension_class=StableHLOExtension)
    assert result.analyses["cost"] == snapshot.with_defaults(extension_class=CostExtension)

def test_raw(snapshot):
    assert jax.jit(f).lower(X).as_text(debug_info=True) == snapshot.with_defaults(extension_class=StableHLOExtension)

def test_hlo(snapshot):
    lowered = jax.jit(f).lower(X)
    assert lowered.as_text(dialect="hlo") == snapshot.with_defaults(extension_class=HLOExtension)
    assert lowered.compile().as_text() == snapshot.with_defaults(extension_class=CompiledHLOExtension)

def test_sorted(snapshot):
    assert {"zeta": 1, "alpha": {"b": 2.5, "a": [3, 1]}} == snapshot.with_defaults(extension_class=CostExtension)
"""
SYRUPY_DIR = "__snapshots__/test_model"


@pytest.fixture(autouse=True)
def not_an_xdist_worker(monkeypatch):
    """Inner sessions of an xdist worker inherit PYTEST_XDIST_WORKER; syrupy would then act as a
    worker (no summary, no unused-snapshot check) and leave those to a controller that never comes."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


def syrupy_files(project) -> dict[str, str]:
    """Every file under syrupy's ``__snapshots__``, by path relative to the project."""
    root = project.path / "__snapshots__"
    return {p.relative_to(project.path).as_posix(): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def record(project):
    project.write("test_model.py", SYRUPY_MODULE)
    result = project.run("--stages-update", "--snapshot-update")
    result.assert_outcomes(passed=4)
    return syrupy_files(project)


def test_snapshot_update_writes_normalized_files_in_syrupys_folder(project):
    files = record(project)
    assert set(files) == {
        f"{SYRUPY_DIR}/test_ir[cpu1].stablehlo.mlir",
        f"{SYRUPY_DIR}/test_ir[cpu1].cost.json",
        f"{SYRUPY_DIR}/test_raw.stablehlo.mlir",
        f"{SYRUPY_DIR}/test_hlo.hlo.txt",
        f"{SYRUPY_DIR}/test_hlo.compiled.hlo.txt",
        f"{SYRUPY_DIR}/test_sorted.cost.json",
    }
    mlir = files[f"{SYRUPY_DIR}/test_ir[cpu1].stablehlo.mlir"]
    assert "stablehlo.tanh" in mlir and "loc(" not in mlir and "#loc" not in mlir
    # The same bytes as pytest-stages' own snapshots, which live apart under snapshots/.
    stages = project.snapshots()
    assert mlir.encode() == stages["test_model/test_ir/cpu1/f.stablehlo.mlir"]
    assert files[f"{SYRUPY_DIR}/test_ir[cpu1].cost.json"].encode() == stages["test_model/test_ir/cpu1/f.cost.json"]
    assert not any("__snapshots__" in path for path in stages)


def test_second_run_passes_without_unused_snapshots(project):
    files = record(project)
    result = project.run()
    result.assert_outcomes(passed=4)
    assert result.ret == 0
    # No "1 snapshot unused." after it: HLOExtension does not take the .compiled.hlo.txt file for its own.
    summary = result.outlines.index(next(line for line in result.outlines if "snapshot report summary" in line))
    assert result.outlines[summary + 1] == "6 snapshots passed."
    assert syrupy_files(project) == files


def test_raw_debug_text_matches_the_normalized_snapshot(project):
    files = record(project)
    raw = jax.jit(lambda x: jnp.exp(jnp.tanh(x)).sum()).lower(jax.ShapeDtypeStruct((8,), jnp.float32))
    assert "loc(" in raw.as_text(debug_info=True)
    assert files[f"{SYRUPY_DIR}/test_raw.stablehlo.mlir"] == files[f"{SYRUPY_DIR}/test_ir[cpu1].stablehlo.mlir"]


def test_dict_analysis_is_sorted_json(project):
    files = record(project)
    text = files[f"{SYRUPY_DIR}/test_sorted.cost.json"]
    assert text == '{\n  "alpha": {\n    "a": [\n      3,\n      1\n    ],\n    "b": 2.5\n  },\n  "zeta": 1\n}\n'


def explanation(result) -> list[str]:
    """The assertion explanation pytest prints for the one failing test: its ``E`` lines, prefix removed."""
    lines = [line[len("E       ") :] for line in result.outlines if line.startswith("E ")]
    return lines[lines.index("assert [+ received] == [- snapshot]") :]


def test_drift_shows_the_renumbering_proof_diff_and_both_flags_accept_it(project):
    record(project)
    project.write("test_model.py", SYRUPY_MODULE.replace("y = jnp.tanh(x)", "y = jnp.tanh(jnp.sin(x))"))
    result = project.run("-vv", "test_model.py::test_raw")
    result.assert_outcomes(failed=1)
    # One op added and its consumer rewired; the renamed lines after it (%1 -> %2, ...) are no change.
    assert explanation(result) == [
        "assert [+ received] == [- snapshot]",
        "  @@ -1,9 +1,10 @@",
        "   module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {",
        '     func.func public @main(%arg0: tensor<8xf32>) -> (tensor<f32> {jax.result_info = "result"}) {',
        "  -    %0 = stablehlo.tanh %arg0 : tensor<8xf32>",
        "  +    %0 = stablehlo.sine %arg0 : tensor<8xf32>",
        "  +    %1 = stablehlo.tanh %0 : tensor<8xf32>",
        "       %2 = stablehlo.exponential %1 : tensor<8xf32>",
        "       %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
        "       %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0] : "
        "(tensor<8xf32>, tensor<f32>) -> tensor<f32>",
        "       return %3 : tensor<f32>",
        "     }",
        "   }",
    ]
    # A test that also calls stage_snapshot is accepted with both update flags at once.
    project.run("--stages-update", "--snapshot-update").assert_outcomes(passed=4)
    project.run().assert_outcomes(passed=4)


def test_every_artifact_has_an_extension_syrupy_can_import_by_name():
    for artifact in ARTIFACTS:
        cls = extension_for(artifact.name)
        assert cls is EXTENSIONS[artifact.name]
        assert f".{cls.file_extension}" == artifact.suffix
        # How syrupy finds it again in an xdist controller, or from --snapshot-default-extension.
        assert import_module_member(f"{cls.__module__}.{cls.__qualname__}") is cls
        # The module's list is literal (for type checkers), the package's derived from the table.
        assert cls.__name__ in syrupy_extensions.__all__ and cls.__name__ in pytest_stages.__all__
        assert getattr(pytest_stages, cls.__name__) is cls
    assert set(syrupy_extensions.__all__) <= set(pytest_stages.__all__)
    assert StableHLOExtension.__name__ == "StableHLOExtension"
    with pytest.raises(ValueError, match="unknown artifact 'mlir'; known: jaxpr, stablehlo"):
        extension_for("mlir")


def test_serialize_is_idempotent_and_refuses_non_text():
    raw = jax.jit(jnp.tanh).lower(jax.ShapeDtypeStruct((4,), jnp.float32)).as_text(debug_info=True)
    stablehlo = StableHLOExtension()
    text = stablehlo.serialize(raw)
    assert text == normalize_mlir(raw) and stablehlo.serialize(text) == text
    cost = extension_for("cost")()
    data = {"flops": 4.0, "bytes accessed": 32.0}
    assert (
        cost.serialize(cost.serialize(data))
        == cost.serialize(data)
        == json.dumps(data, sort_keys=True, indent=2) + "\n"
    )
    with pytest.raises(TypeError, match=r"StableHLOExtension snapshots stablehlo text, got Lowered: pass the text"):
        stablehlo.serialize(jax.jit(jnp.tanh).lower(1.0))
