"""A decoder trained as JAX's training cookbook trains one: plain JAX, the train state in ``jax.Ref``s.

The pattern of the cookbook (the "training cookbook" page of JAX's documentation), written for this
corpus: parameters and Adam's moments live in ``jax.Ref``s that the jitted step reads (``ref[...]``)
and updates in place, weights sharded over one ``fsdp`` mesh axis, a causal
``jax.nn.dot_product_attention``, a GELU MLP, RMS normalization and a ``log_softmax`` loss in
bfloat16 over the same number of layers as the cookbook (4).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

LAYERS = 4
WIDTH = 128
HEADS = 8
HEAD_DIM = 16
HIDDEN = 512
VOCAB = 256
SEQ = 64
BATCH = 16
DTYPE = jnp.bfloat16
LEARNING_RATE = 1e-4
BETA_1, BETA_2, EPS = 0.9, 0.999, 1e-8
NORM_EPS = 1e-6


def shapes() -> dict[str, tuple[tuple[int, ...], P]]:
    """Each parameter's shape and its spec over the ``fsdp`` axis, by its path."""
    layer = {
        "qkv": ((3, WIDTH, HEADS, HEAD_DIM), P(None, "fsdp", None, None)),
        "attention_out": ((HEADS, HEAD_DIM, WIDTH), P("fsdp", None, None)),
        "mlp_in": ((WIDTH, HIDDEN), P("fsdp", None)),
        "mlp_out": ((HIDDEN, WIDTH), P(None, "fsdp")),
    }
    found = {
        "embedding": ((VOCAB, WIDTH), P()),
        "positions": ((SEQ, WIDTH), P()),
        "unembed": ((WIDTH, VOCAB), P("fsdp", None)),
    }
    for k in range(LAYERS):
        found.update({f"layers.{k}.{name}": value for name, value in layer.items()})
    return found


def train_state(mesh: jax.sharding.Mesh) -> dict:
    """Parameters and Adam's state, each array in a ``jax.Ref`` placed on ``mesh``."""
    keys = iter(jax.random.split(jax.random.key(0), 64))
    params, moments = {}, {}
    for name, (shape, spec) in shapes().items():
        sharding = NamedSharding(mesh, spec)
        params[name] = jax.device_put(0.02 * jax.random.normal(next(keys), shape, DTYPE), sharding)
        moments[name] = {
            "mu": jax.device_put(jnp.zeros(shape, DTYPE), sharding),
            "nu": jax.device_put(jnp.zeros(shape, DTYPE), sharding),
        }
    count = jax.device_put(jnp.array(0), NamedSharding(mesh, P()))
    state = {"params": params, "opt": moments, "count": count}
    return jax.tree.map(jax.ref.new_ref, state)


def rms(x: jax.Array) -> jax.Array:
    return x * jax.lax.rsqrt(jnp.mean(x**2, axis=-1, keepdims=True) + NORM_EPS)


def forward(params: dict, tokens: jax.Array) -> jax.Array:
    """Logits ``[batch, seq, vocab]`` of a causal decoder."""
    out = params["embedding"][tokens] + params["positions"]
    for k in range(LAYERS):
        layer = functools.partial(lambda name, k: params[f"layers.{k}.{name}"], k=k)
        skip = out
        qkv = jnp.einsum("bsd,tdhk->bsthk", out, layer("qkv"))
        out = jax.nn.dot_product_attention(qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2], is_causal=True)
        out = jnp.einsum("bshk,hkd->bsd", out, layer("attention_out"))
        out = rms(out + skip)
        skip = out
        out = jax.nn.gelu(jnp.einsum("bsd,dh->bsh", out, layer("mlp_in")))
        out = jnp.einsum("bsh,hd->bsd", out, layer("mlp_out"))
        out = rms(out + skip)
    logits = jnp.einsum("bsd,dv->bsv", out, params["unembed"])
    return logits


def adam(param: jax.Ref, grad: jax.Array, moments: dict, count: jax.Array) -> None:
    """One Adam update of ``param`` in place, its moments too."""
    moments["mu"][...] = BETA_1 * moments["mu"][...] + (1 - BETA_1) * grad
    moments["nu"][...] = BETA_2 * moments["nu"][...] + (1 - BETA_2) * grad**2
    mu_hat = moments["mu"][...] / (1 - BETA_1**count)
    nu_hat = moments["nu"][...] / (1 - BETA_2**count)
    param[...] -= LEARNING_RATE * mu_hat / (jnp.sqrt(nu_hat) + EPS)


@jax.jit
def train_step(state: dict, batch: dict) -> dict:
    """One step: the loss and its gradient from the Refs' values, then Adam on every Ref."""

    def loss(params: dict) -> jax.Array:
        logits = forward(params, batch["observed"])
        labels = jax.nn.one_hot(batch["target"], VOCAB)
        return -(labels * jax.nn.log_softmax(logits)).sum(axis=-1).mean()

    params = jax.tree.map(jax.ref.get, state["params"])
    value, grads = jax.value_and_grad(loss)(params)
    state["count"][...] += 1
    count = state["count"][...]
    jax.tree.map(
        functools.partial(adam, count=count),
        state["params"],
        grads,
        state["opt"],
        is_leaf=lambda x: isinstance(x, jax.Ref),
    )
    return {"train_loss": value}
