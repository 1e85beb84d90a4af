"""The session's reporter plugin: gathers call records (from xdist workers too) and, at the end, reports.

Side effects (report files, ``$GITHUB_STEP_SUMMARY``, prune) happen in
``pytest_sessionfinish``; the terminal summary only prints.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_stages.calls.session import StagesSession
from pytest_stages.check.budgets import unmatched_patterns
from pytest_stages.core.errors import PREFIX
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.paths import inside
from pytest_stages.core.records import CallRecord
from pytest_stages.core.run_view import PASSED_EXIT, RunFacts
from pytest_stages.hooks.observe import Observer, collection_roots
from pytest_stages.report.render import RunReport, not_checked, terminal_summary
from pytest_stages.report.unused import judge_snapshots, project_tree
from pytest_stages.stage import disk_cache
from pytest_stages.store.prune import Evidence, run_gaps

if TYPE_CHECKING:
    from pytest_stages.report import outputs as report_outputs
else:
    report_outputs = lazy_module("pytest_stages.report.outputs")

# The user property that carries a call's record from the test's process to the controller.
RECORD_PROPERTY = "pytest_stages"
# The reporter plugin's name in pytest's plugin manager.
PLUGIN_NAME = "stages-reporter"


def record_property(config: pytest.Config, record: CallRecord) -> tuple[str, str]:
    """The user property that carries ``record`` (its JSON) in the test's report.

    This process's reporter keeps the record beside its text, so that reading the report here takes the record
    as it is, not parsed back from the JSON (only an xdist controller, and junitxml, read the text).
    """
    text = json.dumps(record.to_dict())
    plugin = config.pluginmanager.get_plugin(PLUGIN_NAME)
    if isinstance(plugin, StagesReporter):
        plugin.kept[id(text)] = (text, record)
    return RECORD_PROPERTY, text


class StagesReporter:
    """Collects call records from test reports (on the xdist controller too) and reports them.

    Side effects (report files, ``$GITHUB_STEP_SUMMARY``, prune) happen in
    ``pytest_sessionfinish``, so they do not depend on the terminal plugin; the terminal
    summary only prints. xdist workers never write reports or delete anything.
    """

    def __init__(
        self,
        session: StagesSession,
        observer: Observer,
        cache: disk_cache.CacheChoice,
        state: tuple[str, str] = ("", ""),
    ) -> None:
        self.session = session
        self.state = state  # the checkout's commit and snapshot tree digest when the session started
        self.observer = observer
        self.cache = cache
        self.cache_counts = (0, 0)  # (requests, hits), summed over the calls of every process
        self.lines: list[str] = []
        self.facts: RunFacts | None = None
        # The records this process put in its reports, by the id of their text (:func:`record_property`).
        self.kept: dict[int, tuple[str, CallRecord]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in getattr(report, "user_properties", ()):
            if key == RECORD_PROPERTY:
                kept = self.kept.pop(id(value), None)
                if kept is None or kept[0] is not value:  # a worker's report, read on the xdist controller
                    kept = (value, CallRecord.from_dict(json.loads(value)))
                self.session.records.append(kept[1])
            elif key == disk_cache.PROPERTY:
                requests, hits = value
                self.cache_counts = (self.cache_counts[0] + requests, self.cache_counts[1] + hits)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(session.config, "workerinput"):
            self.observer.send_to_controller()
            return
        facts = self.observer.facts(session, exitstatus)
        facts.commit, facts.snapshots = self.state
        if not session.config.getoption("stages_list"):
            self.lines = self._inventory(facts, session.config.pluginmanager.get_plugin("terminalreporter"))
        if self.session.options.configs is None and _collected_whole(session.config, facts):
            self.lines += _unmatched_budget_lines(self.session.budget_patterns, facts)
        if self.session.options.strict and not_checked(self.report(facts)) and exitstatus in PASSED_EXIT:
            session.exitstatus = facts.exit_status = pytest.ExitCode.TESTS_FAILED
        self.facts = facts
        report = self.report(facts)
        if self.session.options.report and not self._write_report(Path(self.session.options.report), report):
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary and self.session.records:
            self._append_step_summary(step_summary, report)

    def _write_report(self, path: Path, report: RunReport) -> bool:
        """Write the ``--stages-report`` file; False (and a line saying why) when it could not be written."""
        try:
            report_outputs.write_report(path, report, self.session.store.root)
        except OSError as exc:
            self.lines.append(
                f"{PREFIX}could not write the report {path} ({exc.strerror or exc}); it keeps its previous "
                "content (writes are atomic). Free disk space or fix the folder's permissions."
            )
            return False
        return True

    def _append_step_summary(self, step_summary: str, report: RunReport) -> None:
        """Append the run's summary to ``$GITHUB_STEP_SUMMARY``, refused inside the snapshot folder."""
        if inside(Path(step_summary), self.session.store.root):
            self.lines.append(report_outputs.step_summary_refusal(step_summary))
            return
        try:
            report_outputs.append_step_summary(Path(step_summary), report, self.session.store.root)
        except OSError as exc:  # a convenience: the run's verdict stands
            self.lines.append(
                f"{PREFIX}could not append to $GITHUB_STEP_SUMMARY {step_summary} ({exc.strerror or exc})."
            )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminal_summary(
            terminalreporter,
            self.report(self.facts),
            strict=self.session.options.strict,
            verbose=terminalreporter.verbosity > 0,
        )
        requests, hits = self.cache_counts
        cache_line = disk_cache.summary(self.cache, requests, hits, self.session.rootpath)
        for line in [*self.lines, *([cache_line] if cache_line and any(self.cache_counts) else [])]:
            terminalreporter.write_line(line)

    def report(self, facts: RunFacts | None = None) -> RunReport:
        """This run's report data; with ``facts``, what the JSON report needs to be merged with other shards'."""
        session, settings = self.session, self.session.settings
        all_configs = [c.name for c in settings.configs]
        return RunReport(
            records=session.records,
            update=session.options.update,
            environment=session.environment,
            run=facts,
            settings={
                "snapshot_dir": settings.snapshot_dir,
                "configs": all_configs,
                "selected": list(session.options.configs or all_configs),
            },
            baseline=session.baseline,
            pending_path=_as_typed(session.options.pending),
        )

    def _inventory(self, facts: RunFacts, terminal: Any = None) -> list[str]:
        """Report (and with ``--stages-prune`` delete) unused files, when the run observed the whole tree."""
        settings = self.session.settings
        configs = [c.name for c in settings.configs]
        tree = project_tree(self.session.rootpath, configs, self.session.options.configs or configs)
        return judge_snapshots(
            self.session.records,
            facts.view(self.session.rootpath),
            tree,
            self.session.store,
            Evidence(prune=self.session.options.prune, split=facts.split, incomplete=tuple(run_gaps(facts))),
            prefix=settings.snapshot_dir,
            announce=_announcer(terminal),
        ).lines


def _unmatched_budget_lines(patterns: Iterable[str], facts: RunFacts) -> list[str]:
    """A line for each budget pattern that matches no test the run collected."""
    return [
        f"{PREFIX}[tool.pytest_stages.budgets] {pattern!r} matches no test this run collected, so its ceilings "
        "apply to nothing: correct the pattern (it is matched against test ids such as "
        "tests/test_model.py::test_step[cpu1]) or remove it."
        for pattern in unmatched_patterns(patterns, facts.collection.items)
    ]


def _collected_whole(config: pytest.Config, facts: RunFacts) -> bool:
    """Whether the run collected every test: from the rootdir or testpaths, none deselected, no error or lost worker."""
    view = facts.collection
    if view.errors or view.removed or facts.lost_workers:
        return False
    rootpath = config.rootpath.resolve()
    return config.args_source == pytest.Config.ArgsSource.TESTPATHS or any(
        rootpath.is_relative_to(root) for root in collection_roots(config)
    )


def _as_typed(path: Path | None) -> str:
    """The pending folder as a command typed here names it: relative to the current folder when inside it."""
    if path is None:
        return ""
    try:
        return path.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(path)


def _announcer(terminal: Any) -> Callable[[list[str]], None] | None:
    """Print a prune's list on the terminal at once, before anything is deleted (None without a terminal)."""
    if terminal is None:
        return None

    def announce(lines: list[str]) -> None:
        terminal.write_line("")
        for line in lines:
            terminal.write_line(line)
        terminal.flush()

    return announce
