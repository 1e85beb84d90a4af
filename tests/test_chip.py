"""One process holds an attached accelerator: under pytest-xdist the configs that need it run on gw0 alone.

This machine has no TPU, so "attached" comes from ``$PYTEST_STAGES_ATTACHED`` (the detection's
input); the scheduling and each worker's JAX platforms are real xdist sessions.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pytest_stages.config.device_configs import DeviceConfig
from pytest_stages.config.settings import parse_settings
from pytest_stages.stage import chip

CONFIGS = """
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1

[[tool.pytest_stages.configs]]
name = "tpu"
platform = "tpu"

[[tool.pytest_stages.configs]]
name = "v5e"
platform = "tpu"
topology = "v5e:2x2"
"""

# Each staged test logs its worker, its config and this process's JAX_PLATFORMS.
TESTS = """
import os, jax, jax.numpy as jnp

def log(stage_config):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(os.path.join({root!r}, "ran.log"), "a") as out:
        out.write(f"{{worker}} {{stage_config.name}} {{os.environ.get('JAX_PLATFORMS')}}\\n")

""" + "".join(
    f"""
def test_f{i}(stage_snapshot, stage_config):
    log(stage_config)
    stage_snapshot(lambda x: jnp.tanh(x) * {i}, jax.ShapeDtypeStruct((8,), jnp.float32), name="f")
"""
    for i in range(6)
)

REGISTERED = """
import jax, jax.numpy as jnp
from pytest_stages import register

register(lambda x: jnp.sin(x), args=(jax.ShapeDtypeStruct((4,), jnp.float32),), name="sine", configs=["cpu1", "tpu"])
"""

ISSUE_TEXT = (
    "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid "
    "1234. Not attempting to load libtpu.so in this process. open(/dev/vfio/1): Device or resource busy"
)


def cfg(name: str, platform: str | None = None, topology: str | None = None) -> DeviceConfig:
    return DeviceConfig(name=name, platform=platform, topology=topology)


def test_attached_platforms_come_from_device_nodes_or_the_variable():
    present = {"/dev/vfio", "/dev/nvidia0"}.__contains__
    assert chip.attached_platforms({}, present) == {"tpu", "cuda"}
    assert chip.attached_platforms({}, lambda _: False) == frozenset()
    assert chip.attached_platforms({chip.ATTACHED_VARIABLE: "tpu"}, lambda _: False) == {"tpu"}
    assert chip.attached_platforms({chip.ATTACHED_VARIABLE: ""}, present) == frozenset()


def test_only_an_attached_platform_without_topology_needs_the_chip():
    configs = [cfg("cpu1"), cfg("cpu8", "cpu"), cfg("tpu", "tpu"), cfg("v5e", "tpu", "v5e:2x2"), cfg("h100", "cuda")]
    assert chip.chip_configs(configs, {"tpu"}) == ("tpu",)
    assert chip.chip_configs(configs, {"tpu", "cuda"}) == ("tpu", "h100")
    assert chip.chip_configs(configs, ()) == ()


def test_on_the_tpu_host_the_examples_tpu_config_needs_the_chip_and_the_others_do_not():
    """The facts of the TPU v5e host (`/dev/vfio` present): `tpu` (platform tpu, no topology) is attached;
    cpu1/cpu8 are CPU and v5e/h100 compile-only topologies, so any worker runs them."""
    table = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
    configs = parse_settings(table["tool"]["pytest_stages"]).configs
    assert [c.name for c in configs] == ["cpu1", "cpu8", "tpu", "v5e", "h100"]
    attached = chip.attached_platforms({}, {"/dev/vfio"}.__contains__)
    assert chip.chip_configs(configs, attached) == ("tpu",)
    assert chip.chip_configs(configs, chip.attached_platforms({}, lambda _: False)) == ()


@pytest.mark.parametrize(
    ("worker", "distributed", "attached", "needed", "on_cpu"),
    [
        (None, False, (), False, True),  # nothing attached: always the CPU
        (None, False, ("tpu",), True, False),  # a serial run leaves JAX to pick the chip up
        (None, False, ("tpu",), False, False),
        (None, True, ("tpu",), True, True),  # an xdist controller stages nothing
        ("gw0", True, ("tpu",), True, False),  # the holder, when a selected config needs the chip
        ("gw0", True, ("tpu",), False, True),
        ("gw1", True, ("tpu",), True, True),  # any other worker
        ("gw1", False, ("tpu",), True, True),
    ],
)
def test_which_process_starts_jax_on_the_cpu(worker, distributed, attached, needed, on_cpu):
    role = chip.Role(worker, distributed, holder=chip.holds_chip(worker, None))
    assert chip.keep_on_cpu(role, attached, needed) is on_cpu


@pytest.mark.parametrize(
    ("worker", "flag", "holder"),
    [
        ("gw0", None, True),  # no flag (a controller that set none): gw0 holds the chip
        ("gw1", None, False),
        ("gw0", "1", True),
        ("gw2", "1", True),  # the worker xdist started in place of a crashed holder
        ("gw0", "0", False),  # the flag decides where the controller set it
        (None, "1", False),  # not a worker: a serial run or a controller that inherited the flag
    ],
)
def test_the_chip_holder_is_the_worker_its_controller_named(worker, flag, holder):
    assert chip.holds_chip(worker, flag) is holder


@pytest.mark.parametrize(
    ("nodeid", "pinned"),
    [
        ("tests/test_a.py::test_f[tpu]", True),
        ("stages::train_step[tpu]", True),
        ("tests/test_a.py::test_f[2-tpu]", True),
        ("tests/test_a.py::test_f[tpu-x]", True),
        ("tests/test_a.py::Test::test_f[tpu]@group", True),
        ("tests/test_a.py::test_f[cpu1]", False),
        ("tests/test_a.py::test_f[tpu2]", False),
        ("tests/test_a.py::test_f[v5e]", False),
        ("tests/tpu/test_a.py::test_f", False),
        ("tests/test_a.py::test_tpu", False),
    ],
)
def test_items_of_chip_configs_are_read_from_their_ids(nodeid, pinned):
    assert chip.item_needs_chip(nodeid, ("tpu",)) is pinned


def test_a_held_chip_is_recognised_in_jaxs_error_and_explained():
    assert chip.held_elsewhere(ISSUE_TEXT) == "tpu"
    assert chip.held_elsewhere("Unable to initialize backend 'cuda': no CUDA-capable device") is None
    assert chip.held_message("tpu", ("cpu1", "cpu8")) == (
        "JAX cannot open the attached TPU: another process holds it, and only one process can hold a TPU at a "
        "time. Under pytest-xdist, pytest-stages lets one worker alone open it (gw0, or the worker that replaced it "
        "after a crash) and sends it the configs that need it (with the default --dist load); stop the other "
        "process that holds it (a notebook, another pytest), or run serially with `-n 0`, or only the CPU configs "
        "with `--stages-configs=cpu1,cpu8`."
    )


def attached_project(project, monkeypatch):
    """A project with a chip config, run in fresh processes that see a TPU "attached" and no inherited platform."""
    project.configure(configs=CONFIGS)
    project.write("test_models.py", TESTS.format(root=str(project.path)))
    project.write("conftest.py", REGISTERED)
    monkeypatch.setenv(chip.ATTACHED_VARIABLE, "tpu")
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    monkeypatch.delenv(chip.WORKER_VARIABLE, raising=False)


def ran(project) -> list[tuple[str, str, str]]:
    lines = (project.path / "ran.log").read_text(encoding="utf-8").split("\n")
    (project.path / "ran.log").unlink()
    return [tuple(line.split(" ")) for line in lines if line]  # type: ignore[misc]


def run(project, *args):
    return project.pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "ignore::UserWarning", *args)


def test_under_xdist_the_chip_configs_run_on_gw0_and_the_other_workers_stay_on_the_cpu(project, monkeypatch):
    attached_project(project, monkeypatch)
    result = run(project, "--stages-update", "-p", "xdist", "-n", "2", "-v", "--stages-configs=cpu1,tpu")
    result.assert_outcomes(passed=14)
    workers = {line.split("]")[0][1:] for line in result.outlines if line.startswith("[gw")}
    assert workers == {"gw0", "gw1"}
    chip_items = [line for line in result.outlines if line.startswith("[gw") and "[tpu]" in line]
    assert len(chip_items) == 7 and all(line.startswith("[gw0]") for line in chip_items)
    log = ran(project)
    assert {platforms for worker, _, platforms in log if worker == "gw1"} == {"cpu"}
    assert {platforms for worker, _, platforms in log if worker == "gw0"} == {"None"}
    assert {name for worker, name, _ in log if worker == "gw1"} == {"cpu1"}


# The first chip item: the worker holding the chip dies in it, once (the marker file says it did).
CRASH = """
import os

def test_crash(stage_config):
    marker = os.path.join({root!r}, "crashed")
    if stage_config.name == "tpu" and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
"""


def test_when_the_chip_holder_crashes_the_worker_started_in_its_place_holds_the_chip(project, monkeypatch):
    attached_project(project, monkeypatch)
    project.write("test_a_crash.py", CRASH.format(root=str(project.path)))
    (project.path / "crashed").touch()
    run(project, "--stages-update", "--stages-configs=cpu1,tpu").assert_outcomes(passed=16)
    (project.path / "crashed").unlink()
    ran(project)
    result = run(project, "-p", "xdist", "-n", "2", "-v", "--stages-configs=cpu1,tpu")
    result.assert_outcomes(passed=15, failed=1)
    result.stdout.fnmatch_lines(["*FAILED test_a_crash.py::test_crash[[]tpu[]]*", "replacing crashed worker gw0"])
    assert "INTERNALERROR" not in result.stdout.str()
    chip_workers = {line.split("]")[0][1:] for line in result.outlines if line.startswith("[gw") and "[tpu]" in line}
    assert "gw1" not in chip_workers and "gw2" in chip_workers  # gw2: xdist's replacement of gw0
    log = ran(project)
    holders = {(worker, platforms) for worker, name, platforms in log if name == "tpu"}
    assert holders <= {("gw0", "None"), ("gw2", "None")}
    assert {platforms for worker, _, platforms in log if worker == "gw1"} == {"cpu"}


def test_without_a_chip_config_selected_no_worker_opens_the_chip(project, monkeypatch):
    attached_project(project, monkeypatch)
    result = run(project, "--stages-update", "-p", "xdist", "-n", "2", "--stages-configs=cpu1")
    result.assert_outcomes(passed=7)
    assert {platforms for _, _, platforms in ran(project)} == {"cpu"}


def test_a_chip_config_sent_to_another_worker_fails_saying_why(project, monkeypatch):
    attached_project(project, monkeypatch)
    run(project, "--stages-update", "--stages-configs=cpu1,tpu").assert_outcomes(passed=14)
    result = run(project, "-p", "xdist", "-n", "2", "--dist", "each", "--stages-configs=cpu1,tpu")
    result.assert_outcomes(passed=21, failed=1, errors=6)  # the stage_config fixture of a test errors
    result.stdout.fnmatch_lines(
        [
            "pytest-stages: config 'tpu' needs the attached TPU, and only one process can hold a TPU at a time: "
            "pytest-stages keeps pytest-xdist worker gw1 on the CPU and lets one worker alone open it (gw0, or the "
            "worker that replaced it after a crash), sending it such configs under xdist's default --dist load; this "
            "run's --dist mode sent it here. Run with `--dist load` (the default of -n), serially with `-n 0`, or "
            "only the CPU configs with `--stages-configs=cpu1`."
        ]
    )


def test_a_stage_failing_on_a_held_chip_says_so_instead_of_blaming_the_function():
    from pytest_stages.stage.errors import StagingFailed

    error = StagingFailed("step", "lowering", RuntimeError(ISSUE_TEXT))
    assert "Fix the function" not in str(error)
    assert str(error).endswith(f"{chip.held_message('tpu')} Its snapshots were left untouched.")
