"""The Markdown report: the run's summary for a pull-request comment or a CI step summary, cut to fit."""

from __future__ import annotations

import html
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_stages.check.upgrade import SECTION_TITLE, upgrade_section
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CallRecord, DiffRow, Finding, Kind
from pytest_stages.core.text import shown
from pytest_stages.report.render import NotCheckedEntry, RunReport, key_deltas, not_checked, table_rows

if TYPE_CHECKING:
    from pytest_stages.check import drift as check_drift
    from pytest_stages.check import message as check_message
else:
    check_drift = lazy_module("pytest_stages.check.drift")
    check_message = lazy_module("pytest_stages.check.message")

# A pull-request comment holds 65,536 characters: a finding's diff shows at most MD_DIFF_LINES
# lines, no diff is added once the report has MD_BUDGET characters, and whole entries are cut to
# keep the report under COMMENT_LIMIT (with a note of what was cut).
MD_DIFF_LINES = 60
MD_BUDGET = 40_000
COMMENT_LIMIT = 65_536
MD_FULL_DIFF = "`pytest-stages diff OLD NEW`, the HTML report or the failure message (`-vv`) show them whole"
# Where the accept command downloads the pending sets: one folder per CI artifact beneath it.
DOWNLOAD_FOLDER = "stages-pending"


def markdown(report: RunReport, trends: Sequence[str] = ()) -> str:
    """The summary table, the moved figures' recent history (``trends``: report/history_trends.py), the calls
    with pending snapshots and how to accept them, then each failing finding."""
    lines = ["## pytest-stages", "", *_md_upgrades(report), *_md_table(table_rows(report.records))]
    if trends:
        lines += ["", "### Recent history of the moved figures", "", *(f"- {_md_text(line)}" for line in trends)]
    pending = [r for r in report.records if r.pending]
    if pending:
        lines += _pending_section(pending, sum(map(len, lines)))
    unchecked = not_checked(report)
    if unchecked:
        lines += _not_checked_section(unchecked)
    failing = [(r, f) for r in report.records for f in r.findings if f.failing and not r.pending]
    if failing:
        lines += _findings_section(failing, sum(map(len, lines)))
    return "\n".join(_fit(lines, COMMENT_LIMIT)) + "\n"


def _not_checked_section(entries: Sequence[NotCheckedEntry]) -> list[str]:
    """What the run did not check, one row each, with the reason: a green gate says what it left out."""
    rows = [["test", "not checked", "why"]]
    rows += [[e["nodeid"], f"budget {e['what']}" if e["kind"] == "budget" else e["what"], e["reason"]] for e in entries]
    return ["", f"### Not checked in this run ({len(entries)})", "", *_md_table(rows)]


def _md_upgrades(report: RunReport) -> list[str]:
    """The Markdown section on snapshots an upgrade of JAX or the package changed (none when nothing did)."""
    upgraded = upgrade_section(report.records, report.baseline)
    if not upgraded:
        return []
    return [
        f"### {SECTION_TITLE}",
        "",
        *(f"  - {_md_text(line.strip())}" if line.startswith(" ") else f"- {_md_text(line)}" for line in upgraded),
        "",
    ]


def _md_table(rows: list[list[str]]) -> list[str]:
    """The summary table as Markdown: a header row, its rule, and each row's cells escaped."""
    return [
        "| " + " | ".join(rows[0]) + " |",
        "|" + "---|" * len(rows[0]),
        *("| " + " | ".join(_md_text(cell).replace("|", "\\|") for cell in row) + " |" for row in rows[1:]),
    ]


def _findings_section(failing: Sequence[tuple[CallRecord, Finding]], size: int) -> list[str]:
    """Each failing finding with its summary and diff; diffs stop once the report has ``MD_BUDGET`` characters."""
    lines = ["", "### Findings", ""]
    left_out, size = 0, size + sum(map(len, lines))
    for record, finding in failing:
        entry = [
            f"- {_md_code(record.nodeid)} {_md_text(record.name)} / {finding.artifact}: {_md_text(finding.message)}"
        ]
        detail = finding.detail
        if detail:
            entry += [f"  - {_md_text(line)}" for line in check_drift.summary_lines(detail)]
            entry += _md_diff(unified_rows(detail["hunks"])) if size < MD_BUDGET else [""]
            left_out += size >= MD_BUDGET
        size += sum(map(len, entry))
        lines += entry
    if left_out:
        lines.append(f"The diffs of {left_out} finding(s) are left out to fit a pull-request comment; {MD_FULL_DIFF}.")
    return lines


def _pending_section(records: Sequence[CallRecord], size: int) -> list[str]:
    """Each call whose update is pending: headline, deltas, a collapsed diff; its set, and the one accept command."""
    sets = sorted({record.pending for record in records})
    lines = [
        "",
        "### Pending changes",
        "",
        f"{len(records)} call(s) differ from their snapshots. What `--stages-update` would write for them is in "
        f"the pending set(s) {', '.join(_md_code(name) for name in sets)} (each a CI artifact of that name). "
        "Accept them all in one step, at the project root:",
        "",
        "```bash",
        accept_command(sets),
        "```",
        "",
        f"or walk them one by one with {_md_code(shlex.join(['pytest-stages', 'review', *_downloaded(sets)]))}.",
        "",
    ]
    size += sum(map(len, lines))
    for record in records:
        entry = _pending_entry(record, size)
        size += sum(map(len, entry))
        lines += entry
    return lines


def _pending_entry(record: CallRecord, size: int) -> list[str]:
    """One pending call: its headline and key deltas, then each finding's collapsed diff while under ``MD_BUDGET``."""
    failing, headline = _pending_headline(record)
    deltas = key_deltas(record)
    entry = [
        f"- {_md_code(record.nodeid)} {_md_text(record.name)} on {_md_text(record.config)} "
        f"({_md_code(record.pending)}): {_md_text(headline)}" + (f"; {_md_text(deltas)}" if deltas else "")
    ]
    for finding in failing:
        if finding.detail and size < MD_BUDGET:
            entry += [f"  - {_md_text(line)}" for line in check_drift.summary_lines(finding.detail)]
            entry += _md_diff(unified_rows(finding.detail["hunks"]), f"{finding.artifact} diff")
    return entry


def _pending_headline(record: CallRecord) -> tuple[list[Finding], str]:
    """A pending call's findings to show (the failing ones, else all but skips) and its one-line headline."""
    failing = [f for f in record.findings if f.failing] or [f for f in record.findings if f.kind != Kind.SKIPPED]
    lines = check_message.headline_lines(failing, check_message.Labels({})) if any(f.failing for f in failing) else []
    return failing, "; ".join(lines or [f"{f.artifact}: {f.message}" for f in failing]) or "snapshots to write"


def accept_command(sets: Sequence[str], environ: Mapping[str, str] | None = None) -> str:
    """The one command that downloads the pending sets of this CI run and accepts them.

    ``gh run download`` with ``-p`` puts each artifact in a folder of its name under ``-D``.
    The run and repository come from GitHub's ``GITHUB_RUN_ID`` and ``GITHUB_REPOSITORY`` where set.
    Each argument is quoted (``shlex.join``): a set named ``p $(touch x)`` pastes as a name, and runs nothing.
    """
    env = os.environ if environ is None else environ
    run = env.get("GITHUB_RUN_ID") or "RUN_ID"
    repo = ["-R", env["GITHUB_REPOSITORY"]] if env.get("GITHUB_REPOSITORY") else []
    patterns = [part for name in sets for part in ("-p", name)]
    download = shlex.join(["gh", "run", "download", run, *repo, *patterns, "-D", DOWNLOAD_FOLDER])
    return f"{download} && {shlex.join(['pytest-stages', 'accept', *_downloaded(sets)])}"


def _downloaded(sets: Sequence[str]) -> list[str]:
    """Where ``gh run download -p NAME -D stages-pending`` puts each set."""
    return [f"{DOWNLOAD_FOLDER}/{name}" for name in sets]


def _fit(lines: list[str], limit: int) -> list[str]:
    """``lines`` cut before whole entries (lines that start a list item or a section) to stay under ``limit``."""
    total = sum(len(line) + 1 for line in lines)
    if total <= limit:
        return lines
    room, size, cut = limit - 400, 0, 0
    for index, line in enumerate(lines):
        if line.startswith(("- ", "### ")) and size <= room:
            cut = index
        size += len(line) + 1
    left_out = sum(1 for line in lines[cut:] if line.startswith("- "))
    return [
        *lines[:cut],
        "",
        f"**{left_out} entries left out to fit GitHub's 65,536-character comment limit**; the HTML report "
        "(`--report stages.html`), `pytest-stages review` and the JSON report show them all.",
    ]


def _md_diff(diff: Sequence[str], summary: str = "diff") -> list[str]:
    """A finding's diff block for the Markdown report, at most ``MD_DIFF_LINES`` lines of it."""
    rows = [f"  {shown(line)}" for line in diff[:MD_DIFF_LINES]]
    if len(diff) > MD_DIFF_LINES:
        rows.append(f"  ... {len(diff) - MD_DIFF_LINES} more diff lines; {MD_FULL_DIFF}")
    fence = _fence(rows)  # longer than any backtick run in the diff: a line of ``` cannot close it
    return [
        "",
        f"  <details><summary>{summary}</summary>",
        "",
        f"  {fence}diff",
        *rows,
        f"  {fence}",
        "",
        "  </details>",
        "",
    ]


def unified_rows(hunks: Sequence[Sequence[DiffRow]]) -> list[str]:
    """A report's side-by-side hunks as unified diff lines: ``@@ line 3 -> 3``, `` kept``, ``-old``, ``+new``."""
    lines = ["--- snapshot", "+++ staged"]
    for hunk in hunks:
        if not hunk:
            continue
        lines.append(f"@@ line {hunk[0][1] or '-'} -> {hunk[0][3] or '-'}")
        for tag, old_no, old_text, new_no, new_text, _ in hunk:
            if tag == "=":
                lines.append(f" {new_text}")
                continue
            lines += [f"-{old_text}"] if old_no is not None else []
            lines += [f"+{new_text}"] if new_no is not None else []
    return lines


def _md_text(text: str) -> str:
    """User text as Markdown shows it literally: ``<lambda>`` is not an HTML tag, a newline not a new row."""
    return html.escape(shown(text.replace("\n", " ")), quote=False)


def _fence(lines: Sequence[str]) -> str:
    """A code fence longer than any run of backticks in ``lines``: a diffed line of ```` ``` ```` cannot close it."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    return "`" * max(3, longest + 1)


def _md_code(text: str) -> str:
    """A code span around ``text`` that its own backticks cannot close: ``a`b`` -> ``` ``a`b`` ```."""
    text = shown(text)
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if len(fence) > 1 else f"`{text}`"
