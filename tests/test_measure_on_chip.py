"""``--stages-measure`` on an attached TPU: the measured step time is judged against the estimate of the
compiled program the chip runs, while the config's snapshot records the one ``step`` it records in CPU CI too.
Skipped where no TPU is attached (CI); run on the chip host."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_stages.analyse import step_time
from pytest_stages.stage.chip import attached_platforms

pytestmark = pytest.mark.skipif(
    "tpu" not in attached_platforms(os.environ, os.path.exists), reason="needs an attached TPU (the chip host)"
)

TPU = """
[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"
"""
TEST = """
import jax
import jax.numpy as jnp


def test_product(stage_snapshot):
    x = jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16)
    stage_snapshot(lambda a, b: a @ b, x, x, name="product")
"""


def test_a_measured_call_is_judged_against_the_estimate_of_the_program_the_chip_runs(project, tmp_path):
    project.configure(configs=TPU)
    project.write("test_product.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    snapshot = json.loads(Path(project.path, "snapshots/test_product/test_product/tpu/product.cost.json").read_text())
    assert snapshot["step"] == step_time.host_dependent_step()  # what CPU CI records (tests/test_step_kernels.py)

    before = project.snapshots()
    report = tmp_path / "report.json"
    result = project.run("--stages-measure", f"--stages-report={report}")
    result.assert_outcomes(passed=1)
    step = json.loads(report.read_text())["calls"][0]["step"]
    assert "notes" not in step  # the compiled program's kernels counted
    assert step["binding"] == "compute"  # a 4096^3 bf16 product: 137 GFLOP, about 0.7 ms on a v5e
    assert 1 / 1.5 < step["estimate_over_measured"] < 1.5
    assert project.snapshots() == before  # the measurement goes to the reports only
