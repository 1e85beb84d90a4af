"""Renderings of an edit script (``ir/textdiff.py``): unified hunks, side-by-side rows for reports, and
the source lines the changed lines come from."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence

from pytest_stages.core.records import DiffRow
from pytest_stages.ir.textdiff import EditScript, Row

CONTEXT = 2


def hunks(script: EditScript, context: int = CONTEXT) -> list[list[Row]]:
    """Runs of single-line rows around the changes, with ``context`` unchanged lines either side; a row
    whose text is the same on both sides (:meth:`EditScript.same_text`) is one of the unchanged lines."""
    groups: list[list[Row]] = []
    current: list[Row] | None = None
    rows = [Row("=", row.old, row.new) if script.same_text(row) else row for row in script.rows]
    for k, row in enumerate(rows):
        if row.tag != "=":
            if current is None:
                before = rows[k - 1] if k else None
                current = _lines(before, last=context) if before and before.tag == "=" else []
                groups.append(current)
            current.append(row)
        elif current is not None:
            if k < len(rows) - 1 and row.count <= 2 * context:
                current += _lines(row)
            else:
                current += _lines(row, first=context)
                current = None
    return groups


def _lines(run: Row, *, first: int | None = None, last: int | None = None) -> list[Row]:
    """An unchanged run as single-line rows: all of it, its ``first`` n or its ``last`` n lines."""
    assert run.old is not None and run.new is not None  # an unchanged run has both sides
    start, stop = 0, run.count
    if first is not None:
        stop = min(first, run.count)
    if last is not None:
        start = max(0, run.count - last)
    return [Row("=", run.old + k, run.new + k) for k in range(start, stop)]


def unified(script: EditScript, limit: int, *, header: bool = True) -> list[str]:
    """At most ``limit`` lines of unified diff (real names shown), and how many more there were.

    ``header=False`` leaves out the ``--- snapshot`` / ``+++ staged`` lines, for a caller
    that names both sides itself (syrupy's ``[- snapshot] == [+ received]``).
    """
    shown, hidden = unified_cut(script, limit, header=header)
    if hidden:
        shown.append(more_lines(hidden))
    return shown


def unified_cut(script: EditScript, limit: int, *, header: bool = True) -> tuple[list[str], int]:
    """The first ``limit`` lines of unified diff, and how many lines were left out."""
    lines = _unified_lines(script)
    if not header:
        lines = itertools.islice(lines, 2, None)
    shown = list(itertools.islice(lines, limit))
    return shown, sum(1 for _ in lines)


def more_lines(hidden: int) -> str:
    """``... 14 more diff lines``."""
    return f"... {hidden} more diff lines"


def _unified_lines(script: EditScript) -> Iterator[str]:
    yield "--- snapshot"
    yield "+++ staged"
    for group in hunks(script):
        old_rows = [r.old for r in group if r.old is not None]
        new_rows = [r.new for r in group if r.new is not None]
        yield f"@@ -{_span(old_rows)} +{_span(new_rows)} @@"
        for changed, rows in itertools.groupby(group, key=lambda r: r.tag != "="):
            run = list(rows)
            if not changed:
                yield from (f" {script.new[r.new]}" for r in run if r.new is not None)
                continue
            yield from (f"-{script.old[r.old]}" for r in run if r.old is not None)
            yield from (f"+{script.new[r.new]}" for r in run if r.new is not None)


def _span(indexes: list[int]) -> str:
    if not indexes:
        return "0,0"
    return f"{indexes[0] + 1},{len(indexes)}" if len(indexes) != 1 else str(indexes[0] + 1)


def side_by_side(script: EditScript, limit: int, locations: Sequence[str | None] = ()) -> list[list[DiffRow]]:
    """Hunks for a two-column view, JSON-ready; a changed line sits beside its old version.

    Each hunk is a list of rows ``[tag, old_number, old_text, new_number, new_text, source]``
    (1-based numbers; None and "" where a side has no line; ``source`` is the staged line's
    location or None). At most ``limit`` rows in all.
    """
    out: list[list[DiffRow]] = []
    budget = limit
    for group in hunks(script, context=3):
        if budget <= 0:
            break
        out.append(
            [
                (
                    row.tag,
                    None if row.old is None else row.old + 1,
                    "" if row.old is None else script.old[row.old],
                    None if row.new is None else row.new + 1,
                    "" if row.new is None else script.new[row.new],
                    locations[row.new] if row.new is not None and row.new < len(locations) else None,
                )
                for row in group[:budget]
            ]
        )
        budget -= len(group)
    return out


def sources(script: EditScript, locations: Sequence[str | None]) -> list[tuple[str, dict[str, int]]]:
    """Where the changed lines come from: ``[(location, {"added": n, "changed": n, "removed": n})]``.

    Added and changed lines carry their own location; a removed line is charged to the
    location of the nearest staged line after it (the code around the removal).
    """
    found: dict[str, Counter[str]] = {}
    pending_removed = 0
    for row in script.rows:
        where = locations[row.new] if row.new is not None and row.new < len(locations) else None
        if row.tag == "-":
            pending_removed += 1
            continue
        if row.tag in "+~" and where:
            found.setdefault(where, Counter())["added" if row.tag == "+" else "changed"] += 1
        if pending_removed and where:
            found.setdefault(where, Counter())["removed"] += pending_removed
            pending_removed = 0
    return [(where, dict(counts)) for where, counts in found.items()]


def describe_sources(found: Sequence[tuple[str, dict[str, int]]], limit: int = 5) -> str:
    """``examples/model.py:42 in attention (1 added, 1 changed); ...`` for a failure message."""
    parts = []
    for where, counts in found[:limit]:
        what = ", ".join(f"{counts[k]} {k}" for k in ("added", "changed", "removed") if counts.get(k))
        parts.append(f"{where} ({what})")
    more = len(found) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
