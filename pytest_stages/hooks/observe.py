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

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_stages.core.run_view import CollectionView, ItemOutcome, RunFacts, worse
from pytest_stages.store.storage import file_digest

WORKER_OUTPUT_KEY = "pytest_stages_collection"


class Observer:
    """pytest plugin that records collection and item outcomes (serial run, xdist worker or controller)."""

    def __init__(self, config: pytest.Config, module_of: Callable[[Path], str]) -> None:
        self.config = config
        self.module_of = module_of
        self.view = CollectionView()
        self.outcomes: dict[str, ItemOutcome] = {}
        self.finished: set[str] = set()
        self.skip_reasons: dict[str, str] = {}
        self.lost_workers: list[str] = []
        # Collection as it happened: each collector's children, the nodes collection went into, the
        # items it produced, and the modules that had children (node id -> snapshot module path).
        self._children: dict[str, list[str]] = {}
        self._visited: set[str] = set()
        self._collected: set[str] = set()
        self._modules: dict[str, str] = {}
        self._digests: dict[str, str] = {}

    @pytest.hookimpl(wrapper=True)
    def pytest_ignore_collect(self, collection_path: Path) -> Generator[None, bool | None, bool | None]:
        ignored = yield
        if ignored:
            self.view.ignored.append(str(collection_path))
        return ignored

    @pytest.hookimpl(wrapper=True, trylast=True, specname="pytest_make_collect_report")
    def pytest_make_collect_report_innermost(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        """Innermost: each collector's children before any other plugin's wrapper filtered them."""
        report = yield
        if report.passed:
            self._children[collector.nodeid] = [node.nodeid for node in report.result]
        return report

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        """Outermost: a child some wrapper dropped counts as removed; a module with children is a candidate.

        ``--lf`` shows both cases: it filters the children of a module with failures, and reports
        every other module as collected with no children, without importing it. A module whose
        collection yields nothing is therefore treated as not collected.
        """
        report = yield
        if report.passed:
            kept = {node.nodeid for node in report.result}
            self._removed({nodeid for nodeid in self._children.get(collector.nodeid, []) if nodeid not in kept})
            if isinstance(collector, pytest.Module) and kept:
                self._modules[collector.nodeid] = self.module_of(collector.path)
                self._digests[collector.nodeid] = file_digest(collector.path)
        return report

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        self._visited.add(collector.nodeid)

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self._visited.add(item.nodeid)
        self._collected.add(item.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.view.errors.append(report.nodeid or "<session>")

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self._removed({item.nodeid for item in items})

    def _removed(self, nodeids: set[str]) -> None:
        if nodeids:
            self.view.removed = sorted({*self.view.removed, *nodeids})

    def _whole(self, nodeid: str) -> bool:
        """Whether collection went into every child of ``nodeid``, and theirs (a node id argument does not)."""
        return all(child in self._visited and self._whole(child) for child in self._children.get(nodeid, ()))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = ItemOutcome.FAILED if report.failed else ItemOutcome.SKIPPED if report.skipped else ItemOutcome.PASSED
        previous = self.outcomes.get(report.nodeid, ItemOutcome.PASSED)
        self.outcomes[report.nodeid] = worse(previous, outcome)
        if report.skipped and isinstance(report.longrepr, tuple):
            self.skip_reasons[report.nodeid] = str(report.longrepr[2]).removeprefix("Skipped: ")
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

    def note_collected(self, items: list[pytest.Item]) -> None:
        """Items collected outside pytest's collection walk (the registered functions)."""
        self._collected.update(item.nodeid for item in items)

    def record_items(self, items: list[pytest.Item], folder_of: Callable[[pytest.Item], str | None]) -> None:
        """After collection (every hook and wrapper done): the selected items with their snapshot folders.

        An item collected but not selected was removed, whoever removed it and however; a
        module counts as collected in full when collection went into every one of its nodes.
        """
        selected = {item.nodeid for item in items}
        self._removed(self._collected - selected)
        whole = {nodeid: module for nodeid, module in self._modules.items() if self._whole(nodeid)}
        self.view.modules.update(whole.values())
        self.view.digests.update((module, self._digests[nodeid]) for nodeid, module in whole.items())
        self.view.items.update((item.nodeid, folder_of(item)) for item in items)

    def send_to_controller(self) -> None:
        """xdist worker: hand the collection view to the controller."""
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[WORKER_OUTPUT_KEY] = self.view.to_json()

    def facts(self, session: pytest.Session, exitstatus: int) -> RunFacts:
        """Everything observed, as the plain data the JSON report carries (paths relative to the rootdir)."""
        rootpath = self.config.rootpath
        collection = CollectionView(
            **{**self.view.__dict__, "ignored": [_relative(Path(p), rootpath) for p in self.view.ignored]}
        )
        return RunFacts(
            collection=collection,
            roots=[_relative(root, rootpath.resolve()) for root in collection_roots(self.config)],
            outcomes=dict(self.outcomes),
            finished=sorted(self.finished),
            lost_workers=list(self.lost_workers),
            collect_only=bool(self.config.option.collectonly),
            stopped_early=bool(session.shouldstop or session.shouldfail),
            exit_status=int(exitstatus),
            split=split_of(self.config),
            skipped={
                nodeid: reason
                for nodeid, reason in sorted(self.skip_reasons.items())
                if self.view.items.get(nodeid) is not None  # a staged item (a test --stages-configs left out is not)
            },
        )


def split_of(config: pytest.Config) -> dict[str, int] | None:
    """This run's shard when pytest-split chose its items (``--splits 3 --group 2``), else None."""
    splits, group = config.getoption("splits", None), config.getoption("group", None)
    if not isinstance(splits, int) or not isinstance(group, int):
        return None
    return {"splits": splits, "group": group}


def _relative(path: Path, rootpath: Path) -> str:
    """``path`` relative to ``rootpath`` as a POSIX string (``tests/test_a.py``; ``..`` steps when outside)."""
    return Path(os.path.relpath(path, rootpath)).as_posix()


def collection_roots(config: pytest.Config) -> list[Path]:
    """The paths collection started from: the arguments (or testpaths), else the invocation folder."""
    base = config.invocation_params.dir
    return [(base / arg.split("::")[0]).resolve() for arg in config.args] or [base.resolve()]
