"""JAX's tracing from N extra Python frames deep, with and without stage/deep_recursion.py's ``call``.

Usage: python benchmarks/frame_depth.py [--repeat 3] [--deepest 160] [--step 20]

The small suite's 20 functions (benchmarks/small_suite.py) traced in one process on 8 CPU
devices under its mesh, JAX's caches cleared before each pass, from ``depth`` extra frames; each
pass's wall time and minor page faults (a fresh frame-stack chunk is a fresh map, faulted on
first touch), medians over rounds. Without ``call`` both move with the depth; with it they do not.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
from small_suite import FUNCTIONS

from pytest_stages.stage import deep_recursion


def nest(depth: int, function: Callable[[], Any]) -> Any:
    return function() if depth == 0 else nest(depth - 1, function)


def one_pass(case: Callable[[int], Any], depth: int, through_call: bool) -> tuple[float, int]:
    """Seconds and minor page faults of tracing the 20 functions from ``depth`` extra frames."""
    jax.clear_caches()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    start = time.perf_counter()
    for index in range(20):
        _, fn, args = case(index)

        def trace(fn: Any = fn, args: Any = args) -> Any:
            return jax.jit(fn).trace(*args)

        nest(depth, (lambda: deep_recursion.call(trace)) if through_call else trace)
    return time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--deepest", type=int, default=160)
    parser.add_argument("--step", type=int, default=20)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="stages-depth-"))
    (folder / "functions.py").write_text(FUNCTIONS, encoding="utf-8")
    sys.path.insert(0, str(folder))
    from functions import case  # the generated module of the small suite

    depths = range(0, options.deepest + 1, options.step)
    seen: dict[tuple[int, bool], list[tuple[float, int]]] = {(d, c): [] for d in depths for c in (False, True)}
    with jax.set_mesh(jax.make_mesh((4, 2), ("data", "model"))):
        for round_ in range(options.repeat):
            for depth in depths if round_ % 2 == 0 else reversed(depths):
                for through_call in (False, True):
                    seen[(depth, through_call)].append(one_pass(case, depth, through_call))
    print(f"20 small functions traced, median of {options.repeat}: ms and minor page faults")
    print(f"  {'extra frames':>12}{'plain':>22}{'through call':>22}")
    for depth in depths:
        cells = []
        for through_call in (False, True):
            runs = seen[(depth, through_call)]
            seconds, faults = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
            cells.append(f"{seconds * 1000:9.0f} ms {faults:7.0f} f")
        print(f"  {depth:>12}" + "".join(f"{cell:>22}" for cell in cells))


if __name__ == "__main__":
    main()
