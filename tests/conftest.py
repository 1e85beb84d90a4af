"""Helpers for driving inner pytest sessions (``pytester``) over small JAX projects."""

from __future__ import annotations

import importlib.util
import json
import os
import textwrap
from pathlib import Path

import jax  # imported once here: pytester's in-process runs must not re-import jaxlib
import jax.numpy as jnp
import pytest

from pytest_stages.stage.topology import PLUGINS

# This process stages the same small programs from many temporary folders; executables read
# back from JAX's persistent cache would carry the source locations of another folder. The
# cache's own tests (tests/test_disk_cache.py) run in fresh processes.
jax.config.update("jax_enable_compilation_cache", False)

ONE_CONFIG = """
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1
"""

TWO_CONFIGS = (
    ONE_CONFIG
    + """
[[tool.pytest_stages.configs]]
name = "cpu8"
devices = 8
mesh = { data = 4, model = 2 }
"""
)

# Two one-device configs: every test runs twice, cheaply (partial-run and shard tests).
TWO_CPU1_CONFIGS = """
[[tool.pytest_stages.configs]]
name = "cpu1"
devices = 1

[[tool.pytest_stages.configs]]
name = "alt"
devices = 1
"""

SIMPLE_TEST = """
import jax, jax.numpy as jnp

def f(x, w):
    return jnp.tanh(x @ w).sum()

def test_f(stage_snapshot):
    x = jax.ShapeDtypeStruct((8, 16), jnp.float32)
    w = jax.ShapeDtypeStruct((16, 4), jnp.float32)
    stage_snapshot(f, x, w)
"""


# CI installs every extra and sets this: a test that needs one fails there instead of skipping.
def projections(y, w1, w2, *, swapped):
    """Two independent lines of a loop body, in either order; the first weight goes through ``tanh``, the other not."""
    if swapped:
        b = y @ w2
        a = jnp.tanh(y @ w1)
    else:
        a = jnp.tanh(y @ w1)
        b = y @ w2
    return a * b + y


REQUIRE_EXTRAS = "STAGES_REQUIRE_EXTRAS"


# The extras that are libraries rather than accelerator plugins, and the modules each brings.
LIBRARY_EXTRAS = {"field": ("penzai", "diffrax", "flax", "equinox")}


def missing_extras(extras: tuple[str, ...]) -> list[str]:
    """The extras (``tpu``, ``cuda``, ``field``) whose accelerator plugin or libraries are not installed."""
    modules = {**{extra: PLUGINS[extra][:1] for extra in PLUGINS}, **LIBRARY_EXTRAS}
    return [extra for extra in extras if not all(_installed(module) for module in modules[extra])]


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package (jax_plugins) is missing too
        return False


# The frameworks of the examples extra: their tests and examples skip (importorskip) without them.
FRAMEWORKS = ("flax", "equinox", "haiku", "optax")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "extras(*names): the test needs these optional extras (tpu, cuda, field) installed"
    )
    if os.environ.get(REQUIRE_EXTRAS):
        missing = missing_extras((*PLUGINS, *LIBRARY_EXTRAS)) + [name for name in FRAMEWORKS if not _installed(name)]
        if missing:
            raise pytest.UsageError(
                f"{REQUIRE_EXTRAS} is set but {', '.join(missing)} is not installed: the tests and examples that "
                'need it would skip. Install `pip install -c constraints.txt -e ".[test,examples,field,tpu,cuda]"`.'
            )


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test whose extras are missing, with the install command; fail instead under STAGES_REQUIRE_EXTRAS."""
    marker = item.get_closest_marker("extras")
    missing = missing_extras(marker.args) if marker is not None else []
    if not missing:
        return
    reason = (
        f"needs the {', '.join(missing)} extra (not installed); install it with "
        f'`pip install -c constraints.txt -e ".[{",".join(missing)}]"`'
    )
    if os.environ.get(REQUIRE_EXTRAS):
        pytest.fail(f"{reason}; {REQUIRE_EXTRAS} is set, so this test must run here", pytrace=False)
    pytest.skip(reason)


class Project:
    """A throw-away project: a pyproject.toml with ``[tool.pytest_stages]`` and test files."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path

    def configure(self, settings: str = "", configs: str = ONE_CONFIG) -> None:
        self.write("pyproject.toml", f"[tool.pytest_stages]\n{textwrap.dedent(settings)}\n{configs}")

    def write(self, name: str, text: str) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest("-p", "no:cacheprovider", "-W", "ignore::UserWarning", *args)

    def snapshots(self) -> dict[str, bytes]:
        """Every file under snapshots/ but pytest-stages' own folder (the lock), by path relative to it."""
        root = self.path / "snapshots"
        return (
            {
                p.relative_to(root).as_posix(): p.read_bytes()
                for p in sorted(root.rglob("*"))
                if p.is_file() and not p.is_relative_to(root / ".pytest-stages")
            }
            if root.exists()
            else {}
        )

    def plant(self, files: dict[str, str], meta: str) -> None:
        """Write snapshot files as an earlier pytest-stages would have: each listed in its folder's manifest.

        ``files`` maps paths under snapshots/ to their text; a folder without metadata gets ``meta``.
        """
        for name, text in files.items():
            self.write(f"snapshots/{name}", text)
        for folder in {(self.path / "snapshots" / name).parent for name in files}:
            path = folder / "_stages.json"
            data = json.loads(path.read_text(encoding="utf-8") if path.exists() else meta)
            data["files"] = sorted(p.name for p in folder.iterdir() if p.name != "_stages.json")
            path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    def output(self, result: pytest.RunResult) -> str:
        return "\n".join(result.outlines)

    def usage_error(self, result: pytest.RunResult) -> str:
        """The one ``pytest-stages:`` paragraph of a run that ended as a usage error, without its prefix."""
        assert result.ret == pytest.ExitCode.USAGE_ERROR, self.output(result)
        lines = [line for line in result.errlines if line.startswith("ERROR: pytest-stages: ")]
        assert len(lines) == 1, result.errlines
        assert "INTERNALERROR" not in "\n".join(result.errlines + result.outlines)
        return lines[0].removeprefix("ERROR: pytest-stages: ")


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    made = Project(pytester)
    made.configure()
    return made
