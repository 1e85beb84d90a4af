"""Headlines that never mislead (#67): each a real-JAX edit on 8 virtual CPU devices, read as a user reads it.

A collective whose operands changed is one collective on other operands, never ``+1``/``-1`` of it; a sharding
headline says the spec change before the leaves it cuts.
"""

from __future__ import annotations

import pytest
from conftest import Project

from pytest_stages.check.collectives import collective_deltas

CPU8 = """
[[tool.pytest_stages.configs]]
name = "cpu8"
devices = 8
mesh = { data = 4, model = 2 }
"""

# A data-parallel gradient: XLA sums both weight gradients in one tuple all-reduce, before and after the edit.
FFN = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

WIDTH = {width}

def loss(p, x):
    return ((jnp.tanh(x @ p["up"]) @ p["down"]) ** 2).mean()

def test_grad(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    p = {{"up": jax.ShapeDtypeStruct((64, WIDTH), jnp.float32, sharding=NamedSharding(mesh, P())),
          "down": jax.ShapeDtypeStruct((WIDTH, 64), jnp.float32, sharding=NamedSharding(mesh, P()))}}
    x = jax.ShapeDtypeStruct((32, 64), jnp.float32, sharding=NamedSharding(mesh, P(("data", "model"))))
    stage_snapshot(jax.jit(jax.grad(loss)), p, x, name="grad")
"""

# Six inputs with long names whose spec is swapped: the headline must say the swap, not cut before it.
SPECS = """
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

SPEC = P{spec}

def test_specs(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    leaf = jax.ShapeDtypeStruct((8, 8), jnp.float32, sharding=NamedSharding(mesh, SPEC))
    params = {{f"model.layers.{{k}}.mlp.down_proj.kernel": leaf for k in range(6)}}
    params["norm"] = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=NamedSharding(mesh, P()))
    stage_snapshot(jax.jit(lambda p: sum(v.sum() for v in p.values())), params, name="total")
"""


def _headlines(project: Project, test: str, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The headline lines (``  kind: ...``) of the failure after the edit, recorded before it."""
    project.configure('stages = ["jaxpr", "compiled"]\nanalyses = ["sharding", "ops"]', configs=CPU8)
    project.write("test_model.py", test.format(**before))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("test_model.py", test.format(**after))
    result = project.run()
    result.assert_outcomes(failed=1)
    lines = project.output(result).split("short test summary info")[0].splitlines()
    start = next(k for k, line in enumerate(lines) if "differs from its snapshots" in line)
    return [line for line in lines[start + 1 :] if line.startswith("  ") and not line.startswith("  -")][:4]


def test_an_all_reduce_on_wider_operands_is_not_one_more_all_reduce(project: Project) -> None:
    headlines = _headlines(project, FFN, {"width": "128"}, {"width": "192"})
    text = "\n".join(headlines)
    assert "+1 all-reduce" not in text and "-1 all-reduce" not in text, text
    changed = "all-reduce operands f32[64,128], f32[128,64] -> f32[64,192], f32[192,64] (64.0 KiB -> 96.0 KiB)"
    assert f"  sharding: collectives: {changed}" in headlines, text
    assert any(line.startswith("  op structure: ") and changed in line for line in headlines), text
    assert any(
        line.startswith("  IR: ") and "collectives: all-reduce operands f32[64,128]" in line for line in headlines
    )


def test_a_sharding_headline_says_the_spec_change_before_the_leaves(project: Project) -> None:
    headlines = _headlines(project, SPECS, {"spec": "('data', 'model')"}, {"spec": "('model', 'data')"})
    [sharding] = [line for line in headlines if line.startswith("  sharding: ")]
    assert sharding.startswith(
        "  sharding: P('data', 'model') -> P('model', 'data'): 6 inputs (p['model.layers.0.mlp.down_proj.kernel'], "
    ), sharding


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # one all-reduce before and after, on other operands
        (
            [("all-reduce", "f32[128,64]", 32768)],
            [("all-reduce", "f32[192,64]", 49152)],
            ["all-reduce operands f32[128,64] -> f32[192,64] (32.0 KiB -> 48.0 KiB)"],
        ),
        # one more, of the same kind: counted
        ([("all-gather", "f32[8]", 32)], [("all-gather", "f32[8]", 32)] * 2, ["+1 all-gather f32[8] (32 B)"]),
        # one of each kind: added and removed, never paired across kinds
        (
            [("all-gather", "f32[8]", 32)],
            [("all-reduce", "f32[8]", 32)],
            [
                "+1 all-reduce f32[8] (32 B)",
                "-1 all-gather f32[8] (32 B)",
            ],
        ),
        # two before, one after on other operands: one changed, one fewer
        (
            [("all-reduce", "f32[2]", 8), ("all-reduce", "f32[4]", 16)],
            [("all-reduce", "f32[3]", 12)],
            [
                "all-reduce operands f32[2] -> f32[3] (8 B -> 12 B)",
                "-1 all-reduce f32[4] (16 B)",
            ],
        ),
    ],
)
def test_collective_deltas_count_only_what_came_or_went(before, after, expected) -> None:
    def side(items):
        return [{"op": op, "shape": shape, "bytes": size} for op, shape, size in items]

    assert collective_deltas(side(before), side(after)) == expected
