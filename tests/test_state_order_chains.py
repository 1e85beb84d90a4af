"""A loop's state permuted, then a chain of calls: one program, whatever the process's hash seed.

A call's operands are put in order by the hashes of the values passed in, and its callee's
parameters with them; that changes the callee's hash and so the hash of every value after the
call, the next call's operands included. Each pass of the canonical form puts one more call of a
chain in order: a fixed number of passes left a long chain half in order, in an order that
depended on the starting text and on the process's string hashes (diffrax's solve, its
``stablehlo.while`` state permuted by two swapped lines of the vector field, then once-called
``_where`` and ``branched_error_if_impl`` functions: a drift under some hash seeds).

The texts are real StableHLO of a while loop carrying two weights in either order, its body
computing its two projections in either order, then ``LINKS`` jitted functions called once each,
each reading the previous one's result four ways (longer than the chain the passes once stopped at).
"""

from __future__ import annotations

import itertools
import re

import jax
import jax.numpy as jnp
import pytest
from conftest import projections

from pytest_stages.ir.normalize import normalize_mlir
from pytest_stages.ir.renaming import equivalent

LINKS = 12
ARGS = [jax.ShapeDtypeStruct((8, 8), jnp.float32)] * 3
# The four texts: (the weights carried in the other order, the projections computed in the other order).
VARIANTS = list(itertools.product((False, True), repeat=2))


def link(k: int, *, roles: bool = False):
    """The k-th call of the chain: a function of its own (its constant ``k``) that reads its four operands
    asymmetrically. ``roles``: two of them exchanged (another program)."""

    def f(a, b, c, d):
        if roles:
            a, b = b, a
        return (b + k) * c - jnp.sin(a + d)

    f.__name__ = f"link{k}"
    return jax.jit(f)


def program(*, carried_swapped: bool, body_swapped: bool, roles_at: int | None = None):
    """The loop over ``projections`` with its weights carried in one order or the other, then the chain."""
    links = [link(k, roles=k == roles_at) for k in range(LINKS)]

    def body(c):
        i, y, first, second = c
        w1, w2 = (second, first) if carried_swapped else (first, second)
        return (i + 1, projections(y, w1, w2, swapped=body_swapped), first, second)

    def f(x, w1, w2):
        weights = (w2, w1) if carried_swapped else (w1, w2)
        y = jax.lax.while_loop(lambda c: c[0] < 5, body, (0, x, *weights))[1]
        for step in links:
            y = step(y, y * 2, y + 1, y - 3)
        return y

    return f


def stablehlo(fn) -> str:
    return normalize_mlir(jax.jit(fn).trace(*ARGS).lower().as_text())


@pytest.fixture(scope="module")
def texts() -> dict[tuple[bool, bool], str]:
    return {
        (carried, body): stablehlo(program(carried_swapped=carried, body_swapped=body)) for carried, body in VARIANTS
    }


def test_the_four_orders_are_four_texts(texts):
    """What the test below compares: each order of the loop's state and of its body is another text."""
    assert len(set(texts.values())) == 4
    carried = {key: re.findall(r"stablehlo\.while\(%\w+ = (%\w+), %\w+ = (%\w+),", text) for key, text in texts.items()}
    assert carried[False, False] == carried[False, True] == [("%arg1", "%arg2")]
    assert carried[True, False] == carried[True, True] == [("%arg2", "%arg1")]
    assert all(text.count(" = call @link") == LINKS for text in texts.values())


@pytest.mark.parametrize(("first", "second"), list(itertools.combinations(VARIANTS, 2)))
def test_the_loop_state_and_body_in_any_order_then_a_chain_of_calls_is_one_program(texts, first, second):
    assert equivalent("mlir", texts[first], texts[second])


def test_a_call_of_the_chain_with_two_operands_exchanged_is_a_drift(texts):
    """The soundness side: the last call but one reads its first two operands the other way round."""
    changed = stablehlo(program(carried_swapped=True, body_swapped=True, roles_at=LINKS - 2))
    for text in texts.values():
        assert not equivalent("mlir", text, changed)
