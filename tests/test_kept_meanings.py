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
from pytest_stages.ir.renaming import equivalent, keep_names

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
CALLS = sorted(
    {path.parent.parent for path in SNAPSHOTS.rglob("*.compiled.hlo.txt")},
    key=str,
)
_NUMBERS = re.compile(r"[._]?\d+")  # a number and what joins it: "add.0.clone" and "add.clone.1" are both "add.clone"
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


def _swapped_computations(text: str) -> Iterator[str]:
    """``text`` with two adjacent computations that call neither one another defined in the other order
    and their numbers swapped (``%fused_computation.172``/``.173``, as XLA printed Gemma's ``up_proj``
    computed before ``gate_proj``), at the first, middle and last such pair."""
    lines = text.split("\n")
    blocks, start = [], None
    for k, line in enumerate(lines):
        header = hlo.parse_computation(line)
        if header is not None and not header.entry:
            start = (k, header.name)
        elif line.startswith("}") and start is not None:
            blocks.append((start[0], k + 1, start[1]))
            start = None
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(blocks)
        if a[1] + 1 == b[0]  # one blank line between them
        and _FIRST_NUMBER.match(a[2].lstrip("%"))
        and _NUMBERS.sub("", a[2]) == _NUMBERS.sub("", b[2])
        and f"{a[2]}\n" not in "\n".join(lines[b[0] : b[1]]) + "\n"
        and not re.search(rf"{re.escape(a[2])}(?![\w.\-])", "\n".join(lines[b[0] : b[1]]))
        and not re.search(rf"{re.escape(b[2])}(?![\w.\-])", "\n".join(lines[a[0] : a[1]]))
    ]
    for (a0, a1, a), (b0, b1, b) in {pairs[j] for j in (0, len(pairs) // 2, -1)} if pairs else ():
        moved = [*lines[:a0], *lines[b0:b1], *lines[a1:b0], *lines[a0:a1], *lines[b1:]]
        swapped = re.sub(rf"{re.escape(a)}(?![\w.\-])", "\0", "\n".join(moved))
        swapped = re.sub(rf"{re.escape(b)}(?![\w.\-])", a, swapped)
        yield swapped.replace("\0", b)


@pytest.mark.parametrize(
    "path",
    [path for path in sorted(SNAPSHOTS.rglob("*.compiled.hlo.txt")) if path.parent.name in ("cpu8", "v5e", "cpu1")],
    ids=lambda p: str(p.relative_to(SNAPSHOTS)),
)
def test_computations_defined_in_the_other_order_with_their_numbers_swapped_are_one_program(path: Path) -> None:
    """Issue #67: a reorder of two independent statements made XLA print two fused computations in the
    other order with their numbers swapped; that is the same program, and an update writes the snapshot."""
    old = path.read_text(encoding="utf-8")
    for new in _swapped_computations(old):
        assert new != old
        assert equivalent("hlo", old, new)
        assert keep_names("hlo", old, new) == old
