"""How noisy is a staged call's compile time? Repeated trace/lower/compile of the example models, spread per call.

Usage: python benchmarks/compile_time_noise.py [--repeat 7]

Each round stages every call of the list below once, the way ``stage_snapshot`` does
(``jit(f).trace(...)``, ``.lower()``, ``.compile()``, each timed), after ``jax.clear_caches()``
and with the persistent compilation cache off, so that every round really compiles. The rounds
interleave the calls, so that load on the machine spreads over all of them. Prints, per call and
step, the median seconds and the spread ``max / min - 1`` over the rounds; the largest total
spread is what the ``compile_seconds`` budget's noise margin (check/budgets.py
``COMPILE_SECONDS_MARGIN``) must cover.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import jax

jax.config.update("jax_enable_compilation_cache", False)
import jax.numpy as jnp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import models  # noqa: E402

STEPS = ("trace", "lower", "compile")


def spec(*shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype)


def calls():
    """The example suite's single-device calls: name, function, arguments."""
    width = 128
    block = {name: spec(width, width) for name in ("wq", "wk", "wv", "wo")}
    block.update(ln1=spec(width), ln2=spec(width), w1=spec(width, 4 * width), w2=spec(4 * width, width))
    mlp = [(spec(256, 256), spec(256)) for _ in range(3)]
    return [
        ("train_step", models.train_step, (mlp, spec(32, 256), spec(32, 256))),
        ("transformer_block", models.transformer_block, (block, spec(2, 16, width))),
        ("rnn", models.rnn, ({"wh": spec(64, 64), "wx": spec(32, 64)}, spec(10, 8, 32))),
    ]


def stage_once(fn, args) -> dict[str, float]:
    jax.clear_caches()
    seconds = {}
    start = time.perf_counter()
    traced = jax.jit(fn).trace(*args)
    seconds["trace"] = time.perf_counter() - start
    start = time.perf_counter()
    lowered = traced.lower()
    seconds["lower"] = time.perf_counter() - start
    start = time.perf_counter()
    lowered.compile()
    seconds["compile"] = time.perf_counter() - start
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    staged = calls()
    for _, fn, args in staged:  # warm-up: JAX's and XLA's own first-use costs are not the program's
        stage_once(fn, args)
    times: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in staged}
    for round_ in range(options.repeat):
        order = staged if round_ % 2 == 0 else staged[::-1]
        for name, fn, args in order:
            times[name].append(stage_once(fn, args))
    print(f"{options.repeat} rounds; seconds: median (spread = max/min - 1)")
    worst = 0.0
    for name, rounds in times.items():
        cells = []
        for step in (*STEPS, "total"):
            values = [sum(r.values()) if step == "total" else r[step] for r in rounds]
            spread = max(values) / min(values) - 1
            cells.append(f"{step} {statistics.median(values):.4f} ({spread:+.0%})")
            worst = max(worst, spread) if step == "total" else worst
        print(f"  {name}: " + ", ".join(cells))
    print(f"largest total spread: {worst:.0%}")


if __name__ == "__main__":
    main()
