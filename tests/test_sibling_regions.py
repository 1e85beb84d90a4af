"""StableHLO's sibling regions reuse value names: a reorder in the second is one program.

MLIR numbers the values of a region from where its parent's stop, so a ``stablehlo.while``'s
``cond`` and ``do`` regions (and a ``case``'s branches) print their first values with the same
names. Which value of the body takes the name the condition's first value has follows the
body's order: two projections swapped at the start of a loop body, or of a branch, gave another
renaming, read as a drift. The texts are real JAX; the weights' roles exchanged stay a drift.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest
from conftest import projections

from pytest_stages.ir.normalize import normalize_mlir
from pytest_stages.ir.renaming import equivalent

ARGS = [jax.ShapeDtypeStruct((8, 8), jnp.float32)] * 3


def loop(*, swapped: bool, roles: bool = False):
    """A while loop whose body computes its two projections first (its counter after them)."""

    def body(c):
        i, y, w1, w2 = c
        y = projections(y, *((w2, w1) if roles else (w1, w2)), swapped=swapped)
        return (i + 1, y, w1, w2)

    return lambda x, w1, w2: jax.lax.while_loop(lambda c: c[0] < 5, body, (0, x, w1, w2))[1]


def branches(*, swapped: bool, roles: bool = False):
    """A ``cond`` whose second branch computes its two projections in either order."""

    def second(y, w1, w2):
        return projections(y, *((w2, w1) if roles else (w1, w2)), swapped=swapped)

    return lambda x, w1, w2: jax.lax.cond(x[0, 0] > 0, lambda *a: a[0] @ a[1] + 1.0, second, x, w1, w2)


PROGRAMS = {"loop": loop, "branches": branches}


def stablehlo(fn) -> str:
    return normalize_mlir(jax.jit(fn).trace(*ARGS).lower().as_text())


@pytest.fixture(scope="module")
def texts() -> dict[tuple[str, str], str]:
    return {
        (name, variant): stablehlo(build(swapped=variant == "swapped", roles=variant == "roles"))
        for name, build in PROGRAMS.items()
        for variant in ("plain", "swapped", "roles")
    }


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_second_region_reuses_a_name_of_the_first(texts, name):
    """What the tests below compare: a name defined in two regions, a value of the reordered lines in the second."""
    for variant in ("plain", "swapped"):
        defined = re.findall(r"^\s+(%\w+) = ", texts[name, variant], re.MULTILINE)
        assert len(defined) > len(set(defined))
    assert texts[name, "plain"] != texts[name, "swapped"]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_two_independent_lines_swapped_in_the_second_region_are_one_program(texts, name):
    assert equivalent("mlir", texts[name, "plain"], texts[name, "swapped"])


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_weights_roles_exchanged_in_the_second_region_is_a_drift(texts, name):
    for variant in ("plain", "swapped"):
        assert not equivalent("mlir", texts[name, variant], texts[name, "roles"])
