"""Warm and cold compare runs against the same work written as plain pytest tests, side by side.

Usage: python benchmarks/warm_cache.py [--functions 20] [--repeat 3] [--instructions]

Three whole processes per round, interleaved: plain pytest tests doing the same
trace/lower/compile/as_text/analysis calls without a cache; pytest-stages compare with an
emptied compilation cache (cold); pytest-stages compare with the cache filled by an
earlier run (warm). Snapshots are recorded once beforehand. The ratios are taken per round
(this machine's speed drifts between rounds more than within one) and summed up by their
median with a 95% interval.

``--instructions`` counts work instead of time: each round runs the three processes at once,
each under valgrind's cachegrind (``valgrind`` must be installed; about 40 times slower), and
prints the instructions each executed. The count does not depend on the machine's speed or
load, so a difference of a per cent shows; it leaves out time spent waiting (on the disk).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from suite import (
    add_setting,
    benchmark_environment,
    describe,
    instructions,
    make_project,
    paired_interval,
    pytest_command,
    timed,
)

PLAIN, COLD, WARM = "plain pytest, no cache", "stages compare, cold", "stages compare, warm"

PLAIN_TEST = """
import os
os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")  # as the plugin does: no TPU/CUDA plugin start-up
import jax, pytest
from functions import cases

@pytest.mark.parametrize("index", range(COUNT))
def test_plain(index):
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    with jax.set_mesh(mesh):
        name, fn, args = cases(index, mesh)
        traced = jax.jit(fn).trace(*args)
        lowered = traced.lower()
        compiled = lowered.compile()
        assert str(traced.jaxpr) and lowered.as_text() and compiled.as_text()
        assert compiled.memory_analysis() is not None
        compiled.cost_analysis(), lowered.cost_analysis(), compiled.input_shardings, compiled.input_formats
"""


def count_work(root: Path, plain: list[str], repeat: int) -> None:
    """The --instructions mode: cold and warm runs in copies of ``root`` with their own caches."""
    cold, warm = root.with_name(root.name + "-cold"), root.with_name(root.name + "-warm")
    for copy in (cold, warm):
        shutil.copytree(root, copy)
    compare = pytest_command("test_suite.py")
    # Fill the warm copy's cache under valgrind too: JAX's cache key describes the machine
    # (platform, devices), which valgrind's CPU changes, so a native entry is never read there.
    instructions({WARM: (compare, warm)})
    ratios: dict[str, list[float]] = {COLD: [], WARM: []}
    for _ in range(repeat):
        shutil.rmtree(cold / "jaxcache", ignore_errors=True)
        counts = instructions({PLAIN: (plain, root), COLD: (compare, cold), WARM: (compare, warm)})
        print("  instructions: " + ", ".join(f"{name} {count / 1e9:.3f} G" for name, count in counts.items()))
        for name, values in ratios.items():
            values.append(counts[name] / counts[PLAIN])
    for name, values in ratios.items():
        print(f"  ratio {name.split(', ')[1]}/plain in instructions: " + ", ".join(f"{value:.4f}x" for value in values))
    for copy in (cold, warm):
        shutil.rmtree(copy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    options = parser.parse_args()
    benchmark_environment()
    root = make_project(Path(tempfile.mkdtemp(prefix="stages-cache-")), options.functions)
    add_setting(root, 'compilation_cache = "jaxcache"')
    (root / "test_plain.py").write_text(PLAIN_TEST.replace("COUNT", str(options.functions)))
    plain = pytest_command("test_plain.py", "-p", "no:stages")
    timed([*pytest_command("test_suite.py", "--stages-update")], root)
    if options.instructions:
        print(f"{options.functions} staged functions on 8 CPU devices, whole processes under cachegrind")
        count_work(root, plain, options.repeat)
        shutil.rmtree(root)
        return
    commands = {PLAIN: plain, COLD: pytest_command("test_suite.py"), WARM: pytest_command("test_suite.py")}
    runs: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(options.repeat):
        # Every other round in reverse, so that neither side always runs first; a reversed
        # round's warm run reads the cache the cold run of the round before filled.
        for name in commands if round_ % 2 == 0 else reversed(commands):
            if name == COLD:
                shutil.rmtree(root / "jaxcache", ignore_errors=True)
            runs[name].append(timed(commands[name], root)[0])
    print(f"{options.functions} staged functions on 8 CPU devices, whole processes")
    for name, samples in runs.items():
        print("  " + describe(name, samples))
    for name in (WARM, COLD):
        low, middle, high = paired_interval(runs[name], runs[PLAIN])
        print(
            f"  ratio {name.split(', ')[1]}/plain, paired by round: median {middle:.3f}x, "
            f"95% interval {low:.3f}-{high:.3f}x"
        )
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
