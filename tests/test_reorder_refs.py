"""Reads and writes of distinct ``jax.Ref``s swapped are one program; of one Ref, or across an effect, they are not.

Issue #67's ``ck-moments-reorder``: Adam's two writes ``moments["mu"][...] = ...`` and
``moments["nu"][...] = ...`` swapped wrote different Refs, yet compared as a drift. JAX refuses one
Ref passed twice, so two Ref binders are two buffers; what one Ref reads and writes keeps its order.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.check.message import SAME_PROGRAM
from pytest_stages.ir.normalize import normalize_jaxpr
from pytest_stages.ir.renaming import equivalent

Step = Callable[[jax.Ref, jax.Ref, jax.Array], jax.Array]


def _jaxpr(step: Step) -> str:
    """The normalized jaxpr of ``step`` on two fresh Refs and a vector."""
    zeros = jnp.zeros(3)
    return normalize_jaxpr(str(jax.make_jaxpr(step)(jax.new_ref(zeros), jax.new_ref(zeros), zeros)))


def _mu_nu(mu: jax.Ref, nu: jax.Ref, g: jax.Array) -> jax.Array:
    mu[...] = 0.9 * mu[...] + 0.1 * g
    nu[...] = 0.99 * nu[...] + 0.01 * g * g
    return g


def _nu_mu(mu: jax.Ref, nu: jax.Ref, g: jax.Array) -> jax.Array:
    nu[...] = 0.99 * nu[...] + 0.01 * g * g
    mu[...] = 0.9 * mu[...] + 0.1 * g
    return g


def _slices_ab(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    a[0:2] = x[:2]
    b[1] += x[0]
    return x


def _slices_ba(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    b[1] += x[0]
    a[0:2] = x[:2]
    return x


def _reads_01(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    first = a[0]
    second = a[1]
    b[...] = x * first * second
    return x


def _reads_10(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    second = a[1]
    first = a[0]
    b[...] = x * first * second
    return x


def _twice_double_first(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    a[...] = x * 2
    a[...] = x + 1
    return x


def _twice_double_last(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    a[...] = x + 1
    a[...] = x * 2
    return x


def _write_then_read(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    a[...] = x * 2
    y = a[...]
    b[...] = y
    return x


def _read_then_write(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    y = a[...]
    a[...] = x * 2
    b[...] = y
    return x


def _print_between_ab(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    a[...] = x * 2
    jax.debug.print("{}", x)
    b[...] = x + 1
    return x


def _print_between_ba(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
    b[...] = x + 1
    jax.debug.print("{}", x)
    a[...] = x * 2
    return x


@pytest.mark.parametrize(
    ("first", "second"),
    [(_mu_nu, _nu_mu), (_slices_ab, _slices_ba), (_reads_01, _reads_10)],
    ids=["adam-moments", "slice-and-addupdate", "two-reads"],
)
def test_reads_and_writes_of_distinct_refs_swapped_are_one_program(first: Step, second: Step) -> None:
    old, new = _jaxpr(first), _jaxpr(second)
    assert old != new
    assert equivalent("jaxpr", old, new)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (_twice_double_first, _twice_double_last),
        (_write_then_read, _read_then_write),
        (_print_between_ab, _print_between_ba),
    ],
    ids=["one-ref-written-twice", "read-and-write-of-one-ref", "writes-across-a-print"],
)
def test_one_refs_accesses_or_writes_across_an_effect_swapped_are_a_drift(first: Step, second: Step) -> None:
    assert not equivalent("jaxpr", _jaxpr(first), _jaxpr(second))


def _adds(x: jax.Array, count: int) -> jax.Array:
    """``x`` plus one ``count`` times: that many lines before the Ref accesses, which shifts their names."""
    for _ in range(count):
        x = x + 1.0
    return x


@pytest.mark.parametrize("lines_before", range(4))
def test_one_refs_accesses_keep_their_order_wherever_their_hashes_sort(lines_before: int) -> None:
    """Sorted by hash alone, one Ref's two writes (or its read and write) land in the same order in
    both texts for some names: the order among one Ref's accesses must come from the program."""

    def write_u_then_v(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
        x = _adds(x, lines_before)
        u, v = x + 1.0, x * 2.0
        a[...] = u
        a[...] = v
        return x

    def write_v_then_u(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
        x = _adds(x, lines_before)
        u, v = x + 1.0, x * 2.0
        a[...] = v
        a[...] = u
        return x

    def read_then_write(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
        x = _adds(x, lines_before)
        v = x * 2.0
        y = a[...]
        a[...] = v
        return y

    def write_then_read(a: jax.Ref, b: jax.Ref, x: jax.Array) -> jax.Array:
        x = _adds(x, lines_before)
        v = x * 2.0
        a[...] = v
        y = a[...]
        return y

    assert not equivalent("jaxpr", _jaxpr(write_u_then_v), _jaxpr(write_v_then_u))
    assert not equivalent("jaxpr", _jaxpr(read_then_write), _jaxpr(write_then_read))


# A jitted Adam-like step whose moments live in two Refs, its two writes in the order ``{writes}`` gives.
STEP = """
import jax, jax.numpy as jnp

@jax.jit
def step(moments, grad):
{writes}
    return grad * 2.0
"""
MU_FIRST = ("mu", "nu")
NU_FIRST = ("nu", "mu")
STEP_TEST = """
import jax, jax.numpy as jnp
from step import step

def test_step(stage_snapshot):
    moments = {"mu": jax.new_ref(jnp.zeros(8)), "nu": jax.new_ref(jnp.zeros(8))}
    stage_snapshot(step, moments, jnp.ones(8))
"""


def _step(order: tuple[str, str], mu: str = "0.9", nu: str = "0.99") -> str:
    """The step's module, its moments written in ``order`` with decays ``mu`` and ``nu``."""
    lines = {
        "mu": f'    moments["mu"][...] = {mu} * moments["mu"][...] + grad',
        "nu": f'    moments["nu"][...] = {nu} * moments["nu"][...] + grad * grad',
    }
    return STEP.format(writes="\n".join(lines[name] for name in order))


def test_a_step_with_its_two_ref_writes_swapped_passes_and_an_update_writes_nothing(project) -> None:
    """Through the plugin, as issue #67's ``ck-moments-reorder`` met it; a decay edited still fails."""
    project.configure('stages = ["jaxpr", "stablehlo"]')
    project.write("step.py", _step(MU_FIRST))
    project.write("test_step.py", STEP_TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    before = project.snapshots()
    project.write("step.py", _step(NU_FIRST))
    result = project.run()
    out = project.output(result)
    result.assert_outcomes(passed=1)
    assert SAME_PROGRAM not in out and "changed" not in out
    project.run("--stages-update").assert_outcomes(passed=1)
    assert project.snapshots() == before
    project.write("step.py", _step(NU_FIRST, mu="0.8"))
    project.run().assert_outcomes(failed=1)
