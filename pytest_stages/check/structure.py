"""The generic comparison of a JSON artifact: one finding per changed value, named by its path."""

from __future__ import annotations

from pytest_stages.analyse.artifacts import check_kind
from pytest_stages.check import deepdiff_helper
from pytest_stages.check.changed_paths import deep_diff, levels, show
from pytest_stages.check.pair import Compared, Pair
from pytest_stages.core.records import Finding


def structure(pair: Pair) -> Compared:
    """Any JSON artifact without a family of its own: ``['inputs']['x']['shape']: [2] -> [3]`` (deepdiff)."""
    findings = []
    for level in levels(deep_diff(pair.before, pair.after)):
        where = level.path().removeprefix("root")
        old, new = (None if value is deepdiff_helper.notpresent else value for value in (level.t1, level.t2))
        findings.append(
            Finding(
                check_kind(pair.artifact),
                pair.artifact,
                f"{where}: {show(old)} -> {show(new)}",
                subject=where,
                before=old,
                after=new,
            )
        )
    return Compared(sorted(findings, key=lambda f: f.message))
