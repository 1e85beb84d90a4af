"""The figures behind the code's small speed choices, each against its plain alternative, in one run.

Usage: python benchmarks/code_choices.py [--lines 100000] [--repeat 5]

On a real compiled HLO module grown to ``--lines`` lines (``large_modules.sized``: op metadata and
names as XLA writes them), best of ``--repeat`` for each side, interleaved; each pair must give the
same result, and the ratio is plain / chosen:

- ``hlo.Instruction``, a named tuple, against a frozen dataclass of the same fields (one per line);
- ``normalize.METADATA``'s possessive loops against the same pattern with plain ones;
- ``hlo._DEFINED`` led by a literal ``"\\n"`` against a multiline ``^``;
- ``dialect_names._renamed`` (split, map, join) against ``re.sub`` with a Python callback per name;
- renaming compiled HLO by its ``%`` names alone against renaming by every HLO name token;
- ``dataflow._any_of`` (a substring search per needle) against one regex alternation, per line;
- with ``strace`` installed: the file system calls of one snapshot read, ``storage``'s
  (``lstat``, then ``_read_bytes``) against Python's text ``open``.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from large_modules import sample_module, sized

from pytest_stages.ir import dataflow, dialect_names, hlo, normalize


@dataclasses.dataclass(frozen=True)
class InstructionDataclass:
    """``hlo.Instruction``'s fields as a frozen dataclass."""

    name: str
    shape: str
    opcode: str
    rest: str
    root: bool = False
    computation: str = ""
    entry: bool = False


def plain_loops(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` with its possessive loops (``*+``, ``++``) made plain."""
    return re.compile(pattern.pattern.replace("*+", "*").replace("++", "+"), pattern.flags)


def timed(run: Callable[[], object]) -> tuple[float, object]:
    """Seconds of one call of ``run``, and what it gave."""
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def pairs(text: str) -> dict[str, tuple[Callable[[], object], Callable[[], object]]]:
    """Each choice: (the code's way, the plain alternative), over ``text``."""
    lines = text.splitlines()
    fields = [(f"%v.{k}", "f32[64,64]", "add", "%a, %b)", False, "c", False) for k in range(len(lines))]
    normalized = normalize.METADATA.sub("", text)
    multiline = re.compile(hlo._DEFINED.pattern.replace(r"\n", "^", 1).replace(r"(?<=\n)", "^"), re.MULTILINE)
    names = set(re.findall(r"%[\w.\-]++", normalized))
    renamed = {name: f"{name}_1" for name in names}
    token_split = dialect_names._name_split(dialect_names.HLO_NAME)
    instructions = "\n".join(line for line in normalized.splitlines() if line.startswith(" "))
    effects = [f" {opcode}(" for opcode in dataflow.HLO_EFFECTS] + ["-start(", "-done(", "-update("]
    effects += ["control-predecessors="]
    any_of = dataflow._any_of(*effects)
    alternation = re.compile("|".join(map(re.escape, effects))).search
    return {
        "Instruction: named tuple / frozen dataclass": (
            lambda: [hlo.Instruction(*f) for f in fields],
            lambda: [InstructionDataclass(*f) for f in fields],
        ),
        "METADATA: possessive / plain loops": (
            lambda: normalize.METADATA.sub("", text),
            lambda: plain_loops(normalize.METADATA).sub("", text),
        ),
        "_DEFINED: literal newline / multiline ^": (
            lambda: hlo._DEFINED.findall("\n" + normalized),
            lambda: multiline.findall(normalized),
        ),
        "_renamed: split-map-join / sub with callback": (
            lambda: dialect_names._renamed(token_split, normalized, renamed),
            lambda: token_split.sub(lambda m: renamed.get(m[0], m[0]), normalized),
        ),
        "compiled HLO: % names / every name token": (
            lambda: dialect_names._renamed(dialect_names._PERCENT_SPLIT, instructions, renamed),
            lambda: dialect_names._renamed(token_split, instructions, renamed),
        ),
        "effects: substring searches / alternation": (
            lambda: [any_of(line) for line in lines],
            lambda: [alternation(line) is not None for line in lines],
        ),
    }


def same(chosen: object, plain: object) -> bool:
    """Whether both sides gave the same result (dataclass and tuple instructions compare field by field)."""
    if isinstance(chosen, list) and chosen and isinstance(plain, list) and dataclasses.is_dataclass(plain[0]):
        return [tuple(c) for c in chosen] == [dataclasses.astuple(p) for p in plain]
    return chosen == plain


READ = """
import sys
from pathlib import Path
from pytest_stages.store.storage import _read_bytes
path, way, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for _ in range(n):
    if way == "storage":
        path.lstat()
        _read_bytes(path).decode("utf-8")
    else:
        with open(path, encoding="utf-8") as stream:
            stream.read()
"""


def system_calls(way: str, path: Path, reads: int) -> float:
    """File system calls per read of ``path``, ``way`` being ``storage`` or ``open`` (strace's count)."""
    counts = []
    for n in (0, reads):
        with tempfile.NamedTemporaryFile("r", suffix=".strace") as out:
            command = ["strace", "-f", "-c", "-o", out.name, sys.executable, "-c", READ, str(path), way, str(n)]
            subprocess.run(command, check=True)
            counts.append(int(out.read().strip().splitlines()[-1].split()[3]))
    return (counts[1] - counts[0]) / reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    text = sized(sample_module(), options.lines)
    print(f"{len(text.splitlines()):,} lines of compiled HLO, Python {sys.version.split()[0]}")
    for what, (chosen, plain) in pairs(text).items():
        chosen_s = plain_s = float("inf")
        for _ in range(options.repeat):  # interleaved
            seconds, chosen_result = timed(chosen)
            chosen_s = min(chosen_s, seconds)
            seconds, plain_result = timed(plain)
            plain_s = min(plain_s, seconds)
        verdict = "same result" if same(chosen_result, plain_result) else "RESULTS DIFFER"
        print(f"{what}: {chosen_s * 1000:8.1f} ms / {plain_s * 1000:8.1f} ms = {plain_s / chosen_s:4.1f}x ({verdict})")
    if shutil.which("strace"):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "f.jaxpr.txt")
            path.write_text("{ lambda ; a:f32[4]. let b:f32[4] = sin a in (b,) }\n", encoding="utf-8")
            storage, plain_open = (system_calls(way, path, 1000) for way in ("storage", "open"))
        print(f"file system calls per snapshot read: storage {storage:.1f}, Python's text open {plain_open:.1f}")
    else:
        print("file system calls per snapshot read: strace not installed, not counted")


if __name__ == "__main__":
    main()
