"""Equinox: an ``eqx.filter_jit`` gradient step over a module with non-array fields."""

from collections.abc import Callable

import jax
import jax.numpy as jnp
import pytest

eqx = pytest.importorskip("equinox")


class MLP(eqx.Module):
    l1: eqx.nn.Linear
    l2: eqx.nn.Linear
    activation: Callable[[jax.Array], jax.Array]

    def __init__(self, key: jax.Array) -> None:
        k1, k2 = jax.random.split(key)
        self.activation = jax.nn.relu  # a custom_jvp function: a leaf jax.jit could not take
        self.l1 = eqx.nn.Linear(32, 64, key=k1)
        self.l2 = eqx.nn.Linear(64, 8, key=k2)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.l2(self.activation(self.l1(x)))


@eqx.filter_jit
def grad_step(model: MLP, x: jax.Array, y: jax.Array) -> MLP:
    def loss(model: MLP) -> jax.Array:
        return ((jax.vmap(model)(x) - y) ** 2).mean()

    grads = eqx.filter_grad(loss)(model)
    return eqx.apply_updates(model, jax.tree_util.tree_map(lambda g: -1e-3 * g, grads))


@pytest.mark.stages(configs=["cpu1", "cpu8"])  # filter_jit cannot lower for a platform not attached
def test_equinox_grad_step(stage_snapshot):
    model = MLP(jax.random.key(0))
    stage_snapshot(grad_step, model, jnp.ones((16, 32)), jnp.ones((16, 8)))
