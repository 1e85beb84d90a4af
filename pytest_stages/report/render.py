"""Reporting: the session header, the terminal summary table, and JSON/Markdown reports."""

from __future__ import annotations

import errno
import html
import json
import mmap
import os
import re
import shlex
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol, TypedDict

from pytest_stages.analyse.artifacts import CHECK_KINDS, check_kind
from pytest_stages.analyse.step_time import SECONDS
from pytest_stages.check.figure_text import metric_short
from pytest_stages.check.snapshot_format import FORMAT_VERSION
from pytest_stages.check.upgrade import SECTION_TITLE, upgrade_section
from pytest_stages.core.errors import PREFIX, ConfigError, PathError
from pytest_stages.core.paths import Use, checked_path, shown_path, write_atomically
from pytest_stages.core.records import CallRecord, Change, DiffRow, Finding, Kind, Migration, Mode, Status
from pytest_stages.core.run_view import RunFacts
from pytest_stages.core.text import shown
from pytest_stages.core.units import format_bytes, format_number, format_seconds, relative_change
from pytest_stages.report import drift, html_report_, message_
from pytest_stages.run.session import StagesSession

REPORT_SCHEMA = "pytest-stages-report/1"
COLUMNS = CHECK_KINDS
# Every status an artifact of a call can have, ranked for the summary column (worst shown).
STATUS_RANK = {
    Status.CHANGED: 5,
    Status.OVER: 5,
    Status.NEW: 4,
    Status.IMPROVED: 3,
    Status.OK: 2,
    Status.SKIPPED: 1,
    Status.UNCHECKED: 0,
}
# What the summary column shows for a call whose update wrote the artifacts of a drifted column.
WRITTEN = "written"
KEY_DELTAS = ("flops", "bytes accessed", "temp_size_in_bytes", "peak_memory_in_bytes")
REPORT_FORMATS = (".json", ".md", ".html")
TIME_COLUMN = "seconds (trace/lower/compile)"
STEP_COLUMN = "est. step"
PRUNE_HINT = "`pytest --stages-prune` deletes them"


class ReportSettings(TypedDict):
    """The snapshot settings a run used (the JSON report's ``"settings"``): every config, and those it selected."""

    snapshot_dir: str
    configs: list[str]
    selected: list[str]


class ShardEntry(TypedDict):
    """One shard report a merge read (the merged report's ``"shards"``)."""

    report: str
    split: dict[str, int] | None
    exit_status: int
    calls: int


@dataclass(frozen=True)
class RunReport:
    """What every report is made from, as plain data: one run's, or the merge of its shards' reports.

    ``run`` is what the run observed (the JSON report's ``"run"``), ``settings`` its snapshot settings;
    ``shards`` lists the shard reports a merge read (empty for one run).
    """

    records: Sequence[CallRecord]
    update: bool
    environment: Mapping[str, str]
    run: RunFacts | None = None
    settings: ReportSettings | None = None
    shards: Sequence[ShardEntry] = field(default_factory=list)
    # The calls of an earlier JSON report (``--stages-baseline``): the "before" compile times.
    baseline: Sequence[CallRecord] = ()
    # This run's pending folder as the summary's commands name it (relative to the current folder); "" for a merge,
    # whose sets are named by the CI artifacts that hold them.
    pending_path: str = ""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunReport:
        """Read back a JSON report (:func:`report_data`'s output)."""
        return cls(
            records=[CallRecord.from_dict(call) for call in data["calls"]],
            update=data["mode"] == Mode.UPDATE,
            environment=data["environment"],
            run=RunFacts.from_json(data["run"]) if "run" in data else None,
            settings=data.get("settings"),
            shards=data.get("shards", []),
        )


def inventory_lines(
    unused: Sequence[PurePosixPath],
    leftovers: Sequence[PurePosixPath],
    pruned: Sequence[PurePosixPath],
    prefix: str,
    *,
    prune_hint: str = PRUNE_HINT,
) -> list[str]:
    """What the terminal says about unused snapshot files, leftovers of an interrupted update and a prune."""
    lines = []
    if leftovers:
        lines.append(
            f"{PREFIX}{len(leftovers)} temporary file(s) left by an interrupted update "
            "(the snapshot beside each holds its old or new content, never a mix):"
        )
        lines += [f"  {prefix}/{path}" for path in leftovers]
    if pruned:
        lines.append(f"{PREFIX}pruning {len(pruned)} file(s):")
        lines += [f"  {prefix}/{path}" for path in pruned]
    elif unused:
        lines.append(f"{PREFIX}{len(unused)} unused snapshot file(s); {prune_hint}:")
        lines += [f"  {prefix}/{path}" for path in unused]
    return lines


def header(session: StagesSession) -> str:
    """One line for pytest's header: versions, configs, snapshot folder and mode."""
    configs = ", ".join(
        f"{c.name}({c.platform or 'default'} x{c.devices})"
        for c in session.settings.configs
        if session.options.configs is None or c.name in session.options.configs
    )
    mode = Mode.of(session.options.update)
    return (
        f"stages: jax {session.environment['jax']}, jaxlib {session.environment['jaxlib']}; configs {configs}; "
        f"snapshots in {session.settings.snapshot_dir}/ ({mode})"
    )


def column_status(record: CallRecord, column: str) -> str:
    """The worst status among a record's artifacts that belong to ``column``."""
    if column == Kind.BUDGET:
        return record.status.get(Kind.BUDGET, Status.UNCHECKED)
    statuses = [
        s for artifact, s in record.status.items() if artifact != Kind.BUDGET and check_kind(artifact) == column
    ]
    status = max(statuses, key=STATUS_RANK.__getitem__, default=Status.UNCHECKED)
    if record.written and status in (Status.NEW, Status.CHANGED, Status.IMPROVED):
        return WRITTEN
    return status


def key_deltas(record: CallRecord) -> str:
    parts = []
    for metric in KEY_DELTAS:
        if metric in record.deltas:
            old, new = record.deltas[metric]
            parts.append(
                f"{metric_short(metric)} {format_number(old)}->{format_number(new)} ({relative_change(old, new):+.1%})"
            )
    for finding in record.findings:  # a memory share within its ceiling: how much the program may still grow
        if finding.change == Change.HEADROOM:
            parts.append(f"{finding.subject} headroom {format_bytes(finding.before - finding.after)}")
    return "; ".join(parts)


def compile_time(record: CallRecord) -> str:
    """``0.012/0.034/0.21`` seconds to trace/lower/compile, `` cached`` when the persistent cache answered."""
    seconds = record.compile_seconds
    if not seconds:
        return "-"
    text = "/".join(f"{seconds[step]:.2g}" if step in seconds else "-" for step in ("trace", "lower", "compile"))
    return text + (" cached" if record.cached else "")


def estimated_step(record: CallRecord) -> str:
    """``1.23 ms HBM``: the estimated step time on the config's chip and its binding term; ``n/a`` without one;
    ``--stages-measure`` adds the measured time and the estimate's ratio to it: ``; measured 1.25 ms (0.98x)``."""
    seconds = record.step.get(SECONDS)
    text = ("n/a" if record.step else "-") if seconds is None else f"{format_seconds(seconds)} {record.step['binding']}"
    measured = record.step.get("measured_seconds")
    if measured is not None:
        ratio = record.step.get("estimate_over_measured")
        text += f"; measured {format_seconds(measured)}" + (f" ({ratio:.2f}x)" if ratio is not None else "")
    return text


def table_rows(records: Sequence[CallRecord]) -> list[list[str]]:
    rows = [["test", "config", "name", *COLUMNS, "deltas", STEP_COLUMN, TIME_COLUMN]]
    for record in records:
        rows.append(
            [
                shown(record.nodeid),
                shown(record.config),
                shown(record.name),
                *(column_status(record, c) for c in COLUMNS),
                key_deltas(record),
                estimated_step(record),
                compile_time(record),
            ]
        )
    return rows


class Terminal(Protocol):
    """What the summary is written to: pytest's terminal reporter."""

    def section(self, title: str) -> None: ...

    def write_line(self, line: str) -> None: ...


def terminal_summary(terminalreporter: Terminal, report: RunReport) -> None:
    records = report.records
    if not records:
        return
    terminalreporter.section("pytest-stages")
    upgraded = upgrade_section(records, report.baseline)
    if upgraded:
        terminalreporter.write_line(f"{PREFIX}{SECTION_TITLE}")
        for line in upgraded:
            terminalreporter.write_line(f"  {line}")
    for line in _aligned(table_rows(records)):
        terminalreporter.write_line(line)
    for line in _closing_lines(report):
        terminalreporter.write_line(line)


def _closing_lines(report: RunReport) -> list[str]:
    """Below the table: files written, improvements, skipped artifacts per config, version notes."""
    records, lines = report.records, []
    written = [path for record in records for path in record.written]
    if report.update:
        lines += [f"{PREFIX}wrote {len(written)} snapshot file(s)", *(f"  {path}" for path in written)]
        lines += _migrated_lines(records)
    lines += _improved_lines(report)
    lines += _skip_lines(records)
    lines += [f"{PREFIX}note: {mismatch}" for mismatch in sorted({r.versions for r in records if r.versions})]
    lines += _pending_lines(records, report.pending_path)
    return lines


# Why --stages-migrate rewrote a file (core.records.Migration), as the summary says it.
_MIGRATIONS = {
    Migration.FORMAT: "the folder's metadata as this version records it (format, version, environment)",
    Migration.NORMALIZED: "the stage text normalized as this version normalizes it (names kept)",
    Migration.OUTPUTS: "outputs named as the function returns them",
    Migration.ADDED: "with the figures this version adds (the cost's estimated step time, `step`)",
}


def _migrated_lines(records: Sequence[CallRecord]) -> list[str]:
    """``--stages-migrate``: each file rewritten in this version's format, and why."""
    migrated = sorted((path, why) for record in records for path, why in record.migrated.items())
    if not migrated:
        return []
    return [
        f"{PREFIX}migrated {len(migrated)} file(s) to snapshot format {FORMAT_VERSION}:",
        *(f"  {path}: {_MIGRATIONS[Migration(why)]}" for path, why in migrated),
    ]


def _improved_lines(report: RunReport) -> list[str]:
    """On a compare run, how many calls improved on their snapshots and the command that records them."""
    improved = [r for r in report.records if Status.IMPROVED in r.status.values()]
    if not improved or report.update:
        return []
    return [
        f"{PREFIX}{len(improved)} call(s) improved on their snapshots; "
        "run `pytest --stages-update` to record the new figures"
    ]


def _pending_lines(records: Sequence[CallRecord], path: str) -> list[str]:
    """How many calls left pending updates, in which sets, and the commands that review and accept them.

    The commands name this run's pending folder by ``path`` (as it works from the current folder), or a merge's
    sets by their names; quoted, so that they run as printed.
    """
    sets = [path] if path else sorted({r.pending for r in records if r.pending})
    if not any(r.pending for r in records):
        return []
    names = shlex.join(sets)
    return [
        f"{PREFIX}{sum(1 for r in records if r.pending)} call(s) left what --stages-update would write in the "
        f"pending set(s) {names}: `{shlex.join(['pytest-stages', 'review', *sets])}` walks them, "
        f"`{shlex.join(['pytest-stages', 'accept', *sets])}` applies them"
    ]


def _skip_lines(records: Sequence[CallRecord]) -> list[str]:
    """``config tpu: compiled, memory not checked here: <reason>``, once per config and reason."""
    skips: dict[tuple[str, str], list[str]] = {}
    for record in records:
        for finding in (f for f in record.findings if f.kind == Kind.SKIPPED):
            skips.setdefault((record.config, finding.message), []).append(finding.artifact)
    return [
        f"{PREFIX}config {config}: {', '.join(dict.fromkeys(artifacts))} not checked here: {reason}"
        for (config, reason), artifacts in skips.items()
    ]


def _aligned(rows: list[list[str]]) -> Iterable[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        yield "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()


def report_data(report: RunReport) -> dict[str, Any]:
    """The JSON report (schema ``pytest-stages-report/1``, documented in docs/failures.md and report.schema.json)."""
    return {**_report_fields(report), "calls": [record.to_dict() for record in report.records]}


def _report_fields(report: RunReport) -> dict[str, Any]:
    """The JSON report's fields but its calls."""
    data: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "environment": dict(report.environment),
        "mode": Mode.of(report.update),
    }
    run = report.run.to_json() if report.run is not None else None
    optional = {"run": run, "settings": report.settings, "shards": list(report.shards)}
    return {**data, **{key: value for key, value in optional.items() if value}}


def report_json(report: RunReport) -> Iterator[str]:
    """:func:`report_data` as JSON text, in pieces: sorted keys, one call a line.

    Each call is encoded alone (by the C encoder; ``indent`` would take Python's) and handed on,
    so a merge of 100,000 calls holds one call's dict at a time, not a copy of them all.
    """
    encode = json.JSONEncoder(sort_keys=True).encode
    fields = _report_fields(report)
    for index, key in enumerate(sorted([*fields, "calls"])):
        yield ("{" if index == 0 else ",\n") + encode(key) + ":"
        if key != "calls":
            yield encode(fields[key])
            continue
        yield "["
        for position, record in enumerate(report.records):
            yield ("\n" if position == 0 else ",\n") + encode(record.to_dict())
        yield "\n]" if report.records else "]"
    yield "}\n"


# A pull-request comment holds 65,536 characters: a finding's diff shows at most MD_DIFF_LINES
# lines, no diff is added once the report has MD_BUDGET characters, and whole entries are cut to
# keep the report under COMMENT_LIMIT (with a note of what was cut).
MD_DIFF_LINES = 60
MD_BUDGET = 40_000
COMMENT_LIMIT = 65_536
MD_FULL_DIFF = "`pytest-stages diff OLD NEW`, the HTML report or the failure message (`-vv`) show them whole"
# Where the accept command downloads the pending sets: one folder per CI artifact beneath it.
DOWNLOAD_FOLDER = "stages-pending"


def markdown(report: RunReport) -> str:
    """The summary table, the calls with pending snapshots and how to accept them, then each failing finding."""
    lines = ["## pytest-stages", "", *_md_upgrades(report), *_md_table(table_rows(report.records))]
    pending = [r for r in report.records if r.pending]
    if pending:
        lines += _pending_section(pending, sum(map(len, lines)))
    failing = [(r, f) for r in report.records for f in r.findings if f.failing and not r.pending]
    if failing:
        lines += _findings_section(failing, sum(map(len, lines)))
    return "\n".join(_fit(lines, COMMENT_LIMIT)) + "\n"


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
            entry += [f"  - {_md_text(line)}" for line in drift.summary_lines(detail)]
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
    failing = [f for f in record.findings if f.failing] or [f for f in record.findings if f.kind != Kind.SKIPPED]
    lines = message_.headline_lines(failing, message_.Labels({})) if any(f.failing for f in failing) else []
    headline = "; ".join(lines or [f"{f.artifact}: {f.message}" for f in failing]) or "snapshots to write"
    deltas = key_deltas(record)
    entry = [
        f"- {_md_code(record.nodeid)} {_md_text(record.name)} on {_md_text(record.config)} "
        f"({_md_code(record.pending)}): {_md_text(headline)}" + (f"; {_md_text(deltas)}" if deltas else "")
    ]
    for finding in failing:
        if finding.detail and size < MD_BUDGET:
            entry += [f"  - {_md_text(line)}" for line in drift.summary_lines(finding.detail)]
            entry += _md_diff(unified_rows(finding.detail["hunks"]), f"{finding.artifact} diff")
    return entry


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


def check_output(option: str, path: Path, snapshots: Path) -> None:
    """An output file a report goes to: a ``.json``/``.md``/``.html`` name, never inside the snapshot folder.

    A report written over a snapshot would replace the snapshot (or, appended to, corrupt it).
    """
    if path.suffix not in REPORT_FORMATS:
        raise ConfigError(f"{option}={path}: name a .json, .md or .html file.")
    fix = f"Write it elsewhere, e.g. {option}=stages-report{path.suffix}."
    checked_path(path, Use(f"{option}={shown_path(str(path))}", fix, folder=False))
    if inside(path, snapshots):
        raise ConfigError(
            f"{option}={path} is inside the snapshot folder {snapshots}, where only snapshots live (a report "
            f"there would replace or corrupt one); write it elsewhere, e.g. {option}=stages-report{path.suffix}."
        )
    problem = _not_a_report(path)
    if problem is not None:
        raise ConfigError(
            f"{option}={shown_path(str(path))} {problem}, and writing the report would replace it: pytest-stages "
            f"replaces only a report it wrote. Name a new file, e.g. {option}=stages-report{path.suffix}, or move "
            "that file away."
        )


# How each report begins as :func:`write_report` writes it; a JSON report also holds its schema on a line of its own.
_REPORT_HEADS = {
    ".json": b'{"calls":[',
    ".md": b"## pytest-stages\n",
    ".html": b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>pytest-stages review</title>',
}
_SCHEMA_LINE = re.compile(rb'\n"schema":"pytest-stages-report/')


def _not_a_report(path: Path) -> str | None:
    """Why the file at ``path`` is not a report pytest-stages wrote (None: there is none, it is empty, or it is one).

    Read without blocking (checked a plain file first); a JSON report is searched for its schema line
    through a memory map, so a large report is not read into memory.
    """
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):  # nothing there (the write says what is wrong with the path)
        return None
    except OSError as exc:
        return f"cannot be read to tell whether pytest-stages wrote it ({exc.strerror or exc})"
    with os.fdopen(handle, "rb") as stream:
        size = os.fstat(handle).st_size
        if size == 0:
            return None
        head = _REPORT_HEADS[path.suffix]
        if stream.read(len(head)) == head and (path.suffix != ".json" or _schema_line(handle, size)):
            return None
    kind = {".json": "JSON", ".md": "Markdown", ".html": "HTML"}[path.suffix]
    return f"is a file that is not a {kind} report pytest-stages wrote"


def _schema_line(handle: int, size: int) -> bool:
    with mmap.mmap(handle, size, access=mmap.ACCESS_READ) as mapped:
        return _SCHEMA_LINE.search(mapped) is not None


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies under it, once symlinks are followed."""
    resolved, root = path.resolve(), folder.resolve()
    return resolved == root or root in resolved.parents


def write_report(path: Path, report: RunReport) -> None:
    """``--stages-report``: JSON for ``.json``, a review page for ``.html``, Markdown for ``.md``."""
    text: str | Iterator[str]
    if path.suffix == ".json":
        text = report_json(report)
    elif path.suffix == ".html":
        text = html_report_.page(
            report.records, table_rows(report.records), report.environment, Mode.of(report.update), report.baseline
        )
    else:
        text = markdown(report)
    write_atomically(path, text)


def step_summary_refusal(path: str) -> str:
    """What is said instead of appending the summary to a ``$GITHUB_STEP_SUMMARY`` inside the snapshot folder."""
    return (
        f"{PREFIX}not appending to $GITHUB_STEP_SUMMARY {path}: it is inside the snapshot folder, where only "
        "snapshots live; point it at a file outside (GitHub sets it to one)."
    )


def append_step_summary(path: Path, report: RunReport) -> None:
    """Append the Markdown summary to GitHub's ``$GITHUB_STEP_SUMMARY`` file.

    Only a regular file (or none yet) is appended to: a FIFO would block the session until
    something reads it, a device may never take the text. Anything else raises ``OSError``
    saying so, opened without blocking and checked before the first write.
    """
    not_regular = OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device); point it at a file")
    if path.exists() and not path.is_file():
        raise not_regular
    try:
        checked_path(path, Use("it", "Point it at a file outside version control's folders.", folder=False))
    except PathError as exc:
        raise OSError(errno.EINVAL, str(exc)) from None
    handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    with os.fdopen(handle, "a", encoding="utf-8") as stream:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise not_regular
        stream.write(markdown(report))
