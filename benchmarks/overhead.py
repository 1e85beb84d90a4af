"""Plugin overhead over bare JAX AOT calls on the same staged functions, measured side by side.

Usage: python benchmarks/overhead.py [--functions 20] [--repeat 3]

Each sample is a fresh process: ``bare.py`` runs jit(f).trace().lower().compile() plus the same
as_text()/analysis calls the plugin makes; the pytest runs stage the same functions through
``stage_snapshot`` in update mode (writing every snapshot) and compare mode. Runs are interleaved
so that machine noise hits all three alike.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from suite import benchmark_environment, describe, make_project, pytest_command, timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    benchmark_environment()
    root = make_project(Path(tempfile.mkdtemp(prefix="stages-bench-")), options.functions)
    runs: dict[str, list[tuple[float, float]]] = {
        "bare JAX AOT": [],
        "pytest --stages-update": [],
        "pytest compare": [],
    }
    for _ in range(options.repeat):
        runs["bare JAX AOT"].append(timed([sys.executable, "bare.py", str(options.functions)], root))
        shutil.rmtree(root / "snapshots", ignore_errors=True)
        runs["pytest --stages-update"].append(timed(pytest_command("--stages-update"), root))
        runs["pytest compare"].append(timed(pytest_command(), root))
    print(f"{options.functions} staged functions (MLPs, grads, attention, scans, sharded grads) on 8 CPU devices")
    for part, label in ((1, "staging loop (after imports and start-up)"), (0, "whole process")):
        print(label)
        medians = {}
        for name, samples in runs.items():
            values = [sample[part] for sample in samples]
            medians[name] = statistics.median(values)
            print("  " + describe(name, values))
        base = medians["bare JAX AOT"]
        print(
            f"  ratio compare/bare {medians['pytest compare'] / base:.3f}x, "
            f"update/bare {medians['pytest --stages-update'] / base:.3f}x"
        )
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
