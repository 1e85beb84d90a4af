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
from typing import Any

from pytest_stages.ir.hlo import split_tables

# An object address in a repr: ``<function f at 0x7f3a2c>`` -> ``at 0x7f3a2c``.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
# Possessive loops (``*+``, ``++``) never backtrack: their alternatives cannot overlap, so they match
# exactly what the plain loops would, several times faster on large modules.
_QUOTED = r'"(?:[^"\\\n]++|\\.)*+"'
# HLO op metadata: ``, metadata={op_name="jit(f)/sin" source_file="t.py" source_line=3}``.
METADATA = re.compile(r", metadata=\{(?:[^{}\"\n]++|" + _QUOTED + r")*+\}")
_PARENS0 = r"(?:[^()\"\n]|" + _QUOTED + r")*"
_PARENS2 = r"(?:[^()\"\n]|" + _QUOTED + r"|\((?:[^()\"\n]|" + _QUOTED + r"|\(" + _PARENS0 + r"\))*\))*"
# An MLIR location use, nested parentheses included: `` loc(callsite("f"("t.py":3:4) at #loc2))``.
LOC = re.compile(r" loc\(" + _PARENS2 + r"\)")
# An MLIR location definition line: ``#loc3 = loc("t.py":3:4)``.
LOC_DEFINITION = re.compile(r"^#loc\d*\s*=.*$\n?", re.MULTILINE)


def normalize_jaxpr(text: str) -> str:
    """Jaxpr text without object addresses (``<function f at 0x7f..>``)."""
    return _tidy(strip_addresses(text))


def strip_addresses(text: str) -> str:
    """``at 0x7f..`` -> ``at 0x?``, line for line."""
    return _ADDRESS.sub("at 0x?", text)


def normalize_mlir(text: str) -> str:
    """StableHLO text without ``loc(...)`` attributes and ``#loc`` definitions."""
    while True:
        cleaned = LOC_DEFINITION.sub("", remove_all(LOC, text))
        if cleaned == text:
            return _tidy(text)
        text = cleaned


def normalize_hlo(text: str) -> str:
    """HLO text (lowered or compiled) without stack-frame tables and ``metadata={...}``."""
    body, _ = split_tables(remove_all(METADATA, text).splitlines())
    return _tidy_lines(body)


NORMALIZERS: dict[str, Callable[[str], str]] = {
    "jaxpr": normalize_jaxpr,
    "mlir": normalize_mlir,
    "hlo": normalize_hlo,
}
"""The normalizer of each ``dialect`` named in the artifact table."""


def to_json(data: Any) -> str:
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
