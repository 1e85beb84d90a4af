"""The estimated step time against the chip: measure programs on an attached accelerator, then report.

Two steps, so that the chip host needs nothing but JAX:

    # on the chip host (JAX and its accelerator plugin; the field programs need flax, optax, penzai,
    # equinox, diffrax); --group blind: the blind set only; --group unseen / third: the second / third
    python benchmarks/step_time.py measure --out step_times.json [--group blind]
    # anywhere with pytest-stages installed
    python benchmarks/step_time.py report step_times.json [more parts ...] [--chip v5e]

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
import gzip
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION, REPORT = "calibration", "report"
Builder = Callable[[], tuple[Callable[..., Any], tuple[Any, ...]]]


def _programs() -> list[tuple[str, str, Builder]]:  # noqa: C901  (one builder per program)
    import jax
    import jax.numpy as jnp

    sys.path[:0] = [
        str(ROOT / "benchmarks"),
        str(ROOT / "examples"),
        str(ROOT / "examples" / "field"),
        str(ROOT / "examples" / "kernels"),
    ]
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

    def layers(ws: Any, x: Any) -> Any:
        for w in ws:
            x = jnp.tanh(x @ w)
        return x

    def softmaxes(x: Any) -> Any:
        for _ in range(32):
            x = jax.nn.softmax(x * 1.1, axis=-1)
        return x

    def conv_few(x: Any, w: Any) -> Any:
        return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

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
        # Added for the kernel-by-kernel estimate (issue 66): chains of small kernels, a windowed reduction, a
        # convolution of few input features.
        (
            "chain of 48 matmul layers f32 256 wide, batch 8",
            lambda: (layers, ([arr(256, 256) for _ in range(48)], arr(8, 256))),
        ),
        (
            "chain of 48 matmul layers bf16 512 wide, batch 64",
            lambda: (layers, ([arr(512, 512, dtype=bf16) for _ in range(48)], arr(64, 512, dtype=bf16))),
        ),
        ("chain of 32 softmax f32 8x1024", lambda: (softmaxes, (arr(8, 1024),))),
        ("cumsum f32 2048^2", lambda: ((lambda x: jnp.cumsum(x, axis=1)), (arr(2048, 2048),))),
        (
            "conv2d 5x5 bf16 16x112x112x3->32",
            lambda: (conv_few, (arr(16, 112, 112, 3, dtype=bf16), arr(5, 5, 3, 32, dtype=bf16))),
        ),
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


def _all_programs() -> list[tuple[str, str, Builder]]:
    """The calibration programs, the earlier report programs, and the held-out corpus (group: its family)."""
    from step_corpus import CALIBRATION as MOVED
    from step_corpus import programs

    return [
        *_programs(),
        *((name, CALIBRATION if name in MOVED else group, build) for name, group, build in programs()),
    ]


def _write(out: Path, results: list[dict[str, Any]]) -> None:
    data = json.dumps(results).encode()
    out.write_bytes(gzip.compress(data) if out.suffix == ".gz" else data)


def read(path: Path) -> list[dict[str, Any]]:
    """A measure or compile file's entries (gzipped where its name ends ``.gz``)."""
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)


def measure(
    out: Path, only: str | None, topology: str | None, part: slice = slice(None), group: str | None = None
) -> None:
    """Compile, cost and time each program on the first device, timed as ``--stages-measure`` times a call
    (``pytest_stages.stage.measure``: its made-up inputs, 5 rounds of 20 queued calls); with ``topology``,
    compile only, for that compile-only topology; with ``group``, only the programs of the groups that start
    with it (``blind``: the blind set). One JSON object per program in ``out``."""
    import jax
    from jax.experimental import topologies

    from pytest_stages.stage.measure import measured

    if topology:
        os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
        desc = topologies.get_topology_desc(platform="tpu", topology_name=topology, chips_per_host_bounds=(1, 1, 1))
        device = desc.devices[0]
    else:
        device = jax.devices()[0]
    mesh = jax.make_mesh((1,), ("model",), devices=[device]) if not topology else None
    sharding = jax.sharding.SingleDeviceSharding(device)
    results: list[dict[str, Any]] = []
    for name, group_name, build in _all_programs()[part]:
        if (only and only not in name) or (group and not group_name.startswith(group)):
            continue
        entry: dict[str, Any] = {"name": name, "group": group_name, "device_kind": device.device_kind}
        try:
            fn, args = build()
            if topology:
                shapes = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding), args)
                lowered = jax.jit(fn).lower(*shapes)
                start = time.perf_counter()
                compiled = lowered.compile()
            else:
                with jax.set_mesh(mesh):  # a one-device mesh: the example scan_layers reshards under it
                    lowered = jax.jit(fn).lower(*args)
                    start = time.perf_counter()
                    compiled = lowered.compile()
            entry["compile_seconds"] = time.perf_counter() - start
            cost = compiled.cost_analysis()
            entry["cost"] = {k: float(v) for k, v in (cost[0] if isinstance(cost, list) else cost).items()}
            entry["compiled_text"] = compiled.as_text()
            if not topology:
                found = measured(compiled, lowered, None)
                entry["queued"] = {
                    "median": found["measured_seconds"],
                    "min": found["measured_min"],
                    "max": found["measured_max"],
                }
                print(f"{name}: {found['measured_seconds'] * 1e3:.3f} ms", flush=True)
            else:
                print(f"{name}: compiled", flush=True)
        except Exception as exc:  # noqa: BLE001  (a program that fails here must not lose the others' figures)
            entry["error"] = f"{type(exc).__name__}: {exc}"[:2000]
            print(f"{name}: {entry['error'][:300]}", flush=True)
        results.append(entry)
        _write(out, results)


def overhead(repeats: int) -> None:
    """What the estimate costs beside the compile, on the field corpus's Gemma train step compiled for one v5e
    chip (compile-only): the compile's seconds, the estimate's (the compiled text read kernel by kernel), the share."""
    import jax
    from jax.experimental import topologies

    from pytest_stages.analyse import step_time

    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    desc = topologies.get_topology_desc(platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1))
    sharding = jax.sharding.SingleDeviceSharding(desc.devices[0])
    from step_corpus import programs

    fn, args = next(build for name, _, build in programs() if name == "field: gemma train_step (NNX)")()
    shapes = jax.tree.map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=sharding), args)
    compiles, costs = [], []
    jax.config.update("jax_enable_compilation_cache", False)
    for _ in range(repeats):
        jax.clear_caches()  # a fresh compile each time, as a test session's first
        lowered = jax.jit(fn).lower(*shapes)
        start = time.perf_counter()
        compiled = lowered.compile()
        compiles.append(time.perf_counter() - start)
        text, cost = compiled.as_text(), compiled.cost_analysis()
        start = time.perf_counter()
        step_time.estimate({"compiled": dict(cost)}, text, desc.devices[0].device_kind)
        costs.append(time.perf_counter() - start)
    compile_s, estimate_s = statistics.median(compiles), statistics.median(costs)
    print(
        f"gemma train step, v5e:1x1: compile {compile_s:.3f} s, estimate {estimate_s * 1e3:.1f} ms "
        f"({estimate_s / compile_s:.1%} of the compile), medians of {repeats}; {len(text.splitlines())} HLO lines"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    measuring = commands.add_parser("measure", help="on the chip host: compile, cost and time every program")
    measuring.add_argument("--out", type=Path, required=True)
    measuring.add_argument("--only", help="only programs whose name holds this")
    measuring.add_argument("--topology", help="compile only, for this TPU topology (e.g. v5e:1x1): no timing")
    measuring.add_argument("--part", default=":", help="the programs start:stop of the list (two calls' worth each)")
    measuring.add_argument(
        "--group", help="only the programs of the groups that start with this (blind: the blind set)"
    )
    reporting = commands.add_parser("report", help="estimate / measured per program from a measure file")
    reporting.add_argument("results", type=Path, nargs="+", help="measure files (parts of one run, say)")
    reporting.add_argument("--chip", default=None, help="chip figures to estimate with (default: the device kind's)")
    costing = commands.add_parser("overhead", help="the estimate's time beside the compile (Gemma train step)")
    costing.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.command == "overhead":
        overhead(args.repeats)
    elif args.command == "measure":
        start, _, stop = args.part.partition(":")
        part = slice(int(start) if start else None, int(stop) if stop else None)
        measure(args.out, args.only, args.topology, part, args.group)
    else:
        report(args.results, args.chip)


def estimates(results: list[dict[str, Any]], chip: str | None) -> list[dict[str, Any]]:
    """Each measured program's estimate beside its measured step time (queued: as a training loop runs it)."""
    from pytest_stages.analyse import step_time

    rows = []
    for entry in results:
        if "queued" not in entry and "error" not in entry:
            continue  # compiled only (--topology): nothing measured
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
        row.update(found)
        if step_time.SECONDS in found:
            row["ratio"] = found[step_time.SECONDS] / measured
        row["xla_seconds"] = entry["cost"].get("optimal_seconds")
        rows.append(row)
    return rows


def report(results: list[Path], chip: str | None) -> None:
    """Print the table per group (program | estimate | binding | XLA's figure | measured | ratio), each group's
    count within 1.5x, beyond 2x and median |log2(estimate / measured)|: the calibration programs, the earlier report
    programs, the held-out families, the three blind sets' (``blind``, ``unseen``, ``third``), each apart; then
    the edits' directions."""
    from step_corpus import BLIND, BLIND_EDITS, FAMILIES, THIRD, THIRD_EDITS, UNSEEN, UNSEEN_EDITS
    from step_corpus import EDITS as CORPUS_EDITS

    rows = estimates([entry for path in results for entry in read(path)], chip)
    by_name = {row["name"]: row for row in rows}
    sets = {
        "held out": "",
        "blind": f"{BLIND}: ",
        "unseen": f"{UNSEEN}: ",
        "third": f"{THIRD}: ",
    }  # each set's groups: prefix + family
    ratios: dict[str, list[float]] = {name: [] for name in sets}
    _summary(CALIBRATION, _table(CALIBRATION, [r for r in rows if r["group"] == CALIBRATION]))
    _summary(REPORT, _table(REPORT, [r for r in rows if r["group"] == REPORT]))
    for name, prefix in sets.items():
        for group in (f"{prefix}{family}" for family in FAMILIES):
            found = _table(group, [r for r in rows if r["group"] == group])
            ratios[name] += found
            _summary(group, found)
    for name, found in ratios.items():
        _summary(f"{name} (the four families)", found)
    _edits("edits", CORPUS_EDITS, by_name)
    _edits("blind edits", BLIND_EDITS, by_name)
    _edits("unseen edits", UNSEEN_EDITS, by_name)
    _edits("third edits", THIRD_EDITS, by_name)


def _table(group: str, rows: list[dict[str, Any]]) -> list[float]:
    """Print one group's table; its estimate / measured ratios."""
    if not rows:
        return []
    print(f"\n{group}\n")
    print("| program | estimate (ms) | binding | XLA's figure (ms) | measured (ms, min-max) | ratio |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for row in rows:
        if "error" in row:
            print(f"| {row['name']} | | | | not run: {row['error'][:80]} | |")
            continue
        spread = row["spread"]
        measured = f"{row['measured'] * 1e3:.3f} ({spread['min'] * 1e3:.3f}-{spread['max'] * 1e3:.3f})"
        xla = row["xla_seconds"]
        xla_text = "negative" if xla is not None and xla < 0 else "-" if xla is None else f"{xla * 1e3:.3f}"
        if "ratio" not in row:
            print(f"| {row['name']} | none: {row.get('unknown')} | | {xla_text} | {measured} | |")
            continue
        ratios.append(row["ratio"])
        estimate = row[step_time_seconds()] * 1e3
        print(f"| {row['name']} | {estimate:.3f} | {row['binding']} | {xla_text} | {measured} | {row['ratio']:.2f} |")
    return ratios


def _edits(title: str, edits: tuple[tuple[str, str, str], ...], by_name: dict[str, dict[str, Any]]) -> None:
    """Print each edit's measured and estimated change, and the count the issue asks: of the edits that move
    the chip's time by 10% or more, how many the estimate moves the same way, by an amount within 1.5x."""
    print(f"\n{title} (before -> after): measured and estimated change\n")
    print("| edit | kind | measured | estimated | direction | move within 1.5x |")
    print("|---|---|---|---|---|---|")
    moved = same_way = close = 0
    for before, after, kind in edits:
        one, two = by_name.get(before), by_name.get(after)
        if not one or not two or "ratio" not in one or "ratio" not in two:
            print(f"| {before} -> {after} | {kind} | not measured | | | |")
            continue
        measured = two["measured"] / one["measured"] - 1
        estimated = two[step_time_seconds()] / one[step_time_seconds()] - 1
        if abs(measured) < 0.1:
            print(f"| {before} -> {after} | {kind} | {measured:+.1%} | {estimated:+.1%} | under 10%: not counted | |")
            continue
        same = (measured > 0) == (estimated > 0) and estimated != 0
        within = max((1 + estimated) / (1 + measured), (1 + measured) / (1 + estimated)) <= 1.5
        moved, same_way, close = moved + 1, same_way + same, close + (same and within)
        print(
            f"| {before} -> {after} | {kind} | {measured:+.1%} | {estimated:+.1%} | "
            f"{'same way' if same else 'WRONG WAY'} | {'yes' if within else 'no'} |"
        )
    print(
        f"\n{title}: {moved} moved the chip's time by 10% or more; the estimate moved the same way in {same_way}, "
        f"by an amount within 1.5x in {close}"
    )


def _summary(group: str, ratios: list[float]) -> None:
    if ratios:
        within = sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5)
        beyond = sum(1 for r in ratios if not 0.5 <= r <= 2)
        median = statistics.median(abs(math.log2(r)) for r in ratios)
        print(
            f"\n{group}: {len(ratios)} programs, within 1.5x: {within} ({within / len(ratios):.0%}), beyond 2x: "
            f"{beyond}, median |log2(estimate/measured)| {median:.2f}"
        )


def step_time_seconds() -> str:
    from pytest_stages.analyse import step_time

    return step_time.SECONDS


if __name__ == "__main__":
    main()
