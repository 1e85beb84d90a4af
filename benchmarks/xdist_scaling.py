"""The same compile-heavy suite at ``-n 0`` and ``-n 2`` (pytest-xdist), measured side by side.

Usage: python benchmarks/xdist_scaling.py [--functions 40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path

from suite import describe, make_project, pytest_command, timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    root = make_project(Path(tempfile.mkdtemp(prefix="stages-xdist-")), options.functions)
    timed(pytest_command("--stages-update"), root)
    serial, parallel = [], []
    for _ in range(options.repeat):
        serial.append(timed(pytest_command("-p", "xdist", "-n", "0"), root)[0])
        parallel.append(timed(pytest_command("-p", "xdist", "-n", "2"), root)[0])
    print(f"{options.functions} staged functions, compare mode, whole pytest processes")
    print(describe("-n 0", serial))
    print(describe("-n 2", parallel))
    print(f"speed-up -n 2 over -n 0: {statistics.median(serial) / statistics.median(parallel):.2f}x")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
