"""Flax NNX: an ``@nnx.jit`` train step with an optax optimizer, model and optimizer donated."""

import jax
import jax.numpy as jnp
import pytest

nnx = pytest.importorskip("flax.nnx")
optax = pytest.importorskip("optax")


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs) -> None:
        self.l1 = nnx.Linear(32, 64, rngs=rngs)
        self.l2 = nnx.Linear(64, 8, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.l2(jax.nn.gelu(self.l1(x)))


@nnx.jit(donate_argnums=(0, 1))
def train_step(model: MLP, optimizer: nnx.Optimizer, x: jax.Array, y: jax.Array) -> jax.Array:
    def loss(model: MLP) -> jax.Array:
        return ((model(x) - y) ** 2).mean()

    value, grads = nnx.value_and_grad(loss)(model)
    optimizer.update(model, grads)
    return value


def test_nnx_train_step(stage_snapshot):
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)
    f32 = jnp.float32
    stage_snapshot(
        train_step, model, optimizer, jax.ShapeDtypeStruct((16, 32), f32), jax.ShapeDtypeStruct((16, 8), f32)
    )
