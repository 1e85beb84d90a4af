"""On a host with one attached TPU v5e chip: the kernels example on the chip against its compile-only snapshots.

``examples/kernels/snapshots/`` was recorded compile-only (topology ``v5e:1x1``) on a CPU machine.
This script, run from the repository root (``python benchmarks/tpu_kernels.py``):

1. runs ``examples/kernels`` as committed (compile-only ``v5e:1x1`` on this host): it must pass;
2. records the same tests into a copy of the project whose config is the attached chip
   (``platform = "tpu"``, no topology) and compares every snapshot file byte for byte with the
   committed compile-only ones (``_stages.json`` aside: it records where they were taken);
3. compiles a kernel whose VMEM estimate (blocks x 2 + scratch) exceeds the chip's scoped VMEM
   limit, compile-only and on the chip, and prints how each refuses it.

Steps 1 and 2 run pytest in child processes (one process may hold the chip at a time); step 3 runs
here after them. Exit status 0 when every step gave what the docs (docs/kernels.md) say.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "kernels"
COMPILE_ONLY = 'topology = "v5e:1x1"\nchips_per_host_bounds = [1, 1, 1]\n'
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-W", "ignore"]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def compile_only_passes() -> bool:
    done = _run(PYTEST, EXAMPLE)
    last = done.stdout.strip().splitlines()[-1]
    print(f"1. examples/kernels compile-only on this host: exit {done.returncode}; {last}")
    return done.returncode == 0


def chip_matches_compile_only() -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "kernels"
        shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("snapshots", "__pycache__"))
        config = (copy / "pyproject.toml").read_text()
        assert COMPILE_ONLY in config, "examples/kernels/pyproject.toml no longer names its topology as expected"
        (copy / "pyproject.toml").write_text(config.replace(COMPILE_ONLY, ""))  # the attached chip
        done = _run([*PYTEST, "--stages-update"], copy)
        print(f"2. the same tests on the attached chip: exit {done.returncode}; {done.stdout.strip().splitlines()[-1]}")
        chip = {p.relative_to(copy / "snapshots"): p.read_bytes() for p in (copy / "snapshots").rglob("*.*")}
        recorded = {p.relative_to(EXAMPLE / "snapshots"): p.read_bytes() for p in (EXAMPLE / "snapshots").rglob("*.*")}
        names = sorted(n for n in set(chip) | set(recorded) if n.name != "_stages.json")
        differing = [n for n in names if chip.get(n) != recorded.get(n)]
        print(f"   {len(names) - len(differing)} of {len(names)} snapshot files byte-identical to compile-only")
        for name in differing:
            print(f"   differs: {name}" + ("" if name in chip and name in recorded else " (only on one side)"))
        return done.returncode == 0 and not differing


def oversized_kernel_refused() -> bool:
    # As the plugin does for compile-only topologies (stage/topology.py): no machine-wide libtpu lock.
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    import jax
    import jax.numpy as jnp
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    sys.path[:0] = [str(ROOT), str(EXAMPLE)]
    from test_kernels import scale_add  # the example's hand-written kernel

    from pytest_stages.analyse.kernel_specs import kernel_specs

    big = functools.partial(scale_add, block=(1024, 1024))  # 3 blocks x 4 MiB x 2 buffers = 24 MiB
    topology = topologies.get_topology_desc(platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1))
    refused = []
    for where, device_of in (
        ("compile-only v5e:1x1", lambda: topology.devices[0]),
        ("attached chip", lambda: jax.devices("tpu")[0]),
    ):
        device = device_of()
        x = jax.ShapeDtypeStruct((8192, 1024), jnp.float32, sharding=SingleDeviceSharding(device))
        traced = jax.jit(big).trace(x, x)
        estimate = kernel_specs(traced.jaxpr, device.device_kind)["kernels"]["scale_add_kernel"]["vmem_estimate_bytes"]
        try:
            traced.lower(lowering_platforms=("tpu",)).compile()
            print(f"3. {where}: VMEM est. {estimate / 2**20:g} MiB compiled (not refused)")
        except Exception as exc:  # noqa: BLE001  (XLA's refusal, whatever its type, is what this step reports)
            text = str(exc)
            scoped = next((line for line in text.split(". ") if "Scoped allocation" in line), text.splitlines()[0])
            print(f"3. {where}: VMEM est. {estimate / 2**20:g} MiB refused: {type(exc).__name__}: {scoped.strip()}")
            refused.append("CompileTimeScopedVmemOom" in text)
    return refused == [True, True]


def main() -> int:
    results = [compile_only_passes(), chip_matches_compile_only(), oversized_kernel_refused()]
    print("all as documented" if all(results) else f"NOT as documented: steps {results}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
