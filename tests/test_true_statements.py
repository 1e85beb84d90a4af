"""What a failure states is true: no constant claimed changed that only moved, no diff row
with the same text on both sides."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from test_alpha import SNAPSHOTS, one_site_edits

from pytest_stages.check.drift import CONSTANT, compare_text
from pytest_stages.ir.diff_render import side_by_side, unified
from pytest_stages.ir.normalize import normalize_hlo, normalize_jaxpr, normalize_mlir
from pytest_stages.ir.textdiff import edit_script

# Compiled HLO of ``logistic(x * 0.044715 * 0.797885)`` against ``tanh(x * 0.797885 * 0.044715)``: the two
# constants swapped places with the multiplies that read them (a product of independent factors in
# another order), and tanh became logistic. Aligned by position, the constant lines pair crosswise.
MOVED = """HloModule m

ENTRY %main.1 (p.1: f32[]) -> f32[] {{
  %p.1 = f32[] parameter(0)
  %constant.1 = f32[] constant({first})
  %multiply.1 = f32[] multiply(%p.1, %constant.1)
  %constant.2 = f32[] constant({second})
  %multiply.2 = f32[] multiply(%multiply.1, %constant.2)
  ROOT %out.1 = f32[] {op}(%multiply.2)
}}
"""


def test_constants_that_only_moved_are_never_claimed_changed() -> None:
    before = MOVED.format(first="0.797885", second="0.044715", op="tanh")
    after = MOVED.format(first="0.044715", second="0.797885", op="logistic")
    found = compare_text("compiled", before, after, diff_lines=40)
    assert found is not None
    assert "-  %constant.1 = f32[] constant(0.797885)" in found.diff  # the lines did change places
    assert found.detail["summary"] == ["ops: +1 logistic, -1 tanh"]
    assert found.subject != CONSTANT and found.before is None and not found.detail["constants"]
    # a constant that did change, among those that moved, is still named with its old and new value
    edited = MOVED.format(first="0.044715", second="0.5", op="logistic")
    found = compare_text("compiled", before, edited, diff_lines=40)
    assert found is not None and found.subject == CONSTANT
    assert [(c["old"], c["new"]) for c in found.detail["constants"]] == [("0.797885", "0.5")]


def _gelu_tanh(x: jax.Array, y: jax.Array) -> jax.Array:
    a = x * 0.797885
    b = y * 0.044715
    return jnp.tanh(a) + b


def _gelu_logistic(x: jax.Array, y: jax.Array) -> jax.Array:
    b = y * 0.044715
    a = x * 0.797885
    return jax.nn.sigmoid(a) + b


def _gelu_eps(x: jax.Array, y: jax.Array) -> jax.Array:
    b = y * 1e-06
    a = x * 0.797885
    return jax.nn.sigmoid(a) + b


def _texts(fn: Callable[[jax.Array, jax.Array], jax.Array]) -> dict[str, str]:
    args = (jnp.ones((8, 8)), jnp.ones((8, 8)))
    lowered = jax.jit(fn).lower(*args)
    return {
        "jaxpr": normalize_jaxpr(str(jax.make_jaxpr(fn)(*args))),
        "stablehlo": normalize_mlir(lowered.as_text()).replace(fn.__name__, "f"),
        "compiled": normalize_hlo(lowered.compile().as_text()).replace(fn.__name__, "f"),
    }


@pytest.mark.parametrize("artifact", ["jaxpr", "stablehlo", "compiled"])
def test_a_reorder_with_an_edit_claims_only_the_constant_that_changed(artifact: str) -> None:
    before, moved, edited = (_texts(fn)[artifact] for fn in (_gelu_tanh, _gelu_logistic, _gelu_eps))
    found = compare_text(artifact, before, moved, diff_lines=40)
    assert found is not None and not found.detail["constants"] and found.subject != CONSTANT
    found = compare_text(artifact, before, edited, diff_lines=40)
    assert found is not None
    assert {(c["old"], c["new"]) for c in found.detail["constants"]} <= {("0.044715", "1e-06")}


def _pairs_with_the_same_text(lines: list[str]) -> list[str]:
    """The i-th removed and i-th added line of each run of changed lines of a unified diff, where equal."""
    same = []
    body = [line for line in lines if not line.startswith(("---", "+++", "@@", "..."))]
    for changed, run in itertools.groupby(body, key=lambda line: line[:1] in "-+"):
        if changed:
            run_lines = list(run)
            removed = [line[1:] for line in run_lines if line[:1] == "-"]
            added = [line[1:] for line in run_lines if line[:1] == "+"]
            same += [a for a, b in zip(removed, added, strict=False) if a == b]
    return same


@pytest.mark.parametrize(
    "folder", sorted({p.parent for p in SNAPSHOTS.rglob("*.jaxpr.txt")}), ids=lambda p: str(p.relative_to(SNAPSHOTS))
)
def test_no_diff_row_has_the_same_text_on_both_sides(folder: Path) -> None:
    """Over the diffs of every one-site edit of the committed snapshots (first, middle and last site of
    each kind): no row of the unified or the side-by-side diff is a change whose two sides read the same."""
    tried = 0
    for path, dialect, kind, text, mutant in one_site_edits(folder):
        script = edit_script(dialect, text, mutant)
        tried += 1
        assert _pairs_with_the_same_text(unified(script, 10_000)) == [], (path.name, kind)
        rows = [row for hunk in side_by_side(script, 10_000) for row in hunk]
        assert not [row for row in rows if row[0] != "=" and row[2] == row[4]], (path.name, kind)
    assert tried > 20
