"""The benchmark suite: staged functions, a bare-JAX driver, and a generated pytest project.

Shared by the benchmark scripts so that the plugin and bare JAX stage exactly the same
(function, arguments, config) triples.
"""

from __future__ import annotations

import math
import os
import re
import resource
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

FUNCTIONS = '''
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

f32 = jnp.float32

def spec(*shape, sharding=None):
    return jax.ShapeDtypeStruct(shape, f32, sharding=sharding)

def mlp(params, x):
    for w, b in params:
        x = jax.nn.relu(x @ w + b)
    return x

def loss(params, x):
    return (mlp(params, x) ** 2).mean()

def attention(q, k, v):
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / 8.0
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(logits, -1), v)

def rnn(w, xs):
    return jax.lax.scan(lambda h, x: (jnp.tanh(h @ w + x), h), jnp.zeros(xs.shape[1:]), xs)[1]

def cases(index, mesh):
    """The (name, fn, args) of case ``index``: MLPs, grads, attention, scans, sharded steps."""
    kind, size = index % 5, 32 * (1 + index // 5)
    params = [(spec(size, size), spec(size)) for _ in range(3)]
    if kind == 0:
        return f"mlp{index}", mlp, (params, spec(16, size))
    if kind == 1:
        return f"grad{index}", jax.grad(loss), (params, spec(16, size))
    if kind == 2:
        qkv = spec(2, 16, 4, size // 4)
        return f"attention{index}", attention, (qkv, qkv, qkv)
    if kind == 3:
        return f"scan{index}", rnn, (spec(size, size), spec(8, 4, size))
    batch = NamedSharding(mesh, P("data"))
    weight = NamedSharding(mesh, P(None, "model"))
    sharded = [(spec(size, size, sharding=weight), spec(size, sharding=NamedSharding(mesh, P("model"))))] * 2
    return f"sharded{index}", jax.grad(loss), (sharded, spec(16, size, sharding=batch))
'''

PYPROJECT = """
[tool.pytest_stages]
[[tool.pytest_stages.configs]]
name = "cpu8"
devices = 8
mesh = { data = 4, model = 2 }
"""

TEST_MODULE = """
import pytest
from functions import cases

@pytest.mark.parametrize("index", range(COUNT))
def test_case(stage_snapshot, stage_config, index):
    name, fn, args = cases(index, stage_config.mesh)
    stage_snapshot(fn, *args, name=name)
"""


def timing_conftest(hook: str, output: str, preamble: str = "") -> str:
    """A generated project's conftest that times one session hook (``pytest_runtestloop``) into the file ``output``."""
    return f'''
import time
{preamble}
import pytest


@pytest.hookimpl(wrapper=True)
def {hook}(session):
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        with open("{output}", "w") as stream:
            stream.write(str(time.perf_counter() - start))
'''


CONFTEST = timing_conftest("pytest_runtestloop", "loop_seconds.txt")

BARE = """
import os, sys, time
os.environ["JAX_NUM_CPU_DEVICES"] = "8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")  # as the plugin does: no TPU/CUDA plugin start-up
import jax
from functions import cases

start = time.perf_counter()
mesh = jax.make_mesh((4, 2), ("data", "model"))
with jax.set_mesh(mesh):
    for index in range(int(sys.argv[1])):
        name, fn, args = cases(index, mesh)
        traced = jax.jit(fn).trace(*args)
        lowered = traced.lower()
        compiled = lowered.compile()
        texts = (str(traced.jaxpr), lowered.as_text(), compiled.as_text())
        analyses = (compiled.cost_analysis(), lowered.cost_analysis(), compiled.memory_analysis(),
                    compiled.input_shardings, compiled.output_shardings, compiled.input_formats,
                    compiled.output_formats, lowered.args_info)
with open("loop_seconds.txt", "w") as stream:
    stream.write(str(time.perf_counter() - start))
"""


FRAMEWORK_PYPROJECT = PYPROJECT.replace(
    "[tool.pytest_stages]",
    """[tool.pytest_stages]
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
""",
)

# Flax NNX models with an optax optimizer, as users write them: concrete parameters built
# eagerly in the test, an ``nnx.jit`` train step donating model and optimizer.
FRAMEWORK_TEST = """
import jax, jax.numpy as jnp, optax, pytest
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, width, depth, rngs):
        self.layers = nnx.List([nnx.Linear(width, width, rngs=rngs) for _ in range(depth)])
        self.head = nnx.Linear(width, 8, rngs=rngs)

    def __call__(self, x):
        for layer in self.layers:
            x = jax.nn.gelu(layer(x))
        return self.head(x)


@nnx.jit(donate_argnums=(0, 1))
def train_step(model, optimizer, x, y):
    def loss(model):
        return ((model(x) - y) ** 2).mean()

    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value


@pytest.mark.parametrize("index", range(COUNT))
def test_train_step(stage_snapshot, index):
    width, depth = 32 * (1 + index % 4), 1 + index // 4
    model = MLP(width, depth, nnx.Rngs(index))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    f32 = jnp.float32
    stage_snapshot(train_step, model, optimizer, jax.ShapeDtypeStruct((16, width), f32),
                   jax.ShapeDtypeStruct((16, 8), f32))
"""


def make_project(root: Path, count: int, kind: str = "jax") -> Path:
    """Write a generated pytest project under ``root``: ``count`` staged functions.

    ``kind`` "jax": MLPs, grads, attention, scans and sharded grads on 8 CPU devices (plus
    ``bare.py``, the same work as a script); "flax": Flax NNX train steps with optax, each
    on two configs (cpu1 and cpu8), so ``count`` functions are ``2 * count`` tests.
    """
    root.mkdir(parents=True, exist_ok=True)
    (root / "functions.py").write_text(textwrap.dedent(FUNCTIONS))
    if kind == "flax":
        (root / "pyproject.toml").write_text(FRAMEWORK_PYPROJECT)
        (root / "test_suite.py").write_text(FRAMEWORK_TEST.replace("COUNT", str(count)))
    else:
        (root / "pyproject.toml").write_text(PYPROJECT)
        (root / "test_suite.py").write_text(TEST_MODULE.replace("COUNT", str(count)))
    (root / "bare.py").write_text(BARE)
    (root / "conftest.py").write_text(CONFTEST)
    return root


def add_setting(root: Path, line: str) -> None:
    """Add ``line`` (``clear_caches = true``) to the ``[tool.pytest_stages]`` table of ``root/pyproject.toml``."""
    path = root / "pyproject.toml"
    path.write_text(path.read_text().replace("[tool.pytest_stages]\n", f"[tool.pytest_stages]\n{line}\n", 1))


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """``(whole process, staging loop)`` wall-clock seconds of one subprocess run.

    The loop is what runs after imports and start-up: bare.py's staging loop, or pytest's
    ``pytest_runtestloop`` (every test: staging, comparing, writing).
    """
    whole, _ = run_measured(command, cwd)
    return whole, float((cwd / "loop_seconds.txt").read_text())


def run_measured(command: list[str], cwd: Path) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of one subprocess run and its children (user + system).

    CPU divided by wall is the utilisation GNU time reports as ``%P``.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# Run as ``python -c MEASURE COMMAND...``: its children's peak RSS is that one command's.
PEAK_RSS = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
    "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_mib(root: Path, *args: str) -> float:
    """Peak RSS (MiB) of one pytest run with ``args`` in ``root``, the child of a fresh measuring process."""
    output = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *pytest_command(*args)],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return int(output.split()[-1]) / 1024


def pytest_command(*args: str) -> list[str]:
    """A whole pytest run without pytest's cache (so no compilation cache either, unless a project sets one).

    hypothesis (a test dependency of this repository, not of pytest-stages) is left out: its
    plugin imports all of hypothesis in every process's terminal summary, one per xdist worker.
    """
    return [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-W",
        "ignore",
        *args,
    ]


def benchmark_environment() -> None:
    """Let the measured processes cache bytecode, as on a user's machine (some shells disable it)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def median_interval(samples: list[float], coverage: float = 0.95) -> tuple[float, float, float]:
    """``(low, median, high)``: the median of ``samples`` and a distribution-free interval for it.

    The interval runs from the k-th smallest to the k-th largest sample, with k the largest rank
    that holds the true median with probability ``coverage`` (a sign test): with 9 samples, the
    2nd to the 8th; with 15, the 4th to the 12th. Below 6 samples it is the whole range.
    """
    ordered, n = sorted(samples), len(samples)
    k, below = 1, 0.0
    while k < n // 2:
        below += math.comb(n, k - 1) / 2**n
        if 1 - 2 * (below + math.comb(n, k) / 2**n) < coverage:
            break
        k += 1
    return ordered[k - 1], statistics.median(ordered), ordered[n - k]


def paired_interval(samples: list[float], bases: list[float]) -> tuple[float, float, float]:
    """:func:`median_interval` of the per-round ratios ``samples[i] / bases[i]``."""
    return median_interval([sample / base for sample, base in zip(samples, bases, strict=True)])


def describe(label: str, samples: list[float]) -> str:
    return (
        f"{label:<28} median {statistics.median(samples):7.3f} s   "
        f"min {min(samples):7.3f}   max {max(samples):7.3f}   (n={len(samples)})"
    )


def instructions(commands: dict[str, tuple[list[str], Path]], children: tuple[str, ...] = ()) -> dict[str, int]:
    """Instructions each ``(command, folder)`` executes, counted by cachegrind, all run at once.

    The runs named in ``children`` (pytest-xdist's) are counted with every process they start
    (the controller and its workers), summed.
    """
    counting = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    running = {
        name: subprocess.Popen(
            [*counting, *(["--trace-children=yes"] if name in children else []), *command],
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (command, root) in commands.items()
    }
    counts = {}
    for name, process in running.items():
        errors = process.communicate()[1]
        totals = re.findall(r"I\s+refs:\s+([\d,]+)", errors)  # "==123== I   refs:      30,796,201,255", a process each
        if process.returncode or not totals:
            sys.exit(f"{name} failed under valgrind:\n{errors[-2000:]}")
        counts[name] = sum(int(total.replace(",", "")) for total in totals)
    return counts
