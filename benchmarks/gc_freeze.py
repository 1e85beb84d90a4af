"""Python's cyclic garbage collector in a warm run of the example suite, and ``gc.freeze()`` after collection.

Usage: python benchmarks/gc_freeze.py [--repeat 5]

The example suite (examples/ and its snapshots, every configured config) runs in compare mode as
whole processes, its compilation cache filled by an earlier run, two ways in alternating order:
as it is, and with ``gc.freeze()`` called once the tests are collected (a three-line
``conftest.py`` hook, docs/performance.md). A probe plugin in both times each collection by
generation (``gc.callbacks``), from the plugin's load on, and the time from pytest's last hook to
the process's end: the interpreter's exit, whose last collections walk every object left (the
modules of JAX and the frameworks). The freeze moves every object alive after collection out of
the collector's reach, during the run and at exit. Prints each way's median seconds, collector
seconds and exit seconds, and the per-round ratio frozen / as is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import compile_only
from suite import benchmark_environment, paired_interval

ROOT = Path(__file__).resolve().parent.parent
# Loaded with -p in every run: times the collector's passes; with STAGES_GC_FREEZE set, freezes
# what is alive once the tests are collected.
PROBE = """
import gc
import json
import os
import time

PASSES = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
_started = [0.0]


def _time(phase, info):
    if phase == "start":
        _started[0] = time.perf_counter()
    else:
        passes = PASSES[info["generation"]]
        passes[0] += 1
        passes[1] += time.perf_counter() - _started[0]


gc.callbacks.append(_time)


def pytest_collection_finish(session):
    if os.environ.get("STAGES_GC_FREEZE"):
        gc.freeze()


def pytest_unconfigure(config):
    with open(os.environ["STAGES_GC_OUT"], "w") as out:
        json.dump({"passes": PASSES, "unconfigured": time.time()}, out)
"""
WAYS = ("as is", "frozen")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    benchmark_environment()
    scratch = Path(tempfile.mkdtemp(prefix="stages-gc-"))
    root = scratch / "project"
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__", "pods"))
    shutil.copytree(ROOT / "snapshots", root / "snapshots")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "gc_probe.py").write_text(PROBE)
    out = scratch / "gc.json"
    os.environ["STAGES_GC_OUT"] = str(out)
    configs = compile_only.RUNS["with"]  # every config of the suite
    compile_only.run(root, configs, "-p", "gc_probe")  # fills the compilation cache
    wall: dict[str, list[float]] = {way: [] for way in WAYS}
    collector: dict[str, list[float]] = {way: [] for way in WAYS}
    exit_: dict[str, list[float]] = {way: [] for way in WAYS}
    for round_ in range(options.repeat):
        for way in WAYS if round_ % 2 == 0 else reversed(WAYS):
            if way == "frozen":
                os.environ["STAGES_GC_FREEZE"] = "1"
            else:
                os.environ.pop("STAGES_GC_FREEZE", None)
            seconds = compile_only.run(root, configs, "-p", "gc_probe")[0]
            ended = time.time()
            probe = json.loads(out.read_text())
            wall[way].append(seconds)
            collector[way].append(sum(s for _, s in probe["passes"].values()))
            exit_[way].append(ended - probe["unconfigured"])
    print(f"the example suite, warm compare, whole processes, {options.repeat} rounds (medians)")
    for way in WAYS:
        print(
            f"  {way:<7} {statistics.median(wall[way]):6.2f} s, of it the collector during the run "
            f"{statistics.median(collector[way]):5.2f} s and the exit after pytest's last hook "
            f"{statistics.median(exit_[way]):5.2f} s"
        )
    low, middle, high = paired_interval(wall["frozen"], wall["as is"])
    print(f"  frozen / as is: median {middle:.3f}x ({low:.3f}-{high:.3f}x)")
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
