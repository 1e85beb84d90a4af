"""A loop's or a call's state permuted: one program, compared equal; any other change of it is a drift.

The texts are real JAX 0.10.2 stage texts of a loop whose body reads two weights asymmetrically
(``tanh(y @ w1) * (y @ w2)``). The weights the body closes over become the loop's constants (a
``scan`` or ``while`` in the jaxpr, the ``stablehlo.while``'s state and a private function's
arguments, XLA's loop tuple) in the order the body first reads them. The soundness tests change
one place of such a permutation only (which operand goes in, not how the body reads it): another
program, which must not compare equal.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest
from conftest import projections

from pytest_stages.ir import dataflow, state_rewrite
from pytest_stages.ir.normalize import normalize_hlo
from pytest_stages.ir.renaming import equivalent

ARGS = [jax.ShapeDtypeStruct((8, 64), jnp.float32)] + [jax.ShapeDtypeStruct((64, 64), jnp.float32)] * 2
DIALECTS = ["jaxpr", "mlir", "hlo"]


def texts(kind: str, *, swapped: bool = False, roles: bool = False) -> dict[str, str]:
    """The three stage texts of a loop over ``projections``: ``fori`` closes over the weights (constants),
    ``while`` carries them (invariant positions). ``roles``: the weights' roles exchanged (another program)."""

    def step(y, w1, w2):
        return projections(y, *((w2, w1) if roles else (w1, w2)), swapped=swapped)

    def fori(x, w1, w2):
        return jax.lax.fori_loop(0, 5, lambda i, y: step(y, w1, w2), x)

    def while_(x, w1, w2):
        out = jax.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, step(*c[1:]), *c[2:]), (0, x, w1, w2))
        return out[1]

    traced = jax.jit(fori if kind == "fori" else while_).trace(*ARGS)
    lowered = traced.lower()
    return {"jaxpr": str(traced.jaxpr), "mlir": lowered.as_text(), "hlo": normalize_hlo(lowered.compile().as_text())}


@pytest.fixture(scope="module")
def staged() -> dict[tuple[str, str], dict[str, str]]:
    return {
        (kind, variant): texts(kind, swapped=variant == "swapped", roles=variant == "roles")
        for kind in ("fori", "while")
        for variant in ("plain", "swapped", "roles")
    }


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("kind", ["fori", "while"])
def test_a_loop_with_its_invariant_state_permuted_is_one_program(staged, kind, dialect):
    plain, swapped = staged[kind, "plain"][dialect], staged[kind, "swapped"][dialect]
    assert equivalent(dialect, plain, swapped)


def test_the_swap_permutes_the_loop_state_in_the_texts(staged):
    """What the tests above compare: the state is permuted in the text (else they would prove nothing)."""
    fori, while_ = staged["fori", "plain"], staged["while", "plain"]
    assert fori["jaxpr"] != staged["fori", "swapped"]["jaxpr"]  # the scan's constants
    assert fori["mlir"] != staged["fori", "swapped"]["mlir"]  # the while's state, the called function's arguments
    assert while_["hlo"] != staged["while", "swapped"]["hlo"]  # XLA's loop tuple
    assert "%w1.1, %w2.1)" in while_["hlo"] and "%w2.1, %w1.1)" in staged["while", "swapped"]["hlo"]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("kind", ["fori", "while"])
def test_the_weights_roles_exchanged_is_a_drift(staged, kind, dialect):
    """``tanh(y @ w2) * (y @ w1)``: the same ops, the loop's state in the same two orders, another program."""
    assert not equivalent(dialect, staged[kind, "plain"][dialect], staged[kind, "roles"][dialect])
    assert not equivalent(dialect, staged[kind, "swapped"][dialect], staged[kind, "roles"][dialect])


# One place of the permutation changed by hand: the operands that go into the loop (or call), not the
# places that read them. Each gives a loop whose tanh reads the other weight.
HALF_SWAPS = {
    ("fori", "jaxpr"): ("] b c 0:i32[] a", "] c b 0:i32[] a"),
    ("while", "jaxpr"): ("] b c 0:i32[] a", "] c b 0:i32[] a"),
    ("fori", "mlir"): ("(%iterArg = %arg1, %iterArg_0 = %arg2,", "(%iterArg = %arg2, %iterArg_0 = %arg1,"),
    ("while", "mlir"): ("(%iterArg = %arg1, %iterArg_0 = %arg2,", "(%iterArg = %arg2, %iterArg_0 = %arg1,"),
    ("fori", "hlo"): ("%w1.1, %w2.1)", "%w2.1, %w1.1)"),
    ("while", "hlo"): ("%w1.1, %w2.1)", "%w2.1, %w1.1)"),
}


@pytest.mark.parametrize(("kind", "dialect"), list(HALF_SWAPS))
def test_the_operands_permuted_without_their_readers_is_a_drift(staged, kind, dialect):
    old, new = HALF_SWAPS[kind, dialect]
    for variant in ("plain", "swapped"):
        text = staged[kind, variant][dialect]
        if old not in text:
            continue
        changed = text.replace(old, new, 1)
        assert not equivalent(dialect, staged[kind, "plain"][dialect], changed)
        assert not equivalent(dialect, staged[kind, "swapped"][dialect], changed)
        break
    else:
        pytest.fail(f"no {old!r} in the {kind} loop's {dialect}")


def test_the_readers_permuted_without_the_operands_is_a_drift(staged):
    """The body's ``get-tuple-element`` indices of the two weights exchanged, the loop's tuple left as it is."""
    text = staged["while", "plain"]["hlo"]
    changed = text.replace("), index=3\n", "), index=@\n", 1).replace("), index=2\n", "), index=3\n", 1)
    changed = changed.replace("), index=@\n", "), index=2\n", 1)
    assert changed != text
    assert not equivalent("hlo", text, changed)
    assert not equivalent("hlo", staged["while", "swapped"]["hlo"], changed)


def test_a_position_the_body_changes_keeps_its_place():
    """Only positions the body returns unchanged move: a loop whose two weights are updated has none."""

    def f(x, w1, w2):
        step = lambda c: (c[0] + 1, projections(c[1], c[2], c[3], swapped=False), c[2] * 2, c[3] * 3)  # noqa: E731
        return jax.lax.while_loop(lambda c: c[0] < 5, step, (0, x, w1, w2))[1]

    lowered = jax.jit(f).trace(*ARGS).lower()
    assert dataflow.state_plan("mlir", lowered.as_text()) is None
    compiled = dataflow.state_plan("hlo", normalize_hlo(lowered.compile().as_text()))
    assert compiled is None or not compiled.wanted  # a plan for fusions' operands reads no loop's values


def test_order_refills_the_slots_by_key():
    assert state_rewrite.order(["c", "x", "a", "y", "b"], [0, 2, 4]) == {0: 4, 2: 0, 4: 2}
    assert state_rewrite.order(["a", "x", "b"], [0, 2]) == {}
    assert state_rewrite.order(["b", "b", "a"], [0, 1, 2]) == {0: 1, 1: 2, 2: 0}  # ties keep their order


def chain(moved: bool) -> str:
    """The jaxpr of a 240-op chain on ``x`` and one independent op on ``y``, before or after it: JAX names
    its variables a, b, ..., z, ba, bb, ..., so one of the chain's is named ``in``, and which one moves
    with the independent op."""

    def f(x, y):
        other = jnp.cos(y) if moved else None
        for _ in range(240):
            x = jnp.sin(x)
        return x * (jnp.cos(y) if other is None else other)

    return str(jax.make_jaxpr(f)(1.0, 2.0))


def test_a_variable_named_in_is_a_name_not_the_jaxpr_keyword():
    """The field corpus's loss with its target slice moved before the forward pass drifted in the jaxpr
    only: ``in:f32[] = sin im`` was read as the jaxpr's closing ``in (...)``, glued to the op before it,
    and the keyword ``in`` as that variable."""
    plain, moved = chain(False), chain(True)
    assert "\n    in:f32[] = sin " in plain and "\n    in:f32[] = sin " in moved
    assert plain != moved
    assert equivalent("jaxpr", plain, moved)
    assert not equivalent("jaxpr", plain, moved.replace("cos", "tan", 1))


def test_a_jaxpr_with_its_binders_wrapped_otherwise_is_one_program(staged):
    """The binders a permutation moves are printed over as many lines as their names take, so the
    permuted jaxpr may have another length: still one program, and a real change in it still a drift."""
    plain = staged["fori", "plain"]["jaxpr"]
    binders = "jaxpr={ lambda ; e:f32[64,64] f:f32[64,64] g:i32[] h:f32[8,64]. let"
    assert binders in plain
    wrapped = plain.replace(binders, binders.replace(" g:", "\n          g:"))
    assert wrapped.count("\n") == plain.count("\n") + 1
    assert equivalent("jaxpr", plain, wrapped)
    assert equivalent("jaxpr", staged["fori", "swapped"]["jaxpr"], wrapped)
    assert not equivalent("jaxpr", plain, wrapped.replace("tanh", "sin"))
    assert not equivalent("jaxpr", staged["fori", "roles"]["jaxpr"], wrapped)


MARKERS = ("while", "tuple(", "lambda", "stablehlo.return", "call @", "get-tuple-element", "nconsts", "] ")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_loop_text_cut_or_garbled_is_a_drift_never_an_error(staged, dialect):
    """Each line a permutation would read or rewrite, cut in half or with its first ``%``, ``(`` or ``=``
    changed: compare answers (a drift), it does not raise."""
    plain, swapped = staged["fori", "plain"][dialect], staged["fori", "swapped"][dialect]
    lines = swapped.split("\n")
    marked = [k for k, line in enumerate(lines) if any(marker in line for marker in MARKERS)]
    assert len(marked) > 3
    for k in marked:
        line = lines[k]
        for changed in (line[: len(line) // 2], *(line.replace(c, "#", 1) for c in "%(=" if c in line)):
            text = "\n".join([*lines[:k], changed, *lines[k + 1 :]])
            assert not equivalent(dialect, plain, text)
