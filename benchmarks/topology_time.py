"""Time to stage the example suite (examples/ and its registered functions) per device config.

Each config runs in its own fresh pytest process in compare mode against the committed
snapshots; "tests" is the sum of the JUnit test times (setup, staging, comparing: the
topology is made in the first test's setup), "process" the whole run with start-up.

Usage: python benchmarks/topology_time.py [--configs cpu1,cpu8,tpu,v5e,h100] [--repeat 3]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="cpu1,cpu8,tpu,v5e,h100")
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
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
