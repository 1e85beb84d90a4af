"""A cost snapshot from before the estimated step time: kept as it is by compares and updates, given the
estimate by ``--stages-update --stages-migrate`` (its own step), and nothing else rewritten."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_stages.check import snapshot_format
from pytest_stages.core.records import Migration
from pytest_stages.ir.normalize import to_json

# A one-device CPU config estimated as a TPU v5e: the cost snapshot's ``step`` holds a number.
CONFIG = """
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
chip = { name = "v5e" }
"""
TEST = """
import jax
import jax.numpy as jnp


def test_product(stage_snapshot):
    x = jax.ShapeDtypeStruct((256, 256), jnp.float32)
    stage_snapshot(lambda a, b: jnp.tanh(a @ b), x, x, name="product")
"""
COST = "test_product/test_product/cpu1/product.cost.json"


def _recorded_before_the_estimate(project) -> tuple[dict, dict[str, bytes]]:
    """The project's snapshots with ``step`` taken out of the cost file, as an older pytest-stages wrote it;
    the cost as this version writes it, and the snapshots as they are now."""
    project.configure(configs=CONFIG)
    project.write("test_product.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    path = Path(project.path, "snapshots", COST)
    full = json.loads(path.read_text())
    older = {key: value for key, value in full.items() if key != "step"}
    path.write_text(json.dumps(older, indent=2, sort_keys=True) + "\n")
    return full, project.snapshots()


def test_stages_migrate_gives_an_older_cost_snapshot_the_estimate_and_rewrites_nothing_else(project, tmp_path):
    full, before = _recorded_before_the_estimate(project)
    assert "estimated_seconds" in full["step"]

    pending = tmp_path / "pending"
    project.run(f"--stages-pending={pending}").assert_outcomes(passed=1)
    assert not pending.exists() or not any(p.is_file() for p in pending.rglob("*"))
    project.run("--stages-update").assert_outcomes(passed=1)
    assert project.snapshots() == before  # the estimate alone is no reason to write

    result = project.run("--stages-update", "--stages-migrate")
    result.assert_outcomes(passed=1)
    after = project.snapshots()
    assert json.loads(after[COST]) == full
    assert {path for path in after if after[path] != before[path]} == {COST}
    assert "pytest-stages: migrated 1 file(s) to snapshot format 2:" in project.output(result)
    assert (
        f"  snapshots/{COST}: with the figures this version adds (the cost's estimated step time, `step`)"
        in project.output(result)
    )

    again = project.run("--stages-update", "--stages-migrate")
    again.assert_outcomes(passed=1)
    assert project.snapshots() == after
    assert "migrated" not in project.output(again)


PATH = Path("f.cost.json")
BUILT = {"compiled": {"flops": 2.0, "bytes accessed": 8.0}, "step": {"estimated_seconds": 1e-4}}


def test_a_cost_snapshot_whose_program_changed_is_not_migrated_but_compared():
    """Without the estimate and with other figures than the program now has: the change is the compare's to
    report and the update's to write, never a migration's."""
    same = json.dumps({"compiled": {"flops": 2.0, "bytes accessed": 8.0}})
    changed = json.dumps({"compiled": {"flops": 3.0, "bytes accessed": 8.0}})
    assert migrations(same) == {PATH: (to_json(BUILT), Migration.ADDED)}
    assert migrations(changed) == {}
    assert migrations(to_json(BUILT)) == {}


def migrations(text: str) -> dict[Path, tuple[str, Migration]]:
    """What ``--stages-migrate`` rewrites of a cost snapshot ``text`` (read as the plugin reads it) beside BUILT."""
    read = snapshot_format.parsed("cost", snapshot_format.Snapshot(PATH, text))
    return snapshot_format.migrations({"cost": read}, None, {"cost": BUILT})
