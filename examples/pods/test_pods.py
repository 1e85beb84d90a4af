"""A transformer training step on two v5p slices (DCN budgeted) and on one v5e chip (HBM fit)."""

import jax
import jax.numpy as jnp
import models
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

WIDTH, BATCH, SEQ = 128, 8, 16
NAMES = ("wq", "wk", "wv", "wo", "w1", "w2", "ln1", "ln2")


def shapes():
    two_d = {"wq": (WIDTH, WIDTH), "wk": (WIDTH, WIDTH), "wv": (WIDTH, WIDTH), "wo": (WIDTH, WIDTH)}
    return {**two_d, "w1": (WIDTH, 4 * WIDTH), "w2": (4 * WIDTH, WIDTH), "ln1": (WIDTH,), "ln2": (WIDTH,)}


def train_step(params, x):
    """One SGD step of a transformer block on a squared-activation loss."""

    def loss(params):
        return jnp.mean(models.transformer_block(params, x).astype(jnp.float32) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), value


@pytest.mark.stages(configs=["v5p-2slices"])
@pytest.mark.stages_budget(dcn_bytes="1 MiB", peak_bytes="90%")
def test_train_step_two_slices(stage_snapshot, stage_config):
    """Weights sharded over "fsdp" (within a slice), the batch over both axes: gradients cross slices."""
    mesh = stage_config.mesh
    params = {
        name: jax.ShapeDtypeStruct(shape, jnp.bfloat16, sharding=NamedSharding(mesh, P("fsdp")))
        for name, shape in shapes().items()
    }
    batch = NamedSharding(mesh, P(("data", "fsdp")))
    x = jax.ShapeDtypeStruct((BATCH, SEQ, WIDTH), jnp.bfloat16, sharding=batch)
    result = stage_snapshot(jax.jit(train_step, donate_argnums=0), params, x)
    assert result.analyses["ops"]["networks"]["dcn"]["count"] > 0


@pytest.mark.stages(configs=["v5e-1chip"])
@pytest.mark.stages_budget(peak_bytes="90%", temp_bytes="50%")
def test_train_step_one_chip(stage_snapshot):
    """No argument sharded: staged as plain jax.jit compiles it on the chip."""
    params = {name: jnp.zeros(shape, jnp.bfloat16) for name, shape in shapes().items()}
    stage_snapshot(train_step, params, jnp.zeros((BATCH, SEQ, WIDTH), jnp.bfloat16))
