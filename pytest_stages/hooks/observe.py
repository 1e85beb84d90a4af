"""What this session observed of collection and of every item's run: the evidence a prune needs.

Modelled on syrupy's session bookkeeping (collected, selected, ran): a snapshot may be
called unused only when the session saw its owner collected and run to the end. Nothing
here trusts a list of option names; it watches what collection and the runs actually did,
so options and plugins that do not exist yet are covered too.

Under pytest-xdist the workers collect and the controller does not: each worker sends its
:class:`CollectionView` through ``workeroutput`` and the controller merges them. A worker
that goes down without one (a crash) makes the view incomplete.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_stages.core.observed import CollectionView, RunView

WORKER_OUTPUT_KEY = "pytest_stages_collection"
_OUTCOME_RANK = {"passed": 0, "skipped": 1, "failed": 2}


class Observer:
    """pytest plugin that records collection and item outcomes (serial run, xdist worker or controller)."""

    def __init__(self, config: pytest.Config, module_of: Callable[[Path], str]) -> None:
        self.config = config
        self.module_of = module_of
        self.view = CollectionView()
        self.outcomes: dict[str, str] = {}
        self.finished: set[str] = set()
        self.lost_workers: list[str] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_ignore_collect(self, collection_path: Path) -> Generator[None, bool | None, bool | None]:
        ignored = yield
        if ignored:
            self.view.ignored.append(str(collection_path))
        return ignored

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.Module) and report.passed and not _narrowed(self.config, collector.path):
            self.view.modules.add(self.module_of(collector.path))
        return report

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.view.errors.append(report.nodeid or "<session>")

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> Generator[None, None, None]:
        before = {item.nodeid for item in items}
        result = yield
        self._removed(before - {item.nodeid for item in items})
        return result

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._removed({item.nodeid for item in items})

    def _removed(self, nodeids: set[str]) -> None:
        self.view.removed = sorted({*self.view.removed, *nodeids})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
        previous = self.outcomes.get(report.nodeid, "passed")
        self.outcomes[report.nodeid] = max(previous, outcome, key=_OUTCOME_RANK.__getitem__)
        if report.when == "teardown":
            self.finished.add(report.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        """xdist controller: merge a finished worker's view; a crashed worker makes the run incomplete."""
        output = getattr(node, "workeroutput", {}) or {}
        if error is not None or WORKER_OUTPUT_KEY not in output:
            self.lost_workers.append(str(getattr(node.gateway, "id", node)))
            return
        self.view.merge(CollectionView.from_json(output[WORKER_OUTPUT_KEY]))

    def record_items(self, items: list[pytest.Item], folder_of: Callable[[pytest.Item], str | None]) -> None:
        """After collection: each selected item with its snapshot folder."""
        self.view.items.update((item.nodeid, folder_of(item)) for item in items)

    def send_to_controller(self) -> None:
        """xdist worker: hand the collection view to the controller."""
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_OUTPUT_KEY] = self.view.to_json()

    def run_view(self, session: pytest.Session, exitstatus: int) -> RunView:
        """Everything observed, with the reasons (if any) that this run did not judge the whole tree."""
        incomplete = []
        if self.config.option.collectonly:
            incomplete.append("--collect-only runs no test")
        if self.view.errors:
            incomplete.append(f"{len(self.view.errors)} collection error(s) ({', '.join(self.view.errors[:3])})")
        if self.view.removed:
            incomplete.append(f"{len(self.view.removed)} collected item(s) were deselected or removed")
        if self.lost_workers:
            incomplete.append(f"xdist worker(s) {', '.join(self.lost_workers)} went down without reporting")
        unfinished = [nodeid for nodeid in self.view.items if nodeid not in self.finished]
        if unfinished and not self.config.option.collectonly:
            incomplete.append(f"{len(unfinished)} collected item(s) did not run to the end")
        if session.shouldstop or session.shouldfail:
            incomplete.append("the session stopped early")
        if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) and not incomplete:
            incomplete.append(f"the session ended with exit status {int(exitstatus)}")
        return RunView(self.view, collection_roots(self.config), dict(self.outcomes), set(self.finished), incomplete)


def collection_roots(config: pytest.Config) -> list[Path]:
    """The paths collection started from: the arguments (or testpaths), else the invocation folder."""
    base = config.invocation_params.dir
    return [(base / arg.split("::")[0]).resolve() for arg in config.args] or [base.resolve()]


def _narrowed(config: pytest.Config, module: Path) -> bool:
    """True when an argument names a node inside ``module`` (``tests/test_a.py::test_one``)."""
    base = config.invocation_params.dir
    return any("::" in arg and (base / arg.split("::")[0]).resolve() == module.resolve() for arg in config.args)
