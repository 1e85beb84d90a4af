"""The one verdict of a staged call, a registered function or a ``stage_compiles`` block; the files it lets write."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from pytest_stages.calls.session import StagesSession
from pytest_stages.check.decide import Verdict, decide, judged
from pytest_stages.core.records import CallRecord, Kind, Migration


@dataclass(frozen=True)
class PendingWrite:
    """A file to write once the test has passed (update mode), and the name of the call whose record notes it."""

    path: Path
    text: str
    call: str
    # Why --stages-migrate writes it (None: its program changed, or it is new).
    migration: Migration | None = None


class CallWriter:
    """What a fixture's value keeps for its test: the record of each call, and the files to write once it passed.

    A call's record is appended when its judging starts and replaced as each step adds to it,
    so a call that fails or is skipped half-way reaches the reports as far as it went.
    """

    def __init__(self, session: StagesSession) -> None:
        self.session = session
        self.pending: list[PendingWrite] = []
        self.records: list[CallRecord] = []

    def _keep(self, record: CallRecord) -> CallRecord:
        """``record`` in place of the latest record (that of the call being judged)."""
        self.records[-1] = record
        return record

    def _conclude(self, record: CallRecord, mismatch: str) -> Verdict:
        """The one verdict of a staged call, a registered function or a ``stage_compiles`` block.

        Decides over the record's findings (skipped artifacts judge nothing) and keeps the record
        marking which of them failed; a failing verdict drops the test's files to write.
        """
        verdict = decide([f for f in record.findings if f.kind != Kind.SKIPPED], self.session.policy, mismatch)
        self._keep(replace(record, findings=judged(record.findings, verdict)))
        if not verdict.passed:
            self.pending = []
        return verdict

    def flush(self) -> None:
        """Write pending snapshot files (update mode, after the test passed), noting each in its record."""
        done: list[Path] = []
        try:
            self.session.store.write_all([(write.path, write.text) for write in self.pending], done)
        finally:
            written = [write for write in self.pending if write.path in done]
            self.records = [_with_writes(record, written, self.session.rootpath) for record in self.records]
            self.pending = []


def _with_writes(record: CallRecord, writes: list[PendingWrite], rootpath: Path) -> CallRecord:
    """``record`` noting the files written for its call (and why ``--stages-migrate`` rewrote any)."""
    own = [
        (write.path.relative_to(rootpath).as_posix(), write.migration) for write in writes if write.call == record.name
    ]
    if not own:
        return record
    return replace(
        record,
        written=[*record.written, *(path for path, _ in own)],
        migrated={**record.migrated, **{path: why for path, why in own if why is not None}},
    )
