"""What changed between two JSON-ready values, by path, and the comparison of a JSON artifact by it.

Read from deepdiff's tree view; imported (with deepdiff) at the first JSON artifact that differs, so that an
unchanged snapshot never pays for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import deepdiff
from deepdiff import helper as deepdiff_helper

from pytest_stages.analyse.artifacts import check_kind
from pytest_stages.core.records import Compared, Finding, Pair


def deep_diff(before: object, after: Any, **options: Any) -> Any:
    """deepdiff's tree view, always down to the changed leaves.

    By default deepdiff reports a dict that shares under a third of its keys with the other
    side as one replaced value (``threshold_to_diff_deeper``); a snapshot whose cost gained
    twenty per-operand figures would then have no changed figure to name.
    """
    return deepdiff.DeepDiff(before, after, view="tree", threshold_to_diff_deeper=0, **options)


def levels(diff: Any) -> Iterable[Any]:
    """Every changed place of a deepdiff tree view, whatever the kind of change."""
    for report in diff.values():
        yield from report


def show(value: object) -> str:
    """A value as the details write it: JSON, or ``absent``."""
    return "absent" if value is None else json.dumps(value, sort_keys=True)


def structure(pair: Pair) -> Compared:
    """A JSON artifact without a family of its own: ``['inputs']['x']['shape']: [2] -> [3]`` (deepdiff)."""
    findings, kind = [], check_kind(pair.artifact)
    for level in levels(deep_diff(pair.before, pair.after)):
        where = level.path().removeprefix("root")
        old, new = (None if value is deepdiff_helper.notpresent else value for value in (level.t1, level.t2))
        message = f"{where}: {show(old)} -> {show(new)}"
        findings.append(Finding(kind, pair.artifact, message, subject=where, before=old, after=new))
    return Compared(sorted(findings, key=lambda f: f.message))
