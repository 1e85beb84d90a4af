"""The example models' jitted entry points, registered once: each becomes ``stages::<name>[<config>]``.

Listed in ``[tool.pytest_stages] modules``; no test function is written for them.
"""

import jax
import jax.numpy as jnp
import models
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from pytest_stages import register

f32 = jnp.float32


def spec(*shape, sharding=None):
    return jax.ShapeDtypeStruct(shape, f32, sharding=sharding)


register(
    models.train_step,
    name="train_step",
    args=([(spec(128, 128), spec(128)) for _ in range(2)], spec(16, 128), spec(16, 128)),
    budget={"flops": 1e7, "temp_bytes": "1 MiB"},
)


@register(args=({"wh": spec(32, 32), "wx": spec(16, 32)}, spec(12, 4, 16)), configs=["cpu1", "tpu"])
def rnn_decode(params, xs):
    """Greedy decode over a sequence: the RNN followed by an argmax per step."""
    return jnp.argmax(models.rnn(params, xs), axis=-1)


def sharded_step_args(stage_config):
    mesh = stage_config.mesh
    weight, bias = NamedSharding(mesh, P(None, "model")), NamedSharding(mesh, P("model"))
    params = [(spec(128, 128, sharding=weight), spec(128, sharding=bias)) for _ in range(2)]
    batch = NamedSharding(mesh, P("data"))
    return params, spec(32, 128, sharding=batch), spec(32, 128, sharding=batch)


register(
    models.train_step,
    name="train_step_sharded",
    args=sharded_step_args,
    configs=["cpu8"],
    jit={"donate_argnums": 0},
)
