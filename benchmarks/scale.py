"""Many registered functions: collection time, peak RSS and snapshot tree of 100 vs. 1000 entry points.

Usage: python benchmarks/scale.py [--small 100] [--large 1000] [--repeat 3] [--no-update]

Each size is a generated project (one ``cpu1`` config) whose module ``entry_points``, listed in
``[tool.pytest_stages] modules``, registers that many tiny functions with ``@register(args=...)``.
Everything is measured as whole subprocesses, the sizes interleaved:

- ``pytest --collect-only -q``: wall time of the process, and the time of pytest's collection step
  (the ``pytest_collection`` hook: the plugin imports ``entry_points``, turns each registration into
  an item and records the items), written by the project's conftest.py. The conftest imports JAX
  first, so neither time's collection step includes importing JAX. The same project collected with
  ``-p no:stages`` (the plugin not loaded, so nothing is registered) is the baseline: the
  difference is the plugin's share, registrations included.
- Peak RSS of that collection and of ``--stages-update``, each the child of a fresh measuring
  process (``RUSAGE_CHILDREN``).
- ``--stages-update`` at the large size: wall time (it stages and compiles every function) and the
  snapshot tree it writes (files, bytes).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from suite import peak_mib, pytest_command, timing_conftest

PYPROJECT = """
[tool.pytest.ini_options]
pythonpath = ["."]

[tool.pytest_stages]
snapshot_dir = "snapshots"
modules = ["entry_points"]

[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
"""

CONFTEST = timing_conftest(
    "pytest_collection",
    "collection_seconds.txt",
    preamble="import jax  # imported before collection, so that the timed step does not include it",
)

HEADER = """
import jax
import jax.numpy as jnp

from pytest_stages import register

ARGS = (jax.ShapeDtypeStruct((8,), jnp.float32),)
"""

FUNCTION = """

@register(args=ARGS)
def entry_{index}(x):
    return jnp.sin(x) * {index} + 1
"""


def make_project(root: Path, count: int) -> Path:
    """A project whose ``entry_points`` module registers ``count`` tiny functions."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "entry_points.py").write_text(HEADER + "".join(FUNCTION.format(index=k) for k in range(count)))
    return root


def collect(root: Path, *extra: str) -> tuple[float, float, int]:
    """``(process seconds, collection-step seconds, items)`` of one ``pytest --collect-only -q``."""
    start = time.perf_counter()
    output = subprocess.run(
        pytest_command("--collect-only", *extra),
        cwd=root,
        capture_output=True,
        text=True,
        check=False,  # the items are counted from the output; an exit status of 5 (none collected) counts 0
    ).stdout
    whole = time.perf_counter() - start
    items = sum(line.startswith("stages::") for line in output.splitlines())
    return whole, float((root / "collection_seconds.txt").read_text()), items


def tree(folder: Path) -> tuple[int, int]:
    """``(files, bytes)`` under ``folder``."""
    files = [path for path in folder.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def collection_table(roots: dict[int, Path], repeat: int) -> None:
    """Collection times per size, with and without the plugin, interleaved; printed as medians."""
    runs = [(count, extra) for count in roots for extra in ((), ("-p", "no:stages"))]
    samples: dict[tuple[int, tuple[str, ...]], list[tuple[float, float, int]]] = {run: [] for run in runs}
    for _ in range(repeat):
        for count, extra in runs:
            samples[count, extra].append(collect(roots[count], *extra))
    for count, extra in runs:
        whole = statistics.median(s[0] for s in samples[count, extra])
        step = statistics.median(s[1] for s in samples[count, extra])
        items = samples[count, extra][0][2]
        label = "-p no:stages" if extra else "with plugin"
        print(
            f"{count:>5} registered, {label:<12}: collect-only process {whole:6.2f} s, "
            f"collection step {step:6.3f} s, {items} items (median of {repeat})"
        )
    for count in roots:
        share = [s[1] - b[1] for s, b in zip(samples[count, ()], samples[count, ("-p", "no:stages")], strict=True)]
        print(f"{count:>5} registered: plugin's share of the collection step {statistics.median(share):6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=100)
    parser.add_argument("--large", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-update", action="store_true", help="skip the --stages-update runs")
    options = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="stages-scale-"))
    roots = {count: make_project(base / str(count), count) for count in (options.small, options.large)}
    try:
        collection_table(roots, options.repeat)
        peaks = {count: peak_mib(root, "--collect-only") for count, root in roots.items()}
        print(
            f"peak RSS of collect-only: {options.small}: {peaks[options.small]:.1f} MiB, "
            f"{options.large}: {peaks[options.large]:.1f} MiB, ratio {peaks[options.large] / peaks[options.small]:.3f}"
        )
        if not options.no_update:
            update_table(roots, options.small, options.large)
    finally:
        shutil.rmtree(base)


def update_table(roots: dict[int, Path], small: int, large: int) -> None:
    """``--stages-update`` of both sizes: peak RSS and wall time, and the large size's snapshot tree."""
    measured = {}
    for count in (small, large):
        start = time.perf_counter()
        measured[count] = peak_mib(roots[count], "--stages-update"), time.perf_counter() - start
        files, size = tree(roots[count] / "snapshots")
        print(
            f"{count:>5} registered: --stages-update {measured[count][1]:6.1f} s, "
            f"peak RSS {measured[count][0]:.1f} MiB, "
            f"snapshot tree {files} files, {size} bytes ({size / 2**20:.2f} MiB)"
        )
    print(f"peak RSS of --stages-update, ratio {large}/{small}: {measured[large][0] / measured[small][0]:.3f}")


if __name__ == "__main__":
    main()
