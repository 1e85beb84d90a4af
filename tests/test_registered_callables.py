"""Every kind of callable a JAX user registers becomes items pytest can report, located at the ``register()`` line.

A property over callable kinds x outcomes x ``-n 0``/``-n 2`` x ``--stages-list``/``--collect-only``:
one inner session registers every kind once per outcome, and pytest's own reports (junitxml's
``file`` and ``line``) must place each item at the line of its ``register()`` call. Callables
without ``__code__`` (jitted functions, partials, callable objects) once ended the session with an
INTERNALERROR when an item was skipped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("flax")
pytest.importorskip("equinox")

HEADER = """
import functools
import equinox as eqx
import jax, jax.numpy as jnp
import pytest
from flax import nnx
from pytest_stages import register

X = (jnp.zeros(4, jnp.float32),)  # concrete: equinox.filter_jit holds non-arrays static

def double(x):
    return x * 2

def scaled(x, factor):
    return x * factor

class Model:
    def apply(self, x):
        return x + 1

class Shift:
    def __call__(self, x):
        return x - 1

KINDS = {
    "plain": double,
    "lambda": lambda x: x * 3,
    "jit": jax.jit(double),
    "partial": functools.partial(scaled, factor=2.0),
    "method": Model().apply,
    "object": Shift(),
    "nnx": nnx.jit(double),
    "eqx": eqx.filter_jit(double),
}

def pytest_collection_modifyitems(items):
    for item in items:
        if "_skip[" in item.name:
            item.add_marker(pytest.mark.skip(reason="skipped by the user's conftest"))
        if "_xfail[" in item.name:
            item.add_marker(pytest.mark.xfail(reason="over budget on purpose", strict=True))

def pytest_runtest_setup(item):
    if "_error[" in item.name:
        raise RuntimeError("the user's setup broke")
"""

KINDS = ("plain", "lambda", "jit", "partial", "method", "object", "nnx", "eqx")
# How each outcome is made: the registration's budget fails and xfails; the conftest's hooks skip and error.
OUTCOMES = {"pass": "", "fail": ', budget={"flops": 0}', "skip": "", "error": "", "xfail": ', budget={"flops": 0}'}


def conftest() -> tuple[str, dict[str, int]]:
    """The inner conftest.py and the line of each registration's ``register()`` call, by name."""
    lines = HEADER.splitlines()
    where = {}
    for outcome, options in OUTCOMES.items():
        for kind in KINDS:
            name = f"{kind}_{outcome}"
            lines.append(f'register(KINDS["{kind}"], args=X, name="{name}"{options})')
            where[name] = len(lines)
        # The decorator form: the item is located at the decorator's line, not the def's.
        name = f"decorated_{outcome}"
        lines += [f'@register(args=X, name="{name}"{options})', f"def {name}(x):", "    return x / 2"]
        where[name] = len(lines) - 2
    return "\n".join(lines) + "\n", where


@pytest.fixture
def registered(project):
    text, where = conftest()
    project.write("conftest.py", text)
    return where


def assert_located(project, report, where):
    """Every item in pytest's junitxml report is located at its registration's ``register()`` line."""
    cases = ET.parse(project.path / report).getroot().iter("testcase")
    located = {case.get("name"): (case.get("file"), int(case.get("line", "-1")) + 1) for case in cases}
    assert located == {f"{name}[cpu1]": ("conftest.py", line) for name, line in where.items()}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_every_callable_kind_and_outcome_is_reported_at_its_register_line(project, registered, workers):
    result = project.run(
        "--stages-update", "-p", "xdist", "-n", workers, "-rA", "--junitxml=report.xml", "-o", "junit_family=xunit1"
    )
    assert "INTERNALERROR" not in project.output(result)
    per_outcome = len(KINDS) + 1
    result.assert_outcomes(
        passed=per_outcome, failed=per_outcome, skipped=per_outcome, errors=per_outcome, xfailed=per_outcome
    )
    assert_located(project, "report.xml", registered)
    result.stdout.fnmatch_lines(["*budget: flops 4 exceeds the ceiling 0*"])


@pytest.mark.parametrize("listing", ["--stages-list", "--collect-only"])
@pytest.mark.parametrize("workers", ["0", "2"])
def test_listing_every_callable_kind_never_crashes(project, registered, listing, workers):
    result = project.run(listing, "-q", "-p", "xdist", "-n", workers)
    assert "INTERNALERROR" not in project.output(result)
    assert result.ret == 0
    result.stdout.fnmatch_lines([f"*{name}[[]cpu1]*" for name in registered], consecutive=False)
