"""Time to stage the example suite (examples/ and its registered functions) per device config.

Each config runs in its own fresh pytest process in compare mode against the committed
snapshots; "tests" is the sum of the JUnit test times (setup, staging, comparing: the
topology is made in the first test's setup), "process" the whole run with start-up.

With ``--pods``, instead: production topologies in this process (256 chips of v5p:8x8x4, 256
of v5e:16x16, 128 of v5p:4x4x4 in two slices with a hybrid mesh): the time to make the topology
and mesh (first and second time in the session: the second is the per-session cache), the time
to stage a sharded bf16 matmul step through pytest-stages, and JAX's own trace + lower + compile
of the same step beside it.

Usage: python benchmarks/topology_time.py [--configs cpu1,cpu8,tpu,v5e,h100] [--repeat 3]
       python benchmarks/topology_time.py --pods
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_config(name: str, report: Path) -> tuple[float, float, int, int]:
    """``(process seconds, summed test seconds, tests passed, tests skipped)`` of one config's run."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "examples",
        "-q",
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore",
        f"--stages-configs={name}",
        f"--junitxml={report}",
    ]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    whole = time.perf_counter() - start
    cases = ET.parse(report).getroot().iter("testcase")
    seconds, passed, skipped = 0.0, 0, 0
    for case in cases:
        seconds += float(case.get("time", 0))
        if case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return whole, seconds, passed, skipped


POD_CONFIGS = [
    {"name": "v5p-256", "platform": "tpu", "topology": "v5p:8x8x4", "mesh": {"data": 8, "fsdp": 32}},
    {"name": "v5e-256", "platform": "tpu", "topology": "v5e:16x16", "mesh": {"data": 16, "fsdp": 16}},
    {
        "name": "v5p-2x64",
        "platform": "tpu",
        "topology": "v5p:4x4x4",
        "num_slices": 2,
        "mesh": {"data": 1, "fsdp": 64},
        "dcn_mesh": {"data": 2},
        "axis_types": "auto",
    },
]


def pods() -> None:
    """Make each production topology twice (the second from the session's cache), stage one step on it."""
    import os

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    from pytest_stages.config.device_configs import parse_configs
    from pytest_stages.stage.activation import activate
    from pytest_stages.stage.staging import stage

    def step(w, x):
        return jnp.tanh(x @ w).sum()

    header = ("config", "chips", "topology+mesh s", "again s", "staged s", "jax compile s")
    print(f"{header[0]:<9} {header[1]:>5}   {header[2]:>15}   {header[3]:>7}   {header[4]:>8}   {header[5]:>13}")
    for config in parse_configs(POD_CONFIGS):
        start = time.perf_counter()
        active = activate(config)
        made = time.perf_counter() - start
        start = time.perf_counter()
        activate(config)
        again = time.perf_counter() - start
        mesh = active.mesh
        # libtpu's first compile in a process carries its start-up: pay it before the timed ones.
        one = jax.sharding.SingleDeviceSharding(active.devices[0])
        jax.jit(jnp.sin).trace(jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=one)).lower().compile()
        w = jax.ShapeDtypeStruct((8192, 8192), jnp.bfloat16, sharding=NamedSharding(mesh, P("fsdp", None)))
        x = jax.ShapeDtypeStruct((4096, 8192), jnp.bfloat16, sharding=NamedSharding(mesh, P(("data", "fsdp"))))
        start = time.perf_counter()
        stage(step, (w, x), {}, name="step", active=active, stages=("compiled",), analyses=("memory", "ops"))
        staged = time.perf_counter() - start
        jax.clear_caches()
        start = time.perf_counter()
        with jax.set_mesh(mesh):
            jax.jit(step).trace(w, x).lower().compile()
        plain = time.perf_counter() - start
        chips = len(active.devices)
        print(f"{config.name:<9} {chips:>5}   {made:>15.2f}   {again:>7.4f}   {staged:>8.2f}   {plain:>13.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="cpu1,cpu8,tpu,v5e,h100")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pods", action="store_true", help="production topologies in this process instead")
    options = parser.parse_args()
    if options.pods:
        pods()
        return
    print(f"{'config':<8} {'tests':>5} {'skipped':>7}   {'tests s (median)':>16}   {'process s (median)':>18}")
    with tempfile.TemporaryDirectory(prefix="stages-topology-") as scratch:
        report = Path(scratch) / "junit.xml"
        for name in options.configs.split(","):
            runs = [run_config(name, report) for _ in range(options.repeat)]
            whole = statistics.median(r[0] for r in runs)
            tests = statistics.median(r[1] for r in runs)
            print(f"{name:<8} {runs[0][2]:>5} {runs[0][3]:>7}   {tests:>16.2f}   {whole:>18.2f}")


if __name__ == "__main__":
    main()
