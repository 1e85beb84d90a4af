"""Comparison: one staged call's artifacts against their snapshots, each judged by the family the artifact table names.

:func:`compare_call` takes the call as :class:`Staged`, what comparing needs of a staged result
(the built texts and analyses, their printed form and source lines on demand), and runs down
the layers from here: it never calls back into the run that staged it. Each family is its own
module, imported at the first difference it judges: IR drift of stage texts
(:mod:`~pytest_stages.check.drift`), op structure (:mod:`~pytest_stages.check.ops`), cost and
memory figures (:mod:`~pytest_stages.check.figures`), shardings and layouts
(:mod:`~pytest_stages.check.placement`), kernel findings (:mod:`~pytest_stages.check.kernel_changes`)
and the generic JSON comparison (:mod:`~pytest_stages.check.changed_paths`). Each takes a
:class:`~pytest_stages.core.records.Pair` and gives a :class:`~pytest_stages.core.records.Compared`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_stages.analyse.artifacts import BY_NAME, check_kind, holds
from pytest_stages.check import snapshot_format
from pytest_stages.core.errors import SnapshotError
from pytest_stages.core.inputs import UNPARSED, parse_json
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import Change, Compared, Finding, Kind, Pair, Status

if TYPE_CHECKING:
    from pytest_stages.check import changed_paths, drift, figures, kernel_changes, ops, placement
    from pytest_stages.ir import alpha as ir_alpha
    from pytest_stages.ir import sources as ir_sources
else:
    changed_paths = lazy_module("pytest_stages.check.changed_paths")
    drift = lazy_module("pytest_stages.check.drift")
    figures = lazy_module("pytest_stages.check.figures")
    ir_alpha = lazy_module("pytest_stages.ir.alpha")
    ir_sources = lazy_module("pytest_stages.ir.sources")
    kernel_changes = lazy_module("pytest_stages.check.kernel_changes")
    ops = lazy_module("pytest_stages.check.ops")
    placement = lazy_module("pytest_stages.check.placement")

NO_SNAPSHOT = "no snapshot yet"

# Each comparison family by its name in the artifact table; its module is imported at the first pair it judges.
FAMILIES: dict[str, Callable[[], Callable[[Pair], Compared]]] = {
    "ir": lambda: drift.ir_drift,
    "ops": lambda: ops.op_structure,
    "figures": lambda: figures.figures,
    "placement": lambda: placement.placement,
    "structure": lambda: changed_paths.structure,
    "kernels": lambda: kernel_changes.kernel_findings,
}


class Built(Protocol):
    """The artifacts built for one staged call, as comparing reads them (a ``StageResult`` is one)."""

    texts: dict[str, str]
    analyses: dict[str, dict[str, Any]]
    skipped: dict[str, str]
    partial: dict[str, str]

    @property
    def built(self) -> list[str]: ...

    def serialized(self, name: str) -> str: ...

    def source_lines(self, artifact: str) -> ir_sources.Located | None: ...

    def loop_places(self, root: Path | None) -> list[str | None]: ...

    def function_place(self, root: Path | None) -> str | None: ...


@dataclass(frozen=True)
class Snapshot:
    """One artifact's snapshot file and its text (None when there is none yet).

    ``data`` is what the reader parsed of a JSON snapshot's text when it checked it
    (:data:`~pytest_stages.core.inputs.UNPARSED`: not parsed).
    """

    path: Path
    text: str | None
    data: object = UNPARSED


@dataclass(frozen=True)
class CallComparison:
    """What :func:`compare_call` found for one call (its containers filled there, never after).

    ``changed`` names the artifacts whose file must be (re)written: new, or different
    from the snapshot. ``signature`` explains an input change seen in the jaxpr. ``current``
    holds each snapshot that differed, as this version of pytest-stages writes it (renormalized).
    """

    status: dict[str, Status] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    deltas: dict[str, list[float]] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    signature: str | None = None
    current: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Context:
    """What comparing a call needs besides the snapshots: tolerances, diff size, where.

    ``renames`` gives, when asked, the map from the output names of an older snapshot format to
    this one's (:attr:`~pytest_stages.stage.staging.StageResult.output_renames`; None: the same format).
    """

    nodeid: str
    rootpath: Path
    tolerance: Mapping[str, float] = field(default_factory=dict)
    diff_lines: int = 60
    replace_unreadable: bool = False
    renames: Callable[[], Mapping[str, str]] | None = None


def compare_call(staged: Built, snapshots: Mapping[str, Snapshot], context: Context) -> CallComparison:
    """Compare every built artifact of ``staged`` with its snapshot.

    Raises :class:`SnapshotError` for a JSON snapshot that does not parse, unless
    ``context.replace_unreadable`` (update mode), where it is reported and replaced.
    """
    left_out = {**staged.skipped, **staged.partial}
    out = CallComparison(
        findings=[Finding(Kind.SKIPPED, name, reason, failing=False) for name, reason in left_out.items()]
    )
    signature = None
    for name in staged.built:
        if name in snapshots:
            signature = _add_artifact(out, name, snapshots[name], staged=staged, context=context) or signature
    out.status.update(dict.fromkeys(staged.skipped, Status.SKIPPED))
    return out if signature is None else dataclasses.replace(out, signature=signature)


def artifact_status(findings: Sequence[Finding], *, recorded: bool) -> Status:
    """An artifact's cell in the summary table: new, changed (a failing finding), improved (others) or ok."""
    if not recorded:
        return Status.NEW
    if any(f.failing for f in findings):
        return Status.CHANGED
    return Status.IMPROVED if findings else Status.OK


def budget_status(configured: bool, findings: Sequence[Finding]) -> Status:
    """The budget cell: unchecked without a budget, over where a ceiling was breached, skipped where a ceiling
    could not be judged here (no figure), else ok."""
    if not configured:
        return Status.UNCHECKED
    if any(f.failing for f in findings):
        return Status.OVER
    return Status.SKIPPED if any(f.change == Change.SKIPPED for f in findings) else Status.OK


def _add_artifact(out: CallComparison, name: str, snapshot: Snapshot, *, staged: Built, context: Context) -> str | None:
    """One artifact's status, findings and deltas; whether its file must be written; the input change it shows."""
    expected = snapshot.text
    if expected is None:
        out.status[name] = Status.NEW
        out.findings.append(no_snapshot(name))
        out.changed.append(name)
        return None
    described = BY_NAME[name]
    built = staged.texts[name] if described.is_text else staged.analyses[name]
    if holds(name, expected, snapshot.data, built):  # nothing to compare, nor an analysis to print as JSON
        out.status[name] = Status.OK
        return None
    current = snapshot_format.current_form(name, expected, context.renames)
    if current != expected:  # written by an older pytest-stages: compared as this one writes it
        out.current[name] = expected = current
        snapshot = Snapshot(snapshot.path, current)
        if holds(name, current, UNPARSED, built):  # its format alone is no reason to write it (--stages-migrate is)
            out.status[name] = Status.OK
            return None
    actual = staged.serialized(name)
    found = _compare_artifact(name, snapshot, actual, staged, context)
    out.findings.extend(found.findings)
    out.deltas.update(found.deltas)
    out.status[name] = artifact_status(found.findings, recorded=True)
    if ir_alpha.equivalent(described.dialect, expected, actual):
        return None
    out.changed.append(name)
    if not described.signature:
        return None
    placed = staged.analyses.get("sharding") or staged.analyses.get("layout") or {}
    return drift.signature_change(list(placed.get("inputs", {})), expected, actual)


def _compare_artifact(name: str, snapshot: Snapshot, actual: str, staged: Built, context: Context) -> Compared:
    """One artifact against its snapshot, with the comparison family the artifact table names."""
    expected = snapshot.text or ""
    if BY_NAME[name].is_text:
        return compare_pair(
            Pair(
                name,
                expected,
                actual,
                diff_lines=context.diff_lines,
                locations=lambda: ir_sources.describe_all(staged.source_lines(name) or (), context.rootpath),
            )
        )
    if expected == actual:  # the same text of data that does not survive JSON (a tuple): unchanged too
        return Compared([])
    try:
        before = parse_json(expected)
    except ValueError as exc:
        if context.replace_unreadable:
            return Compared([Finding(check_kind(name), name, "unreadable snapshot replaced", change=Change.UNREADABLE)])
        raise SnapshotError(
            f"snapshot {snapshot.path} is not valid JSON ({exc}): it was corrupted "
            "or edited by hand. Restore it from version control, or run "
            f"`pytest --stages-update {context.nodeid}` to record it again."
        ) from None
    compared = compare_pair(
        Pair(
            name,
            expected,
            actual,
            before,
            staged.analyses[name],
            context.tolerance,
            context.diff_lines,
            loop_places=lambda: staged.loop_places(context.rootpath),
        )
    )
    return placement.at_function(compared, lambda: staged.function_place(context.rootpath))


def compare_pair(pair: Pair) -> Compared:
    """Compare with the family the artifact table names for ``pair.artifact``."""
    return FAMILIES[BY_NAME[pair.artifact].family]()(pair)


def no_snapshot(artifact: str) -> Finding:
    """The finding of an artifact never recorded."""
    return Finding(check_kind(artifact), artifact, NO_SNAPSHOT, change=Change.NO_SNAPSHOT)
