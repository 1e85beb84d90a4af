"""One verdict on every machine: where a config stages, what a snapshot folder records of it, and what a
run in another environment checks, says and refuses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ONE_CONFIG, Project

from pytest_stages.check.environment import after_update, compare_environments, describe, not_checked
from pytest_stages.check.upgrade import version_note
from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.stage.plan import ATTACHED, COMPILE_ONLY, LOWERED, Plan, host_dependent, machine, plan

CPU = {"platform": "cpu", "staging": "attached", "device_kind": "cpu", "machine": "x86_64", "jax": "0.10.2"}
V5E = {"platform": "tpu", "staging": "attached", "device_kind": "TPU v5 lite", "libtpu": "0.0.42.1"}
TPU_LOWERED = {"platform": "tpu", "staging": "lowered", "device_kind": None}
COMPILED = ("compiled", "memory", "ops", "sharding", "layout")
ALL = ("jaxpr", "stablehlo", "cost", *COMPILED)
OTHER_MACHINE = "aarch64" if machine() == "x86_64" else "x86_64"


def test_a_config_without_platform_stages_on_cpu_beside_an_attached_accelerator():
    both = {"cpu", "tpu"}
    assert plan(DeviceConfig("cpu8", devices=8), both) == Plan("cpu", ATTACHED)
    assert plan(DeviceConfig("default"), {"cpu", "cuda"}) == Plan("cpu", ATTACHED)
    assert plan(DeviceConfig("tpu", platform="tpu"), both) == Plan("tpu", ATTACHED)
    assert plan(DeviceConfig("tpu", platform="tpu"), {"cpu"}) == Plan("tpu", LOWERED)
    topology = DeviceConfig("v5e", platform="tpu", topology="v5e:2x2")
    assert plan(topology, both) == plan(topology, {"cpu"}) == Plan("tpu", COMPILE_ONLY)
    assert [host_dependent(c) for c in (DeviceConfig("c"), DeviceConfig("t", platform="tpu"), topology)] == [
        False,
        True,
        False,
    ]


def test_environment_changes_are_named_and_unknown_keys_are_not_changes():
    assert compare_environments({"platform": "cpu", "jax": "0.10.2"}, CPU).shown is False, "older folder"
    assert compare_environments(None, CPU).foreign is False
    change = compare_environments(V5E, CPU)
    assert change.platform is not None and change.foreign and change.target is None
    assert change.headline() == "recorded on the attached TPU v5 lite, now on cpu (x86_64)"
    arch = compare_environments({**CPU, "machine": "aarch64"}, CPU)
    assert arch.foreign and arch.target is not None and (arch.target.before, arch.target.after) == ("aarch64", "x86_64")
    staged = compare_environments({**V5E, "staging": "compile-only"}, V5E)
    assert not staged.foreign and staged.shown
    assert staged.headline() == "recorded compile-only for TPU v5 lite, now on the attached TPU v5 lite"
    assert describe(TPU_LOWERED) == "lowered only for tpu"
    assert not compare_environments(TPU_LOWERED, V5E).foreign, "an unknown device kind is not another one"


def test_what_another_host_cannot_check():
    arch = compare_environments({**CPU, "machine": "aarch64"}, CPU)
    unchecked = not_checked(arch, ALL, host_dependent=False)
    assert sorted(unchecked) == sorted(("cost", *COMPILED)), "the compiled cost is the host's too"
    assert unchecked["ops"].startswith("recorded for aarch64, this run compiles for x86_64")
    # A TPU host over snapshots CPU CI recorded: the compiled files were never recorded.
    attached = compare_environments(TPU_LOWERED, V5E)
    unchecked = not_checked(attached, ALL, host_dependent=True, missing=COMPILED)
    assert sorted(unchecked) == sorted(COMPILED), "the lowered cost compares on both hosts"
    assert "where tpu was not attached" in unchecked["compiled"]
    assert not_checked(attached, ALL, host_dependent=False, missing=COMPILED) == {}, "elsewhere missing fails"
    fresh = compare_environments(None, V5E)
    assert not_checked(fresh, ALL, host_dependent=True, missing=ALL) == {}, "a new folder has no snapshots yet"
    by_the_chip = compare_environments(V5E, V5E)
    assert not_checked(by_the_chip, ALL, host_dependent=True, missing=("ops",)) == {}, "a lost file fails"
    assert not_checked(compare_environments(CPU, CPU), ALL, host_dependent=False) == {}


def test_an_update_that_only_lowers_keeps_what_a_compiling_host_recorded():
    recorded = {**V5E, "format": 1, "jax": "0.10.2", "manifest": ["x"]}
    after = after_update(recorded, {**TPU_LOWERED, "jax": "0.10.3"})
    assert after["staging"] == "attached" and after["device_kind"] == "TPU v5 lite" and after["libtpu"] == "0.0.42.1"
    assert after["jax"] == "0.10.3" and after["manifest"] == ["x"], "other keys stay"
    rerecorded = after_update({**CPU, "manifest": 1}, V5E)
    assert "machine" not in rerecorded and rerecorded["platform"] == "tpu" and rerecorded["manifest"] == 1


def test_a_version_the_folder_does_not_record_is_unknown():
    current = {"jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.42.1"}
    assert version_note({"jax": "0.10.2", "jaxlib": "0.10.2"}, current) == ""
    assert version_note({"jax": "0.10.2", "jaxlib": "0.10.2", "libtpu": "0.0.40"}, current) == (
        "snapshots were taken with jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.40; "
        "this run uses jax 0.10.2, jaxlib 0.10.2, libtpu 0.0.42.1"
    )


SIMPLE = """
import jax, jax.numpy as jnp

def f(x, w):
    return jnp.tanh(x @ w).sum()

def test_f(stage_snapshot):
    stage_snapshot(f, jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 4), jnp.float32))
"""
FOLDER = "snapshots/test_f/test_f/cpu1/"


def _edit_meta(project: Project, folder: str, **changes: object) -> None:
    path = project.path / folder / "_stages.json"
    meta = json.loads(path.read_text())
    meta.update(changes)
    path.write_text(json.dumps({k: v for k, v in meta.items() if v is not ...}))


@pytest.fixture
def recorded(project):
    project.write("test_f.py", SIMPLE)
    project.run("--stages-update").assert_outcomes(passed=1)
    meta = json.loads((project.path / FOLDER / "_stages.json").read_text())
    assert {k: meta[k] for k in ("platform", "staging", "device_kind", "machine")} == {
        "platform": "cpu",
        "staging": "attached",
        "device_kind": "cpu",
        "machine": machine(),
    }
    return project


def test_snapshots_of_another_platform_fail_with_that_headline_and_a_plain_update_refuses(recorded):
    _edit_meta(recorded, FOLDER, platform="tpu", device_kind="TPU v5 lite", machine=...)
    before = recorded.snapshots()
    result = recorded.run()
    result.assert_outcomes(failed=1)
    output = recorded.output(result)
    assert (
        f"pytest-stages: 'f' on config cpu1: the snapshots in {FOLDER} were recorded on the attached TPU v5 lite; "
        f"this run stages on cpu ({machine()}): they do not compare. To re-record them here on purpose, run "
        "`pytest --stages-update --stages-rerecord test_f.py::test_f[cpu1]`" in output
    )
    assert " -> " not in output and "memory:" not in output, "never read as a figure regression"
    result = recorded.run("--stages-update")
    result.assert_outcomes(failed=1)
    assert "`--stages-update` does not replace snapshots of another platform or device kind" in recorded.output(result)
    assert recorded.snapshots() == before
    recorded.run("--stages-update", "--stages-rerecord").assert_outcomes(passed=1)
    assert json.loads((recorded.path / FOLDER / "_stages.json").read_text())["platform"] == "cpu"
    recorded.run().assert_outcomes(passed=1)


def test_another_cpu_architecture_leaves_the_compiled_artifacts_unchecked(recorded):
    _edit_meta(recorded, FOLDER, machine=OTHER_MACHINE)
    compiled = recorded.path / FOLDER / "f.compiled.hlo.txt"
    compiled.write_text(compiled.read_text().replace("tanh", "tanh-other-isa"))
    result = recorded.run()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest-stages: config cpu1: compiled, cost, layout, memory, ops, sharding not checked here: recorded "
            f"for {OTHER_MACHINE}, this run compiles for {machine()} (see `--stages-rerecord` to re-record it)"
        ]
    )
    before = recorded.snapshots()
    recorded.run("--stages-update").assert_outcomes(failed=1)
    assert recorded.snapshots() == before


def test_a_folder_recorded_before_the_environment_keys_still_passes(recorded):
    """The keys an older version did not record are no reason for an update to write; a migration records them."""
    _edit_meta(recorded, FOLDER, staging=..., device_kind=..., machine=..., pytest_stages=...)
    recorded.run().assert_outcomes(passed=1)
    recorded.run("--stages-update").stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    result = recorded.run("--stages-update", "--stages-migrate", "-v")
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: wrote 1 snapshot file(s)",
            f"  {FOLDER}_stages.json",
            "pytest-stages: migrated 1 file(s) to snapshot format 2:",
            f"  {FOLDER}_stages.json: the folder's metadata as this version records it (format, version, environment)",
        ]
    )
    assert json.loads((recorded.path / FOLDER / "_stages.json").read_text())["machine"] == machine()


TPU_ONLY = ONE_CONFIG + '\n[[tool.pytest_stages.configs]]\nname = "tpu"\nplatform = "tpu"\n'


def test_a_platform_only_config_passes_over_what_the_attached_host_recorded(project):
    """CPU CI checks the lowered stages and cost of snapshots a TPU host recorded, and keeps what it compiled."""
    project.configure(configs=TPU_ONLY)
    project.write("test_f.py", SIMPLE)
    project.run("--stages-update", "--stages-configs=tpu").assert_outcomes(passed=1)
    folder = "snapshots/test_f/test_f/tpu/"
    assert json.loads((project.path / folder / "_stages.json").read_text())["staging"] == "lowered"
    # What a TPU host's --stages-update adds: the compiled files, and the compile in _stages.json.
    _edit_meta(project, folder, staging="attached", device_kind="TPU v5 lite", libtpu="0.0.1")
    (project.path / folder / "f.compiled.hlo.txt").write_text("HloModule tpu_program\n")
    result = project.run("--stages-configs=tpu")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*config tpu: compiled, layout, memory, ops, sharding not checked here: platform*"])
    project.write("test_f.py", SIMPLE.replace("jnp.tanh", "jnp.sin"))
    project.run("--stages-update", "--stages-configs=tpu").assert_outcomes(passed=1)
    meta = json.loads((project.path / folder / "_stages.json").read_text())
    assert (meta["staging"], meta["device_kind"], meta["libtpu"]) == ("attached", "TPU v5 lite", "0.0.1")
    assert (project.path / folder / "f.compiled.hlo.txt").read_text() == "HloModule tpu_program\n"


# An elementwise update XLA's CPU compiler splits over the cores it may use
# (backend_config={"outer_dimension_partitions":["2"]} on 2 cores, none on one).
SPLIT = """
import jax, jax.numpy as jnp

def sgd(w, g):
    return w - 0.01 * g

def test_sgd(stage_snapshot):
    w = jax.ShapeDtypeStruct((256, 256), jnp.float32)
    stage_snapshot(sgd, w, w)
"""


def _cores_available() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


@pytest.mark.skipif(shutil.which("taskset") is None, reason="taskset (util-linux) is not installed")
@pytest.mark.skipif(_cores_available() < 2, reason="one core here: nothing to compare a single core with")
def test_snapshots_are_byte_identical_on_one_core_and_on_all(tmp_path):
    import jax
    import jax.numpy as jnp

    w = jax.ShapeDtypeStruct((256, 256), jnp.float32)
    with jax.default_device(jax.devices("cpu")[0]):  # the CPU compiler's split, also beside an accelerator
        raw = jax.jit(lambda w, g: w - 0.01 * g).lower(w, w).compile().as_text()
    assert '"outer_dimension_partitions":["' in raw, "the premise: XLA splits the loop over this host's cores"

    def record(name: str, *prefix: str, update: bool = True) -> dict[str, bytes]:
        root = tmp_path / name
        root.mkdir(exist_ok=True)
        (root / "pyproject.toml").write_text(f"[tool.pytest_stages]\ncompilation_cache = false\n{ONE_CONFIG}")
        (root / "test_sgd.py").write_text(SPLIT)
        args = [*prefix, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
        # JAX_PLATFORMS=cpu: on an accelerator host this test's own process holds the chip, which a
        # second process's backend start would fail on (libtpu's lock), though it stages on the CPU.
        env = {**os.environ, "JAX_PLATFORMS": "cpu"}
        done = subprocess.run(
            [*args, *(["--stages-update"] if update else [])],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        snapshots = root / "snapshots"
        return {p.relative_to(snapshots).as_posix(): p.read_bytes() for p in snapshots.rglob("*") if p.is_file()}

    one_core = record("one", "taskset", "-c", "0")
    all_cores = record("all")
    assert one_core == all_cores
    assert '"outer_dimension_partitions"' not in all_cores["test_sgd/test_sgd/cpu1/sgd.compiled.hlo.txt"].decode()
    record("one", update=False)  # the one-core snapshots pass on all cores
    record("all", "taskset", "-c", "0", update=False)  # and the all-core ones on one


def test_a_failure_opens_with_the_staging_it_was_recorded_under(recorded):
    """Compile-only and attached compiles of one device kind compare; a drift's headline names the change."""
    _edit_meta(recorded, FOLDER, staging="compile-only")
    memory = recorded.path / FOLDER / "f.memory.json"
    figures = json.loads(memory.read_text())
    assert figures["temp_size_in_bytes"] >= 64
    figures["temp_size_in_bytes"] -= 64  # recorded with less temp memory: this run's reads as a rise
    memory.write_text(json.dumps(figures))
    result = recorded.run()
    result.assert_outcomes(failed=1)
    lines = recorded.output(result).splitlines()
    title = next(k for k, line in enumerate(lines) if line.startswith("pytest-stages: 'f' on config cpu1 differs"))
    assert lines[title + 1] == (
        f"  environment: recorded compile-only for cpu ({machine()}), now on cpu ({machine()})"
    ), "the environment first, before any figure"
    assert lines[title + 2].startswith("  memory: temp_bytes +")
