"""The figures of every call through the commits that recorded them: series, the moves beyond tolerance, notes.

The files come from git (:mod:`pytest_stages.store.git_history`) and are read as the compare reads them
(:func:`~pytest_stages.store.schemas.judge_snapshot`: JSON as pytest-stages writes it, each kind's schema),
every snapshot format included: a format-1 cost file holds the lowered figures beside the compiled ones,
and the staged figures are the compiled ones there too. A move is judged with the tolerance the compare
uses (:func:`~pytest_stages.check.figures.metric_tolerance`). :func:`build` is pure.
"""

from __future__ import annotations

import functools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from pytest_stages.analyse import step_time
from pytest_stages.analyse.analyses import figure_key, figure_name, staged_cost
from pytest_stages.check.budgets import COST_METRICS, Budget, Share, budget_for, peak_bytes
from pytest_stages.check.figures import metric_tolerance
from pytest_stages.core.inputs import UNPARSED
from pytest_stages.core.units import relative_change
from pytest_stages.store.git_history import Commit, FileChange, Log, read_blobs, read_log
from pytest_stages.store.names import REGISTERED_MODULE, module_source
from pytest_stages.store.schemas import judge_snapshot

# The snapshot files that hold figures, by suffix: the artifact each one is.
FIGURE_FILES = {".cost.json": "cost", ".memory.json": "memory", ".ops.json": "ops", ".compiles.json": "compiles"}
# Where a figure absent from a file it was in reads as 0: XLA leaves a zero cost figure out.
ABSENT_IS_ZERO = ("cost",)
# The commit index of a value recorded before the oldest commit read (the old side of its first change).
BEFORE = -1


@dataclass(frozen=True, order=True)
class Call:
    """One staged call's snapshots: ``<module>/<test>/<config>/<name>.<artifact>`` under the snapshot folder."""

    module: str
    test: str
    config: str
    name: str

    @functools.cached_property
    def nodeid(self) -> str:
        """The test's node id as pytest names it (``examples/test_models.py::test_mlp``; ``stages::f`` for a
        registered function)."""
        source = module_source(self.module)
        return f"{source or self.module}::{self.test}" if self.module != REGISTERED_MODULE else f"stages::{self.test}"

    @property
    def label(self) -> str:
        return f"{self.nodeid} [{self.config}] {self.name}"


@dataclass(frozen=True)
class Point:
    """A figure's value from commit ``commit`` (an index into the history's commits; :data:`BEFORE`) on."""

    commit: int
    value: float


@dataclass(frozen=True)
class Move:
    """A figure that moved beyond its tolerance at commit ``commit`` (an index): old -> new, relative change."""

    commit: int
    call: Call
    figure: str
    old: float
    new: float
    change: float
    tolerance: float


@dataclass(frozen=True)
class Series:
    """One figure of one call through the commits, and the ``stages_budget`` ceiling the pyproject sets."""

    call: Call
    figure: str
    points: tuple[Point, ...]
    ceiling: float | None


@dataclass(frozen=True)
class History:
    """What ``pytest-stages history`` read: the commits (oldest first), each figure's series, the moves and
    one note per thing it could not read as written (a corrupt file, a rename git did not see, a shallow clone)."""

    folder: str
    log: Log
    series: tuple[Series, ...]
    moves: tuple[Move, ...]
    notes: tuple[str, ...]
    renamed: Mapping[Call, tuple[Call, ...]] = field(default_factory=dict)

    @property
    def commits(self) -> tuple[Commit, ...]:
        return self.log.commits


@functools.lru_cache(maxsize=1 << 16)
def call_of(path: str, folder: str) -> tuple[Call, str] | None:
    """The call and artifact of a figure file at ``path`` (repository-relative) under the snapshot ``folder``."""
    if not path.startswith(f"{folder}/"):
        return None
    parts = path[len(folder) + 1 :].split("/")
    if len(parts) < 4:
        return None
    *module, test, config, name = parts
    suffix = next((s for s in FIGURE_FILES if name.endswith(s)), None)
    if suffix is None or not module or not all(module):
        return None
    return Call("/".join(module), test, config, name.removesuffix(suffix)), FIGURE_FILES[suffix]


def figures(artifact: str, data: Mapping[str, object]) -> dict[str, float]:
    """The judged figures of one snapshot file, named as budgets and tolerances name them."""
    read = _FIGURES.get(artifact)
    out = read(data) if read is not None else {}
    return {name: value for name, value in out.items() if _number(value)}


def _cost_figures(data: Mapping[str, object]) -> dict[str, object]:
    cost = staged_cost(dict(data))
    out: dict[str, object] = {name: cost.get(key) or 0 for name, key in COST_METRICS.items()} if cost else {}
    step = data.get(step_time.KEY)
    if isinstance(step, Mapping):
        out[step_time.SECONDS] = step.get(step_time.SECONDS)
    return out


def _memory_figures(data: Mapping[str, object]) -> dict[str, object]:
    return {**{figure_name(key): value for key, value in data.items()}, "peak_bytes": peak_bytes(data)}


def _ops_figures(data: Mapping[str, Any]) -> dict[str, object]:
    collectives = [c for c in data.get("collectives", []) if isinstance(c, Mapping)]
    out: dict[str, object] = {f"collectives[{op}]": n for op, n in Counter(str(c["op"]) for c in collectives).items()}
    for c in collectives:
        if _number(c.get("bytes")):
            key = f"collective_bytes[{c['op']}]"
            out[key] = out.get(key, 0) + c["bytes"]
    return out


def _compiles_figures(data: Mapping[str, Any]) -> dict[str, Any]:
    return {f"compiles[{fn}]": entry.get("compiles") for fn, entry in data.get("functions", {}).items()}


# Each judged artifact's figures, by the artifact's name; the others have none.
_FIGURES: dict[str, Callable[[Mapping[str, object]], dict[str, Any]]] = {
    "cost": _cost_figures,
    "memory": _memory_figures,
    "ops": _ops_figures,
    "compiles": _compiles_figures,
}


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def ceilings(budget: Mapping[str, object]) -> dict[str, float]:
    """A budget table's ceilings by figure name (a share of a device's memory has no one figure; left out)."""
    out: dict[str, float] = {}
    for metric, ceiling in budget.items():
        if isinstance(ceiling, Mapping):
            out |= {f"{metric}[{name}]": float(limit) for name, limit in ceiling.items()}
        elif not isinstance(ceiling, Share) and _number(ceiling):
            out[metric] = float(ceiling)
    return out


class _Reader:
    """The walk over the commits, oldest first: each figure file's values, moves and notes (see :func:`build`)."""

    def __init__(
        self, log: Log, blobs: Mapping[str, bytes | None], folder: str, tolerances: Mapping[str, float]
    ) -> None:
        self.log, self.blobs, self.folder, self.tolerances = log, blobs, folder, tolerances
        self.group: dict[tuple[Call, str], int] = {}  # a file's (call, artifact) -> its line of history
        self.names: list[Call] = []  # each line's newest name
        self.points: dict[tuple[int, str], list[Point]] = defaultdict(list)
        self.last: dict[int, dict[str, float]] = defaultdict(dict)  # each line's newest value per figure
        self.moves: list[Move] = []
        self.notes: list[str] = []
        self.renamed: dict[int, list[Call]] = defaultdict(list)
        self.read: dict[tuple[str, str], dict[str, float] | None] = {}  # each (blob, artifact) read once

    def walk(self) -> None:
        for index, commit in enumerate(self.log.commits):
            gone: set[Call] = set()
            new: set[Call] = set()
            for change in commit.changes:
                found = call_of(change.path, self.folder)
                if found is not None and change.status == "D":
                    if self.group.pop(found, None) is not None:
                        gone.add(found[0])
                elif found is not None and self._change(index, commit, change, found):
                    new.add(found[0])
            if gone and new and not gone & new:
                self.notes.append(
                    f"{commit.short} ({commit.subject}): the snapshots of {_calls(gone)} were deleted and those of "
                    f"{_calls(new)} added; git saw no rename (the files changed too much, or the call did not move "
                    "whole), so their figures are listed apart."
                )

    def _change(self, index: int, commit: Commit, change: FileChange, found: tuple[Call, str]) -> bool:
        """Read one added or changed file; whether it began a new line of history (an added call's file)."""
        call, artifact = found
        began = False
        line = None
        if change.old_path is not None:
            old = call_of(change.old_path, self.folder)
            line = self.group.pop(old, None) if old else None
            if line is not None and old and old[0] != call:
                self.renamed[line].append(old[0])
        if line is None:
            line = self.group.get((call, artifact))
        if line is None:
            line = len(self.names)
            self.names.append(call)
            if change.status == "A":
                began = True
            elif change.old_blob is not None:  # recorded before the oldest commit read: its value then
                before = self._read(change.old_blob, change.old_path or change.path, artifact, commit)
                for figure, value in (before or {}).items():
                    self.points[line, figure].append(Point(BEFORE, value))
                    self.last[line][figure] = value
        self.group[call, artifact] = line
        self.names[line] = call
        if change.new_blob is not None:
            now = self._read(change.new_blob, change.path, artifact, commit)
            if now is not None:
                self._record(index, line, artifact, now)
        return began

    def _record(self, index: int, line: int, artifact: str, now: dict[str, float]) -> None:
        held = self.last[line]
        if artifact in ABSENT_IS_ZERO:
            now = {**dict.fromkeys(held, 0.0), **now}
        for figure, value in list(now.items()):
            old = held.get(figure)
            if old == value:
                continue
            self.points[line, figure].append(Point(index, value))
            held[figure] = value
            if old is None:
                continue
            tolerance = metric_tolerance(figure_key(figure), old, value, self.tolerances)
            change = relative_change(old, value)
            if abs(change) > tolerance:
                self.moves.append(Move(index, self.names[line], figure, old, value, change, tolerance))

    def _read(self, blob: str, path: str, artifact: str, commit: Commit) -> dict[str, float] | None:
        """A blob's figures, read once (a reverted or re-recorded file is a blob already read)."""
        if (blob, artifact) not in self.read:
            self.read[blob, artifact] = self._figures(blob, path, artifact, commit)
        return self.read[blob, artifact]

    def _figures(self, blob: str, path: str, artifact: str, commit: Commit) -> dict[str, float] | None:
        raw = self.blobs.get(blob)
        if raw is None:
            self.notes.append(f"{commit.short}: {path} is not in this clone (a partial clone?); skipped.")
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            why: str | None = f"not UTF-8 text (byte {exc.start})"
        else:
            data, why = judge_snapshot(path, text)
            if data is UNPARSED:
                why = "not valid JSON"
        if why is not None or not isinstance(data, Mapping):
            self.notes.append(
                f"{commit.short} ({commit.subject}): {path} does not hold what pytest-stages writes there ({why}); "
                "skipped: its figures are compared with the last file that read."
            )
            return None
        return figures(artifact, data)

    def series(self, budgets: Mapping[str, Budget]) -> Iterator[Series]:
        for (line, figure), points in sorted(self.points.items(), key=lambda item: (self.names[item[0][0]], item[0])):
            call = self.names[line]
            ceiling = ceilings(budget_for(call.nodeid, budgets, {})).get(figure) if budgets else None
            yield Series(call, figure, tuple(points), ceiling)


def _calls(calls: set[Call]) -> str:
    return ", ".join(call.label for call in sorted(calls))


def build(
    log: Log,
    blobs: Mapping[str, bytes | None],
    folder: str,
    tolerances: Mapping[str, float],
    budgets: Mapping[str, Budget],
) -> History:
    """The history of the figure files under ``folder`` that ``log``'s commits changed, read from ``blobs``."""
    reader = _Reader(log, blobs, folder, tolerances)
    reader.walk()
    renamed = {reader.names[line]: tuple(old) for line, old in reader.renamed.items()}
    return History(folder, log, tuple(reader.series(budgets)), tuple(reader.moves), tuple(reader.notes), renamed)


def wanted_blobs(log: Log, folder: str) -> Iterator[str]:
    """The blobs :func:`build` reads: each figure file's new side, and the old side of a file read first."""
    for commit in log.commits:
        for change in commit.changes:
            if call_of(change.path, folder) is None:
                continue
            yield from (blob for blob in (change.old_blob, change.new_blob) if blob is not None)


def read_history(
    root: Path,
    folder: str,
    tolerances: Mapping[str, float],
    budgets: Mapping[str, Budget],
    *,
    since: str | None = None,
    max_count: int | None = None,
    first_parent: bool = True,
    paths: Sequence[str] = (),
) -> History:
    """The history of the snapshot ``folder`` (relative to the repository ``root``; or only of ``paths`` under
    it) on HEAD, read through git."""
    log = read_log(root, folder, since=since, max_count=max_count, first_parent=first_parent, paths=paths)
    return build(log, read_blobs(root, wanted_blobs(log, folder)), folder, tolerances, budgets)
