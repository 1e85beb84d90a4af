"""A run's moved figures with their recent values from the snapshots' git history, for the Markdown report.

For each figure a call's comparison saw move (its ``deltas``), the values the last commits recorded and
this run's, as a sparkline and a short row: ``flops ▁▂█ 512 (80e496e) → 2048 (7e457bd) → 8192 (this run)``.
Only the moved calls' folders are read, over the last :data:`COMMITS` commits that touched them; where
there is no git or no repository the report simply has no trends (it is a convenience, never a failure).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_stages.analyse import step_time
from pytest_stages.analyse.analyses import figure_name
from pytest_stages.core.errors import StagesError
from pytest_stages.core.records import CallRecord
from pytest_stages.report.history_text import value_text
from pytest_stages.store.git_history import repository_root
from pytest_stages.store.history import Call, Series, read_history

# How many commits back a trend reaches, and how many of its values a row shows.
COMMITS = 20
SHOWN = 5
SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float]) -> str:
    """One block per value, its height the value's place between the lowest and the highest."""
    low, high = min(values), max(values)
    if high == low:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[round((v - low) / (high - low) * (len(SPARKS) - 1))] for v in values)


def _figure(metric: str) -> str:
    return step_time.SECONDS if metric == step_time.METRIC else figure_name(metric)


def _call(record: CallRecord) -> Call | None:
    parts = record.folder.split("/")
    return Call("/".join(parts[:-2]), parts[-2], parts[-1], record.name) if len(parts) >= 3 else None


def trend_lines(records: Sequence[CallRecord], snapshots: Path) -> list[str]:
    """One line per moved figure that has recorded values in git: sparkline and the last values, then this run's."""
    moved = [(record, metric) for record in records for metric in record.deltas if _call(record) is not None]
    if not moved:
        return []
    try:
        root = repository_root(snapshots)
        folder = snapshots.resolve().relative_to(Path(root).resolve()).as_posix()
        paths = sorted({f"{folder}/{record.folder}" for record, _ in moved})
        history = read_history(root, folder, {}, {}, max_count=COMMITS, paths=paths)
    except (StagesError, ValueError, OSError):  # no git, no repository, a folder outside it
        return []
    series: dict[tuple[Call, str], Series] = {(s.call, s.figure): s for s in history.series}
    lines = []
    for record, metric in moved:
        call, figure = _call(record), _figure(metric)
        found = series.get((call, figure)) if call else None
        if found is None:
            continue
        points = [
            (history.commits[p.commit].short if p.commit >= 0 else "before", p.value) for p in found.points[-SHOWN:]
        ]
        now = record.deltas[metric][1]
        values = [value for _, value in points] + [now]
        row = " → ".join(f"{value_text(figure, value)} ({where})" for where, value in points)
        lines.append(
            f"`{record.nodeid}` {record.name} on {record.config}: {figure} {sparkline(values)} {row} → "
            f"{value_text(figure, now)} (this run)"
        )
    return lines
