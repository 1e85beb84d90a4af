"""One ``stage_snapshot`` call end to end: stage, compare with the snapshots, decide, record.

The pytest hook layer (``plugin.py``) creates a :class:`StagesSession` per run
and a :class:`StageSnapshot` per test; this module holds the logic between
them, free of pytest hooks.
"""

from __future__ import annotations

from importlib import metadata
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import budgets as budgets_
from . import upgrade
from .compare import (
    NO_SNAPSHOT,
    Finding,
    check_kind,
    compare_metrics,
    compare_ops,
    compare_placement,
    compare_text,
    flatten_metrics,
)
from .config import ConfigError, Settings
from .devices import ActiveConfig, activate
from .message import Labels, failure_message
from .normalize import to_json
from .signature import signature_change
from .sources import describe_all
from .adapters import Unsupported
from .staging import StageResult, stage
from .storage import FORMAT_VERSION, SnapshotError, SnapshotFolder, SnapshotStore

UPDATE_HINT = "Run `pytest --stages-update` to accept the changes if they are intended."


class StagesFailure(Exception):
    """A call whose findings fail the test; the message is what the user reads."""


class StagesSkip(Exception):
    """Snapshots from other JAX versions under ``on_version_mismatch = "skip"``."""


@dataclass(frozen=True)
class Options:
    """Command-line choices for this run."""

    update: bool = False
    configs: tuple[str, ...] | None = None
    check: tuple[str, ...] = ()
    report: str | None = None
    prune: bool = False
    verbosity: int = 0


@dataclass
class CallRecord:
    """What one call found and wrote, as plain data for reports (travels from xdist workers)."""

    nodeid: str
    config: str
    name: str
    folder: str
    status: dict[str, str] = field(default_factory=dict)
    deltas: dict[str, list[float]] = field(default_factory=dict)
    findings: list[dict[str, Any]] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    versions: str = ""
    drift_cause: str | None = None

    def to_json(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> CallRecord:
        return cls(**json.loads(text))


def environment() -> dict[str, str]:
    """The versions a snapshot folder records (read from package metadata: no JAX import)."""
    return {name: metadata.version(name) for name in ("jax", "jaxlib")}


class StagesSession:
    """Settings, storage and resolved device configs shared by every test of a run."""

    def __init__(
        self,
        settings: Settings,
        options: Options,
        rootpath: Path,
        budget_patterns: Mapping[str, Mapping[str, Any]],
    ) -> None:
        self.settings = settings
        self.options = options
        self.rootpath = rootpath
        self.budget_patterns = budget_patterns
        self.store = SnapshotStore(rootpath / settings.snapshot_dir)
        self.records: list[CallRecord] = []
        self._active: dict[str, ActiveConfig] = {}
        self._environment: dict[str, str] | None = None

    @property
    def environment(self) -> dict[str, str]:
        if self._environment is None:
            self._environment = environment()
        return self._environment

    def active(self, name: str) -> ActiveConfig:
        """The resolved config ``name`` (resolved once per run)."""
        if name not in self._active:
            self._active[name] = activate(self.settings.config_named(name), self.rootpath)
        return self._active[name]

    def enforced(self, kind: str) -> bool:
        return kind in (self.options.check or self.settings.check)


@dataclass
class PendingWrite:
    path: Path
    text: str
    record: CallRecord


class StageSnapshot:
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
        budget: Mapping[str, Any],
    ) -> None:
        self.session = session
        self.nodeid = nodeid
        self.folder = folder
        self.active = active
        self.stages = stages
        self.analyses = analyses
        self.tolerance = tolerance
        self.budget = budget
        self.pending: list[PendingWrite] = []
        self.records: list[CallRecord] = []
        self._names: list[str] = []

    def __call__(
        self, fn: Callable[..., Any], *args: Any, name: str | None = None,
        static_scalars: bool | None = None, **kwargs: Any,
    ) -> StageResult:
        """Trace, lower and compile ``fn(*args, **kwargs)``; compare every artifact with its snapshot.

        ``static_scalars=True`` bakes Python scalar arguments into the program (default: the
        ``static_scalars`` setting).
        """
        call_name = self._claim_name(fn, name)
        built = tuple(sorted(set(self.analyses) | budgets_.needed_analyses(self.budget)))
        settings = self.session.settings
        try:
            result = stage(
                fn, args, kwargs, name=call_name, active=self.active, stages=self.stages, analyses=built,
                static_scalars=settings.static_scalars if static_scalars is None else static_scalars,
                constants_warn_bytes=settings.constants_warn_bytes,
            )
        except Unsupported as exc:
            raise StagesSkip(f"stage_snapshot({call_name}): {exc}") from None
        self._compare(result)
        return result

    def _claim_name(self, fn: Callable[..., Any], name: str | None) -> str:
        if name is not None:
            if not isinstance(name, str) or not name:
                raise ConfigError(f"stage_snapshot(name={name!r}): name must be a non-empty string.")
            if name in self._names:
                raise ConfigError(
                    f"stage_snapshot(name={name!r}) is used twice in {self.nodeid}; "
                    "give each call its own name=."
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

    def _compare(self, result: StageResult) -> None:
        session, store = self.session, self.session.store
        record = CallRecord(
            nodeid=self.nodeid, config=self.active.name, name=result.name,
            folder=str(self.folder.relative),
        )
        self.records.append(record)
        meta = store.read_meta(self.folder)
        if meta is None and not session.options.update and self.folder.path.is_dir():
            raise SnapshotError(
                f"snapshot folder {self.folder.path} has snapshots but no {self.folder.meta.name} "
                "(the jax/jaxlib versions they were taken with are unknown); restore it from "
                "version control, or run `pytest --stages-update` to record it."
            )
        mismatch = upgrade.version_note(meta, session.environment)
        record.versions = mismatch
        if mismatch and session.settings.on_version_mismatch == "skip" and not session.options.update:
            raise StagesSkip(f"{mismatch} (on_version_mismatch = \"skip\")")
        serialized = {
            artifact: text for artifact, text in result.serialized().items()
            if artifact in self.stages or artifact in self.analyses
        }
        findings: list[Finding] = []
        signature = None
        for artifact, text in serialized.items():
            path = self.folder.artifact(result.name, artifact)
            expected = store.read(path)
            if artifact == "jaxpr" and expected is not None and expected != text:
                placed = result.analyses.get("sharding") or result.analyses.get("layout") or {}
                signature = signature_change(list(placed.get("inputs", {})), expected, text)
            if expected is None:
                record.status[artifact] = "new"
                findings.append(Finding(check_kind(artifact), artifact, NO_SNAPSHOT))
                self.pending.append(PendingWrite(path, text, record))
                continue
            found = self._compare_artifact(artifact, path, expected, text, result, record)
            findings += found
            failing = [f for f in found if f.failing]
            record.status[artifact] = "changed" if failing else "improved" if found else "ok"
            if expected != text:
                self.pending.append(PendingWrite(path, text, record))
        for artifact, reason in result.skipped.items():
            record.status[artifact] = "skipped"
            record.findings.append({"kind": "skipped", "artifact": artifact, "message": reason, "failing": False})
        if not self.budget:
            budget_findings = []
            record.status["budget"] = "-"
        else:
            budget_findings = budgets_.check_budget(self.budget, result.analyses)
            record.status["budget"] = "over" if any(f.failing for f in budget_findings) else "ok"
        findings += budget_findings
        record.findings += [f.__dict__ for f in findings]
        if mismatch:
            record.drift_cause = upgrade.drift_cause(record.status)
        meta_stale = meta is None or mismatch or meta.get("platform") != self.active.platform
        if meta_stale and all(p.path != self.folder.meta for p in self.pending):
            self.pending.append(PendingWrite(self.folder.meta, self._meta_text(), record))
        self._decide(findings, mismatch, result, signature)

    def _compare_artifact(
        self, artifact: str, path: Path, expected: str, text: str, result: StageResult, record: CallRecord
    ) -> list[Finding]:
        if artifact in result.texts:
            root = self.session.rootpath
            found = compare_text(
                artifact, expected, text, diff_lines=self.session.settings.diff_lines,
                locations=lambda: describe_all(result.source_lines(artifact) or (), root),
            )
            return [found] if found else []
        if expected == text:
            return []
        try:
            before = json.loads(expected)
        except json.JSONDecodeError as exc:
            if self.session.options.update:
                return [Finding(check_kind(artifact), artifact, "unreadable snapshot replaced")]
            raise SnapshotError(
                f"snapshot {path} is not valid JSON ({exc.msg}, line {exc.lineno}): it was corrupted "
                "or edited by hand. Restore it from version control, or run "
                f"`pytest --stages-update {self.nodeid}` to record it again."
            ) from None
        after = result.analyses[artifact]
        if artifact in ("cost", "memory"):
            found = compare_metrics(artifact, before, after, self.tolerance)
            for metric, old, new in _numeric_changes(before, after):
                record.deltas[metric] = [old, new]
            return found
        if artifact in ("sharding", "layout"):
            return compare_placement(artifact, before, after)
        changed = compare_ops(expected, text, before, after, diff_lines=self.session.settings.diff_lines)
        return [changed] if changed else []

    def _decide(self, findings: list[Finding], mismatch: str, result: StageResult, signature: str | None) -> None:
        session = self.session
        failing = [f for f in findings if f.failing and session.enforced(f.kind)]
        if session.options.update:
            failing = [f for f in failing if f.kind == "budget"]
        elif mismatch and session.settings.on_version_mismatch == "warn":
            failing = [f for f in failing if f.kind == "budget"]
        else:
            failing = [f for f in failing if not self._churn(f, mismatch)]
        if not failing:
            return
        self.pending.clear()
        raise StagesFailure(self._message(failing, findings, mismatch, result, signature))

    def _message(
        self, failing: list[Finding], findings: list[Finding], mismatch: str, result: StageResult, signature: str | None
    ) -> str:
        where = f"{self.session.settings.snapshot_dir}/{self.folder.relative}/"
        only_budget = all(f.kind == "budget" for f in failing)
        title = f"pytest-stages: {result.name!r} on config {self.active.name} " + (
            "exceeds its budget" if only_budget else f"differs from its snapshots in {where}"
        )
        notes = [f"note: {mismatch}; the differences may come from that upgrade."] if mismatch else []
        notes += [f"inputs: {signature}"] if signature else []
        notes += list(result.notes)
        footer = []
        if not self.session.options.update:
            churn = [f.artifact for f in findings if f.failing and self._churn(f, mismatch)]
            if churn:
                names = ", ".join(dict.fromkeys(churn))
                footer.append(f"  upgrade churn, not failing (on_version_mismatch = \"semantic\"): {names}")
            unenforced = [f.artifact for f in findings if f.failing and f not in failing and f.artifact not in churn]
            if unenforced:
                names = ", ".join(dict.fromkeys(unenforced))
                footer.append(f"  also changed, but not checked in this run: {names}")
            footer += [f"  also {f.artifact}: {f.message}" for f in findings if not f.failing]
        footer.append(
            UPDATE_HINT if not only_budget
            else "Budgets are ceilings: `--stages-update` does not lift them; change the budget or the program."
        )
        labels = Labels({
            artifact: f"{artifact} ({self.folder.artifact(result.name, artifact).name})"
            for artifact in dict.fromkeys(f.artifact for f in failing) if artifact != "budget"
        })
        return failure_message(
            title, failing, labels=labels, notes=notes, footer=footer,
            diff_lines=self.session.settings.diff_lines, full=self.session.options.verbosity >= 2,
        )

    def _churn(self, finding: Finding, mismatch: str) -> bool:
        return upgrade.is_churn(finding.kind, self.session.settings.on_version_mismatch, mismatch)

    def _meta_text(self) -> str:
        return to_json({
            "format": FORMAT_VERSION,
            **self.session.environment,
            "platform": self.active.platform,
            "devices": self.active.config.devices,
        })

    def flush(self) -> None:
        """Write pending snapshot files (update mode, after the test passed), noting each in its record."""
        for pending in self.pending:
            self.session.store.write(pending.path, pending.text)
            pending.record.written.append(pending.path.relative_to(self.session.rootpath).as_posix())
        self.pending.clear()


def _numeric_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, float, float]]:
    old, new = flatten_metrics(before), flatten_metrics(after)
    return [
        (metric, old[metric], new[metric])
        for metric in sorted(set(old) & set(new))
        if isinstance(old[metric], (int, float)) and isinstance(new[metric], (int, float))
        and old[metric] != new[metric]
    ]
