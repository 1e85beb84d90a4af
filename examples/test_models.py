"""The example suite: model entry points staged on every configured device set."""

import jax
import jax.numpy as jnp
import models
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

f32 = jnp.float32


def spec(*shape, dtype=f32, sharding=None):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)


def mlp_params(width=256, depth=3):
    return [(spec(width, width), spec(width)) for _ in range(depth)]


@pytest.mark.stages_budget(flops=4e7, temp_bytes="2 MiB")
def test_mlp_train_step(stage_snapshot):
    result = stage_snapshot(models.train_step, mlp_params(), spec(32, 256), spec(32, 256))
    if result.compiled is not None:
        assert result.cost["flops"] > 0


def test_transformer_block(stage_snapshot):
    width = 128
    params = {name: spec(width, width) for name in ("wq", "wk", "wv", "wo")}
    params.update(ln1=spec(width), ln2=spec(width), w1=spec(width, 4 * width), w2=spec(4 * width, width))
    stage_snapshot(models.transformer_block, params, spec(2, 16, width))


def test_rnn_scan(stage_snapshot):
    params = {"wh": spec(64, 64), "wx": spec(32, 64)}
    stage_snapshot(models.rnn, params, spec(10, 8, 32))


def test_bf16_inference(stage_snapshot):
    params = [(spec(256, 256, dtype=jnp.bfloat16), spec(256, dtype=jnp.bfloat16))] * 2
    stage_snapshot(jax.jit(models.mlp), params, spec(16, 256, dtype=jnp.bfloat16), name="mlp_bf16")


@pytest.mark.stages(configs=["cpu8", "v5e", "h100"])
@pytest.mark.stages_budget(collectives={"all-gather": 2, "all-to-all": 0})
def test_sharded_train_step(stage_snapshot, stage_config):
    """Data-parallel batch, model-parallel weights, donated parameters."""
    mesh = stage_config.mesh
    weight = NamedSharding(mesh, P(None, "model"))
    bias = NamedSharding(mesh, P("model"))
    batch = NamedSharding(mesh, P("data"))
    params = [(spec(256, 256, sharding=weight), spec(256, sharding=bias)) for _ in range(2)]
    step = jax.jit(models.train_step, donate_argnums=0)
    stage_snapshot(step, params, spec(32, 256, sharding=batch), spec(32, 256, sharding=batch))


@pytest.mark.stages(configs=["cpu8", "v5e", "h100"])
def test_scan_layers_sharded(stage_snapshot, stage_config):
    """Weights sharded over ``model``: each layer's slice is gathered inside the scan body (ops.json ``loops``)."""
    mesh = stage_config.mesh
    ws = spec(6, 128, 128, sharding=NamedSharding(mesh, P(None, None, "model")))
    stage_snapshot(models.scan_layers, ws, spec(32, 128, sharding=NamedSharding(mesh, P("data"))))


@pytest.mark.stages_budget(compiles=3)
def test_decode_loop_compiles(stage_compiles):
    """A jitted step called with 3 batch sizes compiles 3 times; a 4th size fails (compiles.json and the budget)."""
    step = jax.jit(models.mlp)
    params = [(jnp.ones((64, 64)), jnp.zeros(64))]
    with stage_compiles(step):
        for batch in (1, 2, 4, 2, 1):
            step(params, jnp.ones((batch, 64)))
