"""The held-out corpus of the estimated step time (docs/step-time.md): programs never used to fit a figure.

Four families (matmul and convolution; elementwise and reductions; gather, sort, scan and control
flow; real models) and the edits' "after" programs, each a builder ``() -> (function, arguments)``.
``benchmarks/step_time.py`` measures them on the chip beside its calibration programs and reports them
apart. Integer inputs are derived inside the programs from float inputs, so that ``--stages-measure``'s
made-up inputs (random floats, zero integers) give the indices a real run would see.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
Builder = Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]
# Corpus programs that fit a figure of the chip table, so reported with the calibration set, not held out:
# the sort rate, the rate of a sine, the share of the bandwidth a gather of rows reaches.
CALIBRATION = ("sort f32 256x32768", "fori sin f32 1024^2, 200 steps", "gather 16384 rows of 32768x1024 f32")
FAMILIES = ("matmul and conv", "elementwise and reductions", "gather, sort, scan, control", "models")
BLIND = "blind"  # the blind set's groups: "blind: <family>"
UNSEEN = "unseen"  # the second blind set's groups: "unseen: <family>"
THIRD = "third"  # the third blind set's groups: "third: <family>"
# (before, after, kind): edits that change what the chip runs; each pair's names are corpus programs.
EDITS = (
    ("transformer block fwd+bwd bf16 8x512x1024", "transformer block fwd+bwd bf16 16x512x1024", "batch"),
    ("transformer block fwd+bwd bf16 8x512x1024", "transformer block fwd+bwd f32 8x512x1024", "dtype"),
    ("transformer stack fwd+bwd bf16, 2 layers", "transformer stack fwd+bwd bf16, 4 layers", "layer count"),
    ("transformer stack fwd+bwd bf16, 4 layers", "transformer stack fwd+bwd bf16, 4 layers, remat", "remat"),
    ("MLP train step bf16 4 x 4096, batch 1024", "MLP train step bf16 4 x 4096, batch 2048", "batch"),
    ("conv2d 3x3 bf16 32x56x56x256", "conv2d 3x3 bf16 32x56x56x128", "shape"),
    ("scan 8x128 matmul f32, 500 steps", "scan 8x128 matmul f32, 1000 steps", "loop count"),
    ("sort f32 256x32768", "sort f32 512x32768", "shape"),
    ("gather 16384 rows of 32768x1024 f32", "gather 65536 rows of 32768x1024 f32", "shape"),
    ("softmax f32 16x1024x2048", "softmax bf16 16x1024x2048", "dtype"),
    ("matmul bf16 8192^2", "matmul int8 8192^2 (int32 acc)", "dtype"),
    ("layernorm f32 16384x1024", "layernorm f32 16384x2048", "shape"),
    ("field: gemma decode (16 steps)", "field: gemma decode (32 steps)", "loop count"),
)
# The blind set's edits (both sides blind programs), measured by the same ``measure --group blind`` call.
BLIND_EDITS = (
    ("transformer block fwd+bwd bf16 4x1024x768", "transformer block fwd+bwd bf16 8x1024x768", "batch"),
    ("transformer block fwd+bwd bf16 4x1024x768", "transformer block fwd+bwd f32 4x1024x768", "dtype"),
    ("transformer block fwd bf16 4x1024x768", "transformer block fwd+bwd bf16 4x1024x768", "backward pass"),
    (
        "transformer stack fwd+bwd bf16 512 wide, 3 layers",
        "transformer stack fwd+bwd bf16 512 wide, 6 layers",
        "layer count",
    ),
    (
        "transformer stack fwd+bwd bf16 512 wide, 3 layers",
        "transformer stack fwd+bwd bf16 512 wide, 3 layers, remat",
        "remat",
    ),
    ("MLP train step bf16 3 x 8192, batch 512", "MLP train step bf16 3 x 8192, batch 1024", "batch"),
    ("conv2d 3x3 bf16 16x28x28x256", "conv2d 3x3 bf16 16x28x28x512", "shape"),
    ("scan 16x256 matmul f32, 300 steps", "scan 16x256 matmul f32, 600 steps", "loop count"),
    ("sort bf16 1024x16384", "sort f32 1024x16384", "dtype"),
    ("gather 8192 rows of 65536x512 bf16", "gather 32768 rows of 65536x512 bf16", "shape"),
    ("softmax f32 64x512x1024", "softmax bf16 64x512x1024", "dtype"),
    ("matmul bf16 5120^2", "matmul int8 5120^2 (int32 acc)", "dtype"),
    ("layernorm bf16 8192x4096", "layernorm f32 8192x4096", "dtype"),
    (
        "field: gemma train_step (NNX) 128 wide, 4 layers, 16x129",
        "field: gemma train_step (NNX) 128 wide, 8 layers, 16x129",
        "layer count",
    ),
    (
        "field: lm train_step (penzai) 128 wide, 2 blocks, 16x128",
        "field: lm train_step (penzai) 128 wide, 2 blocks, 16x128, remat",
        "remat",
    ),
)

# The second blind set's edits (both sides its programs), measured by the same ``measure --group unseen`` call.
UNSEEN_EDITS = (
    ("transformer block fwd+bwd bf16 2x2048x1024", "transformer block fwd+bwd bf16 4x2048x1024", "batch"),
    ("transformer block fwd+bwd bf16 2x2048x1024", "transformer block fwd+bwd f32 2x2048x1024", "dtype"),
    (
        "transformer stack fwd+bwd bf16 768 wide, 4 layers",
        "transformer stack fwd+bwd bf16 768 wide, 8 layers",
        "layers",
    ),
    (
        "transformer stack fwd+bwd bf16 768 wide, 4 layers",
        "transformer stack fwd+bwd bf16 768 wide, 4 layers, remat",
        "remat",
    ),
    ("MLP train step bf16 6 x 2048, batch 4096", "MLP train step bf16 6 x 2048, batch 8192", "batch"),
    ("conv2d 3x3 bf16 64x32x32x128", "conv2d 3x3 bf16 64x32x32x256", "shape"),
    ("scan 32x1024 matmul bf16, 100 steps", "scan 32x1024 matmul bf16, 200 steps", "loop count"),
    ("sort f32 4096^2", "sort f32 8192x4096", "shape"),
    ("gather 16384 rows of 131072x256 bf16", "gather 65536 rows of 131072x256 bf16", "shape"),
    ("softmax bf16 32x1024x2048", "softmax f32 32x1024x2048", "dtype"),
    ("matmul bf16 6144^2", "matmul int8 6144^2 (int32 acc)", "dtype"),
    (
        "field: gemma train_step (NNX) 256 wide, 4 layers, 8x257",
        "field: gemma train_step (NNX) 256 wide, 8 layers, 8x257",
        "layer count",
    ),
    (
        "field: lm train_step (penzai) 256 wide, 4 blocks, 8x256",
        "field: lm train_step (penzai) 256 wide, 4 blocks, 8x256, remat",
        "remat",
    ),
)

# The third blind set's edits (both sides its programs), measured by the same ``measure --group third`` call.
THIRD_EDITS = (
    ("transformer block fwd+bwd bf16 8x256x1536", "transformer block fwd+bwd bf16 16x256x1536", "batch"),
    (
        "transformer stack fwd+bwd bf16 1024 wide, 2 layers",
        "transformer stack fwd+bwd bf16 1024 wide, 2 layers, remat",
        "remat",
    ),
    ("scan 64x2048 matmul bf16, 50 steps", "scan 64x2048 matmul bf16, 100 steps", "loop count"),
    ("matmul bf16 2048^3", "matmul f32 2048^3", "dtype"),
    (
        "field: gemma decode 64 wide, 32 steps, 8x16 prompt",
        "field: gemma decode 64 wide, 64 steps, 8x16 prompt",
        "loop count",
    ),
    ("conv2d 3x3 bf16 8x112x112x64", "conv2d 3x3 bf16 16x112x112x64", "batch"),
    ("softmax f32 8x2048x2048", "softmax bf16 8x2048x2048", "dtype"),
    ("layernorm bf16 16384x1536", "layernorm f32 16384x1536", "dtype"),
    ("sort bf16 2048x8192", "sort f32 2048x8192", "dtype"),
    ("MLP train step bf16 4 x 3072, batch 2048", "MLP train step bf16 4 x 3072, batch 4096", "batch"),
    (
        "field: lm train_step (penzai) 128 wide, 4 blocks, 8x512",
        "field: lm train_step (penzai) 128 wide, 8 blocks, 8x512",
        "layer count",
    ),
)


@contextlib.contextmanager
def _constants(module: str, values: dict[str, Any]) -> Iterator[None]:
    """``values`` set on the field module ``module`` (its sizes are module constants), restored after."""
    found = importlib.import_module(module)
    before = {name: getattr(found, name) for name in values}
    for name, value in values.items():
        setattr(found, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(found, name, value)


def _resized(module: str, values: dict[str, Any], build: Builder) -> Builder:
    """``build`` with the field module's constants at ``values``, both when it builds and when its function
    is traced (the modules read their sizes at trace time), so that other programs keep the defaults."""

    def built() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        with _constants(module, values):
            fn, args = build()

        def traced(*args: Any) -> Any:
            with _constants(module, values):
                return fn(*args)

        return traced, args

    return built


def programs() -> list[tuple[str, str, Builder]]:  # noqa: C901  (one builder per program)
    """(name, family, builder) of every corpus program."""
    import jax
    import jax.numpy as jnp

    sys.path[:0] = [str(ROOT / "examples"), str(ROOT / "examples" / "field")]
    import models

    bf16, f32 = jnp.bfloat16, jnp.float32
    keys = iter(jax.random.split(jax.random.key(1), 10_000))

    def arr(*shape: int, dtype: Any = f32) -> Any:
        return (jax.random.normal(next(keys), shape, f32) * 0.05).astype(dtype)

    def indices(x: Any, size: int) -> Any:
        """Spread integer indices below ``size`` from float inputs (made-up inputs are random floats)."""
        return (jnp.abs(x) * 1e6).astype(jnp.int32) % size

    def matmul(n: int, k: int, m: int, dtype: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return jnp.matmul, (arr(n, k, dtype=dtype), arr(k, m, dtype=dtype))

    def int8_matmul(n: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(a: Any, b: Any) -> Any:
            return jax.lax.dot(a, b, preferred_element_type=jnp.int32)

        return run, (jnp.ones((n, n), jnp.int8), jnp.ones((n, n), jnp.int8))

    def fp8_matmul(n: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(a: Any, b: Any) -> Any:
            return jax.lax.dot(a, b, preferred_element_type=f32)

        return run, (arr(n, n, dtype=jnp.float8_e4m3fn), arr(n, n, dtype=jnp.float8_e4m3fn))

    def conv(batch: int, size: int, cin: int, cout: int, window: int, *, stride: int = 1, groups: int = 1) -> Any:
        def run(x: Any, w: Any) -> Any:
            return jax.lax.conv_general_dilated(
                x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=groups
            )

        return run, (arr(batch, size, size, cin, dtype=bf16), arr(window, window, cin // groups, cout, dtype=bf16))

    def attention(q: Any, k: Any, v: Any) -> Any:
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
        mask = jnp.tril(jnp.ones((q.shape[1], k.shape[1]), bool))
        logits = jnp.where(mask, logits, -1e9).astype(q.dtype)
        return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(logits, axis=-1), v)

    def block(p: Any, x: Any, heads: int = 16) -> Any:
        batch, seq, width = x.shape
        h = models.layer_norm(x, p["ln1"])
        q, k, v = (
            (h @ p[name]).reshape(batch, seq, heads, width // heads).astype(x.dtype) for name in ("wq", "wk", "wv")
        )
        x = x + attention(q, k, v).reshape(batch, seq, width) @ p["wo"]
        h = models.layer_norm(x, p["ln2"])
        return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]

    def block_params(width: int, dtype: Any) -> dict[str, Any]:
        params = {name: arr(width, width, dtype=dtype) for name in ("wq", "wk", "wv", "wo")}
        params.update(ln1=arr(width, dtype=dtype), ln2=arr(width, dtype=dtype))
        params.update(w1=arr(width, 4 * width, dtype=dtype), w2=arr(4 * width, width, dtype=dtype))
        return params

    def block_train(
        batch: int, dtype: Any, seq: int = 512, width: int = 1024, heads: int = 16
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def loss(p: Any, x: Any) -> Any:
            return jnp.mean(block(p, x, heads).astype(f32) ** 2)

        return jax.grad(loss), (block_params(width, dtype), arr(batch, seq, width, dtype=dtype))

    def stack_train(
        layers: int, remat: bool, batch: int = 8, seq: int = 512, width: int = 1024
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        layer = jax.checkpoint(block) if remat else block

        def loss(ps: Any, x: Any) -> Any:
            for p in ps:
                x = layer(p, x)
            return jnp.mean(x.astype(f32) ** 2)

        params = [block_params(width, bf16) for _ in range(layers)]
        return jax.grad(loss), (params, arr(batch, seq, width, dtype=bf16))

    def block_forward(
        batch: int = 8, seq: int = 512, width: int = 1024, heads: int = 16
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return functools.partial(block, heads=heads), (block_params(width, bf16), arr(batch, seq, width, dtype=bf16))

    def mlp_train(batch: int, width: int = 4096, depth: int = 4) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        params = [(arr(width, width, dtype=bf16), arr(width, dtype=bf16)) for _ in range(depth)]
        return models.train_step, (params, arr(batch, width, dtype=bf16), arr(batch, width, dtype=bf16))

    def convnet_train(
        batch: int = 64, size: int = 32, widths: tuple[int, ...] = (64, 128, 128, 256)
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def net(p: Any, x: Any) -> Any:
            for w in p["convs"]:
                x = jax.nn.relu(
                    jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
                )
            return jnp.mean(x, axis=(1, 2)) @ p["head"]

        def loss(p: Any, x: Any) -> Any:
            return jnp.mean(net(p, x).astype(f32) ** 2)

        params = {"convs": [arr(3, 3, c, d, dtype=bf16) for c, d in itertools.pairwise(widths)]}
        params["head"] = arr(widths[-1], 1000, dtype=bf16)
        return jax.grad(loss), (params, arr(batch, size, size, widths[0], dtype=bf16))

    def layernorm(width: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return models.layer_norm, (arr(16384, width), arr(width))

    def rmsnorm(x: Any, scale: Any) -> Any:
        variance = jnp.mean(jnp.square(x.astype(f32)), axis=-1, keepdims=True)
        return (x * jax.lax.rsqrt(variance + 1e-6) * scale).astype(x.dtype)

    def gather(rows: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return (lambda table, x: table[indices(x, table.shape[0])]), (arr(32768, 1024), arr(rows))

    def embedding() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return (lambda table, x: jnp.take(table, indices(x, 50_000), axis=0)), (
            arr(50_000, 1024, dtype=bf16),
            arr(8, 512),
        )

    def scatter_add() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(table: Any, x: Any, rows: Any) -> Any:
            return table.at[indices(x, table.shape[0])].add(rows)

        return run, (arr(32768, 1024), arr(16384), arr(16384, 1024))

    def slice_loop() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(big: Any, h: Any) -> Any:
            def step(i: Any, h: Any) -> Any:
                return h + jax.lax.dynamic_slice_in_dim(big, (i * 37) % 256 * 64, 64, axis=0)

            return jax.lax.fori_loop(0, 256, step, h)

        return run, (arr(16384, 1024), arr(64, 1024))

    def scan_matmul(steps: int, batch: int, width: int, dtype: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            return jax.lax.scan(lambda c, _: (jnp.tanh(c @ w), None), h, None, length=steps)[0]

        return run, (arr(batch, width, dtype=dtype), arr(width, width, dtype=dtype))

    def fori_elementwise() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return (lambda x: jax.lax.fori_loop(0, 200, lambda i, y: jnp.sin(y) * 1.01 + 0.1, x)), (arr(1024, 1024),)

    def while_matmul() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            def body(state: Any) -> Any:
                i, h = state
                return i + 1, jnp.tanh(h @ w)

            return jax.lax.while_loop(lambda s: s[0] < 300, body, (0, h))[1]

        return run, (arr(128, 512), arr(512, 512))

    def cond_matmul() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(a: Any, b: Any) -> Any:
            return jax.lax.cond(a[0, 0] > -10.0, lambda: a @ b, lambda: a @ b.T)

        return run, (arr(4096, 4096, dtype=bf16), arr(4096, 4096, dtype=bf16))

    def one_hot_matmul() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(table: Any, x: Any) -> Any:
            return jax.nn.one_hot(indices(x, 8192), 8192, dtype=bf16) @ table

        return run, (arr(8192, 1024, dtype=bf16), arr(4096))

    def associative_cumsum(x: Any) -> Any:
        return jax.lax.associative_scan(jnp.add, x, axis=1)

    def field_gemma_train(batch: int = 8, seq: int = 65) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import gemma

        graphdef, params = gemma.build(gemma.LAYERS)
        state = gemma.OPTIMIZER.init(params)
        tokens = jnp.zeros((batch, seq), jnp.int32)
        return gemma.train_step(graphdef).__wrapped__, (params, state, tokens)  # the step, without donation

    def field_gemma_decode(steps: int, batch: int = 8, prompt: int = 16) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import gemma

        gemma.DECODE_STEPS = steps  # read when the sampler is traced
        graphdef, params = gemma.build(gemma.LAYERS)
        decode = gemma.greedy_decode(graphdef).__wrapped__  # (params, prompt, tokens): the token buffer is its state
        return decode, (params, jnp.zeros((batch, prompt), jnp.int32), jnp.zeros((batch, prompt + steps), jnp.int32))

    def field_lm_train(
        blocks: int | None = None, batch: int = 8, seq: int = 64
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import lm

        model, params = lm.build(blocks or lm.BLOCKS)
        state = lm.OPTIMIZER.init(params)
        return (lambda p, s, t: lm.train_step(model, p, s, t)), (params, state, jnp.zeros((batch, seq), jnp.int32))

    def field_lm_forward(
        blocks: int | None = None, batch: int = 8, seq: int = 64
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import lm

        model, params = lm.build(blocks=blocks or lm.FORWARD_BLOCKS)
        return (lambda p, t: lm.forward(model, p, t)), (params, jnp.zeros((batch, seq), jnp.int32))

    def field_bert_train(layers: int = 6, batch: int = 8, seq: int = 64) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import bert
        import equinox as eqx

        model = bert.Bert(jax.random.key(0), layers)
        state = bert.OPTIMIZER.init(eqx.filter(model, eqx.is_array))
        arrays, static = eqx.partition(model, eqx.is_array)
        tokens = {
            "tokens": jnp.zeros((batch, seq), jnp.int32),
            "padding": jnp.ones((batch, seq), jnp.bool_),
            "targets": jnp.zeros((batch, seq), jnp.int32),
            "masked": jnp.ones((batch, seq), f32),
        }

        def run(arrays: Any, state: Any, batch: Any) -> Any:  # bert.train_step's body, on the model's arrays
            model = eqx.combine(arrays, static)
            value, grads = eqx.filter_value_and_grad(bert.loss)(model, batch)
            updates, state = bert.OPTIMIZER.update(grads, state, eqx.filter(model, eqx.is_array))
            return eqx.filter(eqx.apply_updates(model, updates), eqx.is_array), state, value

        return run, (arrays, state, tokens)

    def field_cookbook_train() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """The cookbook's step on one device: its parameters and moments (``cookbook.shapes()``) as plain
        arrays, put in ``jax.Ref``s inside the program (a jitted call cannot take made-up Refs), the new state
        read back out. Placed on no mesh (the benchmark lowers under one of its own), and the step count made
        inside, weakly typed as the cookbook's ``jnp.array(0)`` is (an int32 input would make Adam's bias
        correction float32, which the bfloat16 Refs refuse)."""
        import cookbook

        params = {name: arr(*shape, dtype=cookbook.DTYPE) for name, (shape, _) in cookbook.shapes().items()}
        moments = {name: {"mu": jnp.zeros_like(p), "nu": jnp.zeros_like(p)} for name, p in params.items()}
        tokens = jnp.zeros((cookbook.BATCH, cookbook.SEQ), jnp.int32)

        def run(state: Any, batch: Any) -> Any:
            refs = jax.tree.map(jax.ref.new_ref, {**state, "count": jnp.array(0)})
            out = cookbook.train_step(refs, batch)
            return jax.tree.map(jax.ref.get, refs), out

        state = {"params": params, "opt": moments}
        return run, (state, {"observed": tokens, "target": tokens})

    def field_ode(batch: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import ode

        return ode.solve, (ode.init(jax.random.key(0)), arr(batch, ode.WIDTH))

    matmuls: list[tuple[str, Builder]] = [
        ("matmul bf16 3072^2", lambda: matmul(3072, 3072, 3072, bf16)),
        ("matmul bf16 8192^2", lambda: matmul(8192, 8192, 8192, bf16)),
        ("matmul f32 3072x2048x4096", lambda: matmul(3072, 2048, 4096, f32)),
        ("matmul int8 8192^2 (int32 acc)", lambda: int8_matmul(8192)),
        ("matmul int8 4096^2 (int32 acc)", lambda: int8_matmul(4096)),
        ("matmul fp8 e4m3 4096^2 (f32 out)", lambda: fp8_matmul(4096)),
        ("batched matmul f32 4096 x 64x64", lambda: (jnp.matmul, (arr(4096, 64, 64), arr(4096, 64, 64)))),
        (
            "batched matmul bf16 512 x 256x128 @ 128x256",
            lambda: (jnp.matmul, (arr(512, 256, 128, dtype=bf16), arr(512, 128, 256, dtype=bf16))),
        ),
        ("matmul bf16 16x8192 @ 8192x8192", lambda: matmul(16, 8192, 8192, bf16)),
        ("matmul bf16 8192x128x8192", lambda: matmul(8192, 128, 8192, bf16)),
        ("conv2d 3x3 bf16 32x56x56x256", lambda: conv(32, 56, 256, 256, 3)),
        ("conv2d 3x3 bf16 32x56x56x128", lambda: conv(32, 56, 128, 128, 3)),
        ("conv2d 1x1 bf16 32x28x28x512", lambda: conv(32, 28, 512, 512, 1)),
        ("conv2d 7x7/2 stem bf16 32x224x224x3->64", lambda: conv(32, 224, 3, 64, 7, stride=2)),
        ("depthwise conv 3x3 bf16 32x56x56x256", lambda: conv(32, 56, 256, 256, 3, groups=256)),
    ]
    elementwise: list[tuple[str, Builder]] = [
        (
            "fma f32 8192x4096",
            lambda: ((lambda a, b, c: a * b + c), (arr(8192, 4096), arr(8192, 4096), arr(8192, 4096))),
        ),
        ("tanh bf16 8192^2", lambda: (jnp.tanh, (arr(8192, 8192, dtype=bf16),))),
        ("layernorm f32 16384x1024", lambda: layernorm(1024)),
        ("layernorm f32 16384x2048", lambda: layernorm(2048)),
        ("rmsnorm bf16 32x2048x1024", lambda: (rmsnorm, (arr(32, 2048, 1024, dtype=bf16), arr(1024, dtype=bf16)))),
        ("softmax f32 16x1024x2048", lambda: (jax.nn.softmax, (arr(16, 1024, 2048),))),
        ("softmax bf16 16x1024x2048", lambda: (jax.nn.softmax, (arr(16, 1024, 2048, dtype=bf16),))),
        ("sum axis 0 f32 16384x4096", lambda: ((lambda x: jnp.sum(x, axis=0)), (arr(16384, 4096),))),
        ("max last axis bf16 8192^2", lambda: ((lambda x: jnp.max(x, axis=-1)), (arr(8192, 8192, dtype=bf16),))),
        ("argmax f32 4096x8192", lambda: ((lambda x: jnp.argmax(x, axis=-1)), (arr(4096, 8192),))),
        ("transpose f32 8192^2", lambda: ((lambda x: x.T + 1), (arr(8192, 8192),))),
        ("cumsum f32 4096^2", lambda: ((lambda x: jnp.cumsum(x, axis=1)), (arr(4096, 4096),))),
        ("associative-scan cumsum f32 1024x8192", lambda: (associative_cumsum, (arr(1024, 8192),))),
        (
            "concatenate 4 x f32 4096^2",
            lambda: ((lambda *xs: jnp.concatenate(xs)), tuple(arr(4096, 4096) for _ in range(4))),
        ),
        ("logsumexp f32 8192^2", lambda: ((lambda x: jax.nn.logsumexp(x, axis=-1)), (arr(8192, 8192),))),
        ("outer add f32 8192^2", lambda: ((lambda a, b: a[:, None] + b[None, :]), (arr(8192), arr(8192)))),
    ]
    control: list[tuple[str, Builder]] = [
        ("gather 16384 rows of 32768x1024 f32", lambda: gather(16384)),
        ("gather 65536 rows of 32768x1024 f32", lambda: gather(65536)),
        ("embedding lookup bf16 50000x1024, 8x512 tokens", embedding),
        ("scatter-add 16384 rows into 32768x1024 f32", scatter_add),
        ("fori dynamic-slice 256 x 64x1024 f32", slice_loop),
        ("sort f32 256x32768", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(256, 32768),))),
        ("sort f32 512x32768", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(512, 32768),))),
        ("argsort bf16 1024x8192", lambda: ((lambda x: jnp.argsort(x, axis=-1)), (arr(1024, 8192, dtype=bf16),))),
        ("top_k 64 of 32768, 256 rows", lambda: ((lambda x: jax.lax.top_k(x, 64)), (arr(256, 32768),))),
        ("scan 8x128 matmul f32, 500 steps", lambda: scan_matmul(500, 8, 128, f32)),
        ("scan 8x128 matmul f32, 1000 steps", lambda: scan_matmul(1000, 8, 128, f32)),
        ("scan 256x1024 matmul bf16, 100 steps", lambda: scan_matmul(100, 256, 1024, bf16)),
        ("fori sin f32 1024^2, 200 steps", fori_elementwise),
        ("while i<300 matmul f32 128x512", while_matmul),
        ("cond matmul bf16 4096^2", cond_matmul),
        ("one-hot matmul bf16 4096 x 8192 -> 1024", one_hot_matmul),
    ]
    model_programs: list[tuple[str, Builder]] = [
        ("transformer block fwd bf16 8x512x1024", block_forward),
        ("transformer block fwd+bwd bf16 8x512x1024", lambda: block_train(8, bf16)),
        ("transformer block fwd+bwd bf16 16x512x1024", lambda: block_train(16, bf16)),
        ("transformer block fwd+bwd f32 8x512x1024", lambda: block_train(8, f32)),
        ("transformer stack fwd+bwd bf16, 2 layers", lambda: stack_train(2, False)),
        ("transformer stack fwd+bwd bf16, 4 layers", lambda: stack_train(4, False)),
        ("transformer stack fwd+bwd bf16, 4 layers, remat", lambda: stack_train(4, True)),
        (
            "attention bf16 4x2048x16x64 causal",
            lambda: (attention, tuple(arr(4, 2048, 16, 64, dtype=bf16) for _ in range(3))),
        ),
        ("MLP train step bf16 4 x 4096, batch 1024", lambda: mlp_train(1024)),
        ("MLP train step bf16 4 x 4096, batch 2048", lambda: mlp_train(2048)),
        ("convnet train step bf16 64x32x32", convnet_train),
        ("field: gemma train_step (NNX)", field_gemma_train),
        ("field: gemma decode (16 steps)", functools.partial(field_gemma_decode, 16)),
        ("field: gemma decode (32 steps)", functools.partial(field_gemma_decode, 32)),
        ("field: lm train_step (penzai + optax)", field_lm_train),
        ("field: lm forward (penzai)", field_lm_forward),
        ("field: bert train_step (Equinox)", field_bert_train),
    ]
    families = zip(FAMILIES, (matmuls, elementwise, control, model_programs), strict=True)
    found = [(name, family, build) for family, group in families for name, build in group]

    # The blind set (group "blind: <family>"): written and committed before any figure of the model was
    # compared with it, measured on the chip after; never used to fit or to revise the model.
    def take_rows(x: Any) -> Any:
        return jnp.take_along_axis(x, indices(x, x.shape[1]), axis=1)

    def scatter_set() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(table: Any, x: Any, rows: Any) -> Any:
            return table.at[indices(x, table.shape[0])].set(rows)

        return run, (arr(16384, 2048, dtype=bf16), arr(8192), arr(8192, 2048, dtype=bf16))

    def update_rows() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(big: Any, rows: Any, x: Any) -> Any:  # 4096 rows written in place at a data-dependent row
            return jax.lax.dynamic_update_slice_in_dim(big, rows, indices(x, 4096)[0], axis=0)

        return run, (arr(16384, 2048), arr(4096, 2048), arr(1))

    def segment_sum() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(x: Any, keys: Any) -> Any:
            return jax.ops.segment_sum(x, indices(keys, 1024), num_segments=1024)

        return run, (arr(65536, 256), arr(65536))

    def switch_matmul() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(a: Any, b: Any) -> Any:
            branches = (lambda: a @ b, lambda: a @ b.T, lambda: (a + 1) @ b)
            return jax.lax.switch(indices(a[0, :1], 3)[0], branches)

        return run, (arr(4096, 4096, dtype=bf16), arr(4096, 4096, dtype=bf16))

    def while_bf16() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            def body(state: Any) -> Any:
                i, h = state
                return i + 1, jnp.tanh(h @ w)

            return jax.lax.while_loop(lambda s: s[0] < 200, body, (0, h))[1]

        return run, (arr(256, 1024, dtype=bf16), arr(1024, 1024, dtype=bf16))

    def int_sort() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return (lambda x: jnp.sort(indices(x, 1 << 30), axis=-1)), (arr(128, 65536),)

    blind_matmuls: list[tuple[str, Builder]] = [
        ("matmul bf16 5120^2", lambda: matmul(5120, 5120, 5120, bf16)),
        ("matmul int8 5120^2 (int32 acc)", lambda: int8_matmul(5120)),
        ("matmul bf16 2048x8192x1024", lambda: matmul(2048, 8192, 1024, bf16)),
        ("matmul bf16 1024x4096x16384", lambda: matmul(1024, 4096, 16384, bf16)),
        ("matmul f32 8192x2048x2048", lambda: matmul(8192, 2048, 2048, f32)),
        ("matmul bf16 32x16384 @ 16384x4096", lambda: matmul(32, 16384, 4096, bf16)),
        ("matmul fp8 e4m3 2048^2 (f32 out)", lambda: fp8_matmul(2048)),
        (
            "batched matmul bf16 128 x 512x64 @ 64x512",
            lambda: (jnp.matmul, (arr(128, 512, 64, dtype=bf16), arr(128, 64, 512, dtype=bf16))),
        ),
        ("batched matmul f32 1024 x 128x128", lambda: (jnp.matmul, (arr(1024, 128, 128), arr(1024, 128, 128)))),
        ("conv2d 3x3 bf16 16x28x28x512", lambda: conv(16, 28, 512, 512, 3)),
        ("conv2d 3x3 bf16 16x28x28x256", lambda: conv(16, 28, 256, 256, 3)),
        ("conv2d 3x3/2 bf16 32x56x56x128->256", lambda: conv(32, 56, 128, 256, 3, stride=2)),
        ("conv2d 5x5 bf16 8x64x64x64", lambda: conv(8, 64, 64, 64, 5)),
        ("conv2d 1x1 bf16 64x14x14x1024->256", lambda: conv(64, 14, 1024, 256, 1)),
        ("conv2d 3x3 bf16 32x128x128x3->32", lambda: conv(32, 128, 3, 32, 3)),
        ("depthwise conv 5x5 bf16 16x64x64x128", lambda: conv(16, 64, 128, 128, 5, groups=128)),
    ]
    blind_elementwise: list[tuple[str, Builder]] = [
        (
            "add of 3 bf16 8192x4096",
            lambda: ((lambda a, b, c: a + b + c), tuple(arr(8192, 4096, dtype=bf16) for _ in range(3))),
        ),
        ("sigmoid f32 4096x8192", lambda: (jax.nn.sigmoid, (arr(4096, 8192),))),
        ("silu bf16 16384x4096", lambda: (jax.nn.silu, (arr(16384, 4096, dtype=bf16),))),
        ("erf f32 4096^2", lambda: (jax.scipy.special.erf, (arr(4096, 4096),))),
        ("layernorm bf16 8192x4096", lambda: (models.layer_norm, (arr(8192, 4096, dtype=bf16), arr(4096, dtype=bf16)))),
        ("layernorm f32 8192x4096", lambda: (models.layer_norm, (arr(8192, 4096), arr(4096)))),
        ("rmsnorm f32 16x1024x2048", lambda: (rmsnorm, (arr(16, 1024, 2048), arr(2048)))),
        ("softmax f32 64x512x1024", lambda: (jax.nn.softmax, (arr(64, 512, 1024),))),
        ("softmax bf16 64x512x1024", lambda: (jax.nn.softmax, (arr(64, 512, 1024, dtype=bf16),))),
        ("sum last axis f32 8192^2", lambda: ((lambda x: jnp.sum(x, axis=-1)), (arr(8192, 8192),))),
        (
            "mean axis 1 bf16 64x1024x1024",
            lambda: ((lambda x: jnp.mean(x, axis=1)), (arr(64, 1024, 1024, dtype=bf16),)),
        ),
        ("min axis 0 f32 8192x4096", lambda: ((lambda x: jnp.min(x, axis=0)), (arr(8192, 4096),))),
        ("cumsum axis 0 f32 8192x2048", lambda: ((lambda x: jnp.cumsum(x, axis=0)), (arr(8192, 2048),))),
        (
            "cummax bf16 2048x4096",
            lambda: ((lambda x: jax.lax.cummax(x, axis=1)), (arr(2048, 4096, dtype=bf16),)),
        ),
        ("transpose bf16 4096x8192", lambda: ((lambda x: x.T * 2), (arr(4096, 8192, dtype=bf16),))),
        ("where f32 8192^2", lambda: ((lambda a, b: jnp.where(a > 0, a, b)), (arr(8192, 8192), arr(8192, 8192)))),
        ("pad f32 4096^2 by 128", lambda: ((lambda x: jnp.pad(x, 128) + 1), (arr(4096, 4096),))),
    ]
    blind_control: list[tuple[str, Builder]] = [
        (
            "gather 8192 rows of 65536x512 bf16",
            lambda: ((lambda t, x: t[indices(x, t.shape[0])]), (arr(65536, 512, dtype=bf16), arr(8192))),
        ),
        (
            "gather 32768 rows of 65536x512 bf16",
            lambda: ((lambda t, x: t[indices(x, t.shape[0])]), (arr(65536, 512, dtype=bf16), arr(32768))),
        ),
        ("take_along_axis f32 4096x1024", lambda: (take_rows, (arr(4096, 1024),))),
        ("scatter-set 8192 rows into 16384x2048 bf16", scatter_set),
        ("dynamic-update-slice 4096 rows into 16384x2048 f32", update_rows),
        ("segment_sum f32 65536x256 into 1024", segment_sum),
        ("sort bf16 1024x16384", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(1024, 16384, dtype=bf16),))),
        ("sort f32 1024x16384", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(1024, 16384),))),
        ("sort int32 128x65536", int_sort),
        ("argsort f32 512x4096", lambda: ((lambda x: jnp.argsort(x, axis=-1)), (arr(512, 4096),))),
        ("top_k 8 of 8192, 4096 rows", lambda: ((lambda x: jax.lax.top_k(x, 8)), (arr(4096, 8192),))),
        ("scan 16x256 matmul f32, 300 steps", lambda: scan_matmul(300, 16, 256, f32)),
        ("scan 16x256 matmul f32, 600 steps", lambda: scan_matmul(600, 16, 256, f32)),
        ("scan 64x512 matmul bf16, 400 steps", lambda: scan_matmul(400, 64, 512, bf16)),
        (
            "fori cos bf16 2048x1024, 100 steps",
            lambda: (
                (lambda x: jax.lax.fori_loop(0, 100, lambda i, y: jnp.cos(y) * 0.9, x)),
                (arr(2048, 1024, dtype=bf16),),
            ),
        ),
        ("while i<200 matmul bf16 256x1024", while_bf16),
        ("switch of 3 matmuls bf16 4096^2", switch_matmul),
    ]
    blind_models: list[tuple[str, Builder]] = [
        ("transformer block fwd bf16 4x1024x768", lambda: block_forward(4, 1024, 768, 12)),
        ("transformer block fwd+bwd bf16 4x1024x768", lambda: block_train(4, bf16, 1024, 768, 12)),
        ("transformer block fwd+bwd bf16 8x1024x768", lambda: block_train(8, bf16, 1024, 768, 12)),
        ("transformer block fwd+bwd f32 4x1024x768", lambda: block_train(4, f32, 1024, 768, 12)),
        ("transformer block fwd+bwd bf16 16x256x2048", lambda: block_train(16, bf16, 256, 2048, 16)),
        ("transformer stack fwd+bwd bf16 512 wide, 3 layers", lambda: stack_train(3, False, 16, 256, 512)),
        ("transformer stack fwd+bwd bf16 512 wide, 6 layers", lambda: stack_train(6, False, 16, 256, 512)),
        ("transformer stack fwd+bwd bf16 512 wide, 3 layers, remat", lambda: stack_train(3, True, 16, 256, 512)),
        ("MLP train step bf16 3 x 8192, batch 512", lambda: mlp_train(512, 8192, 3)),
        ("MLP train step bf16 3 x 8192, batch 1024", lambda: mlp_train(1024, 8192, 3)),
        ("convnet train step bf16 32x64x64", lambda: convnet_train(32, 64, (32, 64, 64, 128))),
        (
            "field: gemma train_step (NNX) 128 wide, 4 layers, 16x129",
            _resized(
                "gemma", {"WIDTH": 128, "HEADS": 8, "HIDDEN": 512, "LAYERS": 4}, lambda: field_gemma_train(16, 129)
            ),
        ),
        (
            "field: gemma train_step (NNX) 128 wide, 8 layers, 16x129",
            _resized(
                "gemma", {"WIDTH": 128, "HEADS": 8, "HIDDEN": 512, "LAYERS": 8}, lambda: field_gemma_train(16, 129)
            ),
        ),
        (
            "field: gemma decode 128 wide, 24 steps, 8x32 prompt",
            _resized("gemma", {"WIDTH": 128, "HEADS": 8, "HIDDEN": 512}, lambda: field_gemma_decode(24, 8, 32)),
        ),
        (
            "field: lm train_step (penzai) 128 wide, 2 blocks, 16x128",
            _resized("lm", {"WIDTH": 128, "HIDDEN": 512}, lambda: field_lm_train(2, 16, 128)),
        ),
        (
            "field: lm train_step (penzai) 128 wide, 2 blocks, 16x128, remat",
            _resized("lm", {"WIDTH": 128, "HIDDEN": 512, "REMAT_BLOCKS": True}, lambda: field_lm_train(2, 16, 128)),
        ),
        (
            "field: lm forward (penzai) 128 wide, 8 blocks, 8x128",
            _resized("lm", {"WIDTH": 128, "HIDDEN": 512}, lambda: field_lm_forward(8, 8, 128)),
        ),
        (
            "field: bert train_step (Equinox) 128 wide, 4 layers, 16x128",
            _resized("bert", {"WIDTH": 128, "HIDDEN": 512}, lambda: field_bert_train(4, 16, 128)),
        ),
        ("field: cookbook train_step, one device", field_cookbook_train),
        (
            "field: cookbook train_step, one device, 256 wide, 2 layers, batch 32",
            _resized("cookbook", {"WIDTH": 256, "HIDDEN": 1024, "LAYERS": 2, "BATCH": 32}, field_cookbook_train),
        ),
        ("field: ode solve (diffrax) 64 wide, batch 64", _resized("ode", {"WIDTH": 64}, lambda: field_ode(64))),
    ]
    blind = (blind_matmuls, blind_elementwise, blind_control, blind_models)
    families = zip(FAMILIES, blind, strict=True)
    found += [(name, f"{BLIND}: {family}", build) for family, group in families for name, build in group]
    shared = {"arr": arr, "indices": indices, "matmul": matmul, "int8_matmul": int8_matmul, "conv": conv}
    shared.update(block_forward=block_forward, block_train=block_train, stack_train=stack_train)
    shared.update(gemma_train=field_gemma_train, gemma_decode=field_gemma_decode, lm_train=field_lm_train)
    shared.update(lm_forward=field_lm_forward, bert_train=field_bert_train, cookbook_train=field_cookbook_train)
    return found + unseen_programs(shared) + third_programs(shared)


def unseen_programs(shared: dict[str, Any]) -> list[tuple[str, str, Builder]]:  # noqa: C901  (one builder each)
    """The second blind set (group "unseen: <family>"): written and committed on 2026-12-07 before the model
    changes of that day's second stop, measured on the chip before them, and reported only against the final
    model; never used to fit or to revise it. New shapes and new kinds of programs beside the first blind set's."""
    import jax
    import jax.numpy as jnp
    import models

    bf16, f32 = jnp.bfloat16, jnp.float32
    arr, indices, matmul, int8_matmul, conv = (shared[k] for k in ("arr", "indices", "matmul", "int8_matmul", "conv"))
    block_forward, block_train, stack_train = (shared[k] for k in ("block_forward", "block_train", "stack_train"))

    def depthwise_conv1d(batch: int, seq: int, width: int, window: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(x: Any, w: Any) -> Any:  # a causal depthwise 1-D convolution, as in state-space models
            return jax.lax.conv_general_dilated(
                x, w, (1,), ((window - 1, 0),), dimension_numbers=("NWC", "WIO", "NWC"), feature_group_count=width
            )

        return run, (arr(batch, seq, width, dtype=bf16), arr(window, 1, width, dtype=bf16))

    def rmsnorm(x: Any, scale: Any) -> Any:
        variance = jnp.mean(jnp.square(x.astype(f32)), axis=-1, keepdims=True)
        return (x * jax.lax.rsqrt(variance + 1e-6) * scale).astype(x.dtype)

    def scan_steps(steps: int, batch: int, width: int, dtype: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            return jax.lax.scan(lambda c, _: (jax.nn.gelu(c @ w), None), h, None, length=steps)[0]

        return run, (arr(batch, width, dtype=dtype), arr(width, width, dtype=dtype))

    def scatter_add(rows: int, table: int, width: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(t: Any, x: Any, updates: Any) -> Any:
            return t.at[indices(x, table)].add(updates)

        return run, (arr(table, width), arr(rows), arr(rows, width))

    def window_loop() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(big: Any, h: Any) -> Any:  # 128 data-dependent windows of 128 rows summed
            def step(i: Any, h: Any) -> Any:
                start = indices(big[i, :1], 8192 - 128)[0]
                return h * 0.5 + jax.lax.dynamic_slice_in_dim(big, start, 128, axis=0)

            return jax.lax.fori_loop(0, 128, step, h)

        return run, (arr(8192, 2048), arr(128, 2048))

    def while_f32() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            def body(state: Any) -> Any:
                i, h = state
                return i + 1, jax.nn.relu(h @ w) * 0.5

            return jax.lax.while_loop(lambda s: s[0] < 100, body, (0, h))[1]

        return run, (arr(512, 2048), arr(2048, 2048))

    def cond_conv() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        run_conv, (x, w) = conv(16, 56, 256, 256, 3)

        def run(x: Any, w: Any) -> Any:
            return jax.lax.cond(x[0, 0, 0, 0] > -10.0, lambda: run_conv(x, w), lambda: run_conv(x * 2, w))

        return run, (x, w)

    def mlp_train(batch: int, width: int, depth: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        params = [(arr(width, width, dtype=bf16), arr(width, dtype=bf16)) for _ in range(depth)]
        return models.train_step, (params, arr(batch, width, dtype=bf16), arr(batch, width, dtype=bf16))

    def field(module: str, sizes: dict[str, Any], name: str, *args: Any) -> Builder:
        return _resized(module, sizes, lambda: shared[name](*args))

    matmuls: list[tuple[str, Builder]] = [
        ("matmul bf16 6144^2", lambda: matmul(6144, 6144, 6144, bf16)),
        ("matmul bf16 4096x1024x8192", lambda: matmul(4096, 1024, 8192, bf16)),
        ("matmul f32 2048x4096x1024", lambda: matmul(2048, 4096, 1024, f32)),
        ("matmul bf16 256x8192x8192", lambda: matmul(256, 8192, 8192, bf16)),
        ("matmul int8 6144^2 (int32 acc)", lambda: int8_matmul(6144)),
        (
            "batched matmul bf16 64 x 1024x128 @ 128x1024",
            lambda: (jnp.matmul, (arr(64, 1024, 128, dtype=bf16), arr(64, 128, 1024, dtype=bf16))),
        ),
        ("batched matmul bf16 256 x 256x256", lambda: (jnp.matmul, (arr(256, 256, 256, dtype=bf16),) * 2)),
        (
            "attention logits einsum bf16 8x1024x8x128",
            lambda: (
                (lambda q, k: jnp.einsum("bqhd,bkhd->bhqk", q, k)),
                (arr(8, 1024, 8, 128, dtype=bf16), arr(8, 1024, 8, 128, dtype=bf16)),
            ),
        ),
        ("conv2d 3x3 bf16 64x32x32x128", lambda: conv(64, 32, 128, 128, 3)),
        ("conv2d 3x3 bf16 64x32x32x256", lambda: conv(64, 32, 256, 256, 3)),
        ("conv2d 1x1 bf16 32x28x28x512->128", lambda: conv(32, 28, 512, 128, 1)),
        ("conv2d 7x7/2 bf16 16x224x224x3->64", lambda: conv(16, 224, 3, 64, 7, stride=2)),
        ("depthwise conv1d k4 bf16 16x2048x1024", lambda: depthwise_conv1d(16, 2048, 1024, 4)),
    ]
    elementwise: list[tuple[str, Builder]] = [
        ("gelu bf16 8192^2", lambda: (jax.nn.gelu, (arr(8192, 8192, dtype=bf16),))),
        ("tanh f32 8192x4096", lambda: (jnp.tanh, (arr(8192, 4096),))),
        ("logsumexp f32 4096x16384", lambda: ((lambda x: jax.nn.logsumexp(x, axis=-1)), (arr(4096, 16384),))),
        ("rmsnorm bf16 8192x4096", lambda: (rmsnorm, (arr(8192, 4096, dtype=bf16), arr(4096, dtype=bf16)))),
        ("layernorm f32 4096x8192", lambda: (models.layer_norm, (arr(4096, 8192), arr(8192)))),
        ("softmax bf16 32x1024x2048", lambda: (jax.nn.softmax, (arr(32, 1024, 2048, dtype=bf16),))),
        ("softmax f32 32x1024x2048", lambda: (jax.nn.softmax, (arr(32, 1024, 2048),))),
        ("argmax last axis f32 8192^2", lambda: ((lambda x: jnp.argmax(x, axis=-1)), (arr(8192, 8192),))),
        ("max axis 0 bf16 16384x2048", lambda: ((lambda x: jnp.max(x, axis=0)), (arr(16384, 2048, dtype=bf16),))),
        ("variance f32 8192x4096", lambda: ((lambda x: jnp.var(x, axis=-1)), (arr(8192, 4096),))),
        ("convert f32 to bf16 16384x4096", lambda: ((lambda x: x.astype(bf16)), (arr(16384, 4096),))),
        (
            "concatenate 2 f32 8192x4096, plus one",
            lambda: ((lambda a, b: jnp.concatenate([a, b], axis=1) + 1), (arr(8192, 4096), arr(8192, 4096))),
        ),
        ("flip bf16 8192x4096", lambda: ((lambda x: jnp.flip(x, axis=1) * 2), (arr(8192, 4096, dtype=bf16),))),
        ("cumsum axis 1 bf16 4096x2048", lambda: ((lambda x: jnp.cumsum(x, axis=1)), (arr(4096, 2048, dtype=bf16),))),
        (
            "bias add bf16 32x512x4096",
            lambda: ((lambda x, b: x + b), (arr(32, 512, 4096, dtype=bf16), arr(4096, dtype=bf16))),
        ),
    ]
    control: list[tuple[str, Builder]] = [
        (
            "gather 16384 rows of 131072x256 bf16",
            lambda: ((lambda t, x: t[indices(x, t.shape[0])]), (arr(131072, 256, dtype=bf16), arr(16384))),
        ),
        (
            "gather 65536 rows of 131072x256 bf16",
            lambda: ((lambda t, x: t[indices(x, t.shape[0])]), (arr(131072, 256, dtype=bf16), arr(65536))),
        ),
        (
            "embedding 32000x2048 bf16, 16x1024 tokens",
            lambda: (
                (lambda t, x: jnp.take(t, indices(x, 32000), axis=0)),
                (arr(32000, 2048, dtype=bf16), arr(16, 1024)),
            ),
        ),
        ("scatter-add 4096 rows into 8192x1024 f32", lambda: scatter_add(4096, 8192, 1024)),
        ("fori 128 data-dependent windows of 8192x2048 f32", window_loop),
        ("sort f32 4096^2", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(4096, 4096),))),
        ("sort f32 8192x4096", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(8192, 4096),))),
        ("argsort bf16 2048^2", lambda: ((lambda x: jnp.argsort(x, axis=-1)), (arr(2048, 2048, dtype=bf16),))),
        ("top_k 16 of 32768, 256 rows", lambda: ((lambda x: jax.lax.top_k(x, 16)), (arr(256, 32768),))),
        ("scan 32x1024 matmul bf16, 100 steps", lambda: scan_steps(100, 32, 1024, bf16)),
        ("scan 32x1024 matmul bf16, 200 steps", lambda: scan_steps(200, 32, 1024, bf16)),
        (
            "fori exp f32 512^2, 500 steps",
            lambda: ((lambda x: jax.lax.fori_loop(0, 500, lambda i, y: jnp.exp(-y * y), x)), (arr(512, 512),)),
        ),
        ("while i<100 matmul f32 512x2048", while_f32),
        ("cond of 2 convs bf16 16x56x56x256", cond_conv),
    ]
    model_programs: list[tuple[str, Builder]] = [
        ("transformer block fwd bf16 8x512x2048", lambda: block_forward(8, 512, 2048, 16)),
        ("transformer block fwd+bwd bf16 2x2048x1024", lambda: block_train(2, bf16, 2048, 1024, 8)),
        ("transformer block fwd+bwd bf16 4x2048x1024", lambda: block_train(4, bf16, 2048, 1024, 8)),
        ("transformer block fwd+bwd f32 2x2048x1024", lambda: block_train(2, f32, 2048, 1024, 8)),
        ("transformer stack fwd+bwd bf16 768 wide, 4 layers", lambda: stack_train(4, False, 8, 512, 768)),
        ("transformer stack fwd+bwd bf16 768 wide, 8 layers", lambda: stack_train(8, False, 8, 512, 768)),
        ("transformer stack fwd+bwd bf16 768 wide, 4 layers, remat", lambda: stack_train(4, True, 8, 512, 768)),
        ("MLP train step bf16 2 x 16384, batch 256", lambda: mlp_train(256, 16384, 2)),
        ("MLP train step bf16 6 x 2048, batch 4096", lambda: mlp_train(4096, 2048, 6)),
        ("MLP train step bf16 6 x 2048, batch 8192", lambda: mlp_train(8192, 2048, 6)),
        (
            "field: gemma train_step (NNX) 256 wide, 4 layers, 8x257",
            field(
                "gemma", {"WIDTH": 256, "HEADS": 4, "HEAD_DIM": 64, "HIDDEN": 1024, "LAYERS": 4}, "gemma_train", 8, 257
            ),
        ),
        (
            "field: gemma train_step (NNX) 256 wide, 8 layers, 8x257",
            field(
                "gemma", {"WIDTH": 256, "HEADS": 4, "HEAD_DIM": 64, "HIDDEN": 1024, "LAYERS": 8}, "gemma_train", 8, 257
            ),
        ),
        (
            "field: gemma decode 256 wide, 48 steps, 4x64 prompt",
            field("gemma", {"WIDTH": 256, "HEADS": 4, "HEAD_DIM": 64, "HIDDEN": 1024}, "gemma_decode", 48, 4, 64),
        ),
        (
            "field: lm train_step (penzai) 256 wide, 4 blocks, 8x256",
            field("lm", {"WIDTH": 256, "HIDDEN": 1024}, "lm_train", 4, 8, 256),
        ),
        (
            "field: lm train_step (penzai) 256 wide, 4 blocks, 8x256, remat",
            field("lm", {"WIDTH": 256, "HIDDEN": 1024, "REMAT_BLOCKS": True}, "lm_train", 4, 8, 256),
        ),
        ("field: lm forward (penzai) 64 wide, 16 blocks, 32x64", field("lm", {}, "lm_forward", 16, 32, 64)),
        (
            "field: bert train_step (Equinox) 256 wide, 6 layers, 16x128",
            field("bert", {"WIDTH": 256, "HIDDEN": 1024}, "bert_train", 6, 16, 128),
        ),
        (
            "field: cookbook train_step, one device, 512 wide, 2 layers",
            field(
                "cookbook", {"WIDTH": 512, "HEADS": 8, "HEAD_DIM": 64, "HIDDEN": 2048, "LAYERS": 2}, "cookbook_train"
            ),
        ),
    ]
    families = zip(FAMILIES, (matmuls, elementwise, control, model_programs), strict=True)
    return [(name, f"{UNSEEN}: {family}", build) for family, group in families for name, build in group]


def third_programs(shared: dict[str, Any]) -> list[tuple[str, str, Builder]]:  # noqa: C901  (one builder each)
    """The third blind set (group "third: <family>"): written and measured on the chip on 2026-12-07 before the
    model changes of that stop's second round, reported only against the final model; never used to fit it."""
    import jax
    import jax.numpy as jnp
    import models

    bf16, f32 = jnp.bfloat16, jnp.float32
    arr, indices, matmul, conv = (shared[k] for k in ("arr", "indices", "matmul", "conv"))
    block_forward, block_train, stack_train = (shared[k] for k in ("block_forward", "block_train", "stack_train"))

    def rmsnorm(x: Any, scale: Any) -> Any:
        variance = jnp.mean(jnp.square(x.astype(f32)), axis=-1, keepdims=True)
        return (x * jax.lax.rsqrt(variance + 1e-6) * scale).astype(x.dtype)

    def scan_steps(steps: int, batch: int, width: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            return jax.lax.scan(lambda c, _: (jax.nn.silu(c @ w), None), h, None, length=steps)[0]

        return run, (arr(batch, width, dtype=bf16), arr(width, width, dtype=bf16))

    def while_bf16() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(h: Any, w: Any) -> Any:
            def body(state: Any) -> Any:
                i, h = state
                return i + 1, jnp.tanh(h @ w)

            return jax.lax.while_loop(lambda s: s[0] < 50, body, (0, h))[1]

        return run, (arr(1024, 1024, dtype=bf16), arr(1024, 1024, dtype=bf16))

    def scatter_add() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(t: Any, x: Any, updates: Any) -> Any:
            return t.at[indices(x, 4096)].add(updates)

        return run, (arr(4096, 512, dtype=bf16), arr(16384), arr(16384, 512, dtype=bf16))

    def take_columns() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(x: Any, picks: Any) -> Any:  # 64 columns picked per row: single-element gathers
            return jnp.take_along_axis(x, indices(picks, x.shape[1]), axis=1)

        return run, (arr(4096, 4096), arr(4096, 64))

    def one_hot_matmul() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        def run(table: Any, x: Any) -> Any:
            return jax.nn.one_hot(indices(x, 16384), 16384, dtype=bf16) @ table

        return run, (arr(16384, 512, dtype=bf16), arr(4096))

    def mlp_train(batch: int, width: int, depth: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        params = [(arr(width, width, dtype=bf16), arr(width, dtype=bf16)) for _ in range(depth)]
        return models.train_step, (params, arr(batch, width, dtype=bf16), arr(batch, width, dtype=bf16))

    def convnet_train() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        widths = (64, 64, 128, 128)

        def loss(p: Any, x: Any) -> Any:
            for w in p:
                x = jax.nn.relu(
                    jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
                )
            return jnp.mean(x.astype(f32) ** 2)

        params = [arr(3, 3, c, d, dtype=bf16) for c, d in itertools.pairwise(widths)]
        return jax.grad(loss), (params, arr(32, 56, 56, widths[0], dtype=bf16))

    def field(module: str, sizes: dict[str, Any], name: str, *args: Any) -> Builder:
        return _resized(module, sizes, lambda: shared[name](*args))

    matmuls: list[tuple[str, Builder]] = [
        ("matmul bf16 7168x2048x4096", lambda: matmul(7168, 2048, 4096, bf16)),
        ("matmul bf16 2048^3", lambda: matmul(2048, 2048, 2048, bf16)),
        ("matmul f32 2048^3", lambda: matmul(2048, 2048, 2048, f32)),
        ("matmul bf16 128x16384x4096", lambda: matmul(128, 16384, 4096, bf16)),
        (
            "batched matmul bf16 32 x 2048x64 @ 64x2048",
            lambda: (jnp.matmul, (arr(32, 2048, 64, dtype=bf16), arr(32, 64, 2048, dtype=bf16))),
        ),
        (
            "attention output einsum bf16 4x16x1024x1024 @ 4x1024x16x64",
            lambda: (
                (lambda p, v: jnp.einsum("bhqk,bkhd->bqhd", p, v)),
                (arr(4, 16, 1024, 1024, dtype=bf16), arr(4, 1024, 16, 64, dtype=bf16)),
            ),
        ),
        ("conv2d 3x3 bf16 8x112x112x64", lambda: conv(8, 112, 64, 64, 3)),
        ("conv2d 3x3 bf16 16x112x112x64", lambda: conv(16, 112, 64, 64, 3)),
        ("conv2d 3x3/2 bf16 32x28x28x256->512", lambda: conv(32, 28, 256, 512, 3, stride=2)),
        ("conv2d 1x1 bf16 128x7x7x2048->512", lambda: conv(128, 7, 2048, 512, 1)),
    ]
    elementwise: list[tuple[str, Builder]] = [
        ("relu f32 16384x4096", lambda: (jax.nn.relu, (arr(16384, 4096),))),
        ("exp bf16 8192^2", lambda: (jnp.exp, (arr(8192, 8192, dtype=bf16),))),
        (
            "x / sqrt(y + 1) f32 8192x4096",
            lambda: ((lambda x, y: x / jnp.sqrt(y * y + 1)), (arr(8192, 4096), arr(8192, 4096))),
        ),
        (
            "layernorm bf16 16384x1536",
            lambda: (models.layer_norm, (arr(16384, 1536, dtype=bf16), arr(1536, dtype=bf16))),
        ),
        ("layernorm f32 16384x1536", lambda: (models.layer_norm, (arr(16384, 1536), arr(1536)))),
        ("rmsnorm f32 4096^2", lambda: (rmsnorm, (arr(4096, 4096), arr(4096)))),
        ("softmax f32 8x2048x2048", lambda: (jax.nn.softmax, (arr(8, 2048, 2048),))),
        ("softmax bf16 8x2048x2048", lambda: (jax.nn.softmax, (arr(8, 2048, 2048, dtype=bf16),))),
        ("sum of all f32 8192^2", lambda: (jnp.sum, (arr(8192, 8192),))),
        ("mean axis 0 f32 4096x8192", lambda: ((lambda x: jnp.mean(x, axis=0)), (arr(4096, 8192),))),
        ("argmin axis 0 bf16 8192x2048", lambda: ((lambda x: jnp.argmin(x, axis=0)), (arr(8192, 2048, dtype=bf16),))),
        ("cumsum axis 0 f32 4096^2", lambda: ((lambda x: jnp.cumsum(x, axis=0)), (arr(4096, 4096),))),
        ("transpose f32 4096x8192", lambda: ((lambda x: x.T + 1), (arr(4096, 8192),))),
        ("flip axis 0 f32 8192x4096", lambda: ((lambda x: jnp.flip(x, axis=0) * 2), (arr(8192, 4096),))),
    ]
    control: list[tuple[str, Builder]] = [
        (
            "gather 4096 rows of 262144x128 f32",
            lambda: ((lambda t, x: t[indices(x, t.shape[0])]), (arr(262144, 128), arr(4096))),
        ),
        ("take_along_axis 64 of 4096 columns f32 4096 rows", take_columns),
        ("scatter-add 16384 rows into 4096x512 bf16", scatter_add),
        ("one_hot 4096 of 16384 @ 16384x512 bf16", one_hot_matmul),
        ("sort bf16 2048x8192", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(2048, 8192, dtype=bf16),))),
        ("sort f32 2048x8192", lambda: ((lambda x: jnp.sort(x, axis=-1)), (arr(2048, 8192),))),
        ("argsort f32 1024x8192", lambda: ((lambda x: jnp.argsort(x, axis=-1)), (arr(1024, 8192),))),
        ("top_k 4 of 4096, 8192 rows", lambda: ((lambda x: jax.lax.top_k(x, 4)), (arr(8192, 4096),))),
        ("scan 64x2048 matmul bf16, 50 steps", lambda: scan_steps(50, 64, 2048)),
        ("scan 64x2048 matmul bf16, 100 steps", lambda: scan_steps(100, 64, 2048)),
        (
            "fori sin bf16 4096x1024, 50 steps",
            lambda: (
                (lambda x: jax.lax.fori_loop(0, 50, lambda i, y: jnp.sin(y) + 0.5, x)),
                (arr(4096, 1024, dtype=bf16),),
            ),
        ),
        ("while i<50 matmul bf16 1024^2", while_bf16),
    ]
    gemma_small = {"WIDTH": 64}
    model_programs: list[tuple[str, Builder]] = [
        ("transformer block fwd bf16 16x256x1024", lambda: block_forward(16, 256, 1024, 16)),
        ("transformer block fwd+bwd bf16 8x256x1536", lambda: block_train(8, bf16, 256, 1536, 12)),
        ("transformer block fwd+bwd bf16 16x256x1536", lambda: block_train(16, bf16, 256, 1536, 12)),
        ("transformer stack fwd+bwd bf16 1024 wide, 2 layers", lambda: stack_train(2, False, 4, 1024, 1024)),
        ("transformer stack fwd+bwd bf16 1024 wide, 2 layers, remat", lambda: stack_train(2, True, 4, 1024, 1024)),
        ("MLP train step bf16 4 x 3072, batch 2048", lambda: mlp_train(2048, 3072, 4)),
        ("MLP train step bf16 4 x 3072, batch 4096", lambda: mlp_train(4096, 3072, 4)),
        ("convnet train step bf16 32x56x56", convnet_train),
        (
            "field: gemma train_step (NNX) 192 wide, 6 layers, 8x129",
            field("gemma", {"WIDTH": 192, "HEADS": 3, "HEAD_DIM": 64, "HIDDEN": 768}, "gemma_train", 8, 129),
        ),
        (
            "field: gemma decode 64 wide, 32 steps, 8x16 prompt",
            field("gemma", gemma_small, "gemma_decode", 32, 8, 16),
        ),
        (
            "field: gemma decode 64 wide, 64 steps, 8x16 prompt",
            field("gemma", gemma_small, "gemma_decode", 64, 8, 16),
        ),
        (
            "field: lm train_step (penzai) 128 wide, 4 blocks, 8x512",
            field("lm", {"WIDTH": 128, "HIDDEN": 512}, "lm_train", 4, 8, 512),
        ),
        (
            "field: lm train_step (penzai) 128 wide, 8 blocks, 8x512",
            field("lm", {"WIDTH": 128, "HIDDEN": 512}, "lm_train", 8, 8, 512),
        ),
        (
            "field: bert train_step (Equinox) 192 wide, 4 layers, 8x128",
            field("bert", {"WIDTH": 192, "HIDDEN": 768}, "bert_train", 4, 8, 128),
        ),
        (
            "field: cookbook train_step, one device, batch 64",
            field("cookbook", {"BATCH": 64}, "cookbook_train"),
        ),
    ]
    families = zip(FAMILIES, (matmuls, elementwise, control, model_programs), strict=True)
    return [(name, f"{THIRD}: {family}", build) for family, group in families for name, build in group]
