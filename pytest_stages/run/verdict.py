"""The one verdict of a staged call, a registered function or a ``stage_compiles`` block; the files it lets write."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pytest_stages.check.decide import Policy, Verdict, decide, judged
from pytest_stages.core.records import CallRecord, Kind, Migration
from pytest_stages.run.errors import StagesFailure
from pytest_stages.store.storage import SnapshotStore


def conclude(
    record: CallRecord,
    pending: list[PendingWrite],
    policy: Policy,
    mismatch: str,
    message: Callable[[Verdict], str],
) -> None:
    """The one verdict of a staged call, a registered function or a ``stage_compiles`` block.

    Decides over the record's findings (skipped artifacts judge nothing), marks in the record
    which of them failed, and on a failing verdict drops the files to write and raises the
    message ``message`` renders from the verdict.
    """
    verdict = decide([f for f in record.findings if f.kind != Kind.SKIPPED], policy, mismatch)
    record.findings = judged(record.findings, verdict)
    if not verdict.passed:
        pending.clear()
        raise StagesFailure(message(verdict))


@dataclass(frozen=True)
class PendingWrite:
    """A file to write once the test has passed (update mode), and the record that notes it."""

    path: Path
    text: str
    record: CallRecord
    # Why --stages-migrate writes it (None: its program changed, or it is new).
    migration: Migration | None = None


def write_pending(pending: list[PendingWrite], store: SnapshotStore, rootpath: Path) -> None:
    """Write each pending file (update mode, after the test passed), noting it in its record; empties the list."""
    done: list[Path] = []
    try:
        store.write_all([(write.path, write.text) for write in pending], done)
    finally:
        for write in pending:
            if write.path in done:
                path = write.path.relative_to(rootpath).as_posix()
                write.record.written.append(path)
                if write.migration is not None:
                    write.record.migrated[path] = write.migration
        pending.clear()
