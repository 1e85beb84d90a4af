"""The field corpus's Equinox BERT: its masked-LM train step (``eqx.filter_jit``), staged at real
scale on one CPU device and with the batch sharded over the 8-device mesh."""

import bert
import equinox as eqx
import jax
import jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

BATCH, SEQ = 8, 64


@pytest.mark.stages(configs=["cpu1", "cpu8"])  # filter_jit lowers for the attached platform only
def test_bert_train_step(stage_snapshot, stage_config):
    model = bert.Bert(jax.random.key(0))
    opt_state = bert.OPTIMIZER.init(eqx.filter(model, eqx.is_array))
    batch = {
        "tokens": jnp.zeros((BATCH, SEQ), jnp.int32),
        "padding": jnp.ones((BATCH, SEQ), jnp.bool_),
        "targets": jnp.zeros((BATCH, SEQ), jnp.int32),
        "masked": jnp.zeros((BATCH, SEQ), jnp.float32),
    }
    if stage_config.mesh.size > 1:  # cpu8: the batch split over the mesh's data axis
        batch = jax.device_put(batch, NamedSharding(stage_config.mesh, P("data")))
    stage_snapshot(bert.train_step, model, opt_state, batch, name="train_step")
