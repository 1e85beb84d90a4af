"""Peak RSS of a pytest run staging 200 functions vs. 20: nothing may accumulate per test.

Usage: python benchmarks/memory.py [--small 20] [--large 200]

Each run is a child of a fresh measuring process, so ``RUSAGE_CHILDREN`` is that one run's peak.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from suite import make_project, peak_mib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--large", type=int, default=200)
    options = parser.parse_args()
    peaks = {}
    for count in (options.small, options.large):
        root = make_project(Path(tempfile.mkdtemp(prefix="stages-memory-")), count)
        update = peak_mib(root, "--stages-update")
        compare = peak_mib(root)
        peaks[count] = (update, compare)
        print(f"{count:>4} functions: peak RSS update {update:7.1f} MiB, compare {compare:7.1f} MiB")
        shutil.rmtree(root)
    (small_update, small_compare), (large_update, large_compare) = peaks[options.small], peaks[options.large]
    print(
        f"ratio {options.large}/{options.small} functions: update {large_update / small_update:.2f}x, "
        f"compare {large_compare / small_compare:.2f}x"
    )


if __name__ == "__main__":
    main()
