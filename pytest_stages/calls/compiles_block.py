"""One ``stage_compiles`` block end to end: count, compare with ``<name>.compiles.json``, decide, write.

The counting is :mod:`pytest_stages.stage.jax_events`', the comparison
:mod:`pytest_stages.check.recompiles`' (pure); this keeps the snapshot to write until the
test has passed and turns a failing verdict into the message a user reads. Its record joins the
staged calls' in the reports (status column ``compiles``).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_stages.analyse.artifacts import BUDGET
from pytest_stages.calls.errors import StagesFailure
from pytest_stages.calls.session import StagesSession
from pytest_stages.calls.verdict import CallWriter, PendingWrite
from pytest_stages.check import recompiles
from pytest_stages.check.budgets import COMPILES_METRIC, Budget
from pytest_stages.check.compare import artifact_status, budget_status, no_snapshot, unreadable_snapshot
from pytest_stages.check.decide import Verdict
from pytest_stages.core.errors import ConfigError, SnapshotError
from pytest_stages.core.inputs import parse_json
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CallRecord
from pytest_stages.ir.normalize import to_json
from pytest_stages.stage.jax_events import CompileLog, watch
from pytest_stages.store.storage import SnapshotFolder

if TYPE_CHECKING:
    from pytest_stages.check import message as check_message
else:
    check_message = lazy_module("pytest_stages.check.message")

ARTIFACT = "compiles"
SECONDS = {"traces": "trace", "lowerings": "lower", "compiles": "compile"}


class StageCompiles(CallWriter):
    """The ``stage_compiles`` fixture's value for one test: ``with stage_compiles(): ...`` blocks."""

    def __init__(self, session: StagesSession, *, nodeid: str, folder: SnapshotFolder, budget: Budget) -> None:
        super().__init__(session)
        self.nodeid = nodeid
        self.folder = folder
        self.budget = budget
        self._names: list[str] = []

    @contextmanager
    def __call__(self, *functions: object, name: str = "compiles") -> Iterator[CompileLog]:
        """Count what the block makes JAX trace, lower and compile; compare with ``<name>.compiles.json`` after it.

        ``functions`` (jitted functions or their names) narrows the count to them; without, every
        function of user code JAX traced is counted (JAX's own eager operations are not).
        """
        if not isinstance(name, str) or not name or name in self._names:
            raise ConfigError(
                f"stage_compiles(name={name!r}) in {self.nodeid}: give each block its own non-empty name=."
            )
        self._names.append(name)
        only = tuple(self._watched_name(f, functions) for f in functions)
        with watch(self.session.events, only) as log:
            yield log
        self._judge(name, log)

    def _watched_name(self, function: Any, functions: tuple[Any, ...]) -> str:
        """The name a ``stage_compiles`` argument watches: a function's, or the name given.

        What JAX never traces (a number, None, an empty name, a Python builtin such as ``print``)
        would watch nothing, and the block would pass having counted nothing: an error instead.
        """
        if isinstance(function, str) and function:
            return function
        named = getattr(function, "__name__", None)
        if callable(function) and isinstance(named, str) and not inspect.isbuiltin(function):
            return named
        what = "a Python builtin, which JAX never traces" if callable(function) else "neither a function nor a name"
        shown = ", ".join(getattr(f, "__name__", None) or repr(f) for f in functions)
        raise ConfigError(
            f"stage_compiles({shown}) in {self.nodeid}: {named or repr(function)} is {what}. Pass the functions "
            "whose compiles the block counts (jitted functions, or their names: stage_compiles(train_step)), or "
            "none to count every function the block makes JAX trace."
        )

    def _judge(self, name: str, log: CompileLog) -> None:
        path = self.folder.artifact(name, ARTIFACT)
        data = log.data()
        watched = log.watched()
        explanations = {fn: counts.explanations for fn, counts in watched.items()}
        record = CallRecord(
            nodeid=self.nodeid,
            config=self.folder.config,
            name=name,
            folder=str(self.folder.relative),
            compile_seconds=_seconds(log),
            cached=any(counts.cache_hits for counts in watched.values()),
        )
        self.records.append(record)
        expected = self.session.store.read(path)
        if expected is None:
            findings = [no_snapshot(ARTIFACT)]
        else:
            findings = recompiles.compare_counts(_parsed(expected, path, self.nodeid), data, explanations)
        ceiling = self.budget.get(COMPILES_METRIC)
        budget = recompiles.check_budget(ceiling, data, explanations) if ceiling is not None else []
        status = {
            ARTIFACT: artifact_status(findings, recorded=expected is not None),
            BUDGET: budget_status(ceiling is not None, budget),
        }
        verdict = self._conclude(replace(record, findings=[*findings, *budget], status=status), "")
        if not verdict.passed:
            raise StagesFailure(self._failure(name, path, verdict))
        # Only a change the comparison saw is written: the same signatures in another order are none.
        if expected is None or findings:
            self.pending.append(PendingWrite(path, to_json(data), name))

    def _failure(self, name: str, path: Path, verdict: Verdict) -> str:
        """The failure message of a block whose verdict failed."""
        settings, full = self.session.settings, self.session.options.verbosity >= 2
        call = check_message.Call(
            name, self.folder.config, f"{settings.snapshot_dir}/{self.folder.relative}/", {ARTIFACT: path.name}
        )
        return check_message.call_message(call, verdict, notes=[], diff_lines=settings.diff_lines, full=full)


def _seconds(log: CompileLog) -> dict[str, float]:
    """The block's trace, lower and compile seconds, summed over its watched functions."""
    total: dict[str, float] = {}
    for counts in log.watched().values():
        for step, seconds in counts.seconds.items():
            total[SECONDS[step]] = round(total.get(SECONDS[step], 0.0) + seconds, 6)
    return total


def _parsed(text: str, path: Path, nodeid: str) -> dict[str, object]:
    try:
        data = parse_json(text)
    except ValueError as exc:
        raise unreadable_snapshot(path, str(exc), nodeid) from None
    if not isinstance(data, dict):
        raise SnapshotError(f"snapshot {path} is not a compiles snapshot (a JSON object); restore it or re-record it.")
    return data
