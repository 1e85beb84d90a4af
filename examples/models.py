"""Small but realistic JAX model code, staged by the example suite."""

import jax
import jax.numpy as jnp


def mlp(params, x):
    """A ReLU multi-layer perceptron."""
    for w, b in params:
        x = jax.nn.relu(x @ w + b)
    return x


def mse_loss(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


def train_step(params, x, y, lr=0.01):
    """One SGD step: loss and gradients by ``jax.value_and_grad``, then the update."""
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


def layer_norm(x, scale, eps=1e-6):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * scale


def attention(q, k, v):
    """Causal scaled dot-product attention over ``[batch, seq, heads, dim]``."""
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
    seq = q.shape[1]
    mask = jnp.tril(jnp.ones((seq, seq), dtype=bool))
    logits = jnp.where(mask, logits, jnp.finfo(logits.dtype).min)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(logits, axis=-1), v)


def transformer_block(p, x, heads=4):
    """Pre-norm transformer block: attention and a GELU MLP, each with a residual."""
    batch, seq, width = x.shape
    h = layer_norm(x, p["ln1"])
    q, k, v = ((h @ p[name]).reshape(batch, seq, heads, width // heads) for name in ("wq", "wk", "wv"))
    x = x + attention(q, k, v).reshape(batch, seq, width) @ p["wo"]
    h = layer_norm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def rnn(params, xs):
    """A tanh RNN over the leading axis of ``xs`` with ``jax.lax.scan``."""

    def cell(h, x):
        h = jnp.tanh(h @ params["wh"] + x @ params["wx"])
        return h, h

    h0 = jnp.zeros((xs.shape[1], params["wh"].shape[0]), xs.dtype)
    return jax.lax.scan(cell, h0, xs)[1]


def scan_layers(ws, x):
    """Layers stacked on a leading axis of ``ws``, applied in turn by ``jax.lax.scan`` (one compiled body).

    Each layer's weights are gathered whole before use (FSDP style), so under a mesh the gather
    runs inside the loop body, once per layer.
    """

    def layer(h, w):
        w = jax.sharding.reshard(w, jax.sharding.PartitionSpec())
        return jnp.tanh(h @ w), None

    return jax.lax.scan(layer, x, ws)[0]
