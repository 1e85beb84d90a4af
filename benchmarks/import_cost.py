"""Start-up cost of the installed plugin on a suite that does not use it.

Usage: python benchmarks/import_cost.py [--tests 200] [--repeat 5] [--against DIR] [--instructions]

Times ``pytest --collect-only`` on plain tests with the plugin loaded and with ``-p no:stages``,
and the plugin's import alone after pytest (its entry point and the hook modules it names), each in
fresh processes, interleaved; checks that the plugin imported no JAX. ``--against DIR`` times
another copy of the package beside this checkout's (``git archive <commit> | tar -x -C DIR``):
the same runs with ``PYTHONPATH`` set to each tree in turn. ``--instructions`` also counts the
instructions of the plugin's import and of the collection (cachegrind): work, which the machine's
load does not scatter.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from suite import benchmark_environment, describe, instructions

PLAIN = "import sys\n\n" + "".join(f"def test_{i}():\n    assert 'jax' not in sys.modules\n\n" for i in range(3))
# The plugin's import alone, in a process that has imported pytest (as pytest's entry-point loading has):
# its entry point and any hook modules that entry point names in ``pytest_plugins`` (pytest imports them next).
LOAD = "import importlib, pytest_stages.plugin as p; [*map(importlib.import_module, getattr(p, 'pytest_plugins', ()))]"
IMPORT = f"import time, pytest; t = time.perf_counter(); {LOAD}; print(time.perf_counter() - t)"
HERE = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another tree holding pytest_stages/, timed beside this one")
    parser.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    options = parser.parse_args()
    benchmark_environment()
    trees = {"this tree": HERE} | ({"--against": options.against.resolve()} if options.against else {})
    root = Path(tempfile.mkdtemp(prefix="stages-import-"))
    body = "".join(f"def test_{i}():\n    pass\n\n" for i in range(options.tests))
    (root / "test_plain.py").write_text(body)
    (root / "test_no_jax.py").write_text(PLAIN)
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    runs = {f"{kind} ({tree})": [] for tree in trees for kind in ("collect", "import")}
    runs["collect, -p no:stages"] = []
    for _ in range(options.repeat):
        for tree, path in trees.items():
            env = {**os.environ, "PYTHONPATH": str(path)}
            start = time.perf_counter()
            subprocess.run([*base, "--collect-only"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
            runs[f"collect ({tree})"].append(time.perf_counter() - start)
            out = subprocess.run([sys.executable, "-c", IMPORT], cwd=root, env=env, check=True, capture_output=True)
            runs[f"import ({tree})"].append(float(out.stdout))
        start = time.perf_counter()
        subprocess.run([*base, "--collect-only", "-p", "no:stages"], cwd=root, check=True, stdout=subprocess.DEVNULL)
        runs["collect, -p no:stages"].append(time.perf_counter() - start)
    for path in trees.values():
        env = {**os.environ, "PYTHONPATH": str(path)}
        subprocess.run([*base, "test_no_jax.py"], cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    print(f"pytest --collect-only on {options.tests} plain tests (the plugin imported no JAX: checked)")
    for label, values in runs.items():
        print(describe(label, values))
    bare = statistics.median(runs["collect, -p no:stages"])
    for tree in trees:
        print(f"collect with/without the plugin ({tree}): {statistics.median(runs[f'collect ({tree})']) / bare:.3f}x")
    if options.against:
        ratio = statistics.median(runs["import (this tree)"]) / statistics.median(runs["import (--against)"])
        print(f"the plugin's import, this tree / --against: {ratio:.3f}x")
    if options.instructions:
        count_instructions(trees, root)
    shutil.rmtree(root)


def count_instructions(trees: dict[str, Path], root: Path) -> None:
    """Instructions of the plugin's import (less pytest's own import) and of the collection, per tree."""
    commands = {}
    for tree, path in trees.items():
        first = f"import sys; sys.path.insert(0, {str(path)!r}); import pytest"
        commands[f"pytest ({tree})"] = ([sys.executable, "-c", first], root)
        commands[f"plugin ({tree})"] = ([sys.executable, "-c", f"{first}; {LOAD}"], root)
        collect = f"{first}; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '--collect-only']))"
        commands[f"collect ({tree})"] = ([sys.executable, "-c", collect], root)
    counts = instructions(commands)
    for tree in trees:
        plugin = counts[f"plugin ({tree})"] - counts[f"pytest ({tree})"]
        collect = counts[f"collect ({tree})"]
        print(f"instructions ({tree}): the plugin's import {plugin / 1e6:.0f} M, collect {collect / 1e6:.0f} M")


if __name__ == "__main__":
    main()
