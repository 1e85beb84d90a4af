"""A pytest plugin for benchmarks/warm_phases.py: when each phase of a run begins, and the time of a few steps.

Loaded with ``-p phase_probe`` (this folder on PYTHONPATH); writes one JSON object to
``$PHASE_PROBE_OUT`` at exit: ``marks`` (phase name, ``time.time()``) and ``spent`` (seconds per
step, summed over the run). The steps are JAX's (``jit(...).trace``, ``Traced.lower``,
``Lowered.compile``), pytest's (setup, call, teardown of each test) and, where pytest-stages is
loaded, its ``stage()``, its artifact build and its judging. Wrappers add a frame each, so a
step's own figure moves a little; the phases' marks cost nothing measurable.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

marks: list[tuple[str, float]] = [("probe loaded", time.time())]
spent: dict[str, float] = {}


def timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - start

    return wrapper


@atexit.register
def _write() -> None:
    marks.append(("exit", time.time()))
    with open(os.environ["PHASE_PROBE_OUT"], "w", encoding="utf-8") as stream:
        json.dump({"marks": marks, "spent": spent}, stream)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    marks.append(("configured", time.time()))


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    from jax._src import pjit, stages  # the probe times JAX's own steps in both kinds of run

    pjit.jit_trace = timed("JAX trace", pjit.jit_trace)  # read by every jax.jit made later
    stages.Traced.lower = timed("JAX lower", stages.Traced.lower)
    stages.Lowered.compile = timed("JAX compile (or cache read)", stages.Lowered.compile)
    if "pytest_stages.plugin" in sys.modules:
        from pytest_stages.calls import runner
        from pytest_stages.stage import staging

        staging._build = timed("plugin: build the artifacts", staging._build)
        runner.StageSnapshot._judge = timed("plugin: read and compare the snapshots", runner.StageSnapshot._judge)
        runner.stage = timed("plugin: stage() (trace, lower, compile, build)", runner.stage)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    marks.append(("collected", time.time()))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session: pytest.Session) -> Iterator[None]:
    yield
    marks.append(("tests run", time.time()))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    marks.append(("unconfigured", time.time()))


def _step(label: str) -> Callable[..., Iterator[None]]:
    @pytest.hookimpl(hookwrapper=True)
    def hook(item: pytest.Item) -> Iterator[None]:
        start = time.perf_counter()
        yield
        spent[label] = spent.get(label, 0.0) + time.perf_counter() - start

    return hook


pytest_runtest_setup = _step("pytest: test setup")
pytest_runtest_call = _step("pytest: test call")
pytest_runtest_teardown = _step("pytest: test teardown")
