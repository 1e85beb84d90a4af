"""The figures behind config/device_configs.py's limits: what host CPU devices cost to make, and where libtpu aborts.

Usage: python benchmarks/limits.py [--cpu-devices 1,1024,4096] [--topologies v5e:16x16,v5e:32x16]

Each count and each topology runs in a fresh process. A count of CPU devices: the wall time and
the peak memory (``ru_maxrss``) of a process that imports JAX and makes that many devices
(``MAX_CPU_DEVICES`` bounds what a config may ask for). A topology: whether a trivial sharded
program compiles for it compile-only, or libtpu aborts the process (a failed check, no
exception: ``TPU_AXIS_BOUNDS`` refuses such topologies before JAX is asked), with libtpu's own
line. Pass an empty list to skip a part.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import time

MAKE_DEVICES = "import jax, sys; assert len(jax.devices()) == int(sys.argv[1])"
COMPILE = """
import sys
import jax
import jax.numpy as jnp
from jax.experimental import topologies
from jax.sharding import NamedSharding, PartitionSpec as P

topology = topologies.get_topology_desc(sys.argv[1], "tpu")
mesh = topologies.make_mesh(topology, (len(topology.devices),), ("data",))
x = jax.ShapeDtypeStruct((len(topology.devices) * 8,), jnp.float32, sharding=NamedSharding(mesh, P("data")))
jax.jit(lambda a: a * 2).lower(x).compile()
"""


def cpu_devices(count: int) -> tuple[float, float]:
    """Wall seconds and peak MiB of a fresh process making ``count`` CPU devices."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", XLA_FLAGS=f"--xla_force_host_platform_device_count={count}")
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", MAKE_DEVICES, str(count)], env=env)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"making {count} CPU devices failed (exit {process.returncode})")
    return seconds, usage.ru_maxrss / 1024


def compile_for(topology: str) -> str:
    """``compiled``, or ``exit <code>: <libtpu's failed check>``."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    command = [sys.executable, "-c", COMPILE, topology]
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True)
    if done.returncode == 0:
        return "compiled"
    failed = [line for line in done.stderr.splitlines() if "Check failed" in line]
    return f"exit {done.returncode}: " + (failed[0].split("] ", 1)[-1] if failed else done.stderr[-300:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-devices", default="1,1024,4096")
    parser.add_argument("--topologies", default="v5e:16x16,v5e:32x16")
    options = parser.parse_args()
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}" for name in ("jax", "jaxlib", "libtpu"))
    print(f"{versions}, {os.cpu_count()} cores")
    for count in (int(n) for n in options.cpu_devices.split(",") if n):
        seconds, mib = cpu_devices(count)
        print(f"{count:>6} CPU devices: {seconds:5.1f} s, peak {mib:,.0f} MiB")
    for topology in (t for t in options.topologies.split(",") if t):
        print(f"{topology}: {compile_for(topology)}")


if __name__ == "__main__":
    main()
