"""Plain data that travels between the layers: findings, what a comparison takes and gives, the record of a call.

A :class:`CallRecord` is built on the process that ran the test and reaches
the reports on the xdist controller as :meth:`CallRecord.to_dict` output (JSON-ready).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, NotRequired, TypedDict


class Kind(StrEnum):
    """The check a finding belongs to (``--stages-check`` kinds, and ``skipped``)."""

    TEXT = "text"
    COST = "cost"
    MEMORY = "memory"
    SHARDING = "sharding"
    LAYOUT = "layout"
    KERNELS = "kernels"
    COMPILES = "compiles"
    BUDGET = "budget"
    SKIPPED = "skipped"


class Migration(StrEnum):
    """Why ``--stages-migrate`` rewrote a snapshot file of an older format."""

    FORMAT = "format"  # _stages.json: the folder's format and the version that wrote it
    NORMALIZED = "normalized"  # a stage text, normalized as this version normalizes it
    OUTPUTS = "outputs"  # a placement snapshot, its outputs named as the function returns them
    ADDED = "added"  # a figures snapshot, with the keys this version adds to it (the cost's ``step``)


class Status(StrEnum):
    """An artifact's state in one call: the summary table's cells."""

    OK = "ok"
    NEW = "new"
    CHANGED = "changed"
    IMPROVED = "improved"
    SKIPPED = "skipped"
    OVER = "over"
    UNCHECKED = "-"


class Change(StrEnum):
    """What a finding says happened; the headline and details are rendered from it and the fields."""

    NO_SNAPSHOT = "no snapshot"  # the artifact was never recorded
    UNREADABLE = "unreadable"  # a snapshot that did not parse, replaced in update mode
    DRIFT = "drift"  # a stage text differs
    OPS = "ops"  # the op structure differs
    FIGURE = "figure"  # a cost or memory figure moved beyond its tolerance
    INCOMPARABLE = "incomparable"  # figures of another kind (compiled vs lowered cost), or not numbers
    PLACEMENT = "placement"  # a leaf's sharding, donation, aliasing or layout
    COLLECTIVES = "collectives"  # the collectives a placement snapshot records
    COUNTS = "counts"  # compile counts or signatures
    NEVER_RAN = "never ran"  # a watched function of the snapshot did not run
    BREACH = "breach"  # a budget ceiling
    HEADROOM = "headroom"  # a memory share within its ceiling: ``before`` the ceiling, ``after`` the figure (bytes)
    SKIPPED = "skipped"  # an artifact (or part of one) that could not be built
    OTHER = "other"


class DriftCause(StrEnum):
    """Under other jax/jaxlib versions than the snapshots: which side of JAX the call's drift came from."""

    FRONTEND = "frontend"  # jaxpr, StableHLO or lowered HLO changed
    COMPILER = "compiler"  # those identical, the compiled program or a figure derived from it changed
    BOTH = "both"
    NONE = "none"


class Mode(StrEnum):
    """What a run does with differences: compare them with the snapshots, or write them (``--stages-update``)."""

    COMPARE = "compare"
    UPDATE = "update"

    @classmethod
    def of(cls, update: bool) -> Mode:
        return cls.UPDATE if update else cls.COMPARE


# What a line of a diff is: ``=`` the same, ``-`` removed, ``+`` added, ``~`` changed in place.
Tag = Literal["=", "-", "+", "~"]
# A row of a drift's side-by-side diff: its tag, old line number and text, new line number and text
# (1-based numbers; None and "" where a side has no line), the new line's source or None.
DiffRow = tuple[Tag, int | None, str, int | None, str, str | None]


class Constant(TypedDict):
    """A scalar literal an IR drift changed: old and new value, on how many lines, the source line of its first user."""

    old: str
    new: str
    lines: int
    at: str | None


class DriftDetail(TypedDict):
    """What the reports show of an IR drift (a finding's ``detail``, the report's ``detail`` object).

    ``summary`` the op and structure lines; ``sources`` the source lines of the changed ops with
    their counts by change; ``hunks`` the side-by-side diff, ``truncated`` when it holds fewer rows
    than the diff has; ``removed`` how many lines were removed; ``new_kinds`` the op kinds that
    appeared or disappeared; ``setting`` the module constant that holds a changed value.
    """

    summary: list[str]
    sources: list[tuple[str, dict[str, int]]]
    hunks: list[list[DiffRow]]
    truncated: bool
    removed: NotRequired[int]
    constants: NotRequired[list[Constant]]
    new_kinds: NotRequired[list[str]]
    setting: NotRequired[dict[str, str] | None]


class StepTime(TypedDict, total=False):
    """cost.json's ``step`` (analyse/step_time.py): ``unknown`` (why no estimate) alone, or the estimate in
    seconds, the term that binds it, each term's seconds, the kernels counted (compiled programs), the chip,
    XLA's own figure where it gives a time and ``notes``; the reports' ``step`` adds ``--stages-measure``'s
    timing (stage/measure.py), or ``not_measured`` and why."""

    unknown: str
    estimated_seconds: float
    binding: str
    compute_seconds: float
    hbm_seconds: float
    collectives_seconds: float
    launch_seconds: float
    kernels: int
    chip: str
    xla_optimal_seconds: float
    notes: str
    measured_seconds: float
    measured_min: float
    measured_max: float
    measured_calls: str
    estimate_over_measured: float
    not_measured: str


class Uncosted(TypedDict):
    """The Pallas kernels XLA's cost analysis cannot look inside (cost.json's ``unknown``)."""

    custom_calls: int
    kernels: list[str]


class CostAnalysis(TypedDict, total=False):
    """cost.json (analyse/analyses.py:cost): XLA's figures of the compiled program by XLA's names (``flops``,
    ``bytes accessed``, ``optimal_seconds``...; ``{"unavailable": true}`` where it gave none), the lowered
    program's standing in for them, the kernels it could not cost and the step-time estimate."""

    compiled: dict[str, float | None]
    lowered: dict[str, float | None]
    unknown: Uncosted
    step: StepTime


@dataclass(frozen=True)
class Finding:
    """One difference between a snapshot and what was staged, as data.

    ``subject`` is what changed (a metric, leaf, function, op kind); ``ops`` op-count deltas and ``moves``
    what moved, most telling first; ``failing`` is False for improvements and notes; ``message`` is its own
    line; ``diff`` an IR drift's cut diff (``omitted`` lines left out); ``explanations`` JAX's explanation
    of each extra trace; ``detail`` JSON-ready data for reports.
    """

    kind: Kind
    artifact: str
    message: str
    failing: bool = True
    detail: DriftDetail | None = field(default=None, compare=False)
    change: Change = Change.OTHER
    subject: str = ""
    before: Any = None
    after: Any = None
    locations: tuple[str, ...] = ()
    ops: Mapping[str, int] = field(default_factory=dict)
    moves: tuple[str, ...] = ()
    diff: tuple[str, ...] = ()
    omitted: int = 0
    explanations: tuple[str, ...] = ()

    @property
    def recorded(self) -> bool:
        """False for an artifact that has no snapshot yet."""
        return self.change != Change.NO_SNAPSHOT

    def to_dict(self) -> dict[str, object]:
        """The finding as JSON-ready data (``dataclasses.asdict``'s result, built without its deep copy)."""
        out = {name: getattr(self, name) for name in _FINDING_FIELDS}
        out.update(
            locations=list(self.locations),
            moves=list(self.moves),
            ops=dict(self.ops),
            diff=list(self.diff),
            explanations=list(self.explanations),
        )
        return out


@dataclass(frozen=True)
class Pair:
    """A snapshot and the fresh artifact, with what comparing them needs: what every comparison family takes.

    ``before`` is the snapshot parsed (JSON artifacts) and ``after`` the fresh data;
    ``locations`` gives, on demand, the source location of each line of ``actual``, and
    ``loop_places`` that of each while loop of ``after`` (``ops.json``), ``function_place`` the staged function's,
    ``inputs`` the names of its flat inputs (given for the artifact whose input signature explains a change).
    """

    artifact: str
    expected: str
    actual: str
    before: Any = None
    after: Any = None
    tolerance: Mapping[str, float] = field(default_factory=dict)
    diff_lines: int = 60
    locations: Callable[[], Sequence[str | None] | None] | None = None
    loop_places: Callable[[], Sequence[str | None]] | None = None
    function_place: Callable[[], str | None] | None = None
    inputs: Callable[[], Sequence[str]] | None = None


@dataclass(frozen=True)
class Compared:
    """What every comparison family gives: a pair's findings, and the figures that moved (``metric: [old, new]``);
    ``signature``: the input change a changed jaxpr shows (``params['w'] f32[4] -> f32[8]``)."""

    findings: list[Finding]
    deltas: dict[str, list[float]] = field(default_factory=dict)
    signature: str | None = None


@dataclass(frozen=True)
class CallRecord:
    """What one call found and wrote: the row of the summary table and the entry of the JSON report.

    Each step of judging a call returns a new record (``dataclasses.replace``); none is changed in place.
    """

    nodeid: str
    config: str
    name: str
    folder: str
    status: dict[str, Status] = field(default_factory=dict)
    deltas: dict[str, list[float]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    versions: str = ""
    # The jax/jaxlib versions of the snapshots and of this run, where they differ: ``[then, now]``.
    version_change: list[str] = field(default_factory=list)
    drift_cause: DriftCause | None = None
    # Wall seconds to trace, lower and compile the call ("trace", "lower", "compile"): a figure of
    # the reports, never of a snapshot; ``cached`` when the persistent cache answered the compile.
    compile_seconds: dict[str, float] = field(default_factory=dict)
    cached: bool = False
    # The estimated step time on the config's chip (cost.json's ``step``: its seconds, binding term
    # and chip, or ``unknown`` and why); {} where no cost analysis was built.
    step: StepTime = field(default_factory=StepTime)
    # ``--stages-pending``: the name of the pending set that holds what an update would write for this call.
    pending: str = ""
    # ``--stages-migrate``: each file rewritten in this version's format (its path) and why.
    migrated: dict[str, Migration] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """The report entry (schema ``pytest-stages-report/1``): plain dicts, lists and strings.

        Equal to ``dataclasses.asdict(self)``, written out: asdict's recursive copy was half of
        the time a merge of a large shard set took.
        """
        return {
            **{name: getattr(self, name) for name in _RECORD_FIELDS},
            "status": dict(self.status),
            "deltas": {metric: list(pair) for metric, pair in self.deltas.items()},
            "findings": [finding.to_dict() for finding in self.findings],
            "written": list(self.written),
            "migrated": dict(self.migrated),
            "version_change": list(self.version_change),
            "compile_seconds": dict(self.compile_seconds),
            "step": dict(self.step),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CallRecord:
        """A report entry read back (:meth:`to_dict`'s output): its closed sets as their enums again."""
        fields = dict(data)
        fields["findings"] = [_finding(finding) for finding in fields.get("findings", ())]
        fields["status"] = {artifact: _STATUSES[status] for artifact, status in fields.get("status", {}).items()}
        if fields.get("migrated"):
            fields["migrated"] = {path: Migration(why) for path, why in fields["migrated"].items()}
        if fields.get("drift_cause") is not None:
            fields["drift_cause"] = DriftCause(fields["drift_cause"])
        return cls(**fields)


def _finding(data: Mapping[str, Any]) -> Finding:
    """A finding of a report entry (JSON lists back to tuples)."""
    fields = dict(data)
    for name in ("locations", "moves", "diff", "explanations"):
        if name in fields:
            fields[name] = tuple(fields[name])
    fields["kind"] = Kind(fields["kind"])
    if "change" in fields:
        fields["change"] = Change(fields["change"])
    detail = fields.get("detail")
    if detail:  # JSON lists back to the rows and source pairs they were written from
        fields["detail"] = {
            **detail,
            "sources": [(place, counts) for place, counts in detail["sources"]],
            "hunks": [[tuple(row) for row in hunk] for hunk in detail["hunks"]],
        }
    return Finding(**fields)


# Each status by its value: a merge reads every status of every call, and a lookup here is cheaper than Status(value).
_STATUSES = {status.value: status for status in Status}
_FINDING_FIELDS = tuple(f.name for f in dataclasses.fields(Finding))
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(CallRecord))
