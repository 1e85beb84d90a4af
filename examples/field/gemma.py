"""A Gemma-like decoder written with Flax NNX (the installed library), its AdamW step and a sampler.

What a team writes around Flax: RMSNorm, rotary positions, multi-head attention, the gated GeGLU
MLP (``gate_proj``/``up_proj``/``down_proj``), tied embeddings, activations in bfloat16 over
float32 parameters; the training step through NNX's functional API (``nnx.split``/``nnx.merge``
under ``jax.jit``, so that it compiles from abstract arguments for any config), and a greedy
decoder in a ``jax.lax.fori_loop``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax
from flax import nnx
from jax.sharding import PartitionSpec as P

WIDTH = 64
HEADS = 4
HEAD_DIM = 16
HIDDEN = 256
LAYERS = 6
VOCAB = 512
RMS_EPS = 1e-6
ROPE_BASE = 10_000
DTYPE = jnp.bfloat16
DECODE_STEPS = 16


class RMSNorm(nnx.Module):
    """Gemma's RMS normalization: a learned scale around 1, computed in float32."""

    def __init__(self, dim: int) -> None:
        self.scale = nnx.Param(jnp.zeros((dim,), jnp.float32))

    def __call__(self, x: jax.Array) -> jax.Array:
        variance = jnp.mean(jnp.square(x.astype(jnp.float32)), axis=-1, keepdims=True)
        normed = x * jax.lax.rsqrt(variance + RMS_EPS)
        return (normed * (1 + self.scale[...])).astype(x.dtype)


def rotary(x: jax.Array, positions: jax.Array) -> jax.Array:
    """Rotary position embedding of ``x`` ``[batch, seq, heads, head_dim]`` at ``positions`` ``[batch, seq]``."""
    half = x.shape[-1] // 2
    frequencies = ROPE_BASE ** (-jnp.arange(half, dtype=jnp.float32) / half)
    angles = positions[:, :, None, None].astype(jnp.float32) * frequencies
    sin, cos = jnp.sin(angles), jnp.cos(angles)
    x1, x2 = jnp.split(x.astype(jnp.float32), 2, axis=-1)
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1).astype(x.dtype)


class Attention(nnx.Module):
    """Causal multi-head self-attention with rotary positions."""

    def __init__(self, rngs: nnx.Rngs) -> None:
        linear = functools.partial(nnx.Linear, use_bias=False, dtype=DTYPE, rngs=rngs)
        self.q_proj = linear(WIDTH, HEADS * HEAD_DIM)
        self.k_proj = linear(WIDTH, HEADS * HEAD_DIM)
        self.v_proj = linear(WIDTH, HEADS * HEAD_DIM)
        self.o_proj = linear(HEADS * HEAD_DIM, WIDTH)

    def __call__(self, x: jax.Array, positions: jax.Array) -> jax.Array:
        batch, seq, _ = x.shape
        q = rotary(self.q_proj(x).reshape(batch, seq, HEADS, HEAD_DIM), positions) * HEAD_DIM**-0.5
        k = rotary(self.k_proj(x).reshape(batch, seq, HEADS, HEAD_DIM), positions)
        v = self.v_proj(x).reshape(batch, seq, HEADS, HEAD_DIM)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k)
        causal = jnp.tril(jnp.ones((seq, seq), jnp.bool_))
        logits = jnp.where(causal, logits.astype(jnp.float32), -1e30)
        probs = jax.nn.softmax(logits, axis=-1).astype(DTYPE)
        out = jnp.einsum("bhqk,bkhd->bqhd", probs, v)
        return self.o_proj(out.reshape(batch, seq, HEADS * HEAD_DIM))


class MLP(nnx.Module):
    """The gated GeGLU feed-forward."""

    def __init__(self, rngs: nnx.Rngs) -> None:
        linear = functools.partial(nnx.Linear, use_bias=False, dtype=DTYPE, rngs=rngs)
        self.gate_proj = linear(WIDTH, HIDDEN)
        self.up_proj = linear(WIDTH, HIDDEN)
        self.down_proj = linear(HIDDEN, WIDTH)

    def __call__(self, x: jax.Array) -> jax.Array:
        ff_gate = self.gate_proj(x)
        ff1 = self.up_proj(x)
        activations = jax.nn.gelu(ff_gate, approximate=False) * ff1
        return self.down_proj(activations)


class Block(nnx.Module):
    """A pre-norm decoder block: attention, then the MLP, each around a residual."""

    def __init__(self, rngs: nnx.Rngs) -> None:
        self.pre_attention_norm = RMSNorm(WIDTH)
        self.attention = Attention(rngs)
        self.pre_mlp_norm = RMSNorm(WIDTH)
        self.mlp = MLP(rngs)

    def __call__(self, x: jax.Array, positions: jax.Array) -> jax.Array:
        x = x + self.attention(self.pre_attention_norm(x), positions)
        return x + self.mlp(self.pre_mlp_norm(x))


class Gemma(nnx.Module):
    """The decoder: embedding (tied with the output projection), ``layers`` blocks, a final norm."""

    def __init__(self, rngs: nnx.Rngs, layers: int = LAYERS) -> None:
        self.embedder = nnx.Embed(VOCAB, WIDTH, dtype=DTYPE, rngs=rngs)
        self.blocks = nnx.List([Block(rngs) for _ in range(layers)])
        self.final_norm = RMSNorm(WIDTH)

    def __call__(self, tokens: jax.Array) -> jax.Array:
        batch, seq = tokens.shape
        positions = jnp.broadcast_to(jnp.arange(seq), (batch, seq))
        x = self.embedder(tokens) * jnp.sqrt(WIDTH).astype(DTYPE)
        for block in self.blocks:
            x = block(x, positions)
        return self.embedder.attend(self.final_norm(x))


def build(layers: int = LAYERS) -> tuple[nnx.GraphDef, nnx.State]:
    """The model split into its structure and its parameters (NNX's functional API)."""
    return nnx.split(Gemma(nnx.Rngs(0), layers))


def loss(graphdef: nnx.GraphDef, params: nnx.State, tokens: jax.Array, sharded: bool = False) -> jax.Array:
    """Next-token cross-entropy, the logits in float32 (constrained to the batch sharding when ``sharded``)."""
    logits = nnx.merge(graphdef, params)(tokens[:, :-1]).astype(jnp.float32)
    if sharded:
        logits = jax.lax.with_sharding_constraint(logits, P("data"))
    return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()


OPTIMIZER = optax.adamw(3e-4, b2=0.95, weight_decay=0.1)


def train_step(graphdef: nnx.GraphDef, sharded: bool = False):
    """The jitted AdamW step ``(params, opt_state, tokens) -> (params, opt_state, loss)``, both states donated."""

    def step(params, opt_state, tokens):
        value, grads = jax.value_and_grad(loss, argnums=1)(graphdef, params, tokens, sharded)
        updates, opt_state = OPTIMIZER.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    return jax.jit(step, donate_argnums=(0, 1))


def greedy_decode(graphdef: nnx.GraphDef):
    """The jitted sampler ``(params, prompt, tokens) -> tokens``: ``DECODE_STEPS`` greedy tokens after a
    ``[batch, prompt]`` prompt, written into the sampler's state ``tokens`` (``[batch, prompt + DECODE_STEPS]``)."""

    def decode(params, prompt, tokens):
        model = nnx.merge(graphdef, params)
        length = prompt.shape[1]
        tokens = tokens.at[:, :length].set(prompt)

        def sample(i, tokens):
            logits = jax.lax.dynamic_index_in_dim(model(tokens), length + i - 1, axis=1, keepdims=False)
            return jax.lax.dynamic_update_index_in_dim(tokens, jnp.argmax(logits, axis=-1), length + i, axis=1)

        return jax.lax.fori_loop(0, DECODE_STEPS, sample, tokens)

    return jax.jit(decode)
