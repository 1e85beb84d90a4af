"""When JAX's caches are dropped (``clear_caches``): "auto" (the default), true and false, side by side.

Usage: python benchmarks/clear_caches.py [--functions 20] [--repeat 3] [--suites jax,flax]

Per suite, compare runs as whole processes without a compilation cache, the three modes
interleaved (every other round in reverse). Prints each mode's median seconds and peak RSS,
and its time per round divided by that round's ``true`` run (the default before "auto").
The JAX suite's 20 functions are 20 tests; the Flax suite's are 40 (two configs each), more
than one "auto" period of 32.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from memory import peak_mib
from suite import (
    add_setting,
    benchmark_environment,
    make_project,
    median_interval,
    pytest_command,
    run_measured,
)

MODES = {"auto": '"auto"', "true": "true", "false": "false"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--suites", default="jax,flax")
    options = parser.parse_args()
    benchmark_environment()
    for kind in options.suites.split(","):
        base = Path(tempfile.mkdtemp(prefix=f"stages-clear-{kind}-"))
        roots = {mode: make_project(base / mode, options.functions, kind) for mode in MODES}
        for mode, root in roots.items():
            add_setting(root, f"clear_caches = {MODES[mode]}")
        run_measured(pytest_command("test_suite.py", "--stages-update"), roots["true"])
        for root in (roots["auto"], roots["false"]):
            shutil.copytree(roots["true"] / "snapshots", root / "snapshots")
        seconds: dict[str, list[float]] = {mode: [] for mode in MODES}
        peaks: dict[str, list[float]] = {mode: [] for mode in MODES}
        for round_ in range(options.repeat):
            for mode in MODES if round_ % 2 == 0 else reversed(MODES):
                start = time.perf_counter()
                peaks[mode].append(peak_mib(roots[mode], "test_suite.py"))
                seconds[mode].append(time.perf_counter() - start)
        tests = options.functions * (2 if kind == "flax" else 1)
        print(f"{kind} suite, {tests} tests, compare mode, no compilation cache, {options.repeat} rounds")
        for mode, setting in MODES.items():
            per_round = zip(seconds[mode], seconds["true"], strict=True)
            low, middle, high = median_interval([run / true for run, true in per_round])
            print(
                f"  clear_caches = {setting:<7} median {statistics.median(seconds[mode]):6.2f} s, "
                f"peak RSS {statistics.median(peaks[mode]):6.1f} MiB; time / true per round: median {middle:.3f}x "
                f"(interval {low:.3f}-{high:.3f}x)"
            )
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
