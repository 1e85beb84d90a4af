"""Normalization + comparison + bounded diff of large compiled-HLO texts (10k, 100k, 1M lines).

Usage: python benchmarks/large_modules.py [--repeat 3]

The text is real compiled HLO from JAX (a module with stack-frame tables and metadata) repeated
to size, so every line carries the noise the normalizer removes. Two drifts are timed: one op
changed in the middle, and one op inserted in the middle with every instruction name after it
renumbered (``%add.3`` -> ``%add.4``), the worst case for the renumbering-proof diff, which must
check each renamed line. What is timed is what a test does: normalize the staged text, compare it
with the (already normalized) snapshot text, and build the op summary and the diff.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time

import jax
import jax.numpy as jnp

from pytest_stages.compare import compare_text
from pytest_stages.normalize import normalize_hlo


def sample_module() -> str:
    def block(x, w):
        for _ in range(8):
            x = jax.nn.gelu(x @ w) + jnp.tanh(x)
        return x.sum()

    args = (jax.ShapeDtypeStruct((64, 64), jnp.float32), jax.ShapeDtypeStruct((64, 64), jnp.float32))
    return jax.jit(block).trace(*args).lower().compile().as_text()


def sized(text: str, lines: int) -> str:
    body = text.splitlines()
    out = []
    while len(out) < lines:
        out.extend(body)
    return "\n".join(out[:lines]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    base = sample_module()
    for label, drift in (("one op changed", changed), ("one op inserted, rest renumbered", inserted)):
        print(label)
        per_line = {}
        for lines in (10_000, 100_000, 1_000_000):
            expected_raw = sized(base, lines)
            actual_raw = drift(expected_raw)
            expected = normalize_hlo(expected_raw)
            samples = []
            for _ in range(options.repeat):
                start = time.perf_counter()
                actual = normalize_hlo(actual_raw)
                finding = compare_text("compiled", expected, actual, diff_lines=60)
                samples.append(time.perf_counter() - start)
            assert finding is not None and "+1 sine" in finding.message
            median = statistics.median(samples)
            per_line[lines] = median / lines
            print(
                f"{lines:>9} lines: normalize + compare + diff  median {median:7.3f} s  "
                f"min {min(samples):7.3f}  max {max(samples):7.3f}  ({median / lines * 1e6:.2f} us/line)"
            )
        print(
            f"  per-line cost ratio 100k/10k: {per_line[100_000] / per_line[10_000]:.2f}, "
            f"1M/100k: {per_line[1_000_000] / per_line[100_000]:.2f} (1.0 = linear)"
        )


def changed(text: str) -> str:
    middle = text.rfind(" tanh(", 0, len(text) // 2)
    return text[:middle] + " sine(" + text[middle + 6:]


def inserted(text: str) -> str:
    middle = text.find("\n  %", len(text) // 2) + 1
    renumbered = re.sub(r"(%[\w\-]+)\.(\d+)", lambda m: f"{m[1]}.{int(m[2]) + 1}", text[middle:])
    return text[:middle] + "  %sine.0 = f32[64,64]{1,0} sine(%param_0)\n" + renumbered


if __name__ == "__main__":
    main()
