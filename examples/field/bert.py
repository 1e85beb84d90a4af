"""A BERT-like encoder written with Equinox (the installed library), and its masked-LM train step.

What a team writes around Equinox: token and position embeddings (``eqx.nn.Embedding``),
post-norm encoder layers of ``eqx.nn.MultiheadAttention`` and ``eqx.nn.MLP`` with
``eqx.nn.LayerNorm``, a masked-language-model head, and the step as Equinox trains:
``eqx.filter_jit``, ``eqx.filter_value_and_grad`` and optax's AdamW.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

WIDTH = 64
HEADS = 4
HIDDEN = 256
LAYERS = 6
VOCAB = 512
MAX_POSITIONS = 128
LAYER_NORM_EPS = 1e-12


class EncoderLayer(eqx.Module):
    """Self-attention then a GELU MLP, each followed by a residual LayerNorm (BERT's post-norm)."""

    attention: eqx.nn.MultiheadAttention
    attention_norm: eqx.nn.LayerNorm
    mlp: eqx.nn.MLP
    mlp_norm: eqx.nn.LayerNorm

    def __init__(self, key: jax.Array) -> None:
        attention_key, mlp_key = jax.random.split(key)
        self.attention = eqx.nn.MultiheadAttention(HEADS, WIDTH, key=attention_key)
        self.attention_norm = eqx.nn.LayerNorm(WIDTH, eps=LAYER_NORM_EPS)
        self.mlp = eqx.nn.MLP(WIDTH, WIDTH, HIDDEN, depth=1, activation=jax.nn.gelu, key=mlp_key)
        self.mlp_norm = eqx.nn.LayerNorm(WIDTH, eps=LAYER_NORM_EPS)

    def __call__(self, x: jax.Array, mask: jax.Array) -> jax.Array:
        """``x``: one sequence ``[seq, width]``; ``mask``: ``[seq, seq]``, the keys each query may attend to."""
        x = jax.vmap(self.attention_norm)(x + self.attention(x, x, x, mask=mask))
        return jax.vmap(self.mlp_norm)(x + jax.vmap(self.mlp)(x))


class Bert(eqx.Module):
    """The encoder and its masked-LM head (a dense layer, GELU, LayerNorm, the vocabulary projection)."""

    token_embedding: eqx.nn.Embedding
    position_embedding: eqx.nn.Embedding
    embedding_norm: eqx.nn.LayerNorm
    layers: list[EncoderLayer]
    head_dense: eqx.nn.Linear
    head_norm: eqx.nn.LayerNorm
    head_out: eqx.nn.Linear

    def __init__(self, key: jax.Array, layers: int = LAYERS) -> None:
        keys = jax.random.split(key, layers + 4)
        self.token_embedding = eqx.nn.Embedding(VOCAB, WIDTH, key=keys[0])
        self.position_embedding = eqx.nn.Embedding(MAX_POSITIONS, WIDTH, key=keys[1])
        self.embedding_norm = eqx.nn.LayerNorm(WIDTH, eps=LAYER_NORM_EPS)
        self.layers = [EncoderLayer(k) for k in keys[4:]]
        self.head_dense = eqx.nn.Linear(WIDTH, WIDTH, key=keys[2])
        self.head_norm = eqx.nn.LayerNorm(WIDTH, eps=LAYER_NORM_EPS)
        self.head_out = eqx.nn.Linear(WIDTH, VOCAB, key=keys[3])

    def __call__(self, tokens: jax.Array, padding: jax.Array) -> jax.Array:
        """Logits ``[seq, vocab]`` of one sequence; ``padding`` is true where a token is real."""
        positions = jnp.arange(tokens.shape[0])
        tokens_embedded = jax.vmap(self.token_embedding)(tokens)
        positions_embedded = jax.vmap(self.position_embedding)(positions)
        x = jax.vmap(self.embedding_norm)(tokens_embedded + positions_embedded)
        mask = padding[None, :] & padding[:, None]
        for layer in self.layers:
            x = layer(x, mask)
        x = jax.vmap(self.head_norm)(jax.nn.gelu(jax.vmap(self.head_dense)(x)))
        return jax.vmap(self.head_out)(x)


def loss(model: Bert, batch: dict[str, jax.Array]) -> jax.Array:
    """Cross-entropy on the masked positions of a batch of ``[batch, seq]`` arrays: ``tokens``,
    ``padding`` (true where a token is real), ``targets`` and ``masked`` (1.0 where the loss counts)."""
    logits = jax.vmap(model)(batch["tokens"], batch["padding"])
    losses = optax.softmax_cross_entropy_with_integer_labels(logits, batch["targets"])
    return jnp.sum(losses * batch["masked"]) / jnp.maximum(jnp.sum(batch["masked"]), 1)


OPTIMIZER = optax.adamw(1e-4, weight_decay=0.01)


@eqx.filter_jit
def train_step(model: Bert, opt_state: optax.OptState, batch: dict[str, jax.Array]):
    """One AdamW step on the model's arrays: the new model, the new optimizer state, the loss."""
    value, grads = eqx.filter_value_and_grad(loss)(model, batch)
    updates, opt_state = OPTIMIZER.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state, value
