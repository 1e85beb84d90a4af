"""The review page: report data in, one self-contained HTML page out (no scripts, no network).

For each call that drifted it shows the structural summary, where in the source
the changed ops come from, a side-by-side diff with IR syntax colouring, the
cost deltas, and the other findings.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from pytest_stages.analyse.artifacts import headline_rank
from pytest_stages.check.drift import REPORT_ROWS, removed_line
from pytest_stages.check.figure_text import metric_short, percent_change
from pytest_stages.check.recompiles import explanation_lines
from pytest_stages.check.upgrade import SECTION_TITLE, upgrade_section
from pytest_stages.core.records import CallRecord, DiffRow, DriftDetail, Kind, Mode
from pytest_stages.core.text import shown
from pytest_stages.core.units import format_number

# Tokens of an IR line to colour: names (``%x.1``, ``@main``), types (``f32[8]{0}``, ``tensor<4xf32>``),
# ops (``fusion(``, ``stablehlo.add``), strings and numbers.
_TOKEN = re.compile(
    r"(?P<name>[%@^][\w$.\-#]+)"
    r"|(?P<type>\b(?:pred|bf16|[fsuc]\d+|f8\w*|token)\[[^\]]*\](?:\{[^}]*\})?|tensor<[^>]*>|!\w+(?:\.\w+)*(?:<[^>]*>)?)"
    r"|(?P<op>\b[a-z][\w\-]*(?:\.[a-z_][\w.]*)?(?=\()|\bstablehlo\.[a-z_]\w*|\bfunc\.\w+|\bROOT\b|\bENTRY\b)"
    r"|(?P<string>\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<number>(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?\b)"
)
_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 6px; }
h3 { font-size: 15px; margin: 16px 0 6px; font-family: ui-monospace, monospace; }
.meta { color: #59636e; margin-bottom: 16px; }
table { border-collapse: collapse; }
.summary td, .summary th, .deltas td, .deltas th { border: 1px solid #d1d9e0; padding: 3px 8px; text-align: left; }
.summary th, .deltas th { background: #f6f8fa; }
.st-changed, .st-over { color: #cf222e; font-weight: 600; } .st-improved { color: #1a7f37; }
.st-new, .st-written { color: #9a6700; } .st-skipped, .st--, .st-ok { color: #59636e; }
.call { border: 1px solid #d1d9e0; border-radius: 6px; padding: 4px 16px 12px; margin: 16px 0; }
ul.structure { margin: 4px 0; padding-left: 20px; }
.source { color: #0550ae; }
table.diff { width: 100%; table-layout: fixed; margin: 6px 0;
  font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
table.diff td { padding: 0 6px; white-space: pre-wrap; word-break: break-all; vertical-align: top; }
table.diff td.no { width: 3.5em; color: #8c959f; text-align: right; user-select: none; }
table.diff td.loc { width: 16em; color: #0550ae; font-family: system-ui, sans-serif; font-size: 11px; }
table.diff tr.gap td { background: #ddf4ff; color: #59636e; }
td.del { background: #ffebe9; } td.add { background: #e6ffec; }
td.del.no { background: #ffd7d5; } td.add.no { background: #ccffd8; }
.t-name { color: #6639ba; } .t-type { color: #0550ae; } .t-op { color: #cf222e; font-weight: 600; }
.t-string { color: #0a3069; } .t-number { color: #953800; }
.finding { margin: 2px 0; }
.upgrade { border: 1px solid #d4a72c; background: #fff8c5; border-radius: 6px; padding: 4px 16px; margin: 12px 0; }
.upgrade li.figure { margin-left: 20px; font-family: ui-monospace, monospace; font-size: 12px; }
"""


def page(
    calls: Sequence[CallRecord],
    rows: Sequence[Sequence[str]],
    environment: Mapping[str, str],
    mode: Mode,
    baseline: Sequence[CallRecord] = (),
) -> str:
    """The whole page for a run's calls, its summary table rows, versions and mode, and the baseline report's calls."""
    # Every call with something to say: drift, an improvement, a finding this run did not enforce.
    drifted = [call for call in calls if any(f.kind != Kind.SKIPPED for f in call.findings)]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>pytest-stages review</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>pytest-stages review</h1>",
        f'<div class="meta">jax {_e(environment["jax"])}, jaxlib {_e(environment["jaxlib"])}; '
        f"{mode} mode; {len(calls)} call(s), {len(drifted)} with findings</div>",
        _upgrade(upgrade_section(calls, baseline)),
        _summary_table(rows),
    ]
    if not drifted:
        parts.append("<p>No drift: every staged artifact matches its snapshot.</p>")
    for call in sorted(drifted, key=lambda call: not any(f.failing for f in call.findings)):
        parts.append(_call_section(call))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _upgrade(lines: Sequence[str]) -> str:
    if not lines:
        return ""
    items = "".join(
        f'<li class="figure">{_e(line.strip())}</li>' if line.startswith(" ") else f"<li>{_e(line)}</li>"
        for line in lines
    )
    return f'<section class="upgrade"><h2>{_e(SECTION_TITLE)}</h2><ul>{items}</ul></section>'


def _summary_table(rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{_e(cell)}</th>" for cell in rows[0])
    body = []
    for row in rows[1:]:
        cells = [f"<td>{_e(cell)}</td>" for cell in row[:3]]
        cells += [f'<td class="st-{_e(cell)}">{_e(cell)}</td>' for cell in row[3:-2]]
        cells += [f"<td>{_e(cell)}</td>" for cell in row[-2:]]  # deltas, seconds
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="summary"><tr>{head}</tr>' + "".join(body) + "</table>"


def _call_section(call: CallRecord) -> str:
    parts = [
        '<section class="call">',
        f"<h2>{_e(call.nodeid)} &middot; {_e(call.name)} &middot; config {_e(call.config)}</h2>",
        f'<div class="meta">snapshots in {_e(call.folder)}</div>',
    ]
    if call.versions:
        parts.append(f'<div class="meta">note: {_e(call.versions)}</div>')
    shown = [f for f in call.findings if f.kind != Kind.SKIPPED]
    for finding in sorted(shown, key=lambda f: (not f.failing, headline_rank(f.artifact))):
        if finding.detail:
            parts.append(_drift(finding.artifact, finding.detail))
            continue
        extra = "".join(f"<br>{_e(line.strip())}" for line in explanation_lines(finding.explanations))
        mark = "" if finding.failing else " (passes)"
        parts.append(f'<div class="finding"><b>{_e(finding.artifact)}</b>{mark}: {_e(finding.message)}{extra}</div>')
    if call.deltas:
        parts.append(_deltas(call.deltas))
    parts.append("</section>")
    return "\n".join(parts)


def _drift(artifact: str, detail: DriftDetail) -> str:
    parts = [f"<h3>{_e(artifact)}: IR drift</h3>", '<ul class="structure">']
    parts += [f"<li>{_e(line)}</li>" for line in detail["summary"]]
    parts += [f"<li>{_e(removed_line(detail['removed']))}</li>"] if detail.get("removed") else []
    for place, counts in detail["sources"]:
        what = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        parts.append(f'<li class="source">{_e(place)}: {_e(what)}</li>')
    parts += [
        "</ul>",
        '<table class="diff">',
        '<colgroup><col style="width:3.5em"><col><col style="width:3.5em"><col><col style="width:16em"></colgroup>',
    ]
    for hunk in detail["hunks"]:
        if hunk:
            parts.append(
                f'<tr class="gap"><td colspan="5">@@ line {hunk[0][1] or "-"} &rarr; {hunk[0][3] or "-"}</td></tr>'
            )
        parts += [_diff_row(row) for row in hunk]
    if detail["truncated"]:
        parts.append(
            f'<tr class="gap"><td colspan="5">... more than {REPORT_ROWS} rows: '
            "<code>pytest-stages diff</code> of the two files shows them all</td></tr>"
        )
    parts.append("</table>")
    return "\n".join(parts)


def _diff_row(row: DiffRow) -> str:
    tag, old_no, old_text, new_no, new_text, source = row
    old_class = " del" if tag in "-~" else ""
    new_class = " add" if tag in "+~" else ""
    return (
        f'<tr class="r{"=-+~".index(tag)}"><td class="no{old_class}">{old_no or ""}</td>'
        f'<td class="{old_class.strip()}">{highlight(old_text)}</td>'
        f'<td class="no{new_class}">{new_no or ""}</td><td class="{new_class.strip()}">{highlight(new_text)}</td>'
        f'<td class="loc">{_e(source) if source and tag != "=" else ""}</td></tr>'
    )


def _deltas(deltas: Mapping[str, Sequence[float]]) -> str:
    rows = ["<tr><th>metric</th><th>snapshot</th><th>staged</th><th>change</th></tr>"]
    for metric, (old, new) in sorted(deltas.items()):
        rows.append(
            f"<tr><td>{_e(metric_short(metric))}</td><td>{format_number(old)}</td><td>{format_number(new)}</td>"
            f"<td>{percent_change(old, new)}</td></tr>"
        )
    return '<h3>cost and memory</h3><table class="deltas">' + "".join(rows) + "</table>"


def highlight(line: str) -> str:
    """One IR line as escaped HTML with ``<span class="t-...">`` around names, types, ops, literals."""
    out, last = [], 0
    for match in _TOKEN.finditer(line):
        out.append(_e(line[last : match.start()]))
        out.append(f'<span class="t-{match.lastgroup}">{_e(match[0])}</span>')
        last = match.end()
    out.append(_e(line[last:]))
    return "".join(out)


def _e(text: object) -> str:
    """Text in the page: HTML-escaped, control characters shown as escapes, lines bounded in width."""
    return html.escape(shown(str(text)), quote=True)
