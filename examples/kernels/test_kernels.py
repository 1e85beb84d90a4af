"""The Pallas TPU kernels JAX ships, and a small hand-written one, as their authors review them.

Each test stages one kernel call for a v5e chip: its Mosaic IR lands in ``<name>.kernels.mlir``
(readable, renumbering-proof), its grid, blocks and VMEM estimate in ``<name>.kernels.json``, and
the StableHLO and compiled texts hold ``kernel:<name>#<digest>`` where the base64 payload was.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import pytest
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas.ops.tpu import flash_attention
from jax.experimental.pallas.ops.tpu.megablox import gmm
from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention
from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as splash
from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as mask_lib

F32, BF16 = jnp.float32, jnp.bfloat16


def spec(*shape: int, dtype=F32) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, dtype)


def scale_add_kernel(x_ref, y_ref, o_ref):
    """The hand-written kernel: ``o = 2 x + y``, a (128, 128) block per grid step."""
    o_ref[...] = x_ref[...] * 2.0 + y_ref[...]


def scale_add(x, y, block=(128, 128)):
    return pl.pallas_call(
        scale_add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // block[0], x.shape[1] // block[1]),
        in_specs=[pl.BlockSpec(block, lambda i, j: (i, j))] * 2,
        out_specs=pl.BlockSpec(block, lambda i, j: (i, j)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel")),
        cost_estimate=pl.CostEstimate(
            flops=2 * x.size, transcendentals=0, bytes_accessed=3 * x.size * x.dtype.itemsize
        ),
    )(x, y)


def test_scale_add(stage_snapshot):
    stage_snapshot(scale_add, spec(1024, 256), spec(1024, 256))


def test_flash_attention(stage_snapshot):
    """Causal flash attention, forward: batch 1, 4 heads, 1024 tokens of head size 128."""
    q = spec(1, 4, 1024, 128, dtype=BF16)
    stage_snapshot(functools.partial(flash_attention.flash_attention, causal=True), q, q, q, name="flash_attention")


def test_splash_attention(stage_snapshot):
    """Splash attention with a causal mask over 4 heads of 1024 tokens (the mask is built at trace time)."""
    heads, tokens = 4, 1024
    mask = mask_lib.MultiHeadMask([mask_lib.CausalMask((tokens, tokens)) for _ in range(heads)])
    kernel = splash.make_splash_mha(mask, head_shards=1, q_seq_shards=1)
    q = spec(heads, tokens, 128, dtype=BF16)
    stage_snapshot(jax.jit(kernel), q, q, q, name="splash_mha")


def test_paged_attention(stage_snapshot):
    """Decode-time paged attention: 8 sequences, 8 query heads over 2 KV heads, 16-token pages."""
    batch, q_heads, kv_heads, head, pages, page, per_seq = 8, 8, 2, 128, 128, 16, 16
    stage_snapshot(
        functools.partial(paged_attention, pages_per_compute_block=4),
        spec(batch, q_heads, head, dtype=BF16),
        spec(kv_heads, pages, page, head, dtype=BF16),
        spec(kv_heads, pages, page, head, dtype=BF16),
        spec(batch, dtype=jnp.int32),
        spec(batch, per_seq, dtype=jnp.int32),
        name="paged_attention",
    )


def test_megablox_gmm(stage_snapshot):
    """Grouped matmul (mixture-of-experts): 512 tokens over 4 experts, 256 -> 512 features."""
    stage_snapshot(gmm, spec(512, 256, dtype=BF16), spec(4, 256, 512, dtype=BF16), spec(4, dtype=jnp.int32))


@pytest.mark.stages_budget(vmem_bytes="50%")
def test_scale_add_fits_half_of_vmem(stage_snapshot):
    """A ceiling on each kernel's VMEM estimate: half of a v5e TensorCore's 128 MiB."""
    stage_snapshot(functools.partial(scale_add, block=(512, 256)), spec(1024, 256), spec(1024, 256), name="big_blocks")
