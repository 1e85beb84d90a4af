"""The verdict of one call: findings, the run mode and the version policy in; pass, fail or skip out.

Pure. ``--stages-update`` (and a version mismatch under ``warn``) fails only on budgets; under ``semantic``
IR text drift is upgrade churn; ``--stages-check`` narrows which kinds fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from pytest_stages.analyse.artifacts import BUDGET
from pytest_stages.check.upgrade import is_churn
from pytest_stages.config.settings import VersionMode
from pytest_stages.core.records import Finding


@dataclass(frozen=True)
class Policy:
    """What decides a call besides its findings: the mode, the version policy, the enforced kinds."""

    update: bool
    on_version_mismatch: VersionMode
    enforced: tuple[str, ...]

    def skips(self, mismatch: str) -> bool:
        """``on_version_mismatch = "skip"``: snapshots of other versions are not compared at all."""
        return bool(mismatch) and self.on_version_mismatch == "skip" and not self.update


@dataclass(frozen=True)
class Verdict:
    """The failing findings (none: the call passes), and what the message adds below them.

    ``churn`` and ``unenforced`` name artifacts whose failing findings did not fail the call
    (upgrade churn; kinds ``--stages-check`` left out); ``passing`` are improvements and notes.
    All three are empty in update mode, where only budgets are judged.
    """

    failing: tuple[Finding, ...] = ()
    churn: tuple[str, ...] = ()
    unenforced: tuple[str, ...] = ()
    passing: tuple[Finding, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failing

    @property
    def only_budget(self) -> bool:
        return all(f.kind == BUDGET for f in self.failing)


def decide(findings: Sequence[Finding], policy: Policy, mismatch: str) -> Verdict:
    """Which findings fail the call under ``policy``, given the version ``mismatch`` note ("" if none)."""
    failing = [f for f in findings if f.failing and f.kind in policy.enforced]
    if policy.update:
        return Verdict(tuple(f for f in failing if f.kind == BUDGET))

    def churn(finding: Finding) -> bool:
        return finding.recorded and is_churn(finding.kind, policy.on_version_mismatch, mismatch)

    # A file never recorded is not something an upgrade changed: it fails under every policy.
    warn = bool(mismatch) and policy.on_version_mismatch == "warn"
    failing = [f for f in failing if (f.kind == BUDGET or not f.recorded if warn else not churn(f))]
    churned = _names(f for f in findings if f.failing and churn(f))
    return Verdict(tuple(failing), churned, _unenforced(findings, failing, churned), _passing(findings))


def _unenforced(findings: Sequence[Finding], failing: Sequence[Finding], churned: Sequence[str]) -> tuple[str, ...]:
    """Artifacts that changed but fail nothing in this run (their kind is not checked), churn aside."""
    return _names(f for f in findings if f.failing and f not in failing and f.artifact not in churned)


def _passing(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    return tuple(f for f in findings if not f.failing)


def _names(findings: Iterable[Finding]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f.artifact for f in findings))


def judged(findings: Sequence[Finding], verdict: Verdict) -> list[Finding]:
    """``findings`` with ``failing`` as the verdict decided, for the reports.

    Upgrade churn, kinds not checked in this run and the drift an update accepts did not fail
    the test, so the reports must not call them failing.
    """
    failed = {id(f) for f in verdict.failing}
    return [f if f.failing == (id(f) in failed) else replace(f, failing=id(f) in failed) for f in findings]
