"""The compile-count check: a ``.compiles.json`` snapshot and a fresh count in, findings out (pure).

A rise fails, naming the new signatures and JAX's explanation of each extra trace; a function that no longer
ran fails too; signatures compare as sets (docs/compiles.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_stages.core.records import Change, Finding, Kind

KIND = Kind.COMPILES
STEPS = ("traces", "lowerings", "compiles")
EXPLANATION_LINES = 8


def compare_counts(
    before: Mapping[str, Any], after: Mapping[str, Any], explanations: Mapping[str, Sequence[str]]
) -> list[Finding]:
    """One finding per function whose counts or signatures changed (``explanations``: JAX's, per function, in order)."""
    old, new = before.get("functions", {}), after.get("functions", {})
    findings = (
        _judge(name, old.get(name, {}), new.get(name, {}), explanations) for name in sorted(set(old) | set(new))
    )
    return [finding for finding in findings if finding is not None]


def _judge(
    name: str, was: Mapping[str, Any], now: Mapping[str, Any], explanations: Mapping[str, Sequence[str]]
) -> Finding | None:
    """One function's counts: never ran (fails), a rise or a new signature (fails), a fall (passes), or nothing."""
    if was and not any(now.get(s, 0) for s in STEPS):
        # Not an improvement: the block no longer runs the function it watches (the code now
        # compiles something else, or nothing), so its count says nothing about the code.
        compiled = was.get("compiles", 0)
        message = f"{name}: never ran; it compiled {compiled} times in the snapshot"
        return Finding(KIND, KIND, message, change=Change.NEVER_RAN, subject=name, before=compiled, after=0)
    rises, falls = _moves(was, now, rising=True), _moves(was, now, rising=False)
    known = set(was.get("signatures", []))
    added = [sig for sig in now.get("signatures", []) if sig not in known]
    if rises or added:
        extra = _cut(explanations.get(name, ())[was.get("traces", 0) :])
        message = _line(name, rises or ["new signatures"], added)
        return Finding(
            KIND, KIND, message, change=Change.COUNTS, subject=name, before=was, after=now, explanations=extra
        )
    if falls or known != set(now.get("signatures", [])):
        message = f"{name}: {'; '.join(falls) or 'fewer signatures'}"
        return Finding(KIND, KIND, message, failing=False, change=Change.COUNTS, subject=name, before=was, after=now)
    return None


def _moves(was: Mapping[str, object], now: Mapping[str, Any], *, rising: bool) -> list[str]:
    """The steps whose count rose (or fell): ``4 compiles, was 3``."""
    moved = [s for s in STEPS if (now.get(s, 0) > was.get(s, 0) if rising else now.get(s, 0) < was.get(s, 0))]
    return [f"{now.get(s, 0)} {s}, was {was.get(s, 0)}" for s in moved]


def check_budget(
    ceiling: int | Mapping[str, int], data: Mapping[str, Any], explanations: Mapping[str, Sequence[str]]
) -> list[Finding]:
    """The ``compiles`` budget: one failing finding per function with more backend compiles than its ceiling."""
    findings = []
    for name, counts in data.get("functions", {}).items():
        limit = ceiling.get(name) if isinstance(ceiling, Mapping) else ceiling
        if limit is not None and counts["compiles"] > limit:
            over = [f"{counts['compiles']} compiles exceed the ceiling {limit}"]
            message = _line(name, over, counts["signatures"][limit:])
            extra = _cut(explanations.get(name, ())[limit:])
            figures: dict[str, Any] = {"before": limit, "after": counts["compiles"], "explanations": extra}
            findings.append(Finding(Kind.BUDGET, Kind.BUDGET, message, change=Change.BREACH, subject=name, **figures))
    return findings


def _line(name: str, changes: Sequence[str], signatures: Sequence[str]) -> str:
    """``step: 4 compiles, was 3; new signature (f32[4,4], f32[4,4])``."""
    return f"{name}: {'; '.join(changes)}" + "".join(f"; new signature ({sig})" for sig in signatures)


def _cut(explanations: Sequence[str]) -> tuple[str, ...]:
    """Each of JAX's explanations cut to its first :data:`EXPLANATION_LINES` lines."""
    return tuple("\n".join(text.splitlines()[:EXPLANATION_LINES]) for text in explanations)


def explanation_lines(explanations: Sequence[str]) -> list[str]:
    """JAX's explanations as the details show them under a finding's line: ``JAX: <first line>``, then the rest."""
    lines = []
    for text in explanations:
        first, *rest = text.splitlines()
        lines += [f"JAX: {first}", *rest]
    return lines
