"""A Gemma-like language model from penzai (the installed library), and its training step.

The model code is penzai's (``llamalike_common``); what this module writes is what a team
writes around it: the configuration, the loss, the optimizer step and its donation.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax
from jax.sharding import PartitionSpec as P
from penzai import pz
from penzai.models.transformer import model_parts
from penzai.models.transformer.variants import llamalike_common

WIDTH = 64
HIDDEN = 256
BLOCKS = 4
FORWARD_BLOCKS = 16
VOCAB = 512
RMS_EPS = 1e-6
REMAT_BLOCKS = False
LOGITS_DTYPE = jnp.float32


def config(blocks: int = BLOCKS) -> llamalike_common.LlamalikeTransformerConfig:
    """A small Gemma-style configuration: grouped-query attention, GeGLU, tied embeddings."""
    return llamalike_common.LlamalikeTransformerConfig(
        num_kv_heads=2,
        query_head_multiplier=2,
        embedding_dim=WIDTH,
        projection_dim=WIDTH // 4,
        mlp_hidden_dim=HIDDEN,
        num_decoder_blocks=blocks,
        vocab_size=VOCAB,
        mlp_variant="geglu_approx",
        tie_embedder_and_logits=True,
        rms_norm_eps=RMS_EPS,
    )


@pz.pytree_dataclass
class Remat(pz.nn.Layer):
    """A block recomputed in the backward pass (``jax.checkpoint``) instead of keeping its activations."""

    body: pz.nn.Layer

    def __call__(self, x, **side_inputs):
        return jax.checkpoint(lambda body, x, side: body(x, **side))(self.body, x, side_inputs)


def build(blocks: int = BLOCKS):
    """The model with its parameters split off: (the model without them, the parameters)."""
    model = llamalike_common.build_llamalike_transformer(config(blocks), init_base_rng=jax.random.key(0))
    if REMAT_BLOCKS:
        model = pz.select(model).at_instances_of(model_parts.TransformerBlock).apply(Remat)
    return pz.unbind_params(model, freeze=True)


def forward(model, params, tokens):
    """Logits of a ``[batch, seq]`` token array."""
    bound = pz.bind_variables(model, params)
    return bound(pz.nx.wrap(tokens).tag("batch", "seq")).unwrap("batch", "seq", "vocabulary")


def loss(model, params, tokens):
    """Next-token cross-entropy."""
    logits = forward(model, params, tokens)[:, :-1].astype(LOGITS_DTYPE)
    return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()


OPTIMIZER = optax.adamw(1e-3, weight_decay=0.1)


def train_step(model, params, opt_state, tokens):
    """One AdamW step: new parameters, new optimizer state, the loss."""
    value, grads = jax.value_and_grad(lambda p: loss(model, p, tokens))(params)
    updates, opt_state = OPTIMIZER.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, value


def jitted_train_step(model):
    """The step as a team compiles it: parameters and optimizer state donated."""
    return jax.jit(lambda p, s, t: train_step(model, p, s, t), donate_argnums=(0, 1))


def sharded_train_step(model):
    """The step with its logits constrained to the batch sharding (data parallel over the mesh)."""

    def step(params, opt_state, tokens):
        def sharded_loss(p):
            logits = forward(model, p, tokens)[:, :-1]
            logits = jax.lax.with_sharding_constraint(logits, P("data"))
            return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()

        value, grads = jax.value_and_grad(sharded_loss)(params)
        updates, opt_state = OPTIMIZER.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    return jax.jit(step, donate_argnums=(0, 1))
