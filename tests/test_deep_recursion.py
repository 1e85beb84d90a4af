"""stage/deep_recursion.py: a deep recursion run through ``call`` never thrashes CPython's frame-stack chunks.

A thrashed chunk is mapped afresh at each crossing of its boundary, and touching a fresh map is a
page fault: the process's minor page faults count the crossings.
"""

from __future__ import annotations

import resource
import sys
from collections.abc import Callable

import pytest

from pytest_stages.stage import deep_recursion

OSCILLATIONS = 2000


def nest(depth: int, function: Callable[[], int]) -> int:
    return function() if depth == 0 else nest(depth - 1, function)


def oscillate() -> int:
    """Recurse 30 frames deep and back, OSCILLATIONS times (as JAX does for each equation it traces)."""
    for _ in range(OSCILLATIONS):
        nest(30, lambda: 0)
    return 0


def faults(function: Callable[[], int]) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    function()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_a_recursion_called_through_call_costs_the_same_at_every_caller_depth():
    depths = range(0, 200, 3)
    through_call = {depth: faults(lambda d=depth: nest(d, lambda: deep_recursion.call(oscillate))) for depth in depths}
    assert max(through_call.values()) < OSCILLATIONS / 4, through_call


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's frame-stack chunks (seen on 3.11 and 3.13)")
def test_without_call_some_caller_depth_thrashes_the_chunks():
    """The premise of the module: here a recursion at the wrong depth maps a chunk at each oscillation."""
    plain = {depth: faults(lambda d=depth: nest(d, oscillate)) for depth in range(0, 200, 3)}
    assert max(plain.values()) >= OSCILLATIONS, plain
