"""The plugin's errors (one base class, its outcome, the prefix added once) and the fixture values' types."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from mypy import api as mypy_api

import pytest_stages
from pytest_stages.calls.errors import StagesFailure, StagesSkip
from pytest_stages.core import errors
from pytest_stages.core.errors import PREFIX, ConfigError, Outcome, SnapshotError, StagesError
from pytest_stages.hooks.errors import RegisteredFunctionError, RegistrationError
from pytest_stages.report.errors import MergeError
from pytest_stages.stage.errors import ChipHeld, StagingFailed, TopologyUnavailable, Unsupported

OUTCOMES = {
    ConfigError: Outcome.FAIL,
    SnapshotError: Outcome.FAIL,
    StagingFailed: Outcome.FAIL,
    StagesFailure: Outcome.FAIL,
    RegistrationError: Outcome.FAIL,
    RegisteredFunctionError: Outcome.FAIL,
    ChipHeld: Outcome.FAIL,
    StagesSkip: Outcome.SKIP,
    Unsupported: Outcome.SKIP,
    TopologyUnavailable: Outcome.SKIP,
    MergeError: Outcome.USAGE,
}


def test_every_plugin_error_carries_its_outcome():
    assert {cls: cls.outcome for cls in OUTCOMES} == OUTCOMES
    assert all(issubclass(cls, StagesError) for cls in OUTCOMES)


def test_the_prefix_is_added_once_and_a_stage_error_keeps_its_traceback_for_tb_long():
    assert (
        ConfigError("--stages-configs: unknown name 'x'.").shown()
        == "pytest-stages: --stages-configs: unknown name 'x'."
    )
    try:
        raise ValueError("bad shape")
    except ValueError as cause:
        error = StagingFailed("f", "tracing", cause)
    assert error.shown() == f"{PREFIX}{error}"
    assert error.shown(long_tracebacks=True).startswith(f"{PREFIX}{error}\nTraceback (most recent call last):")
    assert error.shown(long_tracebacks=True).endswith("ValueError: bad shape")


PREFIX_LINE = next(
    n for n, line in enumerate(inspect.getsource(errors).splitlines(), 1) if line.startswith("PREFIX = ")
)


def test_the_prefix_is_written_in_one_place():
    """Every message and heading takes ``PREFIX``; none types it again (docstrings aside)."""
    package = Path(pytest_stages.__file__).parent
    typed = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and ast.get_docstring(node) is not None
        }
        typed += [
            f"{path.relative_to(package)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and "pytest-stages: " in node.value
            and id(node) not in docstrings
        ]
    assert typed == [f"core/errors.py:{PREFIX_LINE}"]


TYPED_TEST = """
from pytest_stages import StableHLOExtension, StageCompilesFixture, StageResult, StageSnapshotFixture


def double(x: float) -> float:
    return x * 2


def test_typed(stage_snapshot: StageSnapshotFixture, stage_compiles: StageCompilesFixture) -> None:
    result: StageResult = stage_snapshot(double, 1.0, name="double", static_scalars=True, scale=2)
    with stage_compiles(double, "other", name="block") as log:
        double(3.0)
    print(result.texts, log.functions)
    stage_snapshot(double, static_scalars="yes")
    stage_snapshot(None)
    stage_compiles(name=3)
    extension: int = StableHLOExtension
"""


def test_the_fixture_types_check_a_typed_test(tmp_path):
    """mypy reads the exported fixture types and extensions: the calls the fixtures take pass, wrong ones are named."""
    path = tmp_path / "test_typed.py"
    path.write_text(TYPED_TEST)
    package = str(Path(pytest_stages.__file__).parent.parent)
    # Without site-packages (jax, pytest read as Any): only the plugin's own types are checked, in seconds.
    flags = ["--no-site-packages", "--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPYPATH", package)
        stdout, _, _ = mypy_api.run([*flags, "--no-error-summary", "--hide-error-context", str(path)])
    errors = [line.removeprefix(f"{path}:") for line in stdout.splitlines() if line.startswith(str(path))]
    assert errors == [
        '14: error: Argument "static_scalars" to "__call__" of "StageSnapshotFixture" has incompatible type "str"; '
        'expected "bool | None"  [arg-type]',
        '15: error: Argument 1 to "__call__" of "StageSnapshotFixture" has incompatible type "None"; '
        'expected "Callable[..., Any]"  [arg-type]',
        '16: error: Argument "name" to "__call__" of "StageCompilesFixture" has incompatible type "int"; '
        'expected "str"  [arg-type]',
        # An extension class, read through the package's __all__ and typed (not Any).
        '17: error: Incompatible types in assignment (expression has type "type[ArtifactExtension]", '
        'variable has type "int")  [assignment]',
    ], stdout


AUTO_SHARDED = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

def step(w, x):
    return (x @ w).sum()

def test_step(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    w = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("model", None)))
    x = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, P("data", "model")))
    stage_snapshot(step, w, x)
"""
MESH_CONFIG = """
[[tool.pytest_stages.configs]]
name = "cpu4"
mesh = { data = 2, model = 2 }
"""


def test_a_sharding_type_error_on_the_default_explicit_mesh_names_axis_types_auto_which_fixes_it(project):
    project.configure(configs=MESH_CONFIG)
    project.write("test_m.py", AUTO_SHARDED)
    result = project.run("--stages-update")
    result.assert_outcomes(failed=1)
    assert (
        "A config's mesh has explicit axes by default (as jax.make_mesh's does), on which JAX checks shardings as "
        "types; code written for automatic sharding (GSPMD: with_sharding_constraint, sharded inputs and a compiler "
        'that places the rest) stages with axis_types = "auto" in the config\'s [[tool.pytest_stages.configs]] '
        "entry. Or give the operation its out_sharding, as the error asks. Its snapshots were left untouched."
    ) in result.outlines
    project.configure(configs=MESH_CONFIG + 'axis_types = "auto"\n')
    project.run("--stages-update").assert_outcomes(passed=1)
