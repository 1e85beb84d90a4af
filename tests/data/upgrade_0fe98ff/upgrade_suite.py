"""A small suite recorded with pytest-stages at commit 0fe98ff (tests/data/upgrade_0fe98ff)."""

from functools import partial

import jax
import jax.numpy as jnp
import pytest

nnx = pytest.importorskip("flax.nnx")


class Model(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(4, 8, rngs=rngs)
        self.l2 = nnx.Linear(8, 2, rngs=rngs)

    def __call__(self, x):
        return self.l2(jax.nn.relu(self.l1(x)))


@nnx.jit(donate_argnums=0)
def sgd_step(model, x, y):
    def loss(model):
        return ((model(x) - y) ** 2).mean()

    value, grads = nnx.value_and_grad(loss)(model)
    params = nnx.state(model, nnx.Param)
    nnx.update(model, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads))
    return value


@partial(jax.jit, donate_argnums=0)
def update(state, x):
    new = {"w": state["w"] + x.sum(), "count": state["count"] + 1}
    return new, {"norm": jnp.linalg.norm(new["w"])}


def wide(x):
    return jnp.tanh(jnp.exp(x) * 3.0 + x).sum(axis=0)


def test_nnx(stage_snapshot):
    f32 = jnp.float32
    stage_snapshot(sgd_step, Model(nnx.Rngs(0)), jax.ShapeDtypeStruct((16, 4), f32), jax.ShapeDtypeStruct((16, 2), f32))


def test_dict_state(stage_snapshot):
    state = {"w": jax.ShapeDtypeStruct((64, 64), jnp.float32), "count": jax.ShapeDtypeStruct((), jnp.int32)}
    stage_snapshot(update, state, jax.ShapeDtypeStruct((64, 64), jnp.float32))


def test_wide(stage_snapshot):
    stage_snapshot(wide, jax.ShapeDtypeStruct((512, 2048), jnp.float32))
