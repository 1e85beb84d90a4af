"""Reporting: the session header, the terminal summary table, and JSON/Markdown reports."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from . import html_report
from .upgrade import SECTION_TITLE, upgrade_section
from .compare import check_kind, format_number, relative_change
from .inventory import snapshot_files, unused_files, used_files
from .runner import CallRecord, StagesSession

REPORT_SCHEMA = "pytest-stages-report/1"
COLUMNS = ("text", "cost", "memory", "sharding", "layout", "budget")
_RANK = {"changed": 5, "over": 5, "new": 4, "improved": 3, "ok": 2, "skipped": 1, "-": 0}
KEY_DELTAS = ("flops", "bytes accessed", "temp_size_in_bytes", "peak_memory_in_bytes")
REPORT_FORMATS = (".json", ".md", ".html")
RECORD_PROPERTY = "pytest_stages"
FOLDER_PROPERTY = "pytest_stages_folder"


class StagesReporter:
    """Collects call records from test reports (on the xdist controller too) and reports them."""

    def __init__(self, session: StagesSession) -> None:
        self.session = session
        self.folders: dict[str, str] = {}
        self.passed: set[str] = set()
        self.pytest_session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.pytest_session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in getattr(report, "user_properties", ()):
            if key == RECORD_PROPERTY and report.when == "call":
                self.session.records.append(CallRecord.from_json(value))
            elif key == FOLDER_PROPERTY:
                self.folders[report.nodeid] = value
        if report.when == "call" and report.passed:
            self.passed.add(report.nodeid)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminal_summary(terminalreporter, self.session)
        self._inventory(terminalreporter)
        if self.session.options.report:
            write_report(Path(self.session.options.report), self.session)
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary and self.session.records:
            append_step_summary(Path(step_summary), self.session)


    def _inventory(self, terminalreporter: Any) -> None:
        """Report (and with ``--stages-prune`` delete) unused files, after a full run only."""
        reasons = partial_run_reasons(terminalreporter.config, self.pytest_session)
        if reasons:
            if self.session.options.prune:
                terminalreporter.write_line(
                    f"pytest-stages: --stages-prune refused: this is a partial run ({', '.join(reasons)}); "
                    "nothing was deleted. Run the whole suite with --stages-prune."
                )
            return
        store = self.session.store
        protected = {folder for nodeid, folder in self.folders.items() if nodeid not in self.passed}
        used = used_files((r.folder, r.name, r.status) for r in self.session.records)
        unused, leftovers = unused_files(snapshot_files(store.root), used, protected)
        prefix = self.session.settings.snapshot_dir
        if leftovers:
            terminalreporter.write_line(
                f"pytest-stages: {len(leftovers)} temporary file(s) left by an interrupted update "
                "(the snapshot beside each holds its old or new content, never a mix):"
            )
            for path in leftovers:
                terminalreporter.write_line(f"  {prefix}/{path}")
        if not unused and not (leftovers and self.session.options.prune):
            return
        if self.session.options.prune:
            for path in [*unused, *leftovers]:
                store.delete(store.root / path)
            terminalreporter.write_line(f"pytest-stages: pruned {len(unused) + len(leftovers)} file(s)")
            return
        terminalreporter.write_line(
            f"pytest-stages: {len(unused)} unused snapshot file(s); `pytest --stages-prune` deletes them:"
        )
        for path in unused:
            terminalreporter.write_line(f"  {prefix}/{path}")


def partial_run_reasons(config: pytest.Config, session: pytest.Session | None) -> list[str]:
    """Why this run does not cover the whole suite (empty for a full run)."""
    reasons = []
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        root = config.rootpath
        if any(Path(arg.split("::")[0]).resolve() != root or "::" in arg for arg in config.args):
            reasons.append("paths or node ids given")
    for option, label in (("keyword", "-k"), ("markexpr", "-m"), ("deselect", "--deselect"),
                          ("lf", "--lf"), ("stages_configs", "--stages-configs")):
        if getattr(config.option, option, None):
            reasons.append(label)
    if session is not None and (session.shouldstop or session.shouldfail):
        reasons.append("stopped early")
    return reasons


def header(session: StagesSession) -> str:
    """One line for pytest's header: versions, configs, snapshot folder and mode."""
    configs = ", ".join(
        f"{c.name}({c.platform or 'default'} x{c.devices})" for c in session.settings.configs
        if session.options.configs is None or c.name in session.options.configs
    )
    mode = "update" if session.options.update else "compare"
    return (
        f"stages: jax {session.environment['jax']}, jaxlib {session.environment['jaxlib']}; configs {configs}; "
        f"snapshots in {session.settings.snapshot_dir}/ ({mode})"
    )


def column_status(record: CallRecord, column: str) -> str:
    """The worst status among a record's artifacts that belong to ``column``."""
    if column == "budget":
        return record.status.get("budget", "-")
    statuses = [s for artifact, s in record.status.items() if artifact != "budget" and check_kind(artifact) == column]
    status = max(statuses, key=_RANK.__getitem__, default="-")
    if record.written and status in ("new", "changed", "improved"):
        return "written"
    return status


def key_deltas(record: CallRecord) -> str:
    parts = []
    for metric in KEY_DELTAS:
        if metric in record.deltas:
            old, new = record.deltas[metric]
            parts.append(f"{metric} {format_number(old)}->{format_number(new)} ({relative_change(old, new):+.1%})")
    return "; ".join(parts)


def table_rows(records: Sequence[CallRecord]) -> list[list[str]]:
    rows = [["test", "config", "name", *COLUMNS, "deltas"]]
    for record in records:
        rows.append([
            record.nodeid, record.config, record.name,
            *(column_status(record, c) for c in COLUMNS), key_deltas(record),
        ])
    return rows


def terminal_summary(terminalreporter: Any, session: StagesSession) -> None:
    records = session.records
    if not records:
        return
    terminalreporter.section("pytest-stages")
    upgraded = upgrade_section([record.__dict__ for record in records])
    if upgraded:
        terminalreporter.write_line(f"pytest-stages: {SECTION_TITLE}")
        for line in upgraded:
            terminalreporter.write_line(f"  {line}")
    for line in _aligned(table_rows(records)):
        terminalreporter.write_line(line)
    written = [path for record in records for path in record.written]
    if session.options.update:
        terminalreporter.write_line(f"pytest-stages: wrote {len(written)} snapshot file(s)")
        for path in written:
            terminalreporter.write_line(f"  {path}")
    improved = [r for r in records if any(s == "improved" for s in r.status.values())]
    if improved and not session.options.update:
        terminalreporter.write_line(
            f"pytest-stages: {len(improved)} call(s) improved on their snapshots; "
            "run `pytest --stages-update` to record the new figures"
        )
    skips = {}
    for record in records:
        for finding in record.findings:
            if finding["kind"] == "skipped":
                skips.setdefault((record.config, finding["message"]), []).append(finding["artifact"])
    for (config, reason), artifacts in skips.items():
        names = ", ".join(dict.fromkeys(artifacts))
        terminalreporter.write_line(f"pytest-stages: config {config}: {names} skipped: {reason}")
    for mismatch in sorted({r.versions for r in records if r.versions}):
        terminalreporter.write_line(f"pytest-stages: note: {mismatch}")


def _aligned(rows: list[list[str]]) -> Iterable[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        yield "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()


def report_data(session: StagesSession) -> dict[str, Any]:
    """The JSON report (schema ``pytest-stages-report/1``, documented in the README)."""
    return {
        "schema": REPORT_SCHEMA,
        "environment": session.environment,
        "mode": "update" if session.options.update else "compare",
        "calls": [record.__dict__ for record in session.records],
    }


def markdown(session: StagesSession) -> str:
    """The summary table, then each failing finding; an IR drift brings its source lines and diff."""
    rows = table_rows(session.records)
    lines = ["## pytest-stages", ""]
    upgraded = upgrade_section([record.__dict__ for record in session.records])
    if upgraded:
        lines += [f"### {SECTION_TITLE}", ""]
        lines += [f"  - {line.strip()}" if line.startswith(" ") else f"- {line}" for line in upgraded]
        lines.append("")
    lines.append("| " + " | ".join(rows[0]) + " |")
    lines.append("|" + "---|" * len(rows[0]))
    for row in rows[1:]:
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    failing = [(r, f) for r in session.records for f in r.findings if f["failing"]]
    if failing:
        lines += ["", "### Findings", ""]
        for record, finding in failing:
            first, *rest = finding["message"].splitlines()
            lines.append(f"- `{record.nodeid}` {record.name} / {finding['artifact']}: {first}")
            detail = finding.get("detail")
            if not detail:
                continue
            lines += [f"  - {line}" for line in detail["summary"]]
            lines += ["", "  <details><summary>diff</summary>", "", "  ```diff"]
            lines += [f"  {line[4:]}" for line in rest[len(detail["summary"]):]]
            lines += ["  ```", "", "  </details>", ""]
    return "\n".join(lines) + "\n"


def write_report(path: Path, session: StagesSession) -> None:
    """``--stages-report``: JSON for ``.json``, a review page for ``.html``, Markdown for ``.md``."""
    if path.suffix == ".json":
        text = json.dumps(report_data(session), indent=2, sort_keys=True) + "\n"
    elif path.suffix == ".html":
        text = html_report.page(report_data(session), table_rows(session.records))
    else:
        text = markdown(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def append_step_summary(path: Path, session: StagesSession) -> None:
    """Append the Markdown summary to GitHub's ``$GITHUB_STEP_SUMMARY`` file."""
    with path.open("a", encoding="utf-8") as stream:
        stream.write(markdown(session))
