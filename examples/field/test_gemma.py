"""The field corpus's Flax NNX Gemma: its AdamW train step (also sharded, and compiled for a v5e
topology) and its greedy sampler, staged at real scale (compiled HLO of thousands of lines)."""

import gemma
import jax
import jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

BATCH, SEQ, PROMPT = 8, 65, 16


def abstract(tree, sharding=None):
    """Shapes and dtypes of ``tree``'s arrays (placed by ``sharding`` when given)."""
    return jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding), tree)


@pytest.mark.stages(configs=["cpu1"])
def test_gemma_train_step(stage_snapshot):
    graphdef, params = gemma.build()
    state = gemma.OPTIMIZER.init(params)
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32)
    stage_snapshot(gemma.train_step(graphdef), abstract(params), abstract(state), tokens, name="train_step")


@pytest.mark.stages(configs=["cpu8", "v5e"])
def test_gemma_sharded_train_step(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    graphdef, params = gemma.build()
    state = gemma.OPTIMIZER.init(params)
    replicated, batch = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    tokens = jax.ShapeDtypeStruct((BATCH, SEQ), jnp.int32, sharding=batch)
    step = gemma.train_step(graphdef, sharded=True)
    stage_snapshot(step, abstract(params, replicated), abstract(state, replicated), tokens, name="train_step")


@pytest.mark.stages(configs=["cpu1", "v5e"])
def test_gemma_decode(stage_snapshot):
    graphdef, params = gemma.build()
    prompt = jax.ShapeDtypeStruct((BATCH, PROMPT), jnp.int32)
    tokens = jax.ShapeDtypeStruct((BATCH, PROMPT + gemma.DECODE_STEPS), jnp.int32)
    stage_snapshot(gemma.greedy_decode(graphdef), abstract(params), prompt, tokens, name="decode")
