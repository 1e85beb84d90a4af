"""Flax linen: ``Module.apply`` with a Python flag and mutable batch statistics (kept static)."""

import jax
import jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

nn = pytest.importorskip("flax.linen")


class Net(nn.Module):
    @nn.compact
    def __call__(self, x: jax.Array, train: bool) -> jax.Array:
        x = nn.Dense(64)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return nn.Dense(8)(jax.nn.relu(x))


def test_linen_apply(stage_snapshot, stage_config):
    net = Net()
    batch = jax.ShapeDtypeStruct((16, 32), jnp.float32)
    variables = jax.eval_shape(lambda: net.init(jax.random.key(0), jnp.ones((16, 32)), train=False))
    stage_snapshot(net.apply, variables, batch, train=True, mutable=["batch_stats"], name="train")
    stage_snapshot(net.apply, variables, batch, train=False, name="eval")
    if stage_config.name == "cpu8":
        sharded = jax.ShapeDtypeStruct((16, 32), jnp.float32, sharding=NamedSharding(stage_config.mesh, P("data")))
        stage_snapshot(net.apply, variables, sharded, train=False, name="eval_sharded")
