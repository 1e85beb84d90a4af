"""The field corpus: penzai's Gemma-like transformer and a diffrax solve, staged at real scale.

Compiled HLO of 5k-20k lines on CPU (docs/field.md): a forward pass, an AdamW train step with
donation, the same step sharded over the 8-device CPU mesh and compiled for a v5e topology,
and a neural ODE solve.
"""

import jax
import jax.numpy as jnp
import lm
import ode
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

BATCH, SEQ = 8, 64


def abstract(tree, sharding=None):
    """Shapes and dtypes of ``tree``'s arrays (placed by ``sharding`` when given)."""
    return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding), tree)


@pytest.mark.stages(configs=["cpu1"])
def test_forward(stage_snapshot):
    model, params = lm.build(blocks=lm.FORWARD_BLOCKS)
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32)
    stage_snapshot(jax.jit(lambda p, t: lm.forward(model, p, t)), abstract(params), tokens, name="forward")


@pytest.mark.stages(configs=["cpu1"])
def test_train_step(stage_snapshot):
    model, params = lm.build()
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32)
    state = lm.OPTIMIZER.init(params)
    stage_snapshot(lm.jitted_train_step(model), abstract(params), abstract(state), tokens, name="train_step")


@pytest.mark.stages(configs=["cpu8", "v5e"])
def test_sharded_train_step(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    model, params = lm.build()
    state = lm.OPTIMIZER.init(params)
    replicated, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32, sharding=batch)
    stage_snapshot(
        lm.sharded_train_step(model),
        abstract(params, replicated),
        abstract(state, replicated),
        tokens,
        name="train_step",
    )


@pytest.mark.stages(configs=["cpu1"])
def test_ode_solve(stage_snapshot):
    params = ode.init(jax.random.key(0))
    y0 = jax.ShapeDtypeStruct((BATCH, ode.WIDTH), jnp.float32)
    stage_snapshot(jax.jit(ode.solve), abstract(params), y0, name="solve")
