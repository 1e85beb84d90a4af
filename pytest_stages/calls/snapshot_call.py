"""The ``stage_snapshot`` fixture's value: one call end to end, as steps (stage, compare, decide, format, write).

:func:`~pytest_stages.check.compare.compare_call`, :func:`~pytest_stages.check.decide.decide` and the failure
message are pure; :class:`StageSnapshot` (one per test, beside the run's
:class:`~pytest_stages.calls.session.StagesSession`) reads the snapshots once, runs the steps in order and keeps
the files to write until the test has passed. What only a difference or a failure needs (the message, the
pending set, the timing) is imported at its first use: a run whose calls all match never loads it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_stages.analyse.artifacts import BUDGET, device_estimate
from pytest_stages.analyse.step_time import KEY as STEP
from pytest_stages.analyse.step_time import SECONDS
from pytest_stages.calls.errors import StagesFailure, StagesSkip
from pytest_stages.calls.session import StagesSession
from pytest_stages.calls.verdict import CallWriter, PendingWrite
from pytest_stages.check import budgets as budgets_
from pytest_stages.check import environment as environment_
from pytest_stages.check import snapshot_format, upgrade
from pytest_stages.check.compare import CallComparison, Context, budget_status, compare_call
from pytest_stages.check.decide import Verdict
from pytest_stages.check.snapshot_format import Snapshot
from pytest_stages.core.errors import ConfigError, SnapshotError
from pytest_stages.core.inputs import UNPARSED
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import CallRecord, Finding, Kind, Migration, Status, StepTime
from pytest_stages.ir.normalize import to_json
from pytest_stages.stage import deep_recursion, plan
from pytest_stages.stage.activation import ActiveConfig
from pytest_stages.stage.errors import Unsupported
from pytest_stages.stage.staging import StageResult, stage
from pytest_stages.store.storage import SnapshotFolder

if TYPE_CHECKING:
    from pytest_stages.check import message as check_message
    from pytest_stages.stage import measure as stage_measure
    from pytest_stages.store import pending as store_pending
else:
    check_message = lazy_module("pytest_stages.check.message")
    stage_measure = lazy_module("pytest_stages.stage.measure")
    store_pending = lazy_module("pytest_stages.store.pending")


@dataclass(frozen=True)
class FolderRead:
    """What a call's snapshot folder records, and how this run's environment differs from it.

    ``rerecord``: ``--stages-update`` re-records a folder of a format this version cannot compare
    (its snapshots are not read); ``mismatch`` the version note ("" where the versions agree).
    """

    meta: Mapping[str, object] | None
    current: Mapping[str, object]
    change: environment_.EnvironmentChange
    mismatch: str
    version_change: list[str]
    rerecord: bool


class StageSnapshot(CallWriter):
    """The ``stage_snapshot`` fixture's value for one test and config."""

    def __init__(
        self,
        session: StagesSession,
        *,
        nodeid: str,
        folder: SnapshotFolder,
        active: ActiveConfig,
        stages: tuple[str, ...],
        analyses: tuple[str, ...],
        tolerance: Mapping[str, float],
        budget: budgets_.Budget,
    ) -> None:
        super().__init__(session)
        self.nodeid = nodeid
        self.folder = folder
        self.active = active
        self.stages = stages
        self.analyses = analyses
        self.tolerance = tolerance
        self.budget = budget
        # ``--stages-pending``: each differing call's name, the files its update would write, its environment.
        self.pending_calls: list[tuple[str, dict[str, str], dict[str, object]]] = []
        self._names: list[str] = []

    def __call__(
        self,
        fn: Callable[..., object],
        *args: object,
        name: str | None = None,
        static_scalars: bool | None = None,
        **kwargs: object,
    ) -> StageResult:
        """Trace, lower and compile ``fn(*args, **kwargs)``; compare every artifact with its snapshot.

        ``static_scalars=True`` bakes Python scalar arguments into the program (default: the
        ``static_scalars`` setting).
        """
        call_name = self._claim_name(fn, name)
        built = tuple(sorted(set(self.analyses) | budgets_.needed_analyses(self.budget)))
        settings = self.session.settings
        try:
            result = deep_recursion.call(
                stage,
                fn,
                args,
                kwargs,
                name=call_name,
                active=self.active,
                stages=self.stages,
                analyses=built,
                events=self.session.events,
                static_scalars=settings.static_scalars if static_scalars is None else static_scalars,
                constants_warn_bytes=settings.constants_warn_bytes,
                cache=self.session.compile_only_cache,
                caches=self.session.caches,
            )
        except Unsupported as exc:
            raise StagesSkip(f"stage_snapshot({call_name}): {exc}") from None
        self._judge(result, self._record(result, self._step(result)), self._over_budget(result))
        return result

    def _step(self, result: StageResult) -> StepTime:
        """The call's estimated step time (cost.json's ``step``); with ``--stages-measure``, timed on its device too."""
        step: StepTime = result.analyses.get("cost", {}).get(STEP, {}).copy()
        on_device = self.active.attached and not self.active.compile_only  # a topology has no device to run on
        if not (self.session.options.measure and result.compiled is not None and on_device):
            return step
        if result.host_dependent:  # its snapshot's estimate counts the lowered program, not what the device runs
            step = device_estimate(result)
        return {**step, **stage_measure.measured(result.compiled, result.lowered, step.get(SECONDS))}

    def _claim_name(self, fn: Callable[..., object], name: str | None) -> str:
        if name is not None:
            if not isinstance(name, str) or not name:
                raise ConfigError(f"stage_snapshot(name={name!r}): name must be a non-empty string.")
            if name in self._names:
                raise ConfigError(
                    f"stage_snapshot(name={name!r}) is used twice in {self.nodeid}; give each call its own name=."
                )
            self._names.append(name)
            return name
        base = getattr(fn, "__name__", None) or type(fn).__name__
        candidate, counter = base, 1
        while candidate in self._names:
            counter += 1
            candidate = f"{base}-{counter}"
        self._names.append(candidate)
        return candidate

    def _judge(self, result: StageResult, staged: CallRecord, budget: list[Finding] | None) -> None:
        """Hold the staged call (its record and budget findings as staged) against its snapshot folder, and decide:
        keep the files to write, or raise the failure message."""
        self.records.append(staged)
        folder = self._read_folder(staged)
        record = self._keep(dataclasses.replace(staged, versions=folder.mismatch, version_change=folder.version_change))
        if self.session.policy.skips(folder.mismatch):
            raise StagesSkip(f'{folder.mismatch} (on_version_mismatch = "skip")')
        snapshots = self._snapshots(record.name, read=not folder.rerecord)
        context = self._context(result, folder.meta, self._unchecked(folder.change, snapshots))
        compared = compare_call(result, snapshots, context)
        record = self._keep(self._compared(record, compared, budget, drift=bool(folder.mismatch)))
        queued = self._queued(record.name, folder, compared)
        if self.session.options.pending is not None and not self.session.policy.update:
            self._keep_pending(record.name, queued[len(self.pending) :], folder.current)
        verdict = self._conclude(record, folder.mismatch)
        if not verdict.passed:
            raise StagesFailure(self._failure(result, compared, verdict, folder))
        self.pending = queued

    def _record(self, result: StageResult, step: StepTime) -> CallRecord:
        """The call's record before it is judged: which call, where, its compile times and step time."""
        return CallRecord(
            nodeid=self.nodeid,
            config=self.active.name,
            name=result.name,
            folder=str(self.folder.relative),
            compile_seconds={step: round(t, 6) for step, t in result.seconds.items()},
            cached=result.from_cache,
            step=step,
        )

    def _read_folder(self, record: CallRecord) -> FolderRead:
        """The folder's metadata and this run's environment beside it; refuses folders this run must not compare."""
        meta = self._read_meta()
        rerecord = self._refuse_format(meta, record)
        current = plan.environment(self.active.plan, self.active.devices)
        change = environment_.compare_environments(meta, current)
        self._refuse_foreign(record, change)
        versions = plan.versions(current)
        return FolderRead(
            meta,
            current,
            change,
            upgrade.version_note(meta, versions),
            list(upgrade.version_change(meta, versions) or ()),
            rerecord,
        )

    def _context(self, result: StageResult, meta: Mapping[str, object] | None, unchecked: dict[str, str]) -> Context:
        """What comparing this call needs besides its snapshots (renames only for folders before named outputs)."""
        session = self.session
        return Context(
            self.nodeid,
            session.rootpath,
            self.tolerance,
            session.settings.diff_lines,
            replace_unreadable=session.policy.update,
            renames=(lambda: result.output_renames)
            if snapshot_format.recorded_format(meta) < snapshot_format.NAMED_OUTPUTS
            else None,
            unchecked=unchecked,
            migrate=session.options.migrate and meta is not None,
            writes=session.options.update or session.options.pending is not None,
        )

    def _unchecked(self, change: environment_.EnvironmentChange, snapshots: Mapping[str, Snapshot]) -> dict[str, str]:
        """The snapshots the environment change leaves unchecked, with why (none on update)."""
        if self.session.policy.update:
            return {}
        return environment_.not_checked(
            change,
            list(snapshots),
            host_dependent=self.active.host_dependent,
            missing=[n for n, snap in snapshots.items() if snap.text is None],
        )

    def _over_budget(self, result: StageResult) -> list[Finding] | None:
        """The call's budget findings (None: no budget applies to it)."""
        if not self.budget:
            return None
        return budgets_.check_budget(self.budget, result.analyses, result.seconds, result.config.device_memory)

    @staticmethod
    def _compared(
        record: CallRecord,
        compared: CallComparison,
        budget: list[Finding] | None,
        *,
        drift: bool,
    ) -> CallRecord:
        """``record`` with the comparison's statuses, figures and findings, its budget's and the unchecked artifacts'.

        ``drift``: the snapshots are of other jax/jaxlib versions, so the record says which side drifted.
        """
        status = {
            **compared.status,
            BUDGET: budget_status(budget is not None, budget or []),
            **dict.fromkeys(compared.unchecked, Status.SKIPPED),
        }
        skipped = [Finding(Kind.SKIPPED, n, reason, failing=False) for n, reason in compared.unchecked.items()]
        return dataclasses.replace(
            record,
            status=status,
            deltas=compared.deltas,
            findings=[*compared.findings, *(budget or []), *skipped],
            drift_cause=upgrade.drift_cause(status) if drift else None,
        )

    def _queued(self, name: str, folder: FolderRead, compared: CallComparison) -> list[PendingWrite]:
        """The test's files to write with this call's: its changed artifacts, the folder's metadata where it changed,
        and with ``--stages-migrate`` its files and metadata where an older version recorded less (an older format,
        keys it did not record, a figures file without the keys added since). A folder re-recorded because this
        version cannot compare its format is in this one afterwards."""
        meta = folder.meta
        full_meta = self._meta(meta, folder.current, migrating=True)
        added = any(why == Migration.ADDED for _, why in compared.migrations.values())  # none unless migrating
        migrating = (
            self.session.options.migrate and meta is not None and (snapshot_format.older(meta, full_meta) or added)
        )
        rewritten = migrating or folder.rerecord
        new_meta = full_meta if rewritten else self._meta(meta, folder.current, migrating=False)
        queued = [
            *self.pending,
            *(PendingWrite(self.folder.artifact(name, n), text, name) for n, text in compared.changed.items()),
        ]
        if self._meta_due(meta, new_meta, migrating=rewritten) and all(p.path != self.folder.meta for p in queued):
            queued.append(PendingWrite(self.folder.meta, to_json(new_meta), name))
        return self._migrated(queued, name, compared.migrations) if migrating else queued

    def _refuse_format(self, meta: Mapping[str, object] | None, record: CallRecord) -> bool:
        """A folder of a format this version cannot compare: said once a session (then skipped), never as drift.

        ``--stages-update`` re-records such a folder: True, its snapshots are not read.
        """
        problem = snapshot_format.incomparable(meta, str(plan.installed_version("pytest-stages")))
        if problem is None or self.session.policy.update:
            return problem is not None
        self._keep(dataclasses.replace(record, status=dict.fromkeys(self._judged(), Status.SKIPPED)))
        folder = f"{self.session.settings.snapshot_dir}/{self.folder.relative}/"
        if problem in self.session.formats_said:
            written = snapshot_format.recorded_format(meta)
            raise StagesSkip(
                f"the snapshots in {folder} are of format {written}, which this version cannot compare "
                "(see the failure above)"
            )
        self.session.formats_said.add(problem)
        raise StagesFailure(f"the snapshots in {folder} (and any others of that format) were {problem}.")

    def _keep_pending(self, name: str, writes: Sequence[PendingWrite], current: Mapping[str, object]) -> None:
        """Keep what an update would write for this call (with its base and environment) for the pending set.

        The folder's metadata is written with every call of the folder that writes anything, so
        that accepting any one of them records the environment its files were made in.
        """
        meta = [write for write in self.pending if write.path == self.folder.meta]
        files = {write.path.name: write.text for write in [*writes, *meta]}
        if writes:
            self.pending_calls.append((name, files, dict(current)))

    def pending_set(self, directory: Path) -> list[store_pending.PendingCall]:
        """The calls whose update would write anything, as entries of the set ``directory`` (each record names it)."""
        config = json.loads(to_json(dataclasses.asdict(self.active.config)))
        records = {record.name: record for record in self.records}
        calls = []
        for name, files, current in self.pending_calls:
            base = {file: store_pending.disk_digest(self.folder.path / file) for file in files}
            record = dataclasses.replace(records[name], pending=directory.name)
            manifest = store_pending.manifest(
                identity=self.session.pending_identity,
                call={
                    "nodeid": record.nodeid,
                    "config": record.config,
                    "name": record.name,
                    "folder": record.folder,
                    "config_record": config,
                    "environment": current,
                },
                base=base,
                files=files,
                record=record.to_dict(),
            )
            calls.append(store_pending.PendingCall(self.folder.relative, files, manifest))
        return calls

    def write_pending_set(self) -> None:
        """Write this test's pending calls into the run's pending folder (a compare run with ``--stages-pending``)."""
        directory = self.session.options.pending
        if directory is None:
            return
        for (name, _, _), call in zip(self.pending_calls, self.pending_set(directory), strict=True):
            try:
                store_pending.write_call(directory, call)
            except OSError as exc:  # the summary counts only the calls written
                raise SnapshotError(
                    f"could not write the pending set {directory} ({exc.strerror or exc}); the snapshots are "
                    "untouched. Free disk space or name a writable folder with --stages-pending."
                ) from None
            self.records = [
                dataclasses.replace(r, pending=directory.name) if r.name == name else r for r in self.records
            ]
        self.pending_calls.clear()

    def _refuse_foreign(self, record: CallRecord, change: environment_.EnvironmentChange) -> None:
        """Snapshots of another platform never compare; a plain update never replaces those of another target."""
        update = self.session.policy.update
        if not change.foreign or (update and self.session.options.rerecord) or (not update and not change.platform):
            return
        folder = f"{self.session.settings.snapshot_dir}/{self.folder.relative}/"
        self._keep(dataclasses.replace(record, status=dict.fromkeys(self._judged(), Status.SKIPPED)))
        explain = environment_.refusal(change, folder, self.nodeid, update=update)
        raise StagesFailure(f"{record.name!r} on config {self.active.name}: {explain}")

    def _migrated(
        self, queued: list[PendingWrite], name: str, migrations: Mapping[Path, tuple[str, Migration]]
    ) -> list[PendingWrite]:
        """``--stages-migrate``: each snapshot file of the call not yet in this version's form, rewritten in it.

        Rewriting of what is stored (no file is compared or re-recorded here), so a folder taken on a
        chip this host does not have migrates too; a figures file gains the keys added since from the
        call just built, where it holds the same otherwise. The folder's metadata is queued by the caller.
        """
        paths = {write.path for write in queued}
        rewrites = [
            PendingWrite(path, text, name, why) for path, (text, why) in migrations.items() if path not in paths
        ]
        return [
            dataclasses.replace(write, migration=Migration.FORMAT) if write.path == self.folder.meta else write
            for write in [*queued, *rewrites]
        ]

    def _failure(
        self,
        result: StageResult,
        compared: CallComparison,
        verdict: Verdict,
        folder: FolderRead,
    ) -> str:
        """The failure message of a call whose verdict failed: environment, versions and inputs, then the findings."""
        settings, change, mismatch = self.session.settings, folder.change, folder.mismatch
        notes = [f"environment: {change.headline()}"] if change.shown else []
        notes += [f"note: {mismatch}; the differences may come from that upgrade."] if mismatch else []
        notes += environment_.plugin_note(change)
        notes += [f"inputs: {compared.signature}"] if compared.signature else []
        call = check_message.Call(
            result.name,
            self.active.name,
            f"{settings.snapshot_dir}/{self.folder.relative}/",
            {n: self.folder.artifact(result.name, n).name for n in self._judged()},
        )
        return check_message.call_message(
            call,
            verdict,
            notes=[*notes, *result.notes],
            diff_lines=settings.diff_lines,
            full=self.session.options.verbosity >= 2,
        )

    def _judged(self) -> tuple[str, ...]:
        """The artifacts this call snapshots: its stages and analyses (budget-only analyses are not stored)."""
        return (*self.stages, *self.analyses)

    def _snapshots(self, name: str, *, read: bool = True) -> dict[str, Snapshot]:
        """The call's snapshot files, each read once, with the data the reader parsed (all None, unread, where
        ``read`` is False); compare_call parses the other JSON ones."""
        paths = {artifact: self.folder.artifact(name, artifact) for artifact in self._judged()}
        parsed: dict[str, object] = {}
        texts = self.session.store.read_all(paths, parsed) if read else dict.fromkeys(paths)
        return {
            artifact: Snapshot(path, texts[artifact], parsed.get(artifact, UNPARSED))
            for artifact, path in paths.items()
        }

    def _read_meta(self) -> dict[str, object] | None:
        """The folder's metadata; a folder with snapshots but none is an error outside update mode."""
        meta = self.session.store.read_meta(self.folder)
        if meta is None and not self.session.options.update and self.folder.path.is_dir():
            raise SnapshotError(
                f"snapshot folder {self.folder.path} has snapshots but no {self.folder.meta.name} "
                "(the jax/jaxlib versions they were taken with are unknown); restore it from "
                "version control, or run `pytest --stages-update` to record it."
            )
        return meta

    @staticmethod
    def _meta_due(recorded: Mapping[str, object] | None, written: Mapping[str, object], *, migrating: bool) -> bool:
        """Whether an update writes the folder's metadata: a folder's first record, a migration, or a value it
        records that changed (the jax version of an upgrade, the staging of a new artifact); never for keys an
        older version did not record, nor for a changed file alone (its pull request holds the change only)."""
        return written != recorded and (
            recorded is None or migrating or snapshot_format.records_other(recorded, written)
        )

    def _meta(
        self, recorded: Mapping[str, object] | None, current: Mapping[str, object], *, migrating: bool
    ) -> dict[str, object]:
        """The folder's metadata after this run: its other keys kept, the environment its files were made in.

        Its format and the version that wrote it stay the recorded ones unless ``migrating``.
        """
        written = {**environment_.after_update(recorded, current), "devices": self.active.config.devices}
        if migrating:
            return {**written, "format": snapshot_format.FORMAT_VERSION}
        return snapshot_format.kept_format(recorded, written)
