"""Removed ops headlined at the user's line that held them: the snapshot keeps no source lines for a removed
op, but where the kept lines either side of the removed run both come from one line of the user's code (the
optimizer's update, whose weight decay was dropped), that line is named; otherwise the headline says why none is."""

from __future__ import annotations

import pytest

from pytest_stages.check.drift import compare_text
from pytest_stages.ir.sources import ELSEWHERE, Place

pytest.importorskip("optax")

TRAIN = """
import jax, jax.numpy as jnp, optax
OPTIMIZER = optax.adamw(1e-3, weight_decay={decay})

@jax.jit
def train_step(params, opt_state, x):
    grads = jax.grad(lambda p: (jnp.tanh(x @ p["w"]) ** 2).mean())(params)
    updates, opt_state = OPTIMIZER.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state
"""
TEST = """
import jax.numpy as jnp
import train

def test_step(stage_snapshot):
    params = {"w": jnp.ones((16, 8)), "b": jnp.ones(8)}
    stage_snapshot(train.train_step, params, train.OPTIMIZER.init(params), jnp.ones((4, 16)), name="step")
"""


def test_dropped_weight_decay_names_the_optimizer_update(project) -> None:
    """bt-no-weight-decay of the field list: ``-82 add, -82 mul (removed; the snapshot keeps no source lines)``
    before; now the update's line, which the StableHLO lines around the removed ones come from (a jaxpr line
    keeps one frame, optax's)."""
    project.configure('stages = ["jaxpr", "stablehlo"]\nanalyses = []')
    project.write("train.py", TRAIN.format(decay="0.01"))
    project.write("test_train.py", TEST)
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("train.py", TRAIN.format(decay="0.0"))
    result = project.run()
    result.assert_outcomes(failed=1)
    headline = next(line for line in result.outlines if line.startswith("  IR: "))
    assert " at train.py:8 in train_step (" in headline and " removed)" in headline, headline


OLD = """{ lambda ; a:f32[4]. let
    b:f32[4] = sin a
    c:f32[4] = cos b
    d:f32[4] = exp c
  in (d,) }"""


def test_ops_removed_between_two_lines_of_one_user_line_are_placed_there() -> None:
    """A jaxpr (lines in the program's order) whose ``cos`` went, between two ops of ``m.py:2``."""
    new = OLD.replace("    c:f32[4] = cos b\n", "").replace("exp c", "exp b")
    where = [None, "m.py:2 in f", "m.py:2 in f", None]
    found = compare_text("jaxpr", OLD, new, diff_lines=20, locations=lambda: where)
    assert found is not None and found.locations == ("m.py:2 in f (1 removed)",)


def test_a_drift_that_also_adds_ops_places_no_removal() -> None:
    """``jax.checkpoint`` around a layer (bt-layer-checkpoint) adds ops inside a library and removes others: the
    removed ones are placed nowhere, even between two lines of one user line (it named ``bert.py:76 ... (14
    removed)`` over the edited line 75)."""
    new = OLD.replace("    c:f32[4] = cos b\n", "").replace("exp c", "exp b")
    new = new.replace("  in (d,) }", "    e:f32[4] = tanh d\n  in (e,) }")
    where = [None, "m.py:2 in f", "m.py:2 in f", Place("lib.py:9 in g", ELSEWHERE), None]
    found = compare_text("jaxpr", OLD, new, diff_lines=20, locations=lambda: where)
    assert found is not None and found.locations == ()
