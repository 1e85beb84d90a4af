"""Haiku: a ``hk.transform``-ed MLP's ``apply`` with a Python flag (kept static)."""

import jax
import jax.numpy as jnp
import pytest

hk = pytest.importorskip("haiku")


def forward(x: jax.Array, is_training: bool) -> jax.Array:
    return hk.nets.MLP([64, 8], activate_final=is_training)(x)


model = hk.transform(forward)


def test_haiku_apply(stage_snapshot):
    x = jax.ShapeDtypeStruct((16, 32), jnp.float32)
    params = jax.eval_shape(lambda: model.init(jax.random.key(0), jnp.ones((16, 32)), True))
    stage_snapshot(model.apply, params, None, x, True, name="mlp")
