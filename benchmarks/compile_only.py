"""Compile-only configs, cold and warm: the example suite's real model calls on v5e and h100 against a CPU config.

Usage: python benchmarks/compile_only.py [--repeat 3] [--attached]

The example suite (examples/: Flax NNX and Linen, Equinox, Haiku and the JAX models, 11 calls a
config) is copied to a scratch folder with one more config, ``cpu4``: 4 CPU devices under the
same ``data = 2, model = 2`` mesh as ``v5e`` and ``h100``, so that the three stage the same
programs (the two tests limited to ``cpu8, v5e, h100`` run on ``cpu4`` too, so that each
config stages the same 11 calls). Every run is a
fresh pytest process in compare mode; "tests" is the sum of the JUnit test times (staging and
comparing), "calls" the same without each config's first test (whose setup also loads libtpu or
the CUDA plugin and makes the topology, once a process), "process" the whole run. Runs per
round, in alternating order:

- ``cpu4``, ``v5e``, ``h100`` warm: each config alone, its cache filled by an earlier run (JAX's
  persistent cache for ``cpu4``; the compile-only cache for the topologies, which JAX's cannot
  serve);
- ``v5e cold``, ``h100 cold``: the same with the compile-only cache emptied before each run (every
  call compiles, as before the compile-only cache);
- ``without`` and ``with``: the suite's own configs, warm, without the compile-only ones
  (cpu1, cpu8, tpu) and with them (cpu1, cpu8, tpu, v5e, h100).

``--attached`` is for a host with one TPU v5e chip (.ci/tpu_small_suite.sh runs it there): the
added config is ``v5e1``, compile-only for one v5e chip (``v5e:1x1``), and the runs are ``tpu``
(the attached chip, JAX's persistent cache warm), ``v5e1`` warm (the compile-only cache) and
``v5e1 cold``: the same calls, compile-only against the chip. There the scratch project's
``conftest.py`` starts JAX's local backend (the chip, about 5 s) once the tests are collected,
so that no run's calls pay it: the ``tpu`` run would pay it in its first test, a compile-only
run in whichever test first runs code on the chip (``stage_compiles`` executes its function).

Where the CUDA plugin is not installed (the TPU v5e host), ``h100`` is skipped: its own runs
measure nothing and ``with`` adds ``v5e`` alone, while the suite's ``tpu`` config compiles on the chip.

Ratios are taken per round and summed up by their median (their range below 6 rounds). The
goals: a warm compile-only call at most 1.2x the same program's on a CPU config (tests of ``v5e``
and ``h100`` warm against ``cpu4`` warm), and the warm run with every compile-only config at most
1.1x the run without them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from suite import benchmark_environment, paired_interval

ROOT = Path(__file__).resolve().parent.parent
CPU4 = """
[[tool.pytest_stages.configs]]
name = "cpu4"
devices = 4
mesh = { data = 2, model = 2 }
"""
RUNS = {
    "cpu4": "cpu4",
    "v5e": "v5e",
    "h100": "h100",
    "v5e cold": "v5e",
    "h100 cold": "h100",
    "without": "cpu1,cpu8,tpu",
    "with": "cpu1,cpu8,tpu,v5e,h100",
}
# (run, baseline, goal, measure): "calls" (summed JUnit times but each config's first test, which also
# makes its devices), "tests" (all of them) or "process" (the whole run)
RATIOS = (
    ("v5e", "cpu4", 1.2, "calls"),
    ("h100", "cpu4", 1.2, "calls"),
    ("v5e", "cpu4", None, "tests"),
    ("h100", "cpu4", None, "tests"),
    ("v5e cold", "cpu4", None, "tests"),
    ("h100 cold", "cpu4", None, "tests"),
    ("v5e", "v5e cold", None, "tests"),
    ("h100", "h100 cold", None, "tests"),
    ("with", "without", 1.1, "process"),
    ("with", "without", None, "tests"),
)
# --attached, on a host with one TPU v5e chip: ``v5e1`` compiles compile-only for one v5e chip
# (topology v5e:1x1, as the kernels example does) what the attached ``tpu`` config compiles on the
# chip, the same calls: the compile-only cache against JAX's persistent cache, both warm.
V5E1 = """
[[tool.pytest_stages.configs]]
name = "v5e1"
platform = "tpu"
topology = "v5e:1x1"
chips_per_host_bounds = [1, 1, 1]
"""
# The local backend started before the first test, in every --attached run alike (see the docstring).
START_BACKEND = """import jax


def pytest_collection_finish(session):
    jax.devices()
"""
ATTACHED_RUNS = {"tpu": "tpu", "v5e1": "v5e1", "v5e1 cold": "v5e1"}
ATTACHED_RATIOS = (
    ("v5e1", "tpu", 1.2, "calls"),
    ("v5e1", "tpu", None, "tests"),
    ("v5e1 cold", "tpu", None, "tests"),
    ("v5e1", "v5e1 cold", None, "tests"),
)


def scratch_project(root: Path, attached: bool = False) -> Path:
    """The example suite and its configs with ``cpu4`` (``v5e1`` where ``attached``) added, its snapshots recorded.

    The tests limited to some configs are opened to the added one where its baseline runs them,
    so that both stage the same calls.
    """
    shutil.copytree(ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__", "pods"))
    shutil.copytree(ROOT / "snapshots", root / "snapshots")
    added, baseline = ("v5e1", "tpu") if attached else ("cpu4", "v5e")
    limited = {
        root / "examples" / "test_models.py": 'configs=["cpu8", "v5e", "h100"]',
        root / "examples" / "entry_points.py": 'configs=["cpu1", "tpu"]',
    }
    for path, configs in limited.items():
        if f'"{baseline}"' in configs:
            path.write_text(path.read_text().replace(configs, configs.replace("]", f', "{added}"]')))
    (root / "pyproject.toml").write_text(
        (ROOT / "pyproject.toml")
        .read_text()
        .replace("# The layers, top to bottom", (V5E1 if attached else CPU4) + "\n# The layers, top to bottom", 1)
    )
    if attached:
        (root / "conftest.py").write_text(START_BACKEND)
    run(root, added, "--stages-update")
    return root


def run(root: Path, configs: str, *extra: str) -> tuple[float, float, dict[str, float], float]:
    """``(process s, summed test s, summed s per staging step, summed s of each config's first test)`` of a run.

    A config's first test also makes its devices (loading libtpu or the CUDA plugin, the topology).

    The steps are the calls' trace, lower and compile seconds of ``--stages-report`` (compile:
    on a hit, making the key and reading the entry); "rest" is the tests' time beyond them
    (building the artifacts, comparing them with their snapshots, the fixtures).
    """
    report, junit = root / "report.json", root / "junit.xml"
    command = [sys.executable, "-m", "pytest", "examples", "-q", "-p", "no:randomly", "-p", "no:hypothesispytest"]
    command += ["-W", "ignore", f"--stages-configs={configs}", f"--junitxml={junit}", f"--stages-report={report}"]
    command += ["-o", f"cache_dir={root / 'pytest-cache'}", *extra]
    start = time.perf_counter()
    subprocess.run(command, cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    whole = time.perf_counter() - start
    tests, first = 0.0, dict[str, float]()
    for case in ET.parse(junit).getroot().iter("testcase"):
        tests += float(case.get("time", 0))
        name = case.get("name", "")
        if "[" in name:  # a test of one config (a stage_compiles test has none)
            first.setdefault(name.rpartition("[")[2], float(case.get("time", 0)))
    steps = dict.fromkeys(("trace", "lower", "compile"), 0.0)
    for call in json.loads(report.read_text())["calls"]:
        for step, seconds in call.get("compile_seconds", {}).items():
            steps[step] = steps.get(step, 0.0) + seconds
    steps["rest"] = tests - sum(steps.values())
    return whole, tests, steps, sum(first.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--attached", action="store_true", help="on a TPU v5e host: v5e1 (compile-only) against tpu")
    options = parser.parse_args()
    benchmark_environment()
    runs, ratios = (ATTACHED_RUNS, ATTACHED_RATIOS) if options.attached else (RUNS, RATIOS)
    scratch = Path(tempfile.mkdtemp(prefix="stages-compile-only-"))
    root = scratch_project(scratch, options.attached)
    compile_only = root / "pytest-cache" / "d" / "pytest-stages-jax" / "compile-only"
    run(root, ",".join(dict.fromkeys(",".join(runs.values()).split(","))))  # fills both caches
    measured: dict[str, dict[str, list[float]]] = {
        kind: {n: [] for n in runs} for kind in ("process", "tests", "calls")
    }
    names = list(runs)
    steps: dict[str, dict[str, float]] = {}  # of the last round
    for round_ in range(options.repeat):
        for name in names if round_ % 2 == 0 else reversed(names):
            if name.endswith("cold"):
                saved = scratch / "saved"
                shutil.move(compile_only, saved)
            whole, tests, steps[name], first = run(root, runs[name])
            if name.endswith("cold"):
                shutil.rmtree(compile_only, ignore_errors=True)  # none made where the config is skipped
                shutil.move(saved, compile_only)
            measured["process"][name].append(whole)
            measured["tests"][name].append(tests)
            measured["calls"][name].append(tests - first)
    print(f"the example suite per config, fresh processes, compare mode, {options.repeat} rounds (median s)")
    for name, configs in runs.items():
        process, tests, calls = (statistics.median(measured[kind][name]) for kind in ("process", "tests", "calls"))
        print(f"  {name:<10} {configs:<24} calls {calls:6.2f} s   tests {tests:6.2f} s   process {process:6.2f} s")
    print("where the tests' time goes (the last round; seconds summed over the calls)")
    for name in runs:
        print(f"  {name:<10} " + "   ".join(f"{step} {seconds:6.2f}" for step, seconds in steps[name].items()))
    for name, base, goal, kind in ratios:
        low, middle, high = paired_interval(measured[kind][name], measured[kind][base])
        print(
            f"  {kind} {name} / {base}: median {middle:.3f}x ({low:.3f}-{high:.3f}x)"
            + (f" (goal <= {goal}x)" if goal else "")
        )
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
