"""Headlines that never mislead (#67): each a real-JAX edit on 8 virtual CPU devices, read as a user reads it.

A collective whose operands changed is one collective on other operands, never ``+1``/``-1`` of it; a sharding
headline says the spec change before the leaves it cuts.
"""

from __future__ import annotations

import pytest
from conftest import ONE_CONFIG, Project

from pytest_stages.check.collectives import collective_deltas, loop_collective_changes
from pytest_stages.check.drift import compare_text

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


# One matmul's precision: no op count and no constant changes, only the dot's attribute.
PRECISION = """
import jax, jax.numpy as jnp

def layer(w, x):
    return jnp.tanh(jnp.matmul(x, w{precision}))

def test_layer(stage_snapshot):
    s = jax.ShapeDtypeStruct((8, 8), jnp.float32)
    stage_snapshot(jax.jit(layer), s, s, name="layer")
"""


# A train step whose parameters are Refs (as JAX's training cookbook keeps them); the edit computes the logits in
# float32 (line 7). The top-level ``let log_softmax`` disappears and every later name shifts: the Ref reads of line 16
# are renamed, not changed.
REFS = """
import jax, jax.numpy as jnp

def forward(refs, x):
    for w in refs[:-1]:
        x = jnp.tanh(x @ w[...])
    logits = jnp.einsum("bd,dv->bv", x.astype(jnp.bfloat16), refs[-1][...].astype(jnp.bfloat16){logits})
    return jax.nn.log_softmax(logits)

@jax.jit
def train_step(refs, x, y):
    def loss(ws):
        return -(forward(ws, x) * y).sum()

    grads = jax.grad(loss)([r[...] for r in refs])
    for r, g in zip(refs, grads):
        r[...] = r[...] - 0.1 * g
    return loss([r[...] for r in refs])
"""
REFS_TEST = """
import jax, jax.numpy as jnp
from model import train_step

def test_step(stage_snapshot):
    refs = [jax.new_ref(jnp.ones((16, 16))) for _ in range(4)] + [jax.new_ref(jnp.ones((16, 32)))]
    stage_snapshot(train_step, refs, jnp.ones((8, 16)), jnp.ones((8, 32)), name="step")
"""


# A step whose parameters were donated; the edit drops the donation. XLA removes the donated arguments' copies in
# the entry computation, and the fusions that read them now read the arguments, printed where the copies were.
DONATION = """
import jax, jax.numpy as jnp

def rms_norm(x, scale):
    return x * jax.lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-6) * scale

def layer(p, x):
    h = rms_norm(x, p["scale"])
    return x + jnp.tanh(h @ p["up"]) @ p["down"]

def step(params, cache, x):
    for p in params:
        x = layer(p, x)
    cache = [c * 0.5 + x for c in cache]
    new = [{{k: v * 0.99 for k, v in p.items()}} for p in params]
    return new, cache, x.sum()

def test_step(stage_snapshot, stage_config):
    from jax.sharding import NamedSharding, PartitionSpec as P
    def s(shape, spec):
        return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(stage_config.mesh, spec))
    params = [{{"scale": s((64,), P()), "up": s((64, 128), P()), "down": s((128, 64), P())}} for _ in range(3)]
    cache = [s((16, 64), P("data")) for _ in range(3)]
    stage_snapshot(jax.jit(step{donate}), params, cache, s((16, 64), P("data")), name="step")
"""


def _headlines(
    project: Project, test: str, before: dict[str, str], after: dict[str, str], configs: str = CPU8
) -> list[str]:
    """The headline lines (``  kind: ...``) of the failure after the edit, recorded before it."""
    project.configure('stages = ["jaxpr", "stablehlo", "compiled"]\nanalyses = ["sharding", "ops"]', configs=configs)
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
    changed = "all-reduce operands f32[64,128] -> f32[64,192], f32[128,64] -> f32[192,64] (64.0 KiB -> 96.0 KiB)"
    assert f"  sharding: collectives: {changed}" in headlines, text
    assert any(line.startswith("  op structure: ") and changed in line for line in headlines), text
    assert any(
        line.startswith("  IR: ") and "collectives: all-reduce operands f32[64,128] -> f32[64,192]" in line
        for line in headlines
    )


def test_a_sharding_headline_says_the_spec_change_before_the_leaves(project: Project) -> None:
    headlines = _headlines(project, SPECS, {"spec": "('data', 'model')"}, {"spec": "('model', 'data')"})
    [sharding] = [line for line in headlines if line.startswith("  sharding: ")]
    assert sharding.startswith(
        "  sharding: P('data', 'model') -> P('model', 'data'): 6 inputs (p['model.layers.0.mlp.down_proj.kernel'], "
    ), sharding


def test_a_precision_change_is_named_at_the_edited_line(project: Project) -> None:
    edit = {"precision": ", precision=jax.lax.Precision.HIGHEST"}
    headlines = _headlines(project, PRECISION, {"precision": ""}, edit, configs=ONE_CONFIG)
    [ir] = [line for line in headlines if line.startswith("  IR: ")]
    assert ir.startswith(
        "  IR: jaxpr, stablehlo, compiled changed; jaxpr: precision unset -> "
        "(Precision.HIGHEST, Precision.HIGHEST) at test_model.py:5 in layer"
    ), ir


def test_renamed_ref_reads_are_never_the_headlines_line(project: Project) -> None:
    project.write("test_model.py", REFS_TEST)
    project.configure('stages = ["jaxpr", "stablehlo", "compiled"]\nanalyses = []')
    project.write("model.py", REFS.format(logits=""))
    project.run("--stages-update").assert_outcomes(passed=1)
    project.write("model.py", REFS.format(logits=", preferred_element_type=jnp.float32"))
    result = project.run()
    result.assert_outcomes(failed=1)
    # the failure's own lines: the short summary repeats the message whole where pytest sees CI set
    failure = project.output(result).split("short test summary info")[0].splitlines()
    [ir] = [line for line in failure if line.startswith("  IR: ")]
    assert ir.startswith(
        "  IR: jaxpr, stablehlo, compiled changed; jaxpr: -7 convert_element_type at model.py:7 in forward"
    ), ir


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


def test_a_removed_donation_is_not_headlined_at_the_lines_that_now_read_the_arguments(project: Project) -> None:
    headlines = _headlines(project, DONATION, {"donate": ", donate_argnums=(0, 1)"}, {"donate": ""})
    [ir] = [line for line in headlines if line.startswith("  IR: ")]
    assert ir == "  IR: stablehlo, compiled changed; compiled: -9 copy (removed; the snapshot keeps no source lines)", (
        ir
    )


def test_a_line_that_moved_and_was_renamed_is_never_a_headline_place() -> None:
    """The Ref read moved before the sines and took another name: only the new ``exp`` is the edit's line."""
    old = """{ lambda ; a:f32[4] b:Ref{f32[4]}. let
    c:f32[4] = sin a
    d:f32[4] = cos c
    e:f32[4] <- b[...]
    f:f32[4] = add d e
  in (f,) }"""
    new = """{ lambda ; a:f32[4] b:Ref{f32[4]}. let
    g:f32[4] <- b[...]
    c:f32[4] = sin a
    d:f32[4] = cos c
    h:f32[4] = exp d
    f:f32[4] = add h g
  in (f,) }"""
    where = ["m.py:1 in f", "m.py:9 in f", "m.py:2 in f", "m.py:3 in f", "m.py:4 in f", "m.py:5 in f", None]
    found = compare_text("jaxpr", old, new, diff_lines=20, locations=lambda: where)
    assert found is not None and found.locations == ("m.py:4 in f (1 changed)",)


def test_a_loop_collective_on_other_operands_is_not_one_more_in_the_loop() -> None:
    def ops(shape: str, size: int) -> dict:
        loop = {"trip_count": 12, "collectives": [{"op": "all-reduce", "shape": shape, "bytes": size}]}
        return {"collectives": list(loop["collectives"]), "loops": [loop]}

    assert loop_collective_changes(ops("f32[8]", 32), ops("f32[16]", 64)) == [
        "all-reduce operands f32[8] -> f32[16] (32 B -> 64 B) in the while body of loop 1 (x 12 iterations)"
    ]
