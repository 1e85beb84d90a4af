"""A small-function suite as a user writes it: the plugin against the same calls by hand, side by side.

Usage: python benchmarks/small_suite.py [--functions 20] [--repeat 9] [--only plain,cold,warm,...] [--instructions]

20 small functions (MLP-like blocks 64-127 wide, every other one under ``jax.grad``, abstract
arguments) on 8 CPU devices, staged two ways in whole pytest processes (``-p no:cacheprovider``):
plain pytest tests that make the trace/lower/compile/``as_text``/``cost_analysis``/
``memory_analysis`` calls by hand (``-p no:stages``), and ``stage_snapshot`` in compare mode
against snapshots recorded beforehand. Runs per round, in alternating order:

- ``plain``: the plain tests;
- ``cold``: compare with ``compilation_cache = false``;
- ``warm``: compare with the compilation cache in a folder filled by an earlier run (the
  default setting keeps it under pytest's cache folder, which ``-p no:cacheprovider`` turns off);
- ``plain warm``: the plain tests with JAX's own persistent cache, filled by an earlier run (set
  in their ``conftest.py``, as a user of JAX's cache would): the floor of any warm run that
  still traces, lowers and looks each compile up, as the plugin does;
- ``plain -n 2`` and ``stages -n 2``: the plain tests and the cold compare under pytest-xdist.

Ratios are taken per round (this machine's speed drifts between rounds more than within one)
and summed up by their median with a distribution-free 95% interval.

``--instructions`` counts work instead of time: each round runs ``plain``, ``cold``, ``warm`` and
``plain warm`` at once, each under valgrind's cachegrind (about 40 times slower), then ``plain -n 2``
and ``stages -n 2``, each counted over its controller and both workers, and prints the instructions
each executed, which do not depend on the machine's speed or load (``--only`` narrows them). The warm
folders' caches are filled under valgrind too (JAX's cache key describes the CPU, which valgrind changes).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from suite import benchmark_environment, describe, instructions, paired_interval, pytest_command, run_measured

# The plain tests' devices and platform, as the plugin arranges them for its config (which it
# does before conftest.py is imported, so that these lines change nothing in its runs).
CONFTEST = """
import os

os.environ.setdefault("JAX_NUM_CPU_DEVICES", "8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
"""

# JAX's own persistent cache for the plain tests of the ``plain warm`` folder, every compile kept.
JAX_CACHE = """
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", "jaxcache")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
"""

FUNCTIONS = """
import jax
import jax.numpy as jnp

f32 = jnp.float32


def block(params, x):
    for w, b in params:
        x = jax.nn.gelu(x @ w + b)
    return x


def loss(params, x):
    return (block(params, x) ** 2).mean()


def case(index):
    \"\"\"The (name, fn, args) of case ``index``: a block 64-127 wide, 2 or 3 layers deep; odd ones under grad.

    No two cases share a function and shapes, so that no test reuses another's compile.
    \"\"\"
    width, depth = 64 + 7 * (index // 2), 2 + index // 2 % 2
    params = [(jax.ShapeDtypeStruct((width, width), f32), jax.ShapeDtypeStruct((width,), f32))] * depth
    x = jax.ShapeDtypeStruct((32, width), f32)
    if index % 2:
        return f"grad{index}", jax.grad(loss), (params, x)
    return f"block{index}", block, (params, x)
"""

PYPROJECT = """
[tool.pytest_stages]
compilation_cache = CACHE

[[tool.pytest_stages.configs]]
name = "cpu8"
devices = 8
mesh = { data = 4, model = 2 }
"""

STAGED = """
import jax  # imported first in both test modules, as the plain tests use it
import pytest
from functions import case


@pytest.mark.parametrize("index", range(COUNT))
def test_case(stage_snapshot, index):
    name, fn, args = case(index)
    stage_snapshot(fn, *args, name=name)
"""

PLAIN = """
import jax
import pytest
from functions import case


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((4, 2), ("data", "model"))


@pytest.mark.parametrize("index", range(COUNT))
def test_plain(mesh, index):
    with jax.set_mesh(mesh):
        name, fn, args = case(index)
        traced = jax.jit(fn).trace(*args)
        lowered = traced.lower()
        compiled = lowered.compile()
        assert str(traced.jaxpr) and lowered.as_text() and compiled.as_text()
        assert compiled.cost_analysis() and compiled.memory_analysis() is not None
"""

RUNS = ("plain", "cold", "warm", "plain warm", "plain -n 2", "stages -n 2")
WARM_RUNS = ("warm", "plain warm")  # their caches are filled before the first round
XDIST_RUNS = ("plain -n 2", "stages -n 2")
# The ratios the goals are stated in (run, its baseline, goal), then the warm floor.
RATIOS = (
    ("cold", "plain", 1.05),
    ("warm", "plain", 0.6),
    ("stages -n 2", "plain -n 2", 1.05),
    ("plain warm", "plain", None),
    ("warm", "plain warm", 1.05),
)


def make_project(root: Path, count: int, cache: str, jax_cache: bool = False) -> Path:
    """A generated project with ``count`` functions, its staged and plain tests, and snapshots recorded.

    ``jax_cache`` gives the plain tests JAX's own persistent cache (``plain warm``); that folder
    runs only its plain tests, so no snapshots are recorded there.
    """
    root.mkdir(parents=True)
    (root / "conftest.py").write_text(CONFTEST + (JAX_CACHE if jax_cache else ""))
    (root / "functions.py").write_text(FUNCTIONS)
    (root / "pyproject.toml").write_text(PYPROJECT.replace("CACHE", cache))
    (root / "test_staged.py").write_text(STAGED.replace("COUNT", str(count)))
    (root / "test_plain.py").write_text(PLAIN.replace("COUNT", str(count)))
    if not jax_cache:
        run_measured(pytest_command("test_staged.py", "--stages-update"), root)
    return root


def commands(cold: Path, warm: Path, plain_warm: Path) -> dict[str, tuple[list[str], Path]]:
    """Each run's command line and folder."""
    plain = ["test_plain.py", "-p", "no:stages"]
    xdist = ["-p", "xdist", "-n", "2"]
    return {
        "plain": (pytest_command(*plain), cold),
        "cold": (pytest_command("test_staged.py"), cold),
        "warm": (pytest_command("test_staged.py"), warm),
        "plain warm": (pytest_command(*plain), plain_warm),
        "plain -n 2": (pytest_command(*plain, *xdist), cold),
        "stages -n 2": (pytest_command("test_staged.py", *xdist), cold),
    }


def count_work(planned: dict[str, tuple[list[str], Path]], chosen: list[str], repeat: int) -> None:
    """The --instructions mode: the ``chosen`` runs under cachegrind, ``repeat`` times.

    The serial runs go at once, then the pytest-xdist pair, each counted over its controller
    and workers.
    """
    counted = {name: planned[name] for name in chosen}
    for name in WARM_RUNS:  # the warm folder's recording run filled its cache natively
        if name in counted:
            shutil.rmtree(counted[name][1] / "jaxcache", ignore_errors=True)
    instructions({name: counted[name] for name in WARM_RUNS if name in counted})  # fills the caches under valgrind
    batches = [
        {name: command for name, command in counted.items() if name not in XDIST_RUNS},
        {name: command for name, command in counted.items() if name in XDIST_RUNS},
    ]
    pairs = [(name, base) for name, base, _ in RATIOS if name in counted and base in counted]
    ratios: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    for _ in range(repeat):
        counts: dict[str, int] = {}
        for batch in batches:
            if batch:
                counts |= instructions(batch, children=XDIST_RUNS)
        print("  instructions: " + ", ".join(f"{name} {count / 1e9:.3f} G" for name, count in counts.items()))
        for (name, base), values in ratios.items():
            values.append(counts[name] / counts[base])
    for (name, base), values in ratios.items():
        print(f"  {name} / {base} in instructions: " + ", ".join(f"{value:.4f}x" for value in values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--only", default=",".join(RUNS), help=f"comma-separated runs, from {', '.join(RUNS)}")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    options = parser.parse_args()
    chosen = [name for name in RUNS if name in options.only.split(",")]
    benchmark_environment()
    scratch = Path(tempfile.mkdtemp(prefix="stages-small-"))
    cold = make_project(scratch / "cold", options.functions, "false")
    warm = make_project(scratch / "warm", options.functions, '"jaxcache"')
    plain_warm = make_project(scratch / "plain-warm", options.functions, "false", jax_cache=True)
    planned = commands(cold, warm, plain_warm)
    if options.instructions:
        print(f"{options.functions} small functions on 8 CPU devices, whole processes under cachegrind")
        count_work(planned, chosen, options.repeat)
        shutil.rmtree(scratch)
        return
    for name in WARM_RUNS:
        run_measured(*planned[name])  # fills the cache: every later run of it reads it
    runs: dict[str, list[float]] = {name: [] for name in chosen}
    cpu: dict[str, list[float]] = {name: [] for name in chosen}
    for round_ in range(options.repeat):
        # Every other round in reverse, so that no run always goes first.
        for name in chosen if round_ % 2 == 0 else reversed(chosen):
            command, folder = planned[name]
            wall, seconds = run_measured(command, folder)
            runs[name].append(wall)
            cpu[name].append(seconds)
            # Each run as it ends, so that a run cut short (a time-limited machine) still reports.
            print(f"  round {round_ + 1}, {name}: {wall:.3f} s wall, {seconds:.3f} s CPU", flush=True)
    print(f"{options.functions} small functions on 8 CPU devices, whole processes, {options.repeat} rounds")
    for name, samples in runs.items():
        print("  " + describe(name, samples))
    # Wall time is what the goals are stated in; CPU time (user + system, every process of the
    # run) leaves out waiting for a core, so other load on the machine scatters it less.
    for label, measured in (("wall", runs), ("CPU", cpu)):
        for name, base, goal in RATIOS:
            if name in measured and base in measured:
                low, middle, high = paired_interval(measured[name], measured[base])
                print(
                    f"  {label} {name} / {base}, paired by round: median {middle:.3f}x, "
                    f"95% interval {low:.3f}-{high:.3f}x" + (f" (goal <= {goal}x)" if goal and label == "wall" else "")
                )
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
