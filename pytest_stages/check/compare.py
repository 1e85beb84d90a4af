"""Comparison: a snapshot and a fresh artifact in, findings out, by the family the artifact table names.

Each family is its own module: IR drift of stage texts (:mod:`~pytest_stages.check.drift`), op
structure (:mod:`~pytest_stages.check.ops`), cost and memory figures
(:mod:`~pytest_stages.check.figures`), shardings and layouts (:mod:`~pytest_stages.check.placement`),
kernel findings (:mod:`~pytest_stages.check.kernel_changes`) and the generic JSON comparison
(:func:`~pytest_stages.check.changed_paths.structure`). Each takes a
:class:`~pytest_stages.core.records.Pair` and gives a :class:`~pytest_stages.core.records.Compared`.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_stages.analyse.artifacts import BY_NAME, check_kind
from pytest_stages.check.changed_paths import structure
from pytest_stages.check.drift import ir_drift
from pytest_stages.check.figures import figures
from pytest_stages.check.kernel_changes import kernel_findings
from pytest_stages.check.ops import op_structure
from pytest_stages.check.placement import placement
from pytest_stages.core.records import Change, Compared, Finding, Pair

NO_SNAPSHOT = "no snapshot yet"

FAMILIES: dict[str, Callable[[Pair], Compared]] = {
    "ir": ir_drift,
    "ops": op_structure,
    "figures": figures,
    "placement": placement,
    "structure": structure,
    "kernels": kernel_findings,
}


def compare_pair(pair: Pair) -> Compared:
    """Compare with the family the artifact table names for ``pair.artifact``."""
    return FAMILIES[BY_NAME[pair.artifact].family](pair)


def no_snapshot(artifact: str) -> Finding:
    """The finding of an artifact never recorded."""
    return Finding(check_kind(artifact), artifact, NO_SNAPSHOT, change=Change.NO_SNAPSHOT)
