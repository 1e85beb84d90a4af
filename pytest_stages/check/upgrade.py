"""JAX upgrades: the version note, the drift cause of a call, upgrade churn, and what the upgrade did.

Pure functions over snapshot metadata, call statuses and report data (docs/upgrades.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pytest_stages.analyse.artifacts import ARTIFACTS
from pytest_stages.check.figure_text import figure_values, informational, metric_short, percent_change
from pytest_stages.config.settings import VersionMode
from pytest_stages.core.records import CallRecord, DriftCause, Kind, Status
from pytest_stages.core.units import relative_change

FRONTEND_ARTIFACTS = tuple(a.name for a in ARTIFACTS if a.frontend)
COMPILER_ARTIFACTS = tuple(a.name for a in ARTIFACTS if not a.frontend)
CHURN_KIND = Kind.TEXT
DRIFTED = (Status.CHANGED, Status.IMPROVED)
SECTION_TITLE = "What the upgrade did"
MAX_FIGURES = 20
MAX_TIMES = 10


def version_change(meta: Mapping[str, object] | None, current: Mapping[str, str]) -> tuple[str, str] | None:
    """``("jax 0.9.0, jaxlib 0.9.1", "jax 0.10.2, jaxlib 0.10.2")``: the versions then and now, None when they match."""
    if meta is None:
        return None
    # A version the folder does not record (libtpu in a folder recorded lowered only, or before
    # it was recorded) is unknown, not a change.
    known = {k: v for k, v in current.items() if meta.get(k) is not None}
    recorded = {k: meta.get(k) for k in known}
    if recorded == known:
        return None
    return ", ".join(f"{k} {v}" for k, v in recorded.items()), ", ".join(f"{k} {v}" for k, v in known.items())


def version_note(meta: Mapping[str, object] | None, current: Mapping[str, str]) -> str:
    """``snapshots were taken with jax A, jaxlib B; this run uses ...``, or "" when they match."""
    change = version_change(meta, current)
    return "" if change is None else f"snapshots were taken with {change[0]}; this run uses {change[1]}"


def drift_cause(status: Mapping[str, Status]) -> DriftCause:
    """The cause of a call's drift from its artifact statuses (``changed``/``improved`` drifted).

    A changed StableHLO with a changed compiled program is ``both`` (docs/upgrades.md says why no
    ``jax.export`` artifact tells them apart).
    """
    drifted = {artifact for artifact, state in status.items() if state in DRIFTED}
    frontend = bool(drifted & set(FRONTEND_ARTIFACTS))
    compiler = bool(drifted & set(COMPILER_ARTIFACTS))
    causes = {(True, True): DriftCause.BOTH, (True, False): DriftCause.FRONTEND, (False, True): DriftCause.COMPILER}
    return causes.get((frontend, compiler), DriftCause.NONE)


def is_churn(kind: Kind, mode: VersionMode, note: str) -> bool:
    """Whether a failing finding of ``kind`` is upgrade churn that does not fail the test."""
    return bool(note) and mode == "semantic" and kind == CHURN_KIND


def _label(call: CallRecord) -> str:
    return f"{call.nodeid} {call.name}"


def upgrade_section(calls: Sequence[CallRecord], baseline: Sequence[CallRecord] = ()) -> list[str]:
    """The suite-wide upgrade summary of a run's calls (empty when no version changed).

    Versions, calls drifted by cause, figures moved, text-only churn, and, given ``baseline`` (an earlier
    report: snapshots hold no time), the calls whose compile time moved most.
    """
    upgraded = [call for call in calls if call.version_change]
    if not upgraded:
        return []
    changes = sorted({(call.version_change[0], call.version_change[1]) for call in upgraded})
    lines = [f"versions: {old} -> {new}" for old, new in changes]
    causes = Counter(call.drift_cause or DriftCause.NONE for call in upgraded)
    drifting = [cause for cause in DriftCause if cause != DriftCause.NONE]
    drifted = sum(causes[c] for c in drifting)
    by_cause = ", ".join(f"{causes[c]} {c}" for c in drifting)
    lines.append(f"calls drifted: {drifted} of {len(upgraded)} ({by_cause})")
    lines += _moved_figures(upgraded)
    churn = [call for call in upgraded if _text_only(call)]
    lines.append(f"text-only churn: {len(churn)} call(s) drifted in IR text or op structure only")
    return lines + compile_time_moves(upgraded, baseline)


def compile_time_moves(calls: Sequence[CallRecord], baseline: Sequence[CallRecord]) -> list[str]:
    """``compile time moved most:`` calls timed on both sides (same test, config, name), largest change first.

    Totals of trace, lower and compile seconds; calls whose compile either side read from the
    persistent cache are left out (a read is not a compile).
    """
    if not baseline:
        return []
    # A baseline of 0 s (nothing timed) has no change to rank: +inf% says nothing.
    before = {
        _key(call): call
        for call in baseline
        if call.compile_seconds and not call.cached and sum(call.compile_seconds.values()) > 0
    }
    moved = []
    for call in calls:
        old = before.get(_key(call))
        if old is None or not call.compile_seconds or call.cached:
            continue
        moved.append((call, sum(old.compile_seconds.values()), sum(call.compile_seconds.values())))
    if not moved:
        return []
    moved.sort(key=lambda item: (-abs(relative_change(item[1], item[2])), _label(item[0])))
    lines = [f"compile time moved most ({len(moved)} call(s) timed on both sides; wall time, noisy):"]
    lines += [
        f"  {_label(call)}: {old:.3g} s -> {new:.3g} s ({relative_change(old, new):+.0%})"
        for call, old, new in moved[:MAX_TIMES]
    ]
    return lines


def _key(call: CallRecord) -> tuple[str, str, str]:
    return call.nodeid, call.config, call.name


def _moved_figures(calls: Sequence[CallRecord]) -> list[str]:
    """``figures moved: N, largest first:`` and up to :data:`MAX_FIGURES` of them."""
    figures = [
        (call, metric, old, new)
        for call in calls
        for metric, (old, new) in sorted(call.deltas.items())
        if not informational(metric)
    ]
    figures.sort(key=lambda item: (-abs(relative_change(item[2], item[3])), _label(item[0]), item[1]))
    lines = [f"figures moved: {len(figures)}" + (", largest first:" if figures else "")]
    lines += [
        f"  {_label(call)}: {metric_short(metric)} {_figures(old, new)}"
        for call, metric, old, new in figures[:MAX_FIGURES]
    ]
    if len(figures) > MAX_FIGURES:
        lines.append(f"  ... {len(figures) - MAX_FIGURES} more")
    return lines


def _figures(old: float, new: float) -> str:
    """``1.28e6 -> 1.35e6 (+5.1%)``; figures and change keep enough digits to differ."""
    change = relative_change(old, new)
    percent = percent_change(old, new) if old == 0 or abs(change) >= 0.001 else f"{change * 100:+.2g}%"
    return f"{figure_values(old, new)} ({percent})"


def _text_only(call: CallRecord) -> bool:
    kinds = {f.kind for f in call.findings if f.kind != Kind.SKIPPED}
    return kinds == {CHURN_KIND} and not call.deltas
