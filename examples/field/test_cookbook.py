"""The field corpus's training-cookbook step: train state in ``jax.Ref``s, weights over 8 ``fsdp`` devices."""

import cookbook
import jax
import jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


@pytest.mark.stages(configs=["fsdp8"])
def test_cookbook_train_step(stage_snapshot, stage_config):
    mesh = stage_config.mesh
    state = cookbook.train_state(mesh)
    tokens = jax.device_put(jnp.zeros((cookbook.BATCH, cookbook.SEQ), jnp.int32), NamedSharding(mesh, P("fsdp")))
    stage_snapshot(cookbook.train_step, state, {"observed": tokens, "target": tokens}, name="train_step")
