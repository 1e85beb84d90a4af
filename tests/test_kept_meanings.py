"""No kept name of another meaning: an update writes a snapshot's name only for an instruction of the
same kind (issue #67: ``%copy.83 = ... fusion(...)`` kept after a donation, ``%gt.1 = ... direction=LT``
after argmax -> argmin).

A property over updates of the committed snapshots: every name the written text shares with the
snapshot stands for an instruction with the same name stem, opcode, comparison direction and callees
in both.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_stages.ir import hlo
from pytest_stages.ir.alpha import equivalent
from pytest_stages.ir.rename import keep_names

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
CALLS = sorted(
    {path.parent.parent for path in SNAPSHOTS.rglob("*.compiled.hlo.txt")},
    key=str,
)
_NUMBERS = re.compile(r"\d+")
_DIRECTION = re.compile(r"\bdirection=(\w+)")
_CALLEE = re.compile(r"\b(?:calls|to_apply|body|condition)=%?([\w.\-]+)")
_OP_EDITS = {"multiply": "add", "add": "multiply", "subtract": "add", "maximum": "minimum", "minimum": "maximum"}
_DIRECTIONS = {"GT": "LT", "LT": "GT", "GE": "LE", "LE": "GE", "EQ": "NE", "NE": "EQ"}


def _meanings(text: str) -> dict[str, tuple[str, ...]]:
    """Each instruction name's stem, opcode, direction and callee stems, read line by line."""
    found = {}
    for line in text.split("\n"):
        instruction = hlo.parse_instruction(line)
        if instruction is None:
            continue
        name = instruction.name.lstrip("%")
        direction = _DIRECTION.search(instruction.rest)
        callees = tuple(_NUMBERS.sub("", callee) for callee in _CALLEE.findall(instruction.rest))
        found[name] = (_NUMBERS.sub("", name), instruction.opcode, direction[1] if direction else "", *callees)
    return found


def _edits(text: str) -> Iterator[str]:
    """One-instruction updates as XLA writes them: an opcode or a comparison's direction changed, the
    instruction named after its new opcode or direction (``%multiply.4`` -> ``%add.4``, ``%gt.1`` ->
    ``%lt.1``), at the first, middle and last site."""
    lines = text.split("\n")
    sites = []
    for k, line in enumerate(lines):
        instruction = hlo.parse_instruction(line)
        if instruction is None or "%" not in instruction.name:
            continue
        stem = _NUMBERS.sub("", instruction.name.lstrip("%")).rstrip(".")
        direction = _DIRECTION.search(instruction.rest)
        if instruction.opcode in _OP_EDITS and stem == instruction.opcode:
            new = _OP_EDITS[instruction.opcode]
            sites.append((k, f"{instruction.opcode}(", f"{new}(", stem, new))
        elif direction is not None and stem == direction[1].lower():
            new = _DIRECTIONS[direction[1]]
            sites.append((k, f"direction={direction[1]}", f"direction={new}", stem, new.lower()))
    for k, old_op, new_op, stem, new_stem in {sites[j] for j in (0, len(sites) // 2, -1)} if sites else ():
        name = hlo.parse_instruction(lines[k]).name  # type: ignore[union-attr]
        renamed = name.replace(stem, new_stem, 1)
        edited = [*lines]
        edited[k] = edited[k].replace(old_op, new_op, 1)
        yield re.sub(rf"{re.escape(name)}(?![\w.\-])", renamed, "\n".join(edited))


def _updates(call: Path) -> Iterator[tuple[str, str, str]]:
    """(what, snapshot, fresh text) pairs of one call: each config's compiled HLO against another
    config's (another compile of the same program), and against its one-instruction edits."""
    texts = {path.parent.name: path.read_text(encoding="utf-8") for path in sorted(call.glob("*/*.compiled.hlo.txt"))}
    for (a, old), (b, new) in itertools.permutations(texts.items(), 2):
        yield f"{a} -> {b}", old, new
    for config, text in texts.items():
        for k, edited in enumerate(_edits(text)):
            yield f"{config} edit {k}", text, edited


@pytest.mark.parametrize("call", CALLS, ids=lambda p: str(p.relative_to(SNAPSHOTS)))
def test_a_kept_name_stands_for_an_instruction_of_the_same_meaning(call: Path) -> None:
    for what, old, new in _updates(call):
        written = keep_names("hlo", old, new)
        assert equivalent("hlo", written, new), what
        before, after = _meanings(old), _meanings(written)
        lies = {
            name: (before[name], after[name]) for name in before.keys() & after.keys() if before[name] != after[name]
        }
        assert not lies, (what, sorted(lies.items())[:3])


_FIRST_NUMBER = re.compile(r"^([A-Za-z_]+[._])(\d+)")
_CONSTANT = re.compile(r"(?<= constant\()(\d+)(?=\))")


def _computations(text: str) -> list[str]:
    return [header.name.lstrip("%") for header in map(hlo.parse_computation, text.split("\n")) if header is not None]


@pytest.mark.parametrize(
    "path",
    [path for path in sorted(SNAPSHOTS.rglob("*.compiled.hlo.txt")) if _CONSTANT.search(path.read_text("utf-8"))][::3],
    ids=lambda p: str(p.relative_to(SNAPSHOTS)),
)
def test_renumbered_computations_keep_their_snapshot_numbers(path: Path) -> None:
    """An update renumbers XLA's computations and regions (``%fused_computation.155.clone.1`` -> ``.143``,
    ``region_216`` -> ``region_260``): the written text keeps every snapshot number, and only the
    changed constant's line differs."""
    old = path.read_text(encoding="utf-8")
    new = old
    for name in sorted(_computations(old), key=len, reverse=True):
        bumped = _FIRST_NUMBER.sub(lambda m: f"{m[1]}{int(m[2]) + 1000}", name)
        new = re.sub(rf"(?<=%){re.escape(name)}(?![\w.\-])", bumped, new)
    new = _CONSTANT.sub(lambda m: str(int(m[1]) + 1), new, count=1)
    assert set(_computations(new)) != set(_computations(old))
    written = keep_names("hlo", old, new)
    assert equivalent("hlo", written, new)
    assert set(_computations(written)) == set(_computations(old))
    changed = [line for line in difflib.unified_diff(old.split("\n"), written.split("\n"), lineterm="", n=0)]
    assert len(changed) == 2 + 3, changed  # the headers, the hunk's, the old and the new constant line
