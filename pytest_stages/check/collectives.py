"""Op and collective deltas between two programs, as the details and headlines write them.

Shared by the IR drift of HLO texts and the ``ops.json`` comparison: op counts that changed,
collectives added or removed, collectives that started crossing slices or moved into a loop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from pytest_stages.analyse.analyses import loop_entry
from pytest_stages.core.units import format_bytes
from pytest_stages.ir import hlo


def collective_deltas(before: Iterable[Mapping[str, Any]], after: Iterable[Mapping[str, Any]]) -> list[str]:
    """``+1 all-gather f32[8,32,64] (16.0 KiB)``: the collectives added and removed, not the whole lists."""
    old, new = Counter(collective_text(c) for c in before), Counter(collective_text(c) for c in after)
    return [f"+{n} {text}" for text, n in sorted((new - old).items())] + [
        f"-{n} {text}" for text, n in sorted((old - new).items())
    ]


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

    One that appears in a loop while the same kind leaves the code outside loops *moved* into it:
    ``all-gather moved into the while body of examples/models.py:55 in rnn (x 12 iterations): f32[1,64,64] (16.0 KiB)``.
    """
    outside = [_outside_loops(side) for side in (before, after)]
    old_loops, new_loops = before.get("loops", []), after.get("loops", [])
    lines = []
    for k in range(max(len(old_loops), len(new_loops))):
        loop = new_loops[k] if k < len(new_loops) else old_loops[k]
        where = places[k] if k < len(places) and places[k] else f"loop {k + 1}"
        trips = f" (x {loop['trip_count']} iterations)" if loop.get("trip_count") else ""
        old, new = (
            Counter(collective_text(c) for c in (side[k]["collectives"] if k < len(side) else []))
            for side in (old_loops, new_loops)
        )
        for text, n in sorted((new - old).items()):
            op = text.split(" ", 1)[0]
            moved = outside[1][op] < outside[0][op]
            lines.append(
                f"{op} moved into the while body of {where}{trips}: {text.split(' ', 1)[1]}"
                if moved
                else f"+{n} {text} in the while body of {where}{trips}"
            )
        lines += [f"-{n} {text} out of the while body of {where}" for text, n in sorted((old - new).items())]
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
