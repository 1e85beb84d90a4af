"""Text normalizers: stage text in, snapshot text out.

Each removes what changes between runs of the same program (source locations,
stack-frame tables, object addresses) and nothing else, so that a snapshot
changes only when the program does. All are pure, idempotent and total.
"""

from __future__ import annotations

import json
import re
from typing import Any

_HLO_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")
_HLO_NOISE_ATTRIBUTES = ("metadata",)
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
_LOC_DEFINITION = re.compile(r"^#loc\d*\s*=.*$\n?", re.MULTILINE)


def normalize_jaxpr(text: str) -> str:
    """Jaxpr text without object addresses (``<function f at 0x7f..>``)."""
    return _tidy(_ADDRESS.sub("at 0x?", text))


def normalize_mlir(text: str) -> str:
    """StableHLO text without ``loc(...)`` attributes and ``#loc`` definitions."""
    text = _LOC_DEFINITION.sub("", text)
    return _tidy(_remove_calls(text, " loc(", "(", ")"))


def normalize_hlo(text: str) -> str:
    """HLO text (lowered or compiled) without stack-frame tables and ``metadata={...}``."""
    lines = text.splitlines()
    kept: list[str] = []
    in_table = False
    for line in lines:
        if line.strip() in _HLO_TABLES:
            in_table = True
            continue
        if in_table:
            if not line.strip():
                in_table = False
            continue
        kept.append(line)
    text = "\n".join(kept)
    for attribute in _HLO_NOISE_ATTRIBUTES:
        text = _remove_calls(text, f", {attribute}={{", "{", "}")
    return _tidy(text)


def to_json(data: Any) -> str:
    """Canonical JSON for analyses: sorted keys, two-space indent, trailing newline."""
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _remove_calls(text: str, opener: str, open_char: str, close_char: str) -> str:
    """Drop every ``opener ... close_char`` span, honouring nesting and quoted strings."""
    out: list[str] = []
    position = 0
    while True:
        start = text.find(opener, position)
        if start < 0:
            out.append(text[position:])
            return "".join(out)
        out.append(text[position:start])
        position = _matching_close(text, start + len(opener), open_char, close_char)


def _matching_close(text: str, index: int, open_char: str, close_char: str) -> int:
    """Index just past the ``close_char`` that balances an already-open ``open_char``."""
    depth = 1
    in_string = False
    while index < len(text):
        char = text[index]
        if char == "\n":
            return index
        if in_string:
            if char == "\\":
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == open_char:
            depth += 1
        elif char == close_char:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return index


def _tidy(text: str) -> str:
    """Strip trailing spaces, fold runs of blank lines, end with exactly one newline."""
    lines = [line.rstrip() for line in text.splitlines()]
    folded: list[str] = []
    for line in lines:
        if not line and (not folded or not folded[-1]):
            continue
        folded.append(line)
    while folded and not folded[-1]:
        folded.pop()
    return "\n".join(folded) + "\n" if folded else ""
