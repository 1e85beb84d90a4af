"""The call records a session reports: each as its test's call made it, in the order the calls ran.

In one process the reporter takes each record as the call made it rather than parsing its JSON
back (hooks/reporter.py ``record_property``); under xdist the controller parses the workers' JSON.
Both must report the same records.
"""

from __future__ import annotations

import json

import pytest
from conftest import ONE_CONFIG

TWO_CALLS = """
import jax, jax.numpy as jnp

def f(x):
    return jnp.tanh(x).sum()

def g(x):
    return (x * FACTOR).sum()

def test_two(stage_snapshot):
    x = jax.ShapeDtypeStruct((8,), jnp.float32)
    stage_snapshot(f, x)
    stage_snapshot(g, x, name="g")

def test_one(stage_snapshot):
    stage_snapshot(f, jax.ShapeDtypeStruct((4,), jnp.float32), name="h")
"""


@pytest.mark.parametrize("workers", [None, "2"], ids=["one-process", "xdist"])
def test_each_call_is_reported_with_its_own_record_in_order(pytester: pytest.Pytester, workers: str | None) -> None:
    pytester.makepyprojecttoml("[tool.pytest_stages]\n" + ONE_CONFIG)
    pytester.makepyfile(test_calls=TWO_CALLS.replace("FACTOR", "2"))
    pytester.runpytest("-p", "no:cacheprovider", "--stages-update").assert_outcomes(passed=2)
    pytester.makepyfile(test_calls=TWO_CALLS.replace("FACTOR", "3"))  # g's program changes, f's and h's do not
    xdist = ["-p", "xdist", "-n", workers] if workers else []
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *xdist, "--stages-report=stages.json")
    result.assert_outcomes(passed=1, failed=1)
    calls = json.loads((pytester.path / "stages.json").read_text())["calls"]
    by_test = sorted((call["nodeid"], call["name"], call["status"]["compiled"]) for call in calls)
    assert by_test == [
        ("test_calls.py::test_one[cpu1]", "h", "ok"),
        ("test_calls.py::test_two[cpu1]", "f", "ok"),
        ("test_calls.py::test_two[cpu1]", "g", "changed"),
    ]
    two = [call["name"] for call in calls if call["nodeid"] == "test_calls.py::test_two[cpu1]"]
    assert two == ["f", "g"]
