"""The estimated step time against the chip: measure programs on an attached accelerator, then report.

Two steps, so that the chip host needs nothing but JAX:

    # on the chip host (JAX and its accelerator plugin; the field programs need penzai, optax, diffrax)
    python benchmarks/step_time.py measure --out step_times.json
    # anywhere with pytest-stages installed
    python benchmarks/step_time.py report step_times.json [--chip v5e]

``measure`` compiles each program of :data:`PROGRAMS` for the first device, records XLA's cost
analysis and the compiled HLO text (the figures a compile-only snapshot holds), then runs the
compiled executable on real arrays: a warm-up, then the median, the 10th and the 90th percentile of
``--repeats`` blocking calls (dispatch included), and of ``--repeats`` calls queued back to back
(one wait at the end: the step time of a training loop that does not wait on each step).
``report`` computes pytest-stages' estimate from the recorded figures
(``pytest_stages.analyse.step_time``) and prints estimate / measured per program, the programs of
the ``calibration`` group apart from those it reports on.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION, REPORT = "calibration", "report"
# Pairs of report programs whose step times a change moves: (before, after), the direction checked.
EDITS = (
    ("matmul bf16 4096^2", "matmul bf16 8192^2"),
    ("MLP train step f32, 4 x 512^2", "MLP train step bf16, 4 x 2048^2"),
    ("scan RNN f32, 256 steps", "scan RNN f32, 512 steps"),
    ("examples: mlp_train_step", "examples: mlp_train_step f32 -> bf16 params"),
    ("gelu bf16 8192^2", "gelu f32 8192^2"),
    ("softmax f32 64x1024x1024", "softmax bf16 64x1024x1024"),
)


Builder = Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]


def _programs() -> list[tuple[str, str, Builder]]:  # noqa: C901  (one builder per program)
    import jax
    import jax.numpy as jnp

    sys.path[:0] = [str(ROOT / "examples"), str(ROOT / "examples" / "field"), str(ROOT / "examples" / "kernels")]
    import models

    bf16, f32 = jnp.bfloat16, jnp.float32
    keys = iter(jax.random.split(jax.random.key(0), 10_000))

    def arr(*shape: int, dtype: Any = f32) -> Any:
        return (jax.random.normal(next(keys), shape, f32) * 0.05).astype(dtype)

    def mlp(width: int, depth: int, dtype: Any) -> list[tuple[Any, Any]]:
        return [(arr(width, width, dtype=dtype), arr(width, dtype=dtype)) for _ in range(depth)]

    def matmul(n: int, k: int, m: int, dtype: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return jnp.matmul, (arr(n, k, dtype=dtype), arr(k, m, dtype=dtype))

    def attention(q: Any, k: Any, v: Any) -> Any:
        logits = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(logits, axis=-1), v)

    def layernorm_matmul(x: Any, scale: Any, w: Any) -> Any:
        return models.layer_norm(x, scale) @ w

    def rnn(steps: int, width: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        params = {"wh": arr(width, width), "wx": arr(width, width)}
        return models.rnn, (params, arr(steps, 64, width))

    def fori(steps: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return (lambda x: jax.lax.fori_loop(0, steps, lambda i, y: jnp.sin(y) * 1.01, x)), (arr(8, 128),)

    def scan_matmul(steps: int) -> Callable[..., Any]:
        def run(h: Any, w: Any) -> Any:
            return jax.lax.scan(lambda c, _: (jnp.tanh(c @ w), None), h, None, length=steps)[0]

        return run

    def chain(x: Any) -> Any:
        for _ in range(12):
            x = jnp.cumsum(x, axis=0)  # a reduce-window each: no fusion joins two of them
        return x

    def kernel_scale_add(n: int) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import test_kernels

        block = (512, 512) if n >= 512 else (128, 128)
        return functools.partial(test_kernels.scale_add, block=block), (arr(n, n), arr(n, n))

    def kernel_scale_add_rect() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import test_kernels

        return test_kernels.scale_add, (arr(1024, 256), arr(1024, 256))

    def field_train_step() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import lm

        model, params = lm.build()
        state = lm.OPTIMIZER.init(params)
        tokens = jnp.zeros((8, 64), jnp.int32)
        return (lambda p, s, t: lm.train_step(model, p, s, t)), (params, state, tokens)

    def field_forward() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import lm

        model, params = lm.build(blocks=lm.FORWARD_BLOCKS)
        return (lambda p, t: lm.forward(model, p, t)), (params, jnp.zeros((8, 64), jnp.int32))

    def field_ode() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        import ode

        return ode.solve, (ode.init(jax.random.key(0)), arr(8, ode.WIDTH))

    def transformer_block() -> tuple[Callable[..., Any], tuple[Any, ...]]:
        width = 128
        params = {name: arr(width, width) for name in ("wq", "wk", "wv", "wo")}
        params.update(ln1=arr(width), ln2=arr(width), w1=arr(width, 4 * width), w2=arr(4 * width, width))
        return models.transformer_block, (params, arr(2, 16, width))

    calibration = [
        ("tiny add f32 8x128", lambda: (lambda x: x + 1, (arr(8, 128),))),
        ("matmul bf16 2048^2", lambda: matmul(2048, 2048, 2048, bf16)),
        ("matmul bf16 6144^2", lambda: matmul(6144, 6144, 6144, bf16)),
        ("matmul bf16 8192x1024x8192", lambda: matmul(8192, 1024, 8192, bf16)),
        ("matmul f32 2048^2", lambda: matmul(2048, 2048, 2048, f32)),
        ("add bf16 4096^2", lambda: (jnp.add, (arr(4096, 4096, dtype=bf16), arr(4096, 4096, dtype=bf16)))),
        ("add f32 16384x8192", lambda: (jnp.add, (arr(16384, 8192), arr(16384, 8192)))),
        ("exp f32 4096^2", lambda: (jnp.exp, (arr(4096, 4096),))),
        ("sum f32 8192^2", lambda: (jnp.sum, (arr(8192, 8192),))),
        ("fori sin 100 steps", lambda: fori(100)),
        ("fori sin 1000 steps", lambda: fori(1000)),
        ("cumsum chain f32 64x1024", lambda: (chain, (arr(64, 1024),))),
        ("mlp forward f32 3 x 1024^2, batch 512", lambda: (models.mlp, (mlp(1024, 3, f32), arr(512, 1024)))),
        ("sum of 16 inputs f32 8x128", lambda: (sum, ([arr(8, 128) for _ in range(16)],))),
        ("sum of 64 inputs f32 8x128", lambda: (sum, ([arr(8, 128) for _ in range(64)],))),
        ("16 outputs f32 8x128", lambda: (lambda x: [x[k] + 1 for k in range(16)], (arr(16, 8, 128),))),
        ("64 outputs f32 8x128", lambda: (lambda x: [x[k] + 1 for k in range(64)], (arr(64, 8, 128),))),
        (
            "scan tanh matmul f32 256 wide, batch 32, 1000 steps",
            lambda: (scan_matmul(1000), (arr(32, 256), arr(256, 256))),
        ),
        (
            "scan tanh matmul bf16 1024 wide, batch 128, 200 steps",
            lambda: (scan_matmul(200), (arr(128, 1024, dtype=bf16), arr(1024, 1024, dtype=bf16))),
        ),
        (
            "batched matmul bf16 64 x (256x64 @ 64x256)",
            lambda: (jnp.matmul, (arr(64, 256, 64, dtype=bf16), arr(64, 64, 256, dtype=bf16))),
        ),
        ("matmul bf16 64x8192 @ 8192x8192", lambda: matmul(64, 8192, 8192, bf16)),
    ]
    report = [
        ("matmul bf16 4096^2", lambda: matmul(4096, 4096, 4096, bf16)),
        ("matmul bf16 8192^2", lambda: matmul(8192, 8192, 8192, bf16)),
        ("matmul f32 4096^2", lambda: matmul(4096, 4096, 4096, f32)),
        ("add f32 8192^2", lambda: (jnp.add, (arr(8192, 8192), arr(8192, 8192)))),
        ("gelu bf16 8192^2", lambda: (jax.nn.gelu, (arr(8192, 8192, dtype=bf16),))),
        ("gelu f32 8192^2", lambda: (jax.nn.gelu, (arr(8192, 8192),))),
        ("softmax f32 64x1024x1024", lambda: (jax.nn.softmax, (arr(64, 1024, 1024),))),
        ("softmax bf16 64x1024x1024", lambda: (jax.nn.softmax, (arr(64, 1024, 1024, dtype=bf16),))),
        (
            "attention bf16 8x16x1024x128",
            lambda: (attention, tuple(arr(8, 16, 1024, 128, dtype=bf16) for _ in range(3))),
        ),
        (
            "MLP train step bf16, 4 x 2048^2",
            lambda: (models.train_step, (mlp(2048, 4, bf16), arr(2048, 2048, dtype=bf16), arr(2048, 2048, dtype=bf16))),
        ),
        (
            "MLP train step f32, 4 x 512^2",
            lambda: (models.train_step, (mlp(512, 4, f32), arr(64, 512), arr(64, 512))),
        ),
        (
            "layernorm + matmul bf16",
            lambda: (
                layernorm_matmul,
                (arr(4096, 8192, dtype=bf16), arr(8192, dtype=bf16), arr(8192, 8192, dtype=bf16)),
            ),
        ),
        ("scan RNN f32, 256 steps", lambda: rnn(256, 512)),
        ("scan RNN f32, 512 steps", lambda: rnn(512, 512)),
        ("examples: mlp_train_step", lambda: (models.train_step, (mlp(256, 3, f32), arr(32, 256), arr(32, 256)))),
        (
            "examples: mlp_train_step f32 -> bf16 params",
            lambda: (models.train_step, (mlp(256, 3, bf16), arr(32, 256, dtype=bf16), arr(32, 256, dtype=bf16))),
        ),
        ("examples: transformer_block", transformer_block),
        ("examples: rnn_scan", lambda: (models.rnn, ({"wh": arr(64, 64), "wx": arr(32, 64)}, arr(10, 8, 32)))),
        ("examples: mlp_bf16", lambda: (models.mlp, (mlp(256, 2, bf16), arr(16, 256, dtype=bf16)))),
        ("examples: scan_layers", lambda: (models.scan_layers, (arr(6, 128, 128), arr(32, 128)))),
        ("kernels: scale_add 1024x256", kernel_scale_add_rect),
        ("kernels: scale_add 8192^2", lambda: kernel_scale_add(8192)),
        ("field: train_step", field_train_step),
        ("field: forward", field_forward),
        ("field: ode solve", field_ode),
    ]

    return [(name, CALIBRATION, build) for name, build in calibration] + [
        (name, REPORT, build) for name, build in report
    ]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(out: Path, repeats: int, only: str | None) -> None:
    """Compile, cost and time each program on the first device; one JSON object per program in ``out``."""
    import jax

    device = jax.devices()[0]
    mesh = jax.make_mesh((1,), ("model",), devices=[device])
    results: list[dict[str, Any]] = []
    for name, group, build in _programs():
        if only and only not in name:
            continue
        entry: dict[str, Any] = {"name": name, "group": group, "device_kind": device.device_kind}
        try:
            fn, args = build()
            with jax.set_mesh(mesh):  # a one-device mesh: the example scan_layers reshards under it
                compiled = jax.jit(fn).lower(*args).compile()
            cost = compiled.cost_analysis()
            entry["cost"] = {k: float(v) for k, v in (cost[0] if isinstance(cost, list) else cost).items()}
            entry["compiled_text"] = compiled.as_text()
            for _ in range(3):
                jax.block_until_ready(compiled(*args))
            blocking = []
            for _ in range(repeats):
                start = time.perf_counter()
                jax.block_until_ready(compiled(*args))
                blocking.append(time.perf_counter() - start)
            queued = []
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(repeats):
                    last = compiled(*args)  # queued back to back; each result freed once the next is queued
                jax.block_until_ready(last)
                queued.append((time.perf_counter() - start) / repeats)
            entry["blocking"] = {
                "median": statistics.median(blocking),
                "p10": _percentile(blocking, 0.1),
                "p90": _percentile(blocking, 0.9),
            }
            entry["queued"] = {"median": statistics.median(queued), "min": min(queued), "max": max(queued)}
            blocked, queued_median = entry["blocking"]["median"] * 1e3, entry["queued"]["median"] * 1e3
            print(f"{name}: blocking {blocked:.3f} ms, queued {queued_median:.3f} ms", flush=True)
        except Exception as exc:  # noqa: BLE001  (a program that fails here must not lose the others' figures)
            entry["error"] = f"{type(exc).__name__}: {exc}"[:2000]
            print(f"{name}: {entry['error'][:300]}", flush=True)
        results.append(entry)
        out.write_text(json.dumps(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measuring = commands.add_parser("measure", help="on the chip host: compile, cost and time every program")
    measuring.add_argument("--out", type=Path, required=True)
    measuring.add_argument("--repeats", type=int, default=30)
    measuring.add_argument("--only", help="only programs whose name holds this")
    reporting = commands.add_parser("report", help="estimate / measured per program from a measure file")
    reporting.add_argument("results", type=Path)
    reporting.add_argument("--chip", default=None, help="chip figures to estimate with (default: the device kind's)")
    args = parser.parse_args()
    if args.command == "measure":
        measure(args.out, args.repeats, args.only)
    else:
        report(args.results, args.chip)


def estimates(results: list[dict[str, Any]], chip: str | None) -> list[dict[str, Any]]:
    """Each measured program's estimate beside its measured step time (queued: as a training loop runs it)."""
    from pytest_stages.analyse import step_time

    rows = []
    for entry in results:
        if "error" in entry:
            rows.append({"name": entry["name"], "group": entry["group"], "error": entry["error"]})
            continue
        found = step_time.estimate(
            {"compiled": entry["cost"]},
            entry["compiled_text"],
            entry["device_kind"],
            {"name": chip} if chip else None,
        )
        measured = entry["queued"]["median"]
        row = {"name": entry["name"], "group": entry["group"], "measured": measured, "spread": entry["queued"]}
        row["blocking"] = entry["blocking"]["median"]
        row.update(found)
        if step_time.SECONDS in found:
            row["ratio"] = found[step_time.SECONDS] / measured
        optimal = entry["cost"].get("optimal_seconds")
        row["xla_ratio"] = optimal / measured if optimal is not None else None
        rows.append(row)
    return rows


def report(results: Path, chip: str | None) -> None:
    """Print estimate / measured per program, each group apart, with the median, the worst and the edits' directions."""
    rows = estimates(json.loads(results.read_text()), chip)
    by_name = {row["name"]: row for row in rows}
    for group in (CALIBRATION, REPORT):
        print(f"\n{group}")
        print("| program | measured (ms, min-max) | estimate (ms) | binding | estimate / measured | XLA / measured |")
        print("|---|---|---|---|---|---|")
        ratios = []
        for row in (r for r in rows if r["group"] == group):
            if "error" in row:
                print(f"| {row['name']} | not run: {row['error'][:80]} | | | | |")
                continue
            spread = row["spread"]
            measured = f"{row['measured'] * 1e3:.3f} ({spread['min'] * 1e3:.3f}-{spread['max'] * 1e3:.3f})"
            xla = row["xla_ratio"]
            xla_text = "negative" if xla is not None and xla < 0 else "" if xla is None else f"{xla:.2f}"
            if "ratio" not in row:
                print(f"| {row['name']} | {measured} | no estimate: {row.get('unknown')} | | | {xla_text} |")
                continue
            ratios.append(row["ratio"])
            estimate = row[step_time_seconds()] * 1e3
            print(
                f"| {row['name']} | {measured} | {estimate:.3f} | {row['binding']} | {row['ratio']:.2f} | {xla_text} |"
            )
        if ratios:
            within = sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5)
            worst = max(ratios, key=lambda r: max(r, 1 / r))
            print(
                f"\n{group}: {len(ratios)} programs, median ratio {statistics.median(ratios):.2f}, "
                f"worst {worst:.2f}, within 1.5x: {within} of {len(ratios)}"
            )
    print("\nedits (before -> after): measured and estimated direction")
    for before, after in EDITS:
        one, two = by_name.get(before), by_name.get(after)
        if not one or not two or "ratio" not in one or "ratio" not in two:
            print(f"- {before} -> {after}: not measured")
            continue
        measured = two["measured"] / one["measured"] - 1
        estimated = two[step_time_seconds()] / one[step_time_seconds()] - 1
        # A change within either side's run-to-run spread (min to max of the queued runs) is no direction.
        noise = max((r["spread"]["max"] - r["spread"]["min"]) / r["measured"] for r in (one, two))
        if abs(measured) <= noise or estimated == 0:
            agree = f"flat (spread {noise:.1%}; estimate {'unmoved' if estimated == 0 else 'moved'})"
        else:
            agree = "right" if (measured > 0) == (estimated > 0) else "WRONG"
        print(f"- {before} -> {after}: measured {measured:+.1%}, estimated {estimated:+.1%}: {agree}")


def step_time_seconds() -> str:
    from pytest_stages.analyse import step_time

    return step_time.SECONDS


if __name__ == "__main__":
    main()
