"""Warm and cold compare runs against the same work written as plain pytest tests, side by side.

Usage: python benchmarks/warm_cache.py [--functions 20] [--repeat 3]

Three whole processes per round, interleaved: plain pytest tests doing the same
trace/lower/compile/as_text/analysis calls without a cache; pytest-stages compare with an
emptied compilation cache (cold); pytest-stages compare with the cache filled by an
earlier run (warm). Snapshots are recorded once beforehand. The ratios are taken per round
(this machine's speed drifts between rounds more than within one) and summed up by their
median with a 95% interval.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from suite import benchmark_environment, describe, make_project, median_interval, pytest_command, timed

PLAIN, COLD, WARM = "plain pytest, no cache", "stages compare, cold", "stages compare, warm"

PLAIN_TEST = '''
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
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    benchmark_environment()
    root = make_project(Path(tempfile.mkdtemp(prefix="stages-cache-")), options.functions)
    text = (root / "pyproject.toml").read_text().replace("[tool.pytest_stages]\n", '[tool.pytest_stages]\ncompilation_cache = "jaxcache"\n', 1)
    (root / "pyproject.toml").write_text(text)
    (root / "test_plain.py").write_text(PLAIN_TEST.replace("COUNT", str(options.functions)))
    plain = pytest_command("test_plain.py", "-p", "no:stages")
    timed([*pytest_command("test_suite.py", "--stages-update")], root)
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
        low, middle, high = median_interval([run / base for run, base in zip(runs[name], runs[PLAIN])])
        print(f"  ratio {name.split(', ')[1]}/plain, paired by round: median {middle:.3f}x, 95% interval {low:.3f}-{high:.3f}x")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
