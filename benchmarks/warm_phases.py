"""Where a warm compare's extra wall time goes: its phases and steps beside the same calls by hand.

Usage: python benchmarks/warm_phases.py [--repeat 5]

The small suite's ``warm`` and ``plain warm`` runs (benchmarks/small_suite.py: 20 small functions,
the plugin against hand-written tests making the same calls, both with JAX's persistent cache
filled), each a whole pytest process with the probe plugin ``phase_probe`` loaded, in alternating
order. No profiler: cProfile hides what this shows (under it, JAX's tracing took as long from the
plugin as by hand on the TPU v5e host, while without it the plugin's took 25% longer, the
frame-stack chunks of stage/deep_recursion.py). Prints the median of each phase (from one mark to
the next) and of each step's summed time, for both runs and their difference.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from small_suite import WARM_RUNS, commands, make_project
from suite import benchmark_environment, run_measured

HERE = Path(__file__).resolve().parent


def probed(command: list[str], folder: Path, out: Path) -> dict[str, float]:
    """One run with the probe: each phase's seconds, each step's, and the whole process's."""
    environment = dict(os.environ, PHASE_PROBE_OUT=str(out))
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), environment.get("PYTHONPATH")]))
    start = time.time()
    subprocess.run([*command, "-p", "phase_probe"], cwd=folder, env=environment, check=True, stdout=subprocess.DEVNULL)
    end = time.time()
    found = json.loads(out.read_text(encoding="utf-8"))
    points = [("process start", start), *found["marks"], ("process end", end)]
    phases = {f"{a} -> {b}": later - earlier for (a, earlier), (b, later) in itertools.pairwise(points)}
    return {**phases, "whole process": end - start, **found["spent"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    benchmark_environment()
    scratch = Path(tempfile.mkdtemp(prefix="stages-phases-"))
    planned = commands(
        make_project(scratch / "cold", 20, "false"),
        make_project(scratch / "warm", 20, '"jaxcache"'),
        make_project(scratch / "plain-warm", 20, "false", jax_cache=True),
    )
    for name in WARM_RUNS:
        run_measured(*planned[name])  # fills the caches
    seen: dict[str, list[dict[str, float]]] = {name: [] for name in WARM_RUNS}
    for round_ in range(options.repeat):
        for name in WARM_RUNS if round_ % 2 == 0 else WARM_RUNS[::-1]:
            seen[name].append(probed(*planned[name], scratch / "probe.json"))
    print(f"20 small functions, warm, {options.repeat} rounds: median seconds")
    print(f"  {'phase or step':<56}{'warm':>9}{'by hand':>9}{'extra':>9}")
    labels = list(dict.fromkeys(label for runs in seen.values() for run in runs for label in run))
    for label in labels:
        warm, plain = (statistics.median(run.get(label, 0.0) for run in seen[name]) for name in WARM_RUNS)
        print(f"  {label:<56}{warm:9.3f}{plain:9.3f}{warm - plain:+9.3f}")
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
