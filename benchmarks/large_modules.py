"""Drift message of large compiled-HLO texts (10k, 100k, 1M lines), without and with source attribution.

Usage: python benchmarks/large_modules.py [--repeat 3] [--sizes 10000,100000,1000000]
       python benchmarks/large_modules.py --whole [--lines 100000] [--repeat 3] [--old COMMIT]

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

``--whole`` measures the whole-module behaviour on one module of ``--lines`` lines, with this
tree's code and, side by side, the code of ``--old`` (a commit of this repository; its
``pytest_stages`` is extracted with ``git archive`` and run in a fresh process on the same texts):
compare of two texts equal up to a renaming of every name; one op changed near the end of the
module after one op inserted near its start (every name after the insert renumbered): whether
the message shows the changed op, the diff's rows, and what ``git diff --numstat`` counts
between the snapshot and the file an update writes (the snapshot's names kept).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
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
    parser.add_argument("--whole", action="store_true", help="the whole-module figures, old code beside new")
    parser.add_argument("--lines", type=int, default=100_000, help="--whole: the module's length")
    parser.add_argument("--old", default="e928f02", help="--whole: the commit whose code is the old column")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # a folder of texts: measure them here, print JSON
    options = parser.parse_args()
    if options.measure:
        print(json.dumps(measure_whole(Path(options.measure), options.repeat)))
        return
    if options.whole:
        whole(options.lines, options.repeat, options.old)
        return
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


def renamed(text: str) -> str:
    """Every numbered name of the module renumbered (``%add.2006`` -> ``%add.2007``): the same program."""
    names = set(hlo.defined_names(text))
    names |= {name.lstrip("%") for name in names} | {f"%{name}" for name in names}
    return _NAME.sub(lambda m: f"{m[1]}.{int(m[2]) + 1}" if m[2] and m[0] in names else m[0], text)


def far_apart(text: str) -> str:
    """One op inserted a tenth into the module (every name after it renumbered), and one ``tanh`` near
    the end made a ``sine``."""
    end = text.rfind(" tanh(", 0, len(text) * 9 // 10)
    changed_text = text[:end] + " sine(" + text[end + 6 :]
    start = changed_text.find("\n  %", len(changed_text) // 10) + 1
    after = set(hlo.defined_names(changed_text[start:]))
    after |= {name.lstrip("%") for name in after} | {f"%{name}" for name in after}
    tail = _NAME.sub(lambda m: f"{m[1]}.{int(m[2]) + 1}" if m[2] and m[0] in after else m[0], changed_text[start:])
    return changed_text[:start] + INSERTED + tail


def best(repeat: int, run: Callable[[], object]) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by a busy machine)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure_whole(folder: Path, repeat: int) -> dict[str, object]:
    """The whole-module figures of the ``pytest_stages`` this process imports, on the texts in ``folder``."""
    from pytest_stages.ir.renaming import equivalent, keep_names
    from pytest_stages.ir.textdiff import edit_script

    old, same, drifted = ((folder / name).read_text() for name in ("old.hlo.txt", "renamed.hlo.txt", "drifted.hlo.txt"))

    def compare_renamed() -> None:
        equivalent.cache_clear()
        assert compare_text("compiled", old, same, diff_lines=60) is None

    def compare_drifted() -> str:
        equivalent.cache_clear()
        finding = compare_text("compiled", old, drifted, diff_lines=60)
        assert finding is not None
        return "\n".join(details(finding))

    message = compare_drifted()
    script = edit_script("hlo", old, drifted)
    kept = keep_names("hlo", old, drifted)
    (folder / "kept.hlo.txt").write_text(kept)
    numstat = subprocess.run(
        ["git", "diff", "--no-index", "--numstat", str(folder / "old.hlo.txt"), str(folder / "kept.hlo.txt")],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    sine = next(line for line in drifted.splitlines() if " sine(" in line and "%sine.0" not in line)
    return {
        "renamed_compare_s": best(repeat, compare_renamed),
        "drifted_compare_s": best(repeat, compare_drifted),
        "update_s": best(1, lambda: keep_names("hlo", old, drifted)),
        "shows_change": sine.strip() in message,
        "says_beyond": "beyond the diffed window" in message,
        "diff_rows": sum(1 for row in script.rows if row.tag != "="),
        "git_lines": int(numstat[0]) + int(numstat[1]) if numstat else 0,
    }


def whole(lines: int, repeat: int, old_commit: str) -> None:
    """Old code beside new on one module of ``lines`` lines: each measured in a fresh process, same texts."""
    base = sample_module()
    old = normalize_hlo(sized(base, lines))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "old.hlo.txt").write_text(old)
        (folder / "renamed.hlo.txt").write_text(renamed(old))
        (folder / "drifted.hlo.txt").write_text(far_apart(old))
        old_tree = folder / "old-tree"
        old_tree.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", old_commit, "pytest_stages"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive, check=True)
        figures = {}
        for label, tree in ((f"old ({old_commit})", old_tree), ("new (this tree)", ROOT)):
            env = {**os.environ, "PYTHONPATH": str(tree)}
            command = [sys.executable, str(Path(__file__).resolve()), "--measure", str(folder), "--repeat", str(repeat)]
            out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=tmp).stdout
            figures[label] = json.loads(out.strip().splitlines()[-1])
    print(f"{lines}-line compiled HLO (best of {repeat}); drifted: one op inserted at 10%, one op changed at 90%")
    rows = [
        ("compare of two renamed texts (s, beyond staging)", "renamed_compare_s", "{:.3f}"),
        ("compare + message of the drifted text (s)", "drifted_compare_s", "{:.3f}"),
        ("message shows the changed op", "shows_change", "{}"),
        ("message says 'beyond the diffed window'", "says_beyond", "{}"),
        ("diff rows (+, -, ~)", "diff_rows", "{}"),
        ("update: git diff --numstat lines (added + deleted)", "git_lines", "{}"),
        ("update: keep_names (s, once)", "update_s", "{:.3f}"),
    ]
    labels = list(figures)
    print(f"{'':52} {labels[0]:>18} {labels[1]:>18}")
    for title, key, style in rows:
        print(f"{title:52} {style.format(figures[labels[0]][key]):>18} {style.format(figures[labels[1]][key]):>18}")


if __name__ == "__main__":
    main()
