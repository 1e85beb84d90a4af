"""Op and collective deltas between two programs, as the details and headlines write them.

Shared by the IR drift of HLO texts and the ``ops.json`` comparison: op counts that changed,
collectives added or removed, collectives that started crossing slices or moved into a loop.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from pytest_stages.analyse.analyses import loop_entry
from pytest_stages.core.units import format_bytes
from pytest_stages.ir import hlo


def collective_deltas(before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]]) -> list[str]:
    """``+1 all-gather f32[8,32,64] (16.0 KiB)``: the collectives added and removed, not the whole lists.

    A collective of one kind that is gone while one of the same kind came is the same collective on other
    operands, not one more and one fewer: ``all-reduce operands f32[128,64] -> f32[192,64] (64.0 KiB -> 96.0
    KiB)`` (a count never reads +1 where it did not change), paired with the most alike of that kind (``x2``:
    two such). Only the added or removed remainder is counted.
    """
    changed, came, gone = _paired(before, after)
    return changed + [f"+{n} {text}" for text, n in came] + [f"-{n} {text}" for text, n in gone]


def _paired(
    before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]]
) -> tuple[list[str], list[tuple[str, int]], list[tuple[str, int]]]:
    """:func:`collective_deltas`' parts: the collectives on other operands, then those that came and went, counted."""
    old, new = (Counter(_key(c) for c in side) for side in (before, after))
    gone, came = _by_op(old - new), _by_op(new - old)
    changed: Counter[str] = Counter()
    for op in sorted(gone.keys() & came.keys()):
        while gone[op] and came[op]:
            old_key = gone[op].pop(0)
            new_key = max(came[op], key=lambda key: _alike(old_key[1], key[1]))  # the first of the most alike
            came[op].remove(new_key)
            changed[_operands_change(op, old_key, new_key)] += 1
    return (
        [text + (f" x{n}" if n > 1 else "") for text, n in changed.items()],
        [(collective_text(c), n) for c, n in _counted(came)],
        [(collective_text(c), n) for c, n in _counted(gone)],
    )


# A collective as compared: its op, shape and bytes.
_Key = tuple[str, str, int]


def _key(collective: Mapping[str, Any]) -> _Key:
    return collective["op"], collective["shape"], collective["bytes"]


def _by_op(collectives: Counter[_Key]) -> dict[str, list[_Key]]:
    """Each op kind's collectives, one entry per occurrence, in the order of their text."""
    grouped: dict[str, list[_Key]] = {}
    for key in sorted(collectives.elements(), key=lambda k: collective_text(_as_dict(k))):
        grouped.setdefault(key[0], []).append(key)
    return grouped


def _counted(grouped: Mapping[str, Sequence[_Key]]) -> list[tuple[Mapping[str, Any], int]]:
    """The collectives left unpaired, each once with its count, in the order of their text."""
    counts = Counter(key for keys in grouped.values() for key in keys)
    return sorted(((_as_dict(k), n) for k, n in counts.items()), key=lambda item: collective_text(item[0]))


def _as_dict(key: _Key) -> dict[str, Any]:
    return {"op": key[0], "shape": key[1], "bytes": key[2]}


def _alike(old: str, new: str) -> tuple[bool, bool, bool]:
    """How alike two collective shapes are: as many tuple elements, the same element types, the same ranks."""
    before, after = hlo.tuple_elements(old), hlo.tuple_elements(new)
    return (
        len(before) == len(after),
        [e.split("[", 1)[0] for e in before] == [e.split("[", 1)[0] for e in after],
        [e.count(",") for e in before] == [e.count(",") for e in after],
    )


def _operands_change(op: str, old: _Key, new: _Key) -> str:
    """``all-reduce operands f32[128,64] -> f32[192,64] (64.0 KiB -> 96.0 KiB)``: of tuples of one arity, each
    element that differs, the same change once with its count (``f32[256] -> f32[384] x6``), the first
    :data:`OPERANDS_SHOWN` of them; HLO's ``/*index=5*/`` markers left out."""
    before, after = ([_INDEX.sub("", e) for e in hlo.tuple_elements(side[1])] for side in (old, new))
    if len(before) == len(after) > 1:
        changes = Counter(f"{a} -> {b}" for a, b in zip(before, after, strict=True) if a != b)
        parts = [text + (f" x{n}" if n > 1 else "") for text, n in changes.items()]
        more = [f"+{len(parts) - OPERANDS_SHOWN} more"] if len(parts) > OPERANDS_SHOWN else []
        shapes = ", ".join(parts[:OPERANDS_SHOWN] + more)
    else:
        shapes = f"{', '.join(before)} -> {', '.join(after)}"
    return f"{op} operands {shapes} ({format_bytes(old[2])} -> {format_bytes(new[2])})"


OPERANDS_SHOWN = 3
# HLO's position marker in a long tuple shape: ``/*index=5*/f32[4]``.
_INDEX = re.compile(r"/\*index=\d+\*/")


def op_deltas(before: Counter[str], after: Counter[str]) -> dict[str, int]:
    """``{"add": -18, "mul": 2}``: the op kinds whose count changed, by name."""
    return {
        name: after[name] - before[name] for name in sorted(set(before) | set(after)) if after[name] != before[name]
    }


def op_change_summary(before: Counter[str], after: Counter[str]) -> str:
    """``+1 multiply, -2 add`` (empty when the op counts are equal)."""
    return ", ".join(f"{delta:+d} {name}" for name, delta in op_deltas(before, after).items())


def dcn_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Collectives that started crossing slices, else DCN bytes that grew (``ops.json``'s ``networks``).

    ``all-reduce bf16[2048,8192] now crosses slices: +32.0 MiB over DCN``; ``DCN bytes 1.0 MiB -> 3.0 MiB (+2.0 MiB)``.
    """
    old, new = (side.get("networks", {}).get("dcn", {}) for side in (before, after))
    if not new:
        return []
    seen = Counter((c["op"], c["shape"]) for c in old.get("collectives", []))
    lines = []
    for collective in new.get("collectives", []):
        key = (collective["op"], collective["shape"])
        if seen[key] > 0:
            seen[key] -= 1
        else:
            lines.append(f"{key[0]} {key[1]} now crosses slices: +{format_bytes(collective['bytes'])} over DCN")
    grown = new.get("bytes", 0) - old.get("bytes", 0)
    if not lines and grown > 0:
        lines.append(
            f"DCN bytes {format_bytes(old.get('bytes', 0))} -> {format_bytes(new['bytes'])} (+{format_bytes(grown)})"
        )
    return lines


def loop_collective_changes(
    before: Mapping[str, Any], after: Mapping[str, Any], places: Sequence[str | None] = ()
) -> list[str]:
    """Collectives that came into or left a loop body (``ops.json``'s ``loops``, matched by position).

    One on other operands is said so (:func:`collective_deltas`), never one more and one fewer. One that
    appears in a loop while the same kind leaves the code outside loops *moved* into it:
    ``all-gather moved into the while body of examples/models.py:55 in rnn (x 12 iterations): f32[1,64,64] (16.0 KiB)``.
    """
    outside = [_outside_loops(side) for side in (before, after)]
    old_loops, new_loops = before.get("loops", []), after.get("loops", [])
    lines = []
    for k in range(max(len(old_loops), len(new_loops))):
        loop = new_loops[k] if k < len(new_loops) else old_loops[k]
        where = places[k] if k < len(places) and places[k] else f"loop {k + 1}"
        trips = f" (x {loop['trip_count']} iterations)" if loop.get("trip_count") else ""
        changed, came, gone = _paired(
            *(side[k]["collectives"] if k < len(side) else [] for side in (old_loops, new_loops))
        )
        lines += [f"{text} in the while body of {where}{trips}" for text in changed]
        for text, n in came:
            op = text.split(" ", 1)[0]
            moved = outside[1][op] < outside[0][op]
            lines.append(
                f"{op} moved into the while body of {where}{trips}: {text.split(' ', 1)[1]}"
                if moved
                else f"+{n} {text} in the while body of {where}{trips}"
            )
        lines += [f"-{n} {text} out of the while body of {where}" for text, n in gone]
    return lines


def _outside_loops(ops: Mapping[str, Any]) -> Counter[str]:
    """Collectives by kind outside every loop body: all of them less those the loops run."""
    inside = Counter(c["op"] for loop in ops.get("loops", []) for c in loop["collectives"])
    return Counter(c["op"] for c in ops.get("collectives", [])) - inside


def loop_view(text: str) -> dict[str, Any]:
    """The part of ``ops.json`` that :func:`loop_collective_changes` reads, from an HLO text."""
    return {
        "collectives": [asdict(c) for c in hlo.collectives(text)],
        "loops": [loop_entry(loop) for loop in hlo.loops(text)],
    }


def collective_text(collective: Mapping[str, Any]) -> str:
    """``all-gather f32[8,32,64] (16.0 KiB)``."""
    return f"{collective['op']} {collective['shape']} ({format_bytes(collective['bytes'])})"
