"""Text normalizers: stage text in, snapshot text out.

Each removes what changes between runs of the same program (source locations,
stack-frame tables, object addresses) and nothing else, so that a snapshot
changes only when the program does. All are pure, idempotent and total.
"""

from __future__ import annotations

import itertools
import json
import operator
import re
from collections.abc import Callable, Sequence

from pytest_stages.ir.hlo import split_tables
from pytest_stages.ir.kernel_payloads import reference_payloads

# An object address in a repr: ``<function f at 0x7f3a2c>`` -> ``at 0x7f3a2c``.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
# Possessive loops (``*+``, ``++``) never backtrack: their alternatives cannot overlap, so they match
# exactly what the plain loops would, and never slower (docs/performance.md).
_QUOTED = r'"(?:[^"\\\n]++|\\.)*+"'
# HLO op metadata: ``, metadata={op_name="jit(f)/sin" source_file="t.py" source_line=3}``.
METADATA = re.compile(r", metadata=\{(?:[^{}\"\n]++|" + _QUOTED + r")*+\}")
_PARENS0 = r"(?:[^()\"\n]|" + _QUOTED + r")*"
_PARENS2 = r"(?:[^()\"\n]|" + _QUOTED + r"|\((?:[^()\"\n]|" + _QUOTED + r"|\(" + _PARENS0 + r"\))*\))*"
# An MLIR location use, nested parentheses included: `` loc(callsite("f"("t.py":3:4) at #loc2))``.
LOC = re.compile(r" loc\(" + _PARENS2 + r"\)")
# An MLIR location definition line: ``#loc3 = loc("t.py":3:4)``.
LOC_DEFINITION = re.compile(r"^#loc\d*\s*=.*$\n?", re.MULTILINE)
# Where an HLO instruction's JSON backend config starts: ``, backend_config={"b":1,"a":[]}``.
BACKEND_CONFIG = re.compile(r", backend_config=(?=\{)")
# Keys of a CPU backend config that say how the host runs the program, not what it computes:
# ``outer_dimension_partitions`` is the thread split XLA's CPU compiler picks from the cores the
# process may use (``["2"]`` on 2 cores, ``["3"]`` on 13, absent on one; docs, Snapshots).
HOST_KEYS = ("outer_dimension_partitions",)


def normalize_jaxpr(text: str) -> str:
    """Jaxpr text without object addresses (``<function f at 0x7f..>``)."""
    return _tidy(strip_addresses(text))


def strip_addresses(text: str) -> str:
    """``at 0x7f..`` -> ``at 0x?``, line for line."""
    return _ADDRESS.sub("at 0x?", text)


def normalize_mlir(text: str) -> str:
    """StableHLO text without ``loc(...)`` attributes and ``#loc`` definitions.

    A custom kernel's payload becomes its reference (``kernel:add_kernel#1a2b3c4d5e6f``,
    :mod:`pytest_stages.ir.kernel_payloads`): its text is the ``kernels.mlir`` snapshot's.
    """
    text = reference_payloads(text)
    while True:
        cleaned = LOC_DEFINITION.sub("", remove_all(LOC, text))
        if cleaned == text:
            return _tidy(text)
        text = cleaned


def normalize_hlo(text: str) -> str:
    """HLO text (lowered or compiled) without stack-frame tables and ``metadata={...}``.

    Each ``backend_config={json}`` is canonical: sorted keys, and none of :data:`HOST_KEYS`; a
    custom kernel's payload is its reference, as in :func:`normalize_mlir`.
    """
    text = reference_payloads(text)
    body, _ = split_tables(canonical_backend_configs(remove_all(METADATA, text)).splitlines())
    return _tidy_lines(body)


class _Number(str):
    """A JSON number kept as its source text, so re-serializing never reformats it."""


_JSON = json.JSONDecoder(parse_float=_Number, parse_int=_Number, parse_constant=_Number)


def canonical_backend_configs(text: str) -> str:
    """Every JSON ``backend_config`` with sorted keys and no host keys (dropped whole when that empties it).

    ``, backend_config={"outer_dimension_partitions":["2"],"b":{"y":1,"x":2}}`` ->
    ``, backend_config={"b":{"x":2,"y":1}}``; ``, backend_config={"outer_dimension_partitions":[]}`` -> ````.
    A config that is not a JSON object is left as it is.
    """
    out, last = [], 0
    for match in BACKEND_CONFIG.finditer(text):
        if match.start() < last:
            continue
        try:
            config, end = _JSON.raw_decode(text, match.end())
        except ValueError:
            continue
        if not isinstance(config, dict):
            continue
        kept = {key: value for key, value in config.items() if key not in HOST_KEYS}
        out += [text[last : match.start()], f", backend_config={_compact(kept)}" if kept else ""]
        last = end
    return "".join([*out, text[last:]]) if out else text


def _compact(value: object) -> str:
    """JSON as XLA prints it (no spaces), keys sorted, numbers as they were written."""
    if isinstance(value, dict):
        items = (f"{json.dumps(key, ensure_ascii=False)}:{_compact(value[key])}" for key in sorted(value))
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(_compact, value)) + "]"
    if isinstance(value, _Number):
        return str.__str__(value)
    return json.dumps(value, ensure_ascii=False)


NORMALIZERS: dict[str, Callable[[str], str]] = {
    "jaxpr": normalize_jaxpr,
    "mlir": normalize_mlir,
    "hlo": normalize_hlo,
}
"""The normalizer of each ``dialect`` named in the artifact table."""


def to_json(data: object) -> str:
    """Canonical JSON for analyses: sorted keys, two-space indent, trailing newline."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def remove_all(pattern: re.Pattern[str], text: str) -> str:
    """Remove every match, again until none is left (a removal can join a new match)."""
    while True:
        text, count = pattern.subn("", text)
        if not count:
            return text


def _tidy(text: str) -> str:
    """Strip trailing spaces, fold runs of blank lines, end with exactly one newline."""
    return _tidy_lines(text.splitlines())


def _tidy_lines(lines: list[str]) -> str:
    """:func:`_tidy` of the text of ``lines``."""
    lines = list(map(str.rstrip, lines))
    runs = tidy_runs(lines)
    return "\n".join(itertools.chain.from_iterable(lines[run.start : run.stop] for run in runs)) + "\n" if runs else ""


def tidy_runs(lines: Sequence[str]) -> list[range]:
    """The runs of (right-stripped) lines ``_tidy`` keeps: no blank lines at the ends, one between blocks.

    Blank lines are few: found at C speed, and the runs are the ranges between those dropped.
    """
    blanks = list(itertools.compress(itertools.count(), map(operator.not_, lines)))
    end = len(lines)
    while blanks and blanks[-1] == end - 1:
        end = blanks.pop()
    dropped = [k for n, k in enumerate(blanks) if k == 0 or (n and blanks[n - 1] == k - 1)]
    starts, stops = [0, *(k + 1 for k in dropped)], [*dropped, end]
    return [range(start, stop) for start, stop in zip(starts, stops, strict=True) if start < stop]


def tidy_kept(lines: Sequence[str]) -> list[int]:
    """Indexes of the (right-stripped) lines ``_tidy`` keeps, in order."""
    return list(itertools.chain.from_iterable(tidy_runs(lines)))
