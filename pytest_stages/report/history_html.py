"""A read history as one self-contained HTML page: per call, an SVG chart of each figure over the commits (pure).

No script and no network, like the review page: each chart is hand-written SVG, with a marker at each
commit that moved the figure beyond its tolerance, the commit's short hash and subject beside it, and the
``stages_budget`` ceiling drawn as a dashed line where the project's pyproject sets one.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Callable, Sequence

from pytest_stages.report.history_text import change_text, paragraphs, read_line, short_subject, value_text
from pytest_stages.store.history import BEFORE, Call, History, Move, Series

# How every page this module writes begins: a file that begins otherwise is not replaced.
HEAD = '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>pytest-stages history</title>'
# The figures charted for every call, moved or not; any other figure is charted once it changed.
ALWAYS = ("flops", "bytes_accessed", "peak_bytes", "estimated_seconds")
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 760, 190, 70, 230, 14, 26
_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 4px; font-family: ui-monospace, monospace; }
.meta, .note { color: #59636e; }
.call { border: 1px solid #d1d9e0; border-radius: 6px; padding: 4px 16px 12px; margin: 16px 0; }
svg { display: block; margin: 6px 0; } svg text { font: 11px system-ui, sans-serif; fill: #1f2328; }
svg .axis { stroke: #8c959f; } svg .line { fill: none; stroke: #0969da; stroke-width: 2; }
svg .point { fill: #0969da; } svg .rise { fill: #cf222e; } svg .fall { fill: #1a7f37; }
svg .ceiling { stroke: #9a6700; stroke-dasharray: 6 4; } svg text.subject { fill: #59636e; }
table.commits td { padding: 0 8px; font-size: 12px; } table.commits td.sha { font-family: ui-monospace, monospace; }
"""


def charted(series: Series, moved: set[tuple[Call, str]]) -> bool:
    """Whether a figure gets a chart: one of :data:`ALWAYS`, one that changed or moved, or one with a ceiling."""
    return (
        series.figure in ALWAYS
        or len(series.points) > 1
        or (series.call, series.figure) in moved
        or series.ceiling is not None
    )


def page(history: History, series: Sequence[Series], moves: Sequence[Move], seconds: float) -> str:
    """The page: what was read, one section per call with its charts, the notes, the commits listed."""
    moved = {(m.call, m.figure) for m in moves}
    by_call: dict[Call, list[Series]] = defaultdict(list)
    for one in series:
        if charted(one, moved):
            by_call[one.call].append(one)
    sections = []
    for call in sorted(by_call):
        charts = "".join(
            _chart(history, one, [m for m in moves if m.call == call and m.figure == one.figure])
            for one in by_call[call]
        )
        sections.append(f'<div class="call"><h2>{html.escape(call.label)}</h2>{charts}</div>')
    notes = "".join(f'<p class="note">{html.escape(note)}</p>' for note in [*paragraphs(history), *history.notes])
    rows = "".join(
        f'<tr><td class="sha">{c.short}</td><td>{html.escape(c.date[:10])}</td><td>{html.escape(c.subject)}</td></tr>'
        for c in reversed(history.commits)
    )
    return (
        f"{HEAD}<style>{_STYLE}</style></head><body><h1>pytest-stages history</h1>"
        f'<div class="meta">{html.escape(read_line(history, seconds))}; {len(moves)} move(s) beyond tolerance</div>'
        f"{notes}{''.join(sections) or '<p>No call selected has figures in this history.</p>'}"
        f'<h2>Commits</h2><table class="commits">{rows}</table></body></html>\n'
    )


def _chart(history: History, series: Series, moves: Sequence[Move]) -> str:
    """One figure's SVG: a step line over the commits, a marker and subject at each move, the ceiling dashed."""
    first = min(0, *(p.commit for p in series.points))  # every chart spans the commits read
    last = max(len(history.commits) - 1, first + 1)
    values = [p.value for p in series.points] + ([series.ceiling] if series.ceiling is not None else [])
    low, high = min(values), max(values)
    if high == low:
        low, high = low - (abs(low) or 1) * 0.1, high + (abs(high) or 1) * 0.1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(commit: int) -> float:
        return LEFT + plot_w * (commit - first) / (last - first)

    def y(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    path = []
    for i, point in enumerate(series.points):
        end = series.points[i + 1].commit if i + 1 < len(series.points) else last
        path.append(f"{'M' if i == 0 else 'L'}{x(point.commit):.1f},{y(point.value):.1f} H{x(end):.1f}")
    top, bottom = html.escape(value_text(series.figure, high)), html.escape(value_text(series.figure, low))
    parts = [
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}"/>',
        f'<line class="axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}"/>',
        f'<text x="{LEFT - 4}" y="{TOP + 10}" text-anchor="end">{top}</text>',
        f'<text x="{LEFT - 4}" y="{TOP + plot_h}" text-anchor="end">{bottom}</text>',
        f'<text x="{LEFT}" y="{HEIGHT - 8}">{_commit_label(history, first)}</text>',
        f'<text x="{LEFT + plot_w}" y="{HEIGHT - 8}" text-anchor="end">{_commit_label(history, last)}</text>',
        f'<path class="line" d="{" ".join(path)}"/>',
    ]
    if series.ceiling is not None:
        at = y(series.ceiling)
        shown = html.escape(value_text(series.figure, series.ceiling))
        parts.append(f'<line class="ceiling" x1="{LEFT}" y1="{at:.1f}" x2="{LEFT + plot_w}" y2="{at:.1f}"/>')
        parts.append(f'<text x="{LEFT + plot_w + 4}" y="{at + 4:.1f}">stages_budget ceiling {shown}</text>')
    for point in series.points:
        commit = history.commits[point.commit] if point.commit != BEFORE else None
        title = f"{commit.short} {commit.subject}: " if commit else "before the commits read: "
        parts.append(
            f'<circle class="point" cx="{x(point.commit):.1f}" cy="{y(point.value):.1f}" r="3">'
            f"<title>{html.escape(title + value_text(series.figure, point.value))}</title></circle>"
        )
    parts += _move_marks(history, moves, x, y)
    title = html.escape(f"{series.figure}: {series.call.label}")
    return (
        f"<h3>{html.escape(series.figure)}</h3>"
        f'<svg width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{title}">'
        f"{''.join(parts)}</svg>"
    )


def _move_marks(
    history: History, moves: Sequence[Move], x: Callable[[int], float], y: Callable[[float], float]
) -> list[str]:
    """Each move's marker (rising or falling) and its commit's subject beside it, away from the chart's edge."""
    plot_w = WIDTH - LEFT - RIGHT
    marks = []
    for n, move in enumerate(moves):
        commit = history.commits[move.commit]
        cx, cy = x(move.commit), y(move.new)
        label = f"{commit.short} {change_text(move.change)} {short_subject(commit.subject, 34)}"
        anchor = "end" if cx > LEFT + plot_w * 0.6 else "start"
        dx = -8 if anchor == "end" else 8
        marks.append(
            f'<circle class="{"rise" if move.new > move.old else "fall"}" cx="{cx:.1f}" cy="{cy:.1f}" r="6">'
            f"<title>{html.escape(f'{commit.short} {commit.subject}')}</title></circle>"
            f'<text class="subject" x="{cx + dx:.1f}" y="{_label_y(cy, n):.1f}" text-anchor="{anchor}">'
            f"{html.escape(label)}</text>"
        )
    return marks


def _label_y(cy: float, n: int) -> float:
    """Where the ``n``-th move's label goes: above its marker, staggered, or below it near the top of the chart."""
    above = cy - 8 - 12 * (n % 3)
    return above if above >= TOP + 10 else cy + 18 + 12 * (n % 3)


def _commit_label(history: History, index: int) -> str:
    if index == BEFORE or not history.commits:
        return "before"
    return html.escape(history.commits[min(index, len(history.commits) - 1)].short)
