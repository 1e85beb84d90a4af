"""Op structure (``ops.json``): the diff of two op summaries, titled with what moved.

Collectives into or out of loops and across slices first, then op counts, fusions,
collectives and custom calls added or removed, entry shapes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_stages.check.collectives import (
    collective_deltas,
    dcn_changes,
    loop_collective_changes,
    op_change_summary,
    op_deltas,
)
from pytest_stages.check.drift import compare_text
from pytest_stages.core.records import Change, Compared, Finding, Pair

ENTRY_CHANGED = "entry shapes changed"


def compare_ops(
    expected: str,
    actual: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    diff_lines: int,
    loop_places: Sequence[str | None] = (),
) -> Finding | None:
    """``ops.json`` drift, its title naming what moved in the module's order; ``loop_places`` names where each
    loop of ``after`` was written (``examples/models.py:55 in rnn``)."""
    found = compare_text("ops", expected, actual, diff_lines=diff_lines)
    if found is None:
        return None
    opcodes = Counter(before.get("opcodes", {})), Counter(after.get("opcodes", {}))
    # Collectives that started crossing slices, then those that moved into loops: the headline leads with them.
    loops = dcn_changes(before, after) + loop_collective_changes(before, after, loop_places)
    moves = collective_deltas(before.get("collectives", []), after.get("collectives", []))
    custom = op_deltas(Counter(before.get("custom_calls", {})), Counter(after.get("custom_calls", {})))
    moves += [f"{delta:+d} custom-call {target}" for target, delta in custom.items()]
    fusions = before.get("fusion_count"), after.get("fusion_count")
    entry = before.get("entry", {}) != after.get("entry", {})
    ends = [f"fusions {fusions[0]} -> {fusions[1]}"] if fusions[0] != fusions[1] else [""]
    ends += [ENTRY_CHANGED] if entry else []
    summary = ", ".join(part for part in [*loops, op_change_summary(*opcodes), *ends[:1], *moves, *ends[1:]] if part)
    appeared = sorted(kind for kind in {*opcodes[0], *opcodes[1]} if not opcodes[0][kind] or not opcodes[1][kind])
    return replace(
        found,
        detail={**found.detail, "new_kinds": appeared} if found.detail else None,
        message=f"{found.message}: {summary}" if summary else found.message,
        change=Change.OPS,
        subject=ENTRY_CHANGED if entry else "",
        before=fusions[0] if fusions[0] != fusions[1] else None,
        after=fusions[1] if fusions[0] != fusions[1] else None,
        ops=op_deltas(*opcodes),
        moves=(*loops, *moves),
        locations=(),
    )


def op_structure(pair: Pair) -> Compared:
    """``ops.json``: the diff, titled with what moved."""
    places = pair.loop_places() if pair.loop_places is not None else ()
    found = compare_ops(
        pair.expected, pair.actual, pair.before, pair.after, diff_lines=pair.diff_lines, loop_places=places
    )
    return Compared([found] if found else [])
