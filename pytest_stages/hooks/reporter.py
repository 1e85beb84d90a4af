"""The session's reporter plugin: gathers call records (from xdist workers too) and, at the end, reports.

Side effects (report files, ``$GITHUB_STEP_SUMMARY``, prune) happen in
``pytest_sessionfinish``; the terminal summary only prints.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_stages.core.observed import RunView
from pytest_stages.core.records import CallRecord
from pytest_stages.hooks.observe import Observer
from pytest_stages.report.reporting import (
    append_step_summary,
    inventory_lines,
    terminal_summary,
    write_report,
)
from pytest_stages.run.runner import StagesSession
from pytest_stages.stage import compile_cache
from pytest_stages.store.inventory import (
    Tree,
    snapshot_files,
    take_inventory,
    used_files,
)

# The user property that carries a call's record from the test's process to the controller.
RECORD_PROPERTY = "pytest_stages"


class StagesReporter:
    """Collects call records from test reports (on the xdist controller too) and reports them.

    Side effects (report files, ``$GITHUB_STEP_SUMMARY``, prune) happen in
    ``pytest_sessionfinish``, so they do not depend on the terminal plugin; the terminal
    summary only prints. xdist workers never write reports or delete anything.
    """

    def __init__(self, session: StagesSession, observer: Observer, cache: compile_cache.CacheChoice) -> None:
        self.session = session
        self.observer = observer
        self.cache = cache
        self.cache_counts = (0, 0)  # (requests, hits), summed over the calls of every process
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in getattr(report, "user_properties", ()):
            if key == RECORD_PROPERTY:
                self.session.records.append(CallRecord.from_dict(json.loads(value)))
            elif key == compile_cache.PROPERTY:
                requests, hits = value
                self.cache_counts = (self.cache_counts[0] + requests, self.cache_counts[1] + hits)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(session.config, "workerinput"):
            self.observer.send_to_controller()
            return
        if not session.config.getoption("stages_list"):
            self.lines = self._inventory(self.observer.run_view(session, exitstatus))
        if self.session.options.report:
            write_report(Path(self.session.options.report), self.session)
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary and self.session.records:
            append_step_summary(Path(step_summary), self.session)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminal_summary(terminalreporter, self.session)
        requests, hits = self.cache_counts
        cache_line = compile_cache.summary(self.cache, requests, hits, self.session.rootpath)
        for line in [*self.lines, *([cache_line] if cache_line and any(self.cache_counts) else [])]:
            terminalreporter.write_line(line)

    def _inventory(self, view: RunView) -> list[str]:
        """Report (and with ``--stages-prune`` delete) unused files, when the run observed the whole tree."""
        prune = self.session.options.prune
        if view.incomplete:
            if not prune:
                return []
            return [
                f"pytest-stages: --stages-prune refused: {'; '.join(view.incomplete)}; nothing was deleted. "
                "Run the whole suite, without selecting or stopping early, with --stages-prune."
            ]
        store, settings = self.session.store, self.session.settings
        tree = Tree(
            rootpath=self.session.rootpath,
            configs=[c.name for c in settings.configs],
            selected=self.session.options.configs or [c.name for c in settings.configs],
            module_exists=lambda module: (self.session.rootpath / f"{module}.py").exists(),
        )
        used = used_files((r.folder, r.name, r.status) for r in self.session.records)
        found = take_inventory(snapshot_files(store.root), used, view, tree)
        doomed = [*found.unused, *found.leftovers] if prune else []
        emptied = store.prune([store.root / path for path in doomed]) if doomed else []
        return inventory_lines(found.unused, found.leftovers, doomed, len(emptied), settings.snapshot_dir)
