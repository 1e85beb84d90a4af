"""JAX's persistent compilation cache: warm runs read executables back; snapshots stay byte-identical."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SIMPLE_TEST

from pytest_stages.stage.disk_cache import CacheChoice, choose, summary

MORE = (
    SIMPLE_TEST
    + """

def test_g(stage_snapshot):
    assert float(jnp.arange(5.0).sum() * 2) == 20.0  # the test's own JAX calls: not counted below
    stage_snapshot(lambda x: jnp.cumsum(jnp.exp(x)), jax.ShapeDtypeStruct((64,), jnp.float32), name="cum")
"""
)


def run(project, *args):
    """A fresh process each time: JAX decides once per process whether it uses the cache."""
    return project.pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def hits(result) -> tuple[int, int]:
    line = next(out for out in result.outlines if "JAX compilation cache" in out)
    found, asked = re.search(r": (\d+) of (\d+) compile", line).groups()
    return int(found), int(asked)


def test_a_warm_run_hits_the_cache_and_writes_byte_identical_snapshots(project):
    project.configure('compilation_cache = "jaxcache"')
    project.write("test_model.py", MORE)
    cold = run(project, "--stages-update")
    cold.assert_outcomes(passed=2)
    assert hits(cold) == (0, 2)
    recorded = project.snapshots()
    assert any((project.path / "jaxcache").iterdir())
    warm = run(project, "--stages-update")
    warm.assert_outcomes(passed=2)
    assert hits(warm) == (2, 2)
    warm.stdout.fnmatch_lines(["pytest-stages: wrote 0 snapshot file(s)"])
    assert project.snapshots() == recorded
    run(project).assert_outcomes(passed=2)


def test_the_users_own_jax_cache_is_used_as_it_is(project, monkeypatch, tmp_path):
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "mine"))
    project.configure('compilation_cache = "jaxcache"')
    project.write("test_model.py", SIMPLE_TEST)
    result = run(project, "--stages-update")
    result.stdout.fnmatch_lines(
        ["pytest-stages: JAX compilation cache (*mine, JAX's own setting): 0 of 1 compile(s) were hits"]
    )
    assert not (project.path / "jaxcache").exists()


def test_the_cache_can_be_turned_off(project):
    project.configure("compilation_cache = false")
    project.write("test_model.py", SIMPLE_TEST)
    result = run(project, "--stages-update")
    result.assert_outcomes(passed=1)
    assert "JAX compilation cache" not in "\n".join(result.outlines)


@pytest.mark.parametrize(
    "setting, default, expected",
    [
        (
            True,
            Path("/p/.pytest_cache/d/pytest-stages-jax"),
            CacheChoice(Path("/p/.pytest_cache/d/pytest-stages-jax"), "pytest-stages"),
        ),
        (True, None, CacheChoice(None, "off")),
        (False, Path("/p/c"), CacheChoice(None, "off")),
        ("build/jax", None, CacheChoice(Path("/p/build/jax"), "pytest-stages")),
    ],
)
def test_choose(setting, default, expected):
    assert choose(setting, default, Path("/p"), None) == expected
    assert choose(setting, default, Path("/p"), "/mine") == CacheChoice(Path("/mine"), "jax")


def test_summary_names_the_folder_relative_to_the_rootdir():
    line = summary(CacheChoice(Path("/p/.pytest_cache/d/pytest-stages-jax"), "pytest-stages"), 6, 5, Path("/p"))
    assert (
        line == "pytest-stages: JAX compilation cache (.pytest_cache/d/pytest-stages-jax): 5 of 6 compile(s) were hits"
    )
    assert summary(CacheChoice(None, "off"), 0, 0, Path("/p")) is None


def test_a_cached_executable_names_no_stale_source_lines(project):
    """The cache key ignores locations: a hit after moving code must not name the old line."""
    project.configure('compilation_cache = "jaxcache"')
    project.write("test_model.py", SIMPLE_TEST)
    run(project, "--stages-update").assert_outcomes(passed=1)
    compiled = project.path / "snapshots/test_model/test_f/cpu1/f.compiled.hlo.txt"
    compiled.write_text(compiled.read_text().replace("tanh(", "exponential("))
    project.write("test_model.py", "\n\n\n" + SIMPLE_TEST)
    result = run(project)
    result.assert_outcomes(failed=1)
    output = "\n".join(result.outlines)
    assert "- compiled (f.compiled.hlo.txt): IR drift" in output
    assert "test_model.py:5" not in output, output


@pytest.mark.extras("tpu")
def test_compile_only_topologies_stay_out_of_the_cache(project):
    """JAX cannot load a compile-only TPU executable back: it is never written to JAX's cache, never warns.

    The compile-only cache (tests/test_topology_results.py) serves it instead, counted in the same
    line. Without the bypass the second run warns "Error reading persistent compilation cache entry".
    """
    from conftest import ONE_CONFIG
    from test_topology import V5E

    project.configure('compilation_cache = "jaxcache"', configs=ONE_CONFIG + V5E)
    project.write("test_model.py", SIMPLE_TEST)
    for expected in ((0, 2), (2, 2)):
        result = run(project, "--stages-update", "-W", "default")
        result.assert_outcomes(passed=2)
        assert hits(result) == expected
        assert "Error reading persistent compilation cache" not in result.stdout.str() + result.stderr.str()


RECOMPILES = """
import jax, jax.numpy as jnp

def test_recompiles(stage_compiles):
    double = jax.jit(lambda x: x * 2)
    with stage_compiles(double):
        for n in range(1, 4):
            double(jnp.ones(n))
"""


def test_jax_cache_writes_inside_stage_compiles_stay_out_of_the_users_report(project):
    """Watching turns JAX's cache-miss explanations on, which logs each cache write at WARNING: not the user's."""
    project.configure('compilation_cache = "jaxcache"')
    project.write("test_recompiles.py", RECOMPILES)
    result = run(project, "--stages-update", "-rA")
    result.assert_outcomes(passed=1)
    assert any((project.path / "jaxcache").iterdir())  # the cache was written to
    assert "persistent compilation cache" not in project.output(result)
