"""Drift message of large compiled-HLO texts (10k, 100k, 1M lines), without and with source attribution.

Usage: python benchmarks/large_modules.py [--repeat 3] [--sizes 10000,100000,1000000]

The text is real compiled HLO from JAX repeated to size: its stack-frame tables once, then the
computations over and over, each op keeping its ``metadata={... stack_frame_id=N}``, so every line
carries the noise the normalizer removes and the frame ids attribution follows. Each copy has its
own names (``%add.3`` is ``%add.2006`` in the third), unique in the module as XLA's are. Two drifts are
timed: one op changed in the middle, and one op inserted in the middle with every instruction name
after it renumbered (``%add.3`` -> ``%add.4``), the worst case for the renumbering-proof diff, which
must check each renamed line. What is timed is what a test does: normalize the staged text, compare
it with the (already normalized) snapshot text, and build the op summary and the diff; the
"attributed" column also reads each line's location back from the debug text
(``sources.hlo_locations``) and describes it relative to the project (``sources.describe_all``),
as a drift message with source lines does. Both columns are timed in the same run, interleaved.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # as the plugin does: no TPU/CUDA plugin start-up or warnings

import jax
import jax.numpy as jnp

from pytest_stages.check.drift import compare_text
from pytest_stages.check.message import details
from pytest_stages.ir import hlo
from pytest_stages.ir.normalize import normalize_hlo
from pytest_stages.ir.sources import describe_all, hlo_locations

ROOT = Path(__file__).resolve().parent.parent
INSERTED = '  %sine.0 = f32[64,64]{1,0} sine(%param_0), metadata={op_name="jit(block)/sin" stack_frame_id=6}\n'


def sample_module() -> str:
    """A small compiled module (about 190 lines) with stack-frame tables and op metadata."""

    def block(x, w):
        for _ in range(8):
            x = jax.nn.gelu(x @ w) + jnp.tanh(x)
        return x.sum()

    args = (jax.ShapeDtypeStruct((64, 64), jnp.float32), jax.ShapeDtypeStruct((64, 64), jnp.float32))
    return jax.jit(block).trace(*args).lower().compile().as_text()


def sized(text: str, lines: int) -> str:
    """``text`` grown to ``lines`` lines: header and stack-frame tables once, then its computations repeated.

    Copy ``c`` names ``%add.3`` ``%add.{1000c + 6}`` and ``%fused`` ``%fused.{1000c}``: even numbers, so
    that :func:`inserted`'s renumbering (+1) never makes a name that exists already.
    """
    raw = text.rstrip("\n").splitlines()
    first = next(k for k, line in enumerate(raw) if line.startswith(("%", "ENTRY")))
    body = "\n".join(raw[first:]) + "\n"
    out = raw[:first]
    copy = 0
    while len(out) < lines:
        copy += 1
        out.extend(_NAME.sub(functools.partial(_offset, copy=copy), body).splitlines())
    return "\n".join(out[:lines]) + "\n"


# A value or computation name, its number apart: "%add.3", "param_0.2", "%fused" (not "f32[", "sine(", "1.5")
_NAME = re.compile(r"((?<![\w.\-])%?[A-Za-z_][\w\-]*)(?:\.(\d+))?(?![\w.\-(\[])")


def _offset(name: re.Match[str], copy: int) -> str:
    if name[2] is None and not name[1].startswith("%"):
        return name[0]
    return f"{name[1]}.{1000 * copy + 2 * int(name[2] or 0)}"


def drift_message(expected: str, actual_raw: str, attributed: bool) -> str:
    """What a test does on drift: normalize, compare, summarize and diff (with source lines if ``attributed``)."""
    actual = normalize_hlo(actual_raw)
    locations = (lambda: describe_all(hlo_locations(actual_raw, actual) or (), ROOT)) if attributed else None
    finding = compare_text("compiled", expected, actual, diff_lines=60, locations=locations)
    assert finding is not None
    message = "\n".join(details(finding))
    assert "+1 sine" in message
    assert ("source: benchmarks/large_modules.py:" in message) == attributed, message
    return message


def time_sizes(drift: Callable[[str], str], base: str, sizes: list[int], repeat: int) -> dict[int, list[float]]:
    """Median seconds per size: ``[plain, attributed]``, the two timed alternately."""
    medians = {}
    for lines in sizes:
        expected_raw = sized(base, lines)
        actual_raw = drift(expected_raw)
        expected = normalize_hlo(expected_raw)
        samples: list[list[float]] = [[], []]
        for _ in range(repeat):
            for column, attributed in enumerate((False, True)):
                start = time.perf_counter()
                drift_message(expected, actual_raw, attributed)
                samples[column].append(time.perf_counter() - start)
        medians[lines] = [statistics.median(column) for column in samples]
        plain, attributed_s = medians[lines]
        print(
            f"{lines:>9} lines: normalize + compare + diff {plain:7.3f} s ({plain / lines * 1e6:5.2f} us/line)   "
            f"with source attribution {attributed_s:7.3f} s ({attributed_s / lines * 1e6:5.2f} us/line)   "
            f"[attributed min {min(samples[1]):.3f} max {max(samples[1]):.3f}]"
        )
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated line counts")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    base = sample_module()
    for label, drift in (("one op changed", changed), ("one op inserted, rest renumbered", inserted)):
        print(label)
        medians = time_sizes(drift, base, sizes, options.repeat)
        for small, large in itertools.pairwise(sizes):
            ratios = [medians[large][k] / medians[small][k] for k in (0, 1)]
            print(
                f"  time ratio {large}/{small} lines ({large / small:g}x the lines; {large / small:g} = linear): "
                f"plain {ratios[0]:.2f}, attributed {ratios[1]:.2f}"
            )


def changed(text: str) -> str:
    """One ``tanh`` op in the middle made a ``sine``."""
    middle = text.rfind(" tanh(", 0, len(text) // 2)
    return text[:middle] + " sine(" + text[middle + 6 :]


def inserted(text: str) -> str:
    """One op inserted in the middle, every name defined after it renumbered, where used too.

    ``%add.2006`` becomes ``%add.2007``.
    Names defined before the insertion keep their number, as XLA's do: it numbers values as it makes them.
    """
    middle = text.find("\n  %", len(text) // 2) + 1
    after = set(hlo.defined_names(text[middle:]))
    after |= {name.lstrip("%") for name in after} | {f"%{name}" for name in after}
    renumbered = _NAME.sub(lambda m: f"{m[1]}.{int(m[2]) + 1}" if m[2] and m[0] in after else m[0], text[middle:])
    return text[:middle] + INSERTED + renumbered


if __name__ == "__main__":
    main()
