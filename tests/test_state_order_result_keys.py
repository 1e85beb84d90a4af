"""A call's operands that are results of an op with several (``%0#1``) are keyed by that op's hash.

A once-called function's operands are put in order by the keys of the values passed in. A
``stablehlo.while`` has one result per state position, read as ``%w#k``; keyed by its text, the
operand's key was the number JAX gave the loop, which moves when two independent loops are
computed in the other order: the call's operands came out permuted the other way, a drift.
The texts are real JAX: two loops in either order, their results passed to one jitted function.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from pytest_stages.ir.normalize import normalize_mlir
from pytest_stages.ir.renaming import equivalent

ARGS = [jax.ShapeDtypeStruct((8, 8), jnp.float32)] * 2


@jax.jit
def combine(a, b):
    """The function called once, reading its two operands asymmetrically."""
    return jnp.tanh(a) @ b


def program(*, swapped: bool, roles: bool = False):
    """Two independent while loops, the first computed first or second, then ``combine`` of their results
    (``roles``: of their results exchanged, another program)."""

    def f(x, w):
        def first():
            return jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] @ w), (0, x))[1]

        def second():
            return jax.lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, jnp.sin(c[1])), (0, x))[1]

        if swapped:
            b = second()
            a = first()
        else:
            a = first()
            b = second()
        return combine(b, a) if roles else combine(a, b)

    return f


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {
        variant: normalize_mlir(
            jax.jit(program(swapped=variant == "swapped", roles=variant == "roles")).trace(*ARGS).lower().as_text()
        )
        for variant in ("plain", "swapped", "roles")
    }


def test_the_loops_numbers_move_with_their_order(texts):
    """What the test below compares: the call reads the same loop's result by another number."""
    assert "call @combine(%0#" in texts["plain"] and "call @combine(%1#" in texts["swapped"]


def test_two_independent_loops_in_the_other_order_feeding_a_call_are_one_program(texts):
    assert equivalent("mlir", texts["plain"], texts["swapped"])


def test_the_calls_operands_exchanged_is_a_drift(texts):
    assert not equivalent("mlir", texts["plain"], texts["roles"])
    assert not equivalent("mlir", texts["swapped"], texts["roles"])
