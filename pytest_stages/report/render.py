"""Reporting: the session header, the terminal summary table, and JSON/Markdown reports."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal, Protocol, TypedDict

from pytest_stages.analyse.artifacts import CHECK_KINDS, check_kind
from pytest_stages.analyse.step_time import SECONDS
from pytest_stages.calls.session import StagesSession
from pytest_stages.check.figure_text import metric_short, percent_change
from pytest_stages.check.snapshot_format import FORMAT_VERSION
from pytest_stages.check.upgrade import SECTION_TITLE, upgrade_section
from pytest_stages.core.errors import PREFIX
from pytest_stages.core.records import CallRecord, Change, Kind, Migration, Mode, Status
from pytest_stages.core.run_view import RunFacts
from pytest_stages.core.text import shown
from pytest_stages.core.units import format_bytes, format_number, format_seconds

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


class NotCheckedEntry(TypedDict):
    """One thing a run did not check (the JSON report's ``"not_checked"``): a whole call, some of its artifacts, or
    one of its budgets (``kind``)."""

    nodeid: str
    kind: Literal["call", "artifacts", "budget"]
    what: str
    reason: str


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
        """Read back a JSON report (:func:`report_json`'s output)."""
        return cls(
            records=[CallRecord.from_dict(call) for call in data["calls"]],
            update=data["mode"] == Mode.UPDATE,
            environment=data["environment"],
            run=RunFacts.from_json(data["run"]) if "run" in data else None,
            settings=data.get("settings"),
            shards=data.get("shards", []),
        )


def not_checked(report: RunReport) -> list[NotCheckedEntry]:
    """What the run did not check, with the reason: the staged items it skipped (a config whose accelerator or
    plugin is missing), the artifacts an environment change left unchecked, and the budgets with no figure here.

    A gate that passes has checked everything but these; ``--stages-strict`` fails a run that leaves any.
    """
    entries = [
        NotCheckedEntry(nodeid=nodeid, kind="call", what="the whole call (its snapshots and budgets)", reason=reason)
        for nodeid, reason in (report.run.skipped.items() if report.run is not None else ())
    ]
    for record in report.records:
        skipped = {f.artifact: f.message for f in record.findings if f.kind == Kind.SKIPPED}
        for reason, artifacts in _grouped(skipped).items():
            entries.append(
                NotCheckedEntry(nodeid=record.nodeid, kind="artifacts", what=", ".join(artifacts), reason=reason)
            )
        entries += [
            # The message names the metric first (``estimated_seconds: no estimate: ...``): the reason follows it.
            NotCheckedEntry(
                nodeid=record.nodeid, kind="budget", what=f.subject, reason=f.message.partition(": ")[2] or f.message
            )
            for f in record.findings
            if f.kind == Kind.BUDGET and f.change == Change.SKIPPED
        ]
    return entries


def _grouped(reasons: Mapping[str, str]) -> dict[str, list[str]]:
    """``{artifact: reason}`` turned into ``{reason: [artifacts]}``, in order."""
    grouped: dict[str, list[str]] = {}
    for artifact, reason in reasons.items():
        grouped.setdefault(reason, []).append(artifact)
    return grouped


def not_checked_lines(entries: Sequence[NotCheckedEntry], strict: bool) -> list[str]:
    """The terminal's account of what the run did not check: how many calls, artifacts and budgets, then each
    call and budget with its reason (the artifacts are listed per config above); under ``--stages-strict``, that
    they fail the run."""
    if not entries:
        return []
    counts = {kind: sum(1 for e in entries if e["kind"] == kind) for kind in ("call", "artifacts", "budget")}
    verdict = "--stages-strict fails the run" if strict else "a run under --stages-strict fails on them"
    return [
        f"{PREFIX}not checked in this run: {counts['call']} staged call(s) skipped, {counts['artifacts']} call(s) "
        f"with artifacts not checked here, {counts['budget']} budget(s) with no figure ({verdict}):",
        *(
            f"  {shown(e['nodeid'])}: {'skipped' if e['kind'] == 'call' else 'budget ' + e['what']}: "
            f"{shown(e['reason'])}"
            for e in entries
            if e["kind"] != "artifacts"
        ),
    ]


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
                f"{metric_short(metric)} {format_number(old)}->{format_number(new)} ({percent_change(old, new)})"
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
    ``--stages-measure`` adds the measured time and the estimate's ratio to it: ``; measured 1.25 ms (0.98x)``,
    or ``; not measured`` (the JSON report's ``step.not_measured`` says why)."""
    seconds = record.step.get(SECONDS)
    text = ("n/a" if record.step else "-") if seconds is None else f"{format_seconds(seconds)} {record.step['binding']}"
    measured = record.step.get("measured_seconds")
    if record.step.get("not_measured"):
        text += "; not measured"
    if measured is not None:
        ratio = record.step.get("estimate_over_measured")
        text += f"; measured {format_seconds(measured)}" + (f" ({ratio:.2f}x)" if ratio is not None else "")
    return text


def table_rows(records: Sequence[CallRecord]) -> list[list[str]]:
    """The summary table: a header row, then one row per call."""
    return [["test", "config", "name", *COLUMNS, "deltas", STEP_COLUMN, TIME_COLUMN]] + [
        [
            shown(r.nodeid),
            shown(r.config),
            shown(r.name),
            *(column_status(r, c) for c in COLUMNS),
            key_deltas(r),
            estimated_step(r),
            compile_time(r),
        ]
        for r in records
    ]


class Terminal(Protocol):
    """What the summary is written to: pytest's terminal reporter."""

    def section(self, title: str) -> None: ...

    def write_line(self, line: str) -> None: ...


def terminal_summary(
    terminalreporter: Terminal, report: RunReport, *, strict: bool = False, verbose: bool = False
) -> None:
    """The summary table and the lines below it (``verbose``: each file an update wrote), then what the run did
    not check (also when it checked nothing)."""
    records, unchecked = report.records, not_checked(report)
    if not records and not unchecked:
        return
    terminalreporter.section("pytest-stages")
    upgraded = upgrade_section(records, report.baseline)
    if upgraded:
        terminalreporter.write_line(f"{PREFIX}{SECTION_TITLE}")
        for line in upgraded:
            terminalreporter.write_line(f"  {line}")
    lines = [*_aligned(table_rows(records)), *_closing_lines(report, verbose)] if records else []
    for line in [*lines, *not_checked_lines(unchecked, strict)]:
        terminalreporter.write_line(line)


def _closing_lines(report: RunReport, verbose: bool) -> list[str]:
    """Below the table: files written, improvements, skipped artifacts per config, version notes."""
    records, lines = report.records, []
    if report.update:
        lines += _written_lines([path for record in records for path in record.written], verbose)
        lines += _migrated_lines(records)
    lines += _improved_lines(report)
    lines += _budget_lines(records)
    lines += _skip_lines(records)
    lines += [f"{PREFIX}note: {mismatch}" for mismatch in sorted({r.versions for r in records if r.versions})]
    lines += _pending_lines(records, report.pending_path)
    return lines


def _written_lines(written: Sequence[str], verbose: bool) -> list[str]:
    """What an update wrote: a count of files and folders (the table names the calls); ``verbose``, each file."""
    if verbose or not written:
        return [f"{PREFIX}wrote {len(written)} snapshot file(s)", *(f"  {path}" for path in written)]
    folders = len({path.rpartition("/")[0] for path in written})
    return [f"{PREFIX}wrote {len(written)} snapshot file(s) in {folders} folder(s) (pytest -v lists them)"]


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


def _budget_lines(records: Sequence[CallRecord]) -> list[str]:
    """Each call's budgets met, the figure beside its ceiling in its unit: a unit slip shows in a passing run."""
    lines = []
    for record in records:
        met = [
            f.message
            for f in record.findings
            if f.kind == Kind.BUDGET and not f.failing and f.subject and f.change != Change.SKIPPED
        ]
        if met:
            lines.append(f"{PREFIX}budget of {shown(record.nodeid)} {shown(record.name)}: {'; '.join(met)}")
    return lines


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


def _report_fields(report: RunReport) -> dict[str, object]:
    """The JSON report's fields but its calls (those that would be empty left out)."""
    optional = {
        "run": report.run.to_json() if report.run is not None else None,
        "settings": report.settings,
        "shards": list(report.shards),
        "not_checked": not_checked(report),
    }
    data = {"schema": REPORT_SCHEMA, "environment": dict(report.environment), "mode": Mode.of(report.update)}
    return {**data, **{key: value for key, value in optional.items() if value}}


def report_json(report: RunReport) -> Iterator[str]:
    """The JSON report (schema ``pytest-stages-report/1``: docs/failures.md, report.schema.json) as text, in
    pieces: sorted keys, one call a line, each encoded alone so that a merge holds one call's dict at a time."""
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
