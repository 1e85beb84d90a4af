"""``-n 0`` against ``-n 2`` (pytest-xdist) on three suites, measured side by side.

Usage: python benchmarks/xdist_scaling.py [--functions 40] [--repeat 3] [--suites examples,jax,flax]

Suites: ``examples`` (this repository's example suite against its committed snapshots),
``jax`` (the compile-bound benchmark suite of ``suite.py``: ``--functions`` staged functions on
8 CPU devices) and ``flax`` (``--functions / 2`` Flax NNX + optax train steps on two configs).
Snapshots are recorded once; then whole ``pytest`` processes run in compare mode, alternating
``-n 0`` and ``-n 2``. The achievable speed-up on 2 cores is 2 divided by the serial run's CPU
utilisation (CPU seconds over wall seconds, GNU time's ``%P``): a serial run already using 1.2
cores can gain at most 2 / 1.2. Printed: the speed-up as a share of the achievable one (the
goal's measure), and the stricter share of the achievable gain, ``(speed-up - 1) / (achievable - 1)``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from suite import benchmark_environment, make_project, pytest_command, run_measured

REPOSITORY = Path(__file__).resolve().parent.parent


def suite_root(name: str, functions: int) -> tuple[Path, list[str]]:
    """The folder to run pytest in and the arguments that select the suite (snapshots recorded)."""
    if name == "examples":
        return REPOSITORY, ["examples"]
    count = functions if name == "jax" else functions // 2
    root = make_project(Path(tempfile.mkdtemp(prefix=f"stages-xdist-{name}-")), count, kind=name)
    run_measured(pytest_command("--stages-update"), root)
    return root, []


def measure(name: str, functions: int, repeat: int) -> str:
    root, selection = suite_root(name, functions)
    runs: dict[str, list[tuple[float, float]]] = {"0": [], "2": []}
    for _ in range(repeat):
        for workers, walls in runs.items():
            walls.append(run_measured(pytest_command("-p", "xdist", "-n", workers, *selection), root))
    if root != REPOSITORY:
        shutil.rmtree(root)
    serial = statistics.median(wall for wall, _ in runs["0"])
    parallel = statistics.median(wall for wall, _ in runs["2"])
    utilisation = statistics.median(cpu / wall for wall, cpu in runs["0"])
    achievable = min(2.0, 2.0 / utilisation) if utilisation > 1 else 2.0
    speedup = serial / parallel
    gain = (speedup - 1) / (achievable - 1) if achievable > 1 else 1.0
    return (
        f"{name:<9} -n 0 {serial:6.2f} s  -n 2 {parallel:6.2f} s  speed-up {speedup:4.2f}x  "
        f"serial CPU {utilisation:4.0%}  achievable {achievable:4.2f}x  reached {speedup / achievable:4.0%} of it "
        f"({gain:4.0%} of the gain) "
        f"(median of {repeat}; -n 0 samples {', '.join(f'{w:.2f}' for w, _ in runs['0'])}; "
        f"-n 2 {', '.join(f'{w:.2f}' for w, _ in runs['2'])})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--suites", default="examples,jax,flax")
    options = parser.parse_args()
    benchmark_environment()
    print(f"{os.cpu_count()} cores; whole pytest processes in compare mode, no compilation cache")
    for name in options.suites.split(","):
        print(measure(name, options.functions, options.repeat), flush=True)


if __name__ == "__main__":
    main()
