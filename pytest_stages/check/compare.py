"""Comparison: one staged call's artifacts against their snapshots, each judged by the family the artifact table names.

:func:`compare_call` takes the call as :class:`Built` (the built texts and analyses, their printed form and
source places on demand) and never calls back into the run that staged it. Each family (:data:`FAMILIES`) is
its own module, imported at the first difference it judges; it takes a :class:`~pytest_stages.core.records.Pair`
and gives a :class:`~pytest_stages.core.records.Compared`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_stages.analyse.artifacts import BY_NAME
from pytest_stages.check.snapshot_format import Renames, Snapshot, compared_form, migrations, parsed, stored_form
from pytest_stages.core.errors import SnapshotError
from pytest_stages.core.lazy import lazy_module
from pytest_stages.core.records import Change, Compared, Finding, Kind, Migration, Pair, Status

if TYPE_CHECKING:
    from pytest_stages.check import changed_paths, drift, figures, kernel_changes, ops, placement
    from pytest_stages.ir import renaming
else:
    changed_paths = lazy_module("pytest_stages.check.changed_paths")
    drift = lazy_module("pytest_stages.check.drift")
    figures = lazy_module("pytest_stages.check.figures")
    renaming = lazy_module("pytest_stages.ir.renaming")
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

    def line_places(self, artifact: str, root: Path | None) -> Sequence[str | None]: ...

    def loop_places(self, root: Path | None) -> list[str | None]: ...

    def function_place(self, root: Path | None) -> str | None: ...


@dataclass(frozen=True)
class Judged:
    """One artifact against its snapshot: its cell, findings and moved figures, what an update writes of it
    (None: nothing), and the input change it shows."""

    name: str
    status: Status
    findings: Sequence[Finding] = ()
    deltas: Mapping[str, list[float]] = field(default_factory=dict)
    written: str | None = None
    signature: str | None = None


@dataclass(frozen=True)
class CallComparison:
    """What :func:`compare_call` found for one call, built once from its artifacts' :class:`Judged`.

    ``changed`` holds what an update writes of each artifact whose file must be (re)written (new, or
    different from its snapshot): its text as built, a stage text under its snapshot's names, a placement
    snapshot under its folder's output names (none where the run writes nothing). ``signature`` explains
    an input change seen in the jaxpr. ``unchecked``: the built artifacts the environment leaves unchecked,
    with why. ``migrations``: with ``--stages-migrate``, each recorded snapshot (compared or not) not in this
    version's form, as it writes it and why."""

    status: dict[str, Status]
    findings: list[Finding]
    deltas: dict[str, list[float]]
    changed: dict[str, str]
    signature: str | None
    migrations: dict[Path, tuple[str, Migration]]
    unchecked: dict[str, str]


@dataclass(frozen=True)
class Context:
    """What comparing a call needs besides the snapshots: tolerances, diff size, where.

    ``renames``: :attr:`~pytest_stages.stage.staging.StageResult.output_renames` for a format-1 folder.
    ``unchecked``: the call's snapshots the environment leaves uncompared here, with why; ``migrate``:
    the folder's snapshots not in this version's form are to be rewritten (``--stages-migrate``);
    ``writes``: the run writes what an update would (``--stages-update``, ``--stages-pending``).
    """

    nodeid: str
    rootpath: Path
    tolerance: Mapping[str, float] = field(default_factory=dict)
    diff_lines: int = 60
    replace_unreadable: bool = False
    renames: Renames = None
    unchecked: Mapping[str, str] = field(default_factory=dict)
    migrate: bool = False
    writes: bool = True


def compare_call(staged: Built, snapshots: Mapping[str, Snapshot], context: Context) -> CallComparison:
    """Compare every built artifact of ``staged`` with its snapshot.

    Raises :class:`SnapshotError` for a JSON snapshot that does not parse, unless
    ``context.replace_unreadable`` (update mode), where it is reported and replaced.
    """
    left_out = {**staged.skipped, **staged.partial}
    snapshots = _parsed(snapshots)
    judged, unchecked = [], {}
    for name in staged.built:
        if name in context.unchecked:
            unchecked[name] = context.unchecked[name]
        elif name in snapshots:
            judged.append(_judged(name, snapshots[name], staged, context))
    return CallComparison(
        status={**{j.name: j.status for j in judged}, **dict.fromkeys(staged.skipped, Status.SKIPPED)},
        findings=[
            *(Finding(Kind.SKIPPED, name, reason, failing=False) for name, reason in left_out.items()),
            *(finding for j in judged for finding in j.findings),
        ],
        deltas={metric: moved for j in judged for metric, moved in j.deltas.items()},
        changed={j.name: j.written for j in judged if j.written is not None},
        signature=next((j.signature for j in judged if j.signature), None),  # the jaxpr's alone
        migrations=migrations(snapshots, context.renames, staged.analyses) if context.migrate else {},
        unchecked=unchecked,
    )


def _parsed(snapshots: Mapping[str, Snapshot]) -> dict[str, Snapshot]:
    """Each JSON snapshot with its data, parsed once (as its reader left it where the reader parsed it)."""
    return {name: parsed(name, snapshot) for name, snapshot in snapshots.items()}


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


def _judged(name: str, snapshot: Snapshot, staged: Built, context: Context) -> Judged:
    """One artifact against its snapshot."""
    if snapshot.text is None:
        written = staged.serialized(name) if context.writes else None
        return Judged(name, Status.NEW, [no_snapshot(name)], written=written)
    described = BY_NAME[name]
    built = staged.texts[name] if described.is_text else staged.analyses[name]
    compared = compared_form(name, snapshot, built, context.renames)
    if compared is None:  # nothing to compare, nor an analysis to print as JSON
        return Judged(name, Status.OK)
    expected, actual = compared.text or "", staged.serialized(name)
    found = _compare_artifact(name, compared, actual, staged, context)
    status = artifact_status(found.findings, recorded=True)
    written = _written(name, expected, actual, staged, context.renames) if context.writes else None
    return Judged(name, status, found.findings, found.deltas, written, found.signature)


def _written(name: str, expected: str, actual: str, staged: Built, renames: Renames) -> str | None:
    """What an update writes of a recorded artifact (None: its snapshot ``expected`` holds the same program, up
    to names and the order of independent operations): a stage text under the snapshot's names, a placement
    snapshot of a format-1 folder under that folder's output names; so a file changes only where its program did."""
    described = BY_NAME[name]
    if not described.is_text:
        return None if expected == actual else stored_form(name, actual, staged.analyses[name], renames)
    written = renaming.keep_names(described.dialect, expected, actual)  # the snapshot itself where equivalent
    return None if written == expected else written


def _compare_artifact(name: str, snapshot: Snapshot, actual: str, staged: Built, context: Context) -> Compared:
    """One artifact against its snapshot (as :func:`compared_form` gives it), with the family the table names."""
    expected = snapshot.text or ""
    if BY_NAME[name].is_text:
        return compare_pair(
            Pair(
                name,
                expected,
                actual,
                diff_lines=context.diff_lines,
                locations=lambda: staged.line_places(name, context.rootpath),
                inputs=(lambda: _input_names(staged)) if BY_NAME[name].signature else None,
            )
        )
    if expected == actual:  # the same text of data that does not survive JSON (a tuple): unchanged too
        return Compared([])
    if snapshot.unreadable is not None:
        if context.replace_unreadable:
            return Compared(
                [Finding(BY_NAME[name].kind, name, "unreadable snapshot replaced", change=Change.UNREADABLE)]
            )
        raise unreadable_snapshot(snapshot.path, snapshot.unreadable, context.nodeid)
    return compare_pair(
        Pair(
            name,
            expected,
            actual,
            snapshot.data,
            staged.analyses[name],
            context.tolerance,
            context.diff_lines,
            loop_places=lambda: staged.loop_places(context.rootpath),
            function_place=lambda: staged.function_place(context.rootpath),
        )
    )


def _input_names(staged: Built) -> list[str]:
    """The names of the call's flat inputs, in order, as its placement analysis (if built) has them."""
    placed = staged.analyses.get("sharding") or staged.analyses.get("layout") or {}
    return list(placed.get("inputs", {}))


def unreadable_snapshot(path: Path, why: str, nodeid: str) -> SnapshotError:
    """The error of a JSON snapshot that does not parse (``why``), outside update mode."""
    return SnapshotError(
        f"snapshot {path} is not valid JSON ({why}): it was corrupted or edited by hand. "
        f"Restore it from version control, or run `pytest --stages-update {nodeid}` to record it again."
    )


def compare_pair(pair: Pair) -> Compared:
    """Compare with the family the artifact table names for ``pair.artifact``."""
    return FAMILIES[BY_NAME[pair.artifact].family]()(pair)


def no_snapshot(artifact: str) -> Finding:
    """The finding of an artifact never recorded."""
    return Finding(BY_NAME[artifact].kind, artifact, NO_SNAPSHOT, change=Change.NO_SNAPSHOT)
